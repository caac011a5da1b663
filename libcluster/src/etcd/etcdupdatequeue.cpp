#include "etcdupdatequeue.h"

#include <QSet>

#include <algorithm>

namespace baton {

EtcdUpdateQueue::EtcdUpdateQueue(int maxInFlight, int maxBatch, qsizetype maxBatchBytes)
    : m_maxInFlight(std::max(1, maxInFlight))
    , m_maxBatch(std::max(1, maxBatch))
    , m_maxBatchBytes(maxBatchBytes)
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

void EtcdUpdateQueue::requeueSplit(QList<Update> updates)
{
    const qsizetype half = updates.size() / 2;
    QList<Update> second(std::make_move_iterator(updates.begin() + half),
                         std::make_move_iterator(updates.end()));
    updates.resize(half);
    if (!second.isEmpty())
        m_apart.prepend(std::move(second));
    if (!updates.isEmpty())
        m_apart.prepend(std::move(updates));
}

QList<EtcdUpdateQueue::Update> EtcdUpdateQueue::takeBatch(QList<Update> *tooLate,
                                                          qint64 minimumRemainingMs)
{
    QList<Update> batch;
    auto hasTime = [&](const Update &update) {
        return update.deadline.isForever()
                || (!update.deadline.hasExpired()
                    && update.deadline.remainingTime() >= minimumRemainingMs);
    };
    while (m_inFlight < m_maxInFlight && batch.isEmpty() && !m_apart.isEmpty()) {
        for (Update &update : m_apart.takeFirst()) {
            if (hasTime(update))
                batch.append(std::move(update));
            else
                tooLate->append(std::move(update));
        }
    }
    if (!batch.isEmpty()) {
        ++m_inFlight;
        return batch;
    }
    if (m_inFlight >= m_maxInFlight)
        return batch;
    QSet<QString> keys;
    QList<Update> later;
    qsizetype bytes = 0;
    for (Update &update : m_waiting) {
        const bool fits = batch.isEmpty()
                || (batch.size() < m_maxBatch && bytes + update.wireBytes <= m_maxBatchBytes);
        if (!hasTime(update)) {
            tooLate->append(std::move(update));
        } else if (fits && !keys.contains(update.key)) {
            keys.insert(update.key);
            bytes += update.wireBytes;
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
