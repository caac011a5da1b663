#include "storecluster.h"

#include "clusterservice_p.h"

namespace baton::test {

StoreCluster::StoreCluster(Store *store, const QString &instanceId, const QString &leaseName,
                           Timings timings, const Clock *clock)
    : ClusterService(instanceId,
                     QJsonObject {{QStringLiteral("instanceId"), instanceId},
                                  {QStringLiteral("leaseName"), leaseName},
                                  {QStringLiteral("leaseDuration"), double(timings.leaseMs)},
                                  {QStringLiteral("renewInterval"), double(timings.renewMs)}},
                     nullptr)
    , m_store(store)
{
    if (clock)
        setClock(clock);
    ClusterServicePrivate::setLeaseProtocolFactory(
            this, [this](QString *) { return std::make_unique<StoreLeaseProtocol>(m_store); });
}

} // namespace baton::test
