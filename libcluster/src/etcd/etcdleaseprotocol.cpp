#include "etcdleaseprotocol.h"

#include "etcdstore.h"
#include "etcdupdatebatcher.h"

#include <batoninternal/leasecodec.h>
#include <batoninternal/registrykey.h>

namespace baton {

EtcdLeaseProtocol::EtcdLeaseProtocol(EtcdStore *store, int historyLength, QObject *parent)
    : LeaseProtocol(parent)
    , m_store(store)
    , m_viaStore(store, historyLength)
{
}

EtcdLeaseProtocol::~EtcdLeaseProtocol() = default;

void EtcdLeaseProtocol::update(const QString &name, const LeaseRecord &record,
                               const QString &version, const std::optional<HistoryEntry> &change,
                               Callback done)
{
    bool numeric = false;
    const qint64 revision = version.toLongLong(&numeric);
    EtcdUpdateBatcher *batcher = m_store ? m_store->updateBatcher() : nullptr;
    // O2: a change of holder writes its history in the same txn, alone
    // (EtcdStore::updateWith); a version etcd never issued is answered with
    // what the key holds. Both are rare, and go the store's way.
    if (change || !batcher || !numeric || revision <= 0 || QString::number(revision) != version) {
        m_viaStore.update(name, record, version, change, std::move(done));
        return;
    }
    // The document as bytes only: the election learns its renewal from the
    // record it sent, never from a document read back.
    EtcdUpdateQueue::Update renewal { registryLeaseKey(name), {}, revision, {},
                                      QDeadlineTimer(batcher->timeoutMs()) };
    renewal.value = leasecodec::encodeCompact(record);
    // Translated by the protocol's store way (which keeps what it learns of
    // absent leases), then told straight to the election; not at all once
    // the protocol is gone, for the election that owned it is gone too.
    renewal.leaseReplyOf = [self = QPointer<EtcdLeaseProtocol>(this), name,
                            record](const StoreResult &result) -> std::optional<LeaseReply> {
        if (!self)
            return std::nullopt;
        return self->m_viaStore.answerWrite(name, record, result);
    };
    renewal.leaseDone = std::move(done);
    batcher->enqueue(std::move(renewal));
    batcher->sendSoon();
}

bool EtcdLeaseProtocol::sharesWrites() const
{
    return m_store && m_store->updateBatcher();
}

} // namespace baton
