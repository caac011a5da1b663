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

} // namespace baton::electionconfig
