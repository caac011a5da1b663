#include "etcdupdatequeue.h"

#include <QSet>

#include <algorithm>

namespace baton {

EtcdUpdateQueue::EtcdUpdateQueue(int maxInFlight, int maxBatch)
    : m_maxInFlight(std::max(1, maxInFlight))
    , m_maxBatch(std::max(1, maxBatch))
{
}

void EtcdUpdateQueue::enqueue(Update update)
{
    m_waiting.append(std::move(update));
}

void EtcdUpdateQueue::requeue(QList<Update> updates)
{
    updates.append(std::move(m_waiting));
    m_waiting = std::move(updates);
}

QList<EtcdUpdateQueue::Update> EtcdUpdateQueue::takeBatch(QList<Update> *expired)
{
    QList<Update> batch;
    if (m_inFlight >= m_maxInFlight)
        return batch;
    QSet<QString> keys;
    QList<Update> later;
    for (Update &update : m_waiting) {
        if (update.deadline.hasExpired()) {
            expired->append(std::move(update));
        } else if (batch.size() < m_maxBatch && !keys.contains(update.key)) {
            keys.insert(update.key);
            batch.append(std::move(update));
        } else {
            later.append(std::move(update));
        }
    }
    m_waiting = std::move(later);
    if (!batch.isEmpty())
        ++m_inFlight;
    return batch;
}

void EtcdUpdateQueue::batchDone()
{
    m_inFlight = std::max(0, m_inFlight - 1);
}

void EtcdUpdateQueue::shrinkBelow(qsizetype refusedSize)
{
    m_maxBatch = std::clamp(int(refusedSize / 2), 1, m_maxBatch);
}

} // namespace baton
