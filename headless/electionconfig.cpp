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

bool steer(QJsonObject &services, const ClusterService *cluster, std::optional<int> priority,
           std::optional<qint64> preferAfterMs, bool standby, QString *errorString)
{
    if (cluster->type().endsWith(QLatin1String("/LocalClusterService"))) {
        *errorString = QStringLiteral("--priority, --prefer-after and --standby: lease \"%1\" is elected "
                                      "within this process only: it has no other candidates")
                               .arg(cluster->leaseName());
        return false;
    }
    QJsonObject entry = services.value(cluster->name()).toObject();
    if (priority)
        entry.insert(QStringLiteral("priority"), *priority);
    if (preferAfterMs)
        entry.insert(QStringLiteral("preferAfter"), double(*preferAfterMs));
    if (standby)
        entry.insert(QStringLiteral("standby"), true);
    services.insert(cluster->name(), entry);
    return true;
}

} // namespace baton::electionconfig
