#include <baton/servicefactory.h>

#include "candidateroster.h"
#include "etcdstore.h"
#include "filestore.h"
#include "kubernetesclusterservice.h"
#include "localclusterservice.h"
#include "memorystore.h"
#include "storeclusterservice.h"

#include <QHash>
#include <QMutex>

namespace baton {

namespace {

struct TypeRegistry
{
    QMutex mutex;
    QHash<QString, ServiceFactory::Creator> creators; // by full name
    QHash<QString, QStringList> declared; // by full name; absent: not checked

    TypeRegistry()
    {
        add<MemoryStore>(QStringLiteral("Webda/MemoryStore"));
        add<FileStore>(QStringLiteral("Webda/FileStore"));
        add<EtcdStore>(QStringLiteral("Webda/EtcdStore"));
        add<StoreClusterService>(QStringLiteral("Webda/StoreClusterService"), &CandidateRoster::attach);
        add<KubernetesClusterService>(QStringLiteral("Webda/KubernetesClusterService"), &CandidateRoster::attach);
        add<LocalClusterService>(QStringLiteral("Webda/LocalClusterService"));
    }
    /*! \a made completes each service made (the candidate roster of an election with other candidates). */
    template<typename T>
    void add(const QString &fullName, void (*made)(ClusterService *) = nullptr)
    {
        creators.insert(fullName, [made](const QString &name, const QJsonObject &parameters,
                                         Application *app) {
            T *service = new T(name, parameters, app);
            if constexpr (std::is_base_of_v<ClusterService, T>) {
                if (made)
                    made(service);
            } else {
                Q_UNUSED(made); // only services have something to complete
            }
            return service;
        });
        declared.insert(fullName, T::parameterNames());
    }
    QString resolve(const QString &typeName) const
    {
        if (creators.contains(typeName))
            return typeName;
        if (typeName.contains(QLatin1Char('/')))
            return {};
        QString found;
        for (auto it = creators.constBegin(); it != creators.constEnd(); ++it) {
            if (it.key().section(QLatin1Char('/'), -1) == typeName) {
                // Two vendors with the same short name: only the full name is clear.
                if (!found.isEmpty())
                    return {};
                found = it.key();
            }
        }
        return found;
    }
};

TypeRegistry &registry()
{
    static TypeRegistry types;
    return types;
}

} // namespace

void ServiceFactory::registerType(const QString &fullName, Creator creator,
                                  const QStringList &declared)
{
    TypeRegistry &types = registry();
    QMutexLocker lock(&types.mutex);
    types.creators.insert(fullName, std::move(creator));
    if (declared.isEmpty())
        types.declared.remove(fullName);
    else
        types.declared.insert(fullName, declared);
}

QStringList ServiceFactory::parameters(const QString &typeName)
{
    TypeRegistry &types = registry();
    QMutexLocker lock(&types.mutex);
    return types.declared.value(types.resolve(typeName));
}

QString ServiceFactory::resolve(const QString &typeName)
{
    TypeRegistry &types = registry();
    QMutexLocker lock(&types.mutex);
    return types.resolve(typeName);
}

QStringList ServiceFactory::types()
{
    TypeRegistry &types = registry();
    QMutexLocker lock(&types.mutex);
    QStringList names = types.creators.keys();
    names.sort();
    return names;
}

Service *ServiceFactory::create(const QString &typeName, const QString &name,
                                const QJsonObject &parameters, Application *application)
{
    Creator creator;
    QString fullName;
    {
        TypeRegistry &types = registry();
        QMutexLocker lock(&types.mutex);
        fullName = types.resolve(typeName);
        creator = types.creators.value(fullName);
    }
    if (!creator)
        return nullptr;
    return creator(name, parameters, application);
}

} // namespace baton
