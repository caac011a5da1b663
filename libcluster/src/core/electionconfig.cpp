#include "electionconfig.h"

#include <batoninternal/labelselector.h>

namespace baton {

namespace {

void putIfSet(QJsonObject &entry, const QString &key, const QString &value)
{
    if (!value.isEmpty())
        entry.insert(key, value);
}

double milliseconds(std::chrono::milliseconds duration)
{
    return double(duration.count());
}

} // namespace

QJsonObject electionEntry(const ElectionOptions &options)
{
    QJsonObject entry;
    // Written even when empty: an empty lease name is refused with the
    // file's message, not replaced by the default.
    entry.insert(QStringLiteral("leaseName"), options.leaseName);
    entry.insert(QStringLiteral("leaseDuration"), milliseconds(options.leaseDuration));
    entry.insert(QStringLiteral("renewInterval"), milliseconds(options.renewInterval));
    putIfSet(entry, QStringLiteral("instanceId"), options.instanceId);
    // Written when set, as a file would hold them: a local election
    // refuses them (it has no other candidates).
    const ElectionOptions defaults;
    if (options.priority != defaults.priority)
        entry.insert(QStringLiteral("priority"), options.priority);
    if (options.preferAfter != defaults.preferAfter)
        entry.insert(QStringLiteral("preferAfter"), milliseconds(options.preferAfter));
    if (options.standby)
        entry.insert(QStringLiteral("standby"), true);
    if (!options.labels.isEmpty())
        entry.insert(QStringLiteral("labels"), candidatelabels::toJson(options.labels));
    switch (options.backend) {
    case ElectionOptions::Backend::Store:
        entry.insert(QStringLiteral("type"), QStringLiteral("Webda/StoreClusterService"));
        entry.insert(QStringLiteral("historyLength"), options.historyLength);
        putIfSet(entry, QStringLiteral("store"), options.store);
        break;
    case ElectionOptions::Backend::Kubernetes: {
        const ElectionOptions::Kubernetes &kube = options.kubernetes;
        entry.insert(QStringLiteral("type"), QStringLiteral("Webda/KubernetesClusterService"));
        entry.insert(QStringLiteral("historyLength"), options.historyLength);
        entry.insert(QStringLiteral("timeout"), milliseconds(kube.timeout));
        putIfSet(entry, QStringLiteral("config"), kube.config);
        putIfSet(entry, QStringLiteral("context"), kube.context);
        putIfSet(entry, QStringLiteral("namespace"), kube.namespaceName);
        putIfSet(entry, QStringLiteral("tokenFile"), kube.tokenFile);
        break;
    }
    case ElectionOptions::Backend::Local:
        entry.insert(QStringLiteral("type"), QStringLiteral("Webda/LocalClusterService"));
        break;
    }
    return entry;
}

} // namespace baton
