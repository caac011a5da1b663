#pragma once

#include <baton/clusterservice.h>

namespace baton {

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
    using ClusterService::ClusterService;
    /*! The parameters this type takes; the configuration refuses others (P1). */
    static QStringList parameterNames();

protected:
    std::unique_ptr<LeaseBackend> createLeaseBackend(QString *errorString) override;
};

} // namespace baton
