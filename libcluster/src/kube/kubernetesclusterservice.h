#pragma once

#include <baton/clusterservice.h>

namespace baton {

class KubernetesLeaseProtocol;
class LeaseProtocol;

/*!
 * `Webda/KubernetesClusterService` (B3-B5): the lease is the
 * `coordination.k8s.io/v1` Lease `<leaseName>` of a namespace, written as
 * client-go's LeaseLock writes it. Parameters besides the common ones:
 * `config` (a kubeconfig file), `context`, `namespace`, `timeout` (ms per
 * request, default 5000), `tokenFile`, `historyLength` (the holder changes
 * kept in the Lease's annotation, 0 to 1000, default 20). Without `config`:
 * `KUBECONFIG`, `~/.kube/config`, then the in-cluster configuration
 * (docs/reference/configuration.md).
 */
class KubernetesClusterService final : public ClusterService
{
    Q_OBJECT
public:
    KubernetesClusterService(const QString &name, const QJsonObject &parameters,
                             Application *application);
    /*! The parameters this type takes; the configuration refuses others (P1). */
    static QStringList parameterNames();

    /*!
     * A protocol for this service's Leases, apart from the election's: for
     * what else lives beside the Lease (the run records of a schedule).
     */
    std::unique_ptr<KubernetesLeaseProtocol> createProtocol(QString *errorString, bool announce = false);

private:
    std::unique_ptr<LeaseProtocol> createLeaseProtocol(QString *errorString);
};

} // namespace baton
