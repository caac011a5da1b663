// Where the run records of a cluster service's lease live: beside the
// lease, in its store, or in ConfigMaps beside a Kubernetes Lease.

#include <batoninternal/openrunledger.h>

#include "kubeapiclient.h"
#include "kubernetesclusterservice.h"
#include "kubernetesleaseprotocol.h"
#include "kuberunrecords.h"

#include <batoninternal/runledger.h>

#include <baton/application.h>
#include <baton/clusterservice.h>
#include <baton/store.h>

namespace baton {

RunLedger *openRunLedger(ClusterService *cluster, QObject *parent, QString *errorString)
{
    if (auto *kubernetes = qobject_cast<KubernetesClusterService *>(cluster)) {
        std::unique_ptr<KubernetesLeaseProtocol> protocol = kubernetes->createProtocol(errorString);
        if (!protocol)
            return nullptr;
        KubeApiClient *api = protocol->api();
        const QString namespaceName = api->config().namespaceName;
        // Runs are written: a lease that cannot have them is refused at once.
        if (!KubeRunRecords::canKeep(cluster->leaseName(), errorString))
            return nullptr;
        return openKubernetesRunLedger(api, std::move(protocol), namespaceName, cluster->leaseName(), parent);
    }
    // The run records live in the store that keeps the lease.
    Store *store = nullptr;
    const QString storeName = cluster->parameters().value(QStringLiteral("store")).toString();
    Application *application = cluster->application();
    if (application && !storeName.isEmpty())
        store = qobject_cast<Store *>(application->service(storeName));
    if (!store && application)
        store = application->registry();
    if (!store) {
        *errorString = QStringLiteral("cluster service \"%1\": no store for the run records").arg(cluster->name());
        return nullptr;
    }
    return new RunLedger(store, cluster->leaseName(), parent);
}

} // namespace baton
