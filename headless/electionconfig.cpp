#include "electionconfig.h"

#include <baton/application.h>
#include <baton/clusterservice.h>

namespace baton::electionconfig {

bool load(Application &application, const QString &path, QList<ClusterService *> *clusters,
          QString *errorString)
{
    clusters->clear();
    if (!application.loadConfigFile(path, errorString))
        return false;
    // P1 before anything starts, every cluster's mistakes at once; also
    // gives the lease names.
    QStringList refusals;
    for (Service *service : application.services()) {
        if (auto *cluster = qobject_cast<ClusterService *>(service)) {
            QString refusal;
            if (!cluster->validate(&refusal))
                refusals.append(application.locateError(cluster->name(), refusal));
            clusters->append(cluster);
        }
    }
    if (!refusals.isEmpty()) {
        *errorString = refusals.join(QLatin1Char('\n'));
        return false;
    }
    if (clusters->isEmpty()) {
        *errorString = QStringLiteral("%1: no cluster service to join (add one of type "
                                      "\"Webda/StoreClusterService\")")
                           .arg(path);
        return false;
    }
    return true;
}

bool steer(QJsonObject &services, const ClusterService *cluster, const Steering &steering, QString *errorString)
{
    if (cluster->type().endsWith(QLatin1String("/LocalClusterService"))) {
        *errorString = QStringLiteral("--priority, --prefer-after, --standby and --label: lease \"%1\" is "
                                      "elected within this process only: it has no other candidates")
                               .arg(cluster->leaseName());
        return false;
    }
    QJsonObject entry = services.value(cluster->name()).toObject();
    if (steering.priority)
        entry.insert(QStringLiteral("priority"), *steering.priority);
    if (steering.preferAfterMs)
        entry.insert(QStringLiteral("preferAfter"), double(*steering.preferAfterMs));
    if (steering.standby)
        entry.insert(QStringLiteral("standby"), true);
    if (!steering.labels.isEmpty()) {
        // A file whose labels are not an object is refused when read: kept as written then.
        const QJsonValue written = entry.value(QStringLiteral("labels"));
        if (written.isObject() || written.isUndefined() || written.isNull()) {
            QJsonObject labels = written.toObject();
            for (auto it = steering.labels.cbegin(); it != steering.labels.cend(); ++it)
                labels.insert(it.key(), it.value());
            entry.insert(QStringLiteral("labels"), labels);
        }
    }
    services.insert(cluster->name(), entry);
    return true;
}

} // namespace baton::electionconfig
