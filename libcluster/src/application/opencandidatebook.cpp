// Where the candidate records of a cluster service's lease live: beside
// the lease, in its store, or in ConfigMaps beside a Kubernetes Lease.

#include <batoninternal/opencandidatebook.h>

#include "kubeapiclient.h"
#include "kubecandidaterecords.h"
#include "kubernetesclusterservice.h"
#include "kubernetesleaseprotocol.h"
#include "localclusterservice.h"

#include <batoninternal/candidatebook.h>

#include <baton/application.h>
#include <baton/clusterservice.h>
#include <baton/store.h>

namespace baton {

CandidateBook *openCandidateBook(ClusterService *cluster, QObject *parent, QString *errorString)
{
    if (qobject_cast<LocalClusterService *>(cluster)) {
        *errorString = QStringLiteral("cluster service \"%1\" elects within this process only: it has no other "
                                      "candidates to prefer or drain to")
                               .arg(cluster->name());
        return nullptr;
    }
    if (auto *kubernetes = qobject_cast<KubernetesClusterService *>(cluster)) {
        std::unique_ptr<KubernetesLeaseProtocol> protocol = kubernetes->createProtocol(errorString);
        if (!protocol)
            return nullptr;
        KubeApiClient *api = protocol->api();
        const QString namespaceName = api->config().namespaceName;
        // Candidates are written: a lease that cannot have them is refused at once.
        if (!KubeCandidateRecords::canKeep(cluster->leaseName(), errorString))
            return nullptr;
        return openKubernetesCandidateBook(api, std::move(protocol), namespaceName, cluster->leaseName(), parent);
    }
    // The candidate records live in the store that keeps the lease.
    Store *store = nullptr;
    const QString storeName = cluster->parameters().value(QStringLiteral("store")).toString();
    Application *application = cluster->application();
    if (application && !storeName.isEmpty())
        store = qobject_cast<Store *>(application->service(storeName));
    if (!store && application)
        store = application->registry();
    if (!store) {
        *errorString = QStringLiteral("cluster service \"%1\": no store for the candidate records").arg(cluster->name());
        return nullptr;
    }
    return new CandidateBook(store, cluster->leaseName(), parent);
}

} // namespace baton
