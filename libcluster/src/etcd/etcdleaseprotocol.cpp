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
    batcher->send(EtcdUpdateQueue::Update {
            registryLeaseKey(name), leasecodec::encode(record), revision,
            [self = QPointer<EtcdLeaseProtocol>(this), name, record,
             done = std::move(done)](const StoreResult &result) {
                if (self)
                    done(self->m_viaStore.answerWrite(name, record, result));
            },
            QDeadlineTimer(batcher->timeoutMs()) });
}

bool EtcdLeaseProtocol::sharesWrites() const
{
    return m_store && m_store->updateBatcher();
}

} // namespace baton
