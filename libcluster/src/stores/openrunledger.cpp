#include <batoninternal/openrunledger.h>

#include "servicehost.h"

#include <baton/clusterservice.h>
#include <baton/store.h>
#include <batoninternal/runledger.h>

namespace baton {

RunLedger *openRunLedger(ClusterService *cluster, QObject *parent, QString *errorString)
{
    if (cluster->type() == QLatin1String("Webda/KubernetesClusterService")) {
        *errorString = QStringLiteral("scheduled runs keep their records in a store: they work with "
                                      "leases kept in etcd or in files, not yet with Kubernetes Leases");
        return nullptr;
    }
    ServiceHost *host = ServiceHost::of(*cluster);
    Store *store = nullptr;
    const QString storeName = cluster->parameters().value(QStringLiteral("store")).toString();
    if (host && !storeName.isEmpty())
        store = qobject_cast<Store *>(host->service(storeName));
    if (host && !store)
        store = host->registry();
    if (!store) {
        *errorString = QStringLiteral("cluster service \"%1\": no store for the run records").arg(cluster->name());
        return nullptr;
    }
    return new RunLedger(store, cluster->leaseName(), parent);
}

} // namespace baton
