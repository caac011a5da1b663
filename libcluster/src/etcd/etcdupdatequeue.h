#pragma once

#include "leaserecord.h"

#include <baton/store.h>

#include <QDeadlineTimer>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>
#include <optional>

namespace baton {

/*!
 * The conditional updates (renewals, mostly) an EtcdStore has yet to send,
 * and how they are grouped into transactions.
 *
 * The updates of one turn of the event loop go out together at its end
 * (the sender's sendSoon()) when no transaction is waiting for etcd.
 * Otherwise they wait for the next answer, with whatever else comes
 * meanwhile, and they go together then; only a whole batch that has
 * gathered goes before that answer, while fewer than maxInFlight
 * transactions are out, and all that waits goes when the sender's
 * patience with a slow etcd ends (release()). So the renewals of a renewal
 * slot (a process in hundreds of elections, P3; their timers fire in one
 * turn) go in as few transactions as their size allows, instead of
 * maxInFlight alone and the rest after.
 * A batch never holds one key twice (etcd refuses a transaction that
 * writes a key twice), never more than maxBatch updates (etcd's
 * `--max-txn-ops`, 128 by default, bounds each branch; a txn etcd refuses
 * as too large goes again in halves), and never more than maxBatchBytes of
 * them, one update at least.
 *
 * A transaction lives only as long as the earliest deadline it carries, so
 * an update that has too little time left is answered without being sent
 * rather than cut the time of the fresh ones it would join. A transaction
 * etcd refuses for what it holds (one key outside the user's permissions, a
 * value too large) goes again split in two, each half on its own, until the
 * update that etcd refuses is alone and the others have landed.
 */
class EtcdUpdateQueue
{
public:
    struct Update
    {
        QString key;
        QJsonObject document;
        qint64 revision = 0;
        /*! A store's update is told here; a lease protocol's renewal leaves it empty. */
        Store::Callback done;
        /*! From the update() call: waiting here counts against its timeout. */
        QDeadlineTimer deadline;
        /*!
         * A lease protocol's renewal is told in the election's terms:
         * leaseReplyOf translates the result (and returns; none when the
         * election is gone), leaseDone hears it, straight from the txn's
         * answer: no function of the protocol stands between the batcher
         * and the election on the way back of every renewal.
         */
        std::function<std::optional<LeaseReply>(const StoreResult &)> leaseReplyOf {};
        std::function<void(const LeaseReply &)> leaseDone {};
        /*!
         * The document as compact JSON, written once by the sender for its
         * put; a renewal comes with it written and no document (its
         * answer is told from the record it renews).
         */
        QByteArray value {};
        /*! About what the update adds to its transaction's body; the sender's estimate. */
        qsizetype wireBytes = 0;
    };

    /*!
     * Four whole batches at a time keep latency low when a thousand
     * renewals fall due in the same millisecond (elections started
     * together renew together): eight txns of 128, in a few rounds
     * instead of eight.
     */
    static constexpr int kMaxInFlight = 4;
    static constexpr int kMaxBatch = 128;
    /*!
     * Qt writes a request's body to the socket 16 KiB at a time and leaves
     * Nagle's algorithm on (QNetworkAccessManager offers no TCP_NODELAY): a
     * body over 16 KiB goes in two writes, and the second waits for the
     * server's delayed acknowledgement, 40 ms on Linux. A batch whose
     * updates add up to more than this is cut, so that each transaction
     * goes in one write (the JSON around the updates and the headers fit in
     * what is left).
     */
    static constexpr qsizetype kMaxBatchBytes = 15 * 1024;

    explicit EtcdUpdateQueue(int maxInFlight = kMaxInFlight, int maxBatch = kMaxBatch,
                             qsizetype maxBatchBytes = kMaxBatchBytes);

    void enqueue(Update update);
    /*! Puts updates that must go again ahead of the others, in their order. */
    void requeue(QList<Update> updates);
    /*!
     * Puts the updates of a refused transaction ahead of the others as two
     * halves that are never sent together nor with anything else again.
     */
    void requeueSplit(QList<Update> updates);
    /*!
     * The next batch to send, or none when nothing waits, when maxInFlight
     * batches are out, or when one is out, no answer came since the
     * updates that wait began to, and no whole batch waits; a
     * batch it returns counts as in flight until batchDone(). Updates with
     * less than \a minimumRemainingMs left before their deadline are moved
     * to \a tooLate instead.
     */
    QList<Update> takeBatch(QList<Update> *tooLate, qint64 minimumRemainingMs = 0);
    void batchDone();
    /*! Updates wait for an answer that has not come: they may go now all the same. */
    bool holdsBack() const { return !m_waiting.isEmpty() && m_inFlight > 0 && !m_answered; }
    /*! What waits goes now, as after an answer (etcd is slow to give one). */
    void release() { m_answered = true; }
    /*! etcd refused a transaction of \a refusedSize updates as too large: later ones are smaller. */
    void shrinkBelow(qsizetype refusedSize);

private:
    /*! As many updates wait as one batch can carry, or more. */
    bool wholeBatchWaits() const;

    /*! Halves of refused transactions: each one goes as a batch of its own. */
    QList<QList<Update>> m_apart;
    QList<Update> m_waiting;
    int m_maxInFlight;
    int m_maxBatch;
    qsizetype m_maxBatchBytes;
    int m_inFlight = 0;
    /*! An answer came since updates began to wait: all that waits may go. */
    bool m_answered = false;
};

} // namespace baton
