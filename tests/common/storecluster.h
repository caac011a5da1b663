#pragma once

#include "memorystore.h"
#include "storeleaseprotocol.h"

#include <baton/clusterservice.h>

#include <memory>

namespace baton::test {

/*!
 * A cluster service on a given store, built without an Application so that
 * a test can hold several instances in one process: the same
 * StoreLeaseProtocol that StoreClusterService uses, with short timings and
 * an injectable clock. Not a mock: every request reaches the real store.
 */
/*! Short timings, so that elections in a test take milliseconds. */
struct ClusterTimings
{
    qint64 leaseMs = 600;
    qint64 renewMs = 100;
};

class StoreCluster : public ClusterService
{
public:
    using Timings = ClusterTimings;

    StoreCluster(Store *store, const QString &instanceId,
                 const QString &leaseName = QStringLiteral("leader"), Timings timings = {},
                 const Clock *clock = nullptr);

private:
    Store *m_store;
};

/*! A started store of type \a S (a MemoryStore unless told). */
template<typename S = MemoryStore>
std::unique_ptr<S> makeStore()
{
    auto store = std::make_unique<S>(QStringLiteral("Registry"), QJsonObject(), nullptr);
    QString error;
    if (!store->init(&error))
        qFatal("%s", qPrintable(error));
    return store;
}

} // namespace baton::test
