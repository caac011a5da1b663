#include "electionscope.h"

#include <baton/application.h>
#include <baton/clusterservice.h>
#include <QDir>
#include <QJsonObject>
#include <QJsonValue>

namespace baton {

namespace {

const QString registryName = QStringLiteral("Registry");

// Where a FileStore without a folder, the default Registry among them, keeps
// its files (FileStore and Application::registry() say the same).
QString registryFolderOf(const Application &application)
{
    return QDir(application.dataFolder()).filePath(QStringLiteral("registry"));
}

QString folderOf(const Service &store)
{
    const QString folder = store.parameters().value(QStringLiteral("folder")).toString();
    if (!folder.isEmpty() || !store.application())
        return folder;
    return registryFolderOf(*store.application());
}

QString defaultText(const QString &folder)
{
    return QStringLiteral("this host only: the default file Registry at %1 (no Registry in the "
                          "configuration); participants on other hosts elect leaders of their own: "
                          "for one election across hosts, configure a shared store (etcd) as the "
                          "Registry")
        .arg(folder);
}

} // namespace

ElectionScope storeScope(const Service &store, bool defaultRegistry)
{
    const QString type = store.type();
    const QString named = store.name() == registryName
        ? QStringLiteral("Registry")
        : QStringLiteral("store \"%1\"").arg(store.name());
    // The default Registry is always a file Registry, whatever type() says
    // of a store made outside a configuration.
    if (defaultRegistry)
        return { defaultText(folderOf(store)), true, true };
    if (type == QLatin1String("Webda/FileStore"))
        return { QStringLiteral("this host only: file %1 at %2").arg(named, folderOf(store)), true,
                 false };
    if (type == QLatin1String("Webda/MemoryStore"))
        return { QStringLiteral("this process only: memory %1").arg(named), true, false };
    return { QStringLiteral("every host that uses %1 (%2)").arg(named, type), false, false };
}

ElectionScope electionScope(const Application &application, const ClusterService &cluster)
{
    const QString type = cluster.type();
    if (type == QLatin1String("Webda/KubernetesClusterService"))
        return { QStringLiteral("every participant of its Kubernetes Lease"), false, false };
    if (type == QLatin1String("Webda/LocalClusterService"))
        return { QStringLiteral("this process only (Webda/LocalClusterService)"), true, false };
    const QJsonValue storeName = cluster.parameters().value(QStringLiteral("store"));
    if (const Service *store
        = application.service(storeName.isString() ? storeName.toString() : registryName))
        return storeScope(*store, false);
    return { defaultText(registryFolderOf(application)), true, true };
}

} // namespace baton
