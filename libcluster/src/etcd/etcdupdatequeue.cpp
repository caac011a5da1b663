#include "etcdupdatequeue.h"

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
    if (m_inFlight >= m_maxInFlight || (m_inFlight > 0 && !m_answered && !wholeBatchWaits()))
        return batch;
    // The batch's keys are looked for in the batch itself (128 at most): a
    // QSet's least storage is over a kilobyte, and glibc answers an
    // allocation that large by consolidating its small free chunks, at
    // every renewal a process of a thousand elections sends.
    auto inBatch = [&batch](const QString &key) {
        return std::any_of(batch.cbegin(), batch.cend(), [&key](const Update &u) { return u.key == key; });
    };
    QList<Update> later;
    qsizetype bytes = 0;
    for (Update &update : m_waiting) {
        const bool fits = batch.isEmpty()
                || (batch.size() < m_maxBatch && bytes + update.wireBytes <= m_maxBatchBytes);
        if (!hasTime(update)) {
            tooLate->append(std::move(update));
        } else if (fits && !inBatch(update.key)) {
            bytes += update.wireBytes;
            batch.append(std::move(update));
        } else {
            later.append(std::move(update));
        }
    }
    m_waiting = std::move(later);
    if (m_waiting.isEmpty())
        m_answered = false;
    if (!batch.isEmpty())
        ++m_inFlight;
    return batch;
}

bool EtcdUpdateQueue::wholeBatchWaits() const
{
    if (m_waiting.size() >= m_maxBatch)
        return true;
    qsizetype bytes = 0;
    for (const Update &update : m_waiting) {
        bytes += update.wireBytes;
        if (bytes > m_maxBatchBytes)
            return true;
    }
    return false;
}

void EtcdUpdateQueue::batchDone()
{
    m_inFlight = std::max(0, m_inFlight - 1);
    m_answered = true;
}

void EtcdUpdateQueue::shrinkBelow(qsizetype refusedSize)
{
    m_maxBatch = std::clamp(int(refusedSize / 2), 1, m_maxBatch);
}

} // namespace baton
