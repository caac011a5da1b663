// Where the run records of a lease live: beside the lease, in its store, or
// in ConfigMaps beside a Kubernetes Lease.

#include "kubeapiclient.h"
#include "kubernetesclusterservice.h"
#include "kubernetesleaseprotocol.h"
#include "kuberunrecords.h"
#include "leaseobserver_p.h"

#include <batoninternal/runledger.h>

#include <baton/application.h>
#include <baton/clusterservice.h>
#include <baton/leaseobserver.h>
#include <baton/store.h>

namespace baton {

namespace {

RunLedger *kubernetesLedger(KubeApiClient *api, std::unique_ptr<QObject> owner, const QString &namespaceName,
                            const QString &lease, QObject *parent)
{
    auto records = std::make_unique<KubeRunRecords>(api, namespaceName, lease);
    records->keep(std::move(owner));
    return new RunLedger(std::move(records), lease, parent);
}

} // namespace

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
        return kubernetesLedger(api, std::move(protocol), namespaceName, cluster->leaseName(), parent);
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
        *errorString = QStringLiteral("no store for the run records");
        return nullptr;
    }
    return new RunLedger(store, cluster->leaseName(), parent);
}

RunLedger *openRunLedger(LeaseObserver *observer, const QString &lease, QObject *parent, QString *errorString)
{
    if (Store *store = observer->store())
        return new RunLedger(store, lease, parent);
    auto *kubernetes = qobject_cast<KubernetesLeaseProtocol *>(LeaseObserverPrivate::protocolOf(observer));
    if (!kubernetes) {
        *errorString = QStringLiteral("run records are kept in a store (etcd or files) or beside Kubernetes "
                                      "Leases; this source has neither");
        return nullptr;
    }
    KubeApiClient *api = kubernetes->api();
    QString namespaceName = api->config().namespaceName;
    QString name = lease;
    // Across all namespaces a lease is named namespace/name.
    if (kubernetes->allNamespaces() && lease.contains(QLatin1Char('/'))) {
        namespaceName = lease.section(QLatin1Char('/'), 0, 0);
        name = lease.section(QLatin1Char('/'), 1);
    }
    // Only read: a lease too long to be a label value simply has no runs.
    return kubernetesLedger(api, nullptr, namespaceName, name, parent);
}

} // namespace baton
