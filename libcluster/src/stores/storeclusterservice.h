#pragma once

#include <baton/clusterservice.h>

namespace baton {

/*!
 * `Webda/StoreClusterService` (B2): the lease is the Registry entry
 * `cluster:<leaseName>`. Parameter `store` names the store service to use
 * instead of the Registry.
 */
class StoreClusterService final : public ClusterService
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
