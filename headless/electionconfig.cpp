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
    for (Service *service : application.services()) {
        if (auto *cluster = qobject_cast<ClusterService *>(service)) {
            // P1 before anything starts; also gives the lease name.
            if (!cluster->validate(errorString)) {
                *errorString = QStringLiteral("%1: %2").arg(path, *errorString);
                return false;
            }
            clusters->append(cluster);
        }
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
