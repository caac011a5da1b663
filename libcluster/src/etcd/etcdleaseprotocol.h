#pragma once

#include "leaseprotocol.h"
#include "storeleaseprotocol.h"

#include <QPointer>

namespace baton {

class EtcdStore;

/*!
 * The leases of an etcd Registry (B2, O2), in the keys and documents
 * StoreLeaseProtocol writes (`cluster:<name>`, `history:<name>`, the
 * lease codec's record), so either reads what the other wrote.
 *
 * A renewal or a release, the write that comes every renewInterval, goes
 * straight to the store's EtcdUpdateBatcher, which sends it at the end of
 * the turn with the others of that turn, in one shared txn, and answers it
 * from that txn's answer: no Store request, and no extra turn of the event
 * loop on the way back. What is rare or not on that path (an
 * acquisition with its history in the same txn, a get, a list, a watch on
 * the store's one shared stream) goes through the store as
 * StoreLeaseProtocol does it, whose answers and messages stay the same.
 */
class EtcdLeaseProtocol final : public LeaseProtocol
{
    Q_OBJECT
public:
    EtcdLeaseProtocol(EtcdStore *store, int historyLength, QObject *parent = nullptr);
    ~EtcdLeaseProtocol() override;

    QString describe() const override { return m_viaStore.describe(); }
    QString describeLease(const QString &name) const override { return m_viaStore.describeLease(name); }
    void get(const QString &name, Callback done) override { m_viaStore.get(name, std::move(done)); }
    void create(const QString &name, const LeaseRecord &record,
                const std::optional<HistoryEntry> &change, Callback done) override
    {
        m_viaStore.create(name, record, change, std::move(done));
    }
    void update(const QString &name, const LeaseRecord &record, const QString &version,
                const std::optional<HistoryEntry> &change, Callback done) override;
    void list(ListCallback done) override { m_viaStore.list(std::move(done)); }
    LeaseWatch *watch(const QString &name, QObject *parent) override
    {
        return m_viaStore.watch(name, parent);
    }
    bool sharesWrites() const override;

private:
    QPointer<EtcdStore> m_store;
    /*! The store's way, for what is not a renewal. */
    StoreLeaseProtocol m_viaStore;
};

} // namespace baton
