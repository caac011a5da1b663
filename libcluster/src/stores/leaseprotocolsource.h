#pragma once

#include <memory>

namespace baton {

class LeaseProtocol;
class Store;

/*!
 * A store that speaks to the election and the observers in a protocol of
 * its own rather than through the Store interface (etcd: one txn per batch
 * of renewals, with no Store result in between). It must store the same
 * keys and documents as StoreLeaseProtocol would, so either reads what the
 * other wrote.
 */
class LeaseProtocolSource
{
public:
    virtual ~LeaseProtocolSource() = default;
    /*! \a historyLength as StoreLeaseProtocol takes it (O2). */
    virtual std::unique_ptr<LeaseProtocol> openLeaseProtocol(int historyLength) = 0;
};

/*!
 * The lease protocol over \a store: its own when it is a
 * LeaseProtocolSource, else a StoreLeaseProtocol.
 */
std::unique_ptr<LeaseProtocol> openLeaseProtocol(Store *store, int historyLength);

} // namespace baton
