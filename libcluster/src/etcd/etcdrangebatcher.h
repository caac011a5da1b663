#pragma once

#include "etcdclient.h"

#include <QDeadlineTimer>
#include <QJsonObject>
#include <QList>
#include <QObject>

#include <deque>

namespace baton {

/*!
 * Sends the single-key reads of one EtcdClient (a store's get()). While
 * fewer than kMaxInFlight requests of reads are out, a read goes alone, as
 * the range request it is; beyond, the reads that wait go together as the
 * range operations of one txn with no comparison, which etcd answers at one
 * revision, each as the range request would have been answered. A process
 * starting thousands of elections reads every lease, its history and its
 * candidate record at once: a txn of a hundred reads costs etcd and this
 * process about what one read does.
 *
 * Listings (list()) do not come here: sent as txns of ranges, the
 * candidates' listings of 1,000 elections (a burst on the renewals' grid)
 * raised the renewals' median latency from 11 to about 50 ms, for 2-5 %
 * of a core saved. Not understood yet; measured with bench_election.
 *
 * A txn that etcd refuses (a key outside the user's role) or whose answer
 * cannot be read (larger than the client takes) is not every read's fault:
 * it goes again in halves, ahead of the reads that wait; a half refused
 * again sends each of its reads alone, so that a refusal of every read (a
 * prefix outside the role) costs a few requests more than reading each
 * alone, not twice as many. A txn refused for its number of operations (an
 * etcd with a `--max-txn-ops` below kMaxBatch) makes every later txn
 * smaller than it, and its reads go again in txns of that size. A read
 * sent and refused goes again while its time lasts; past it, it is
 * answered with the refusal. A txn that is not answered fails every read
 * in it, as each alone would have.
 */
class EtcdRangeBatcher final : public QObject
{
    Q_OBJECT
public:
    /*!
     * Up to this many reads go alone, as before batching: a process with a
     * few elections never waits a round trip to batch its first reads.
     */
    static constexpr int kMaxInFlight = 16;
    /*! etcd's `--max-txn-ops`, 128 by default, bounds the operations of a txn. */
    static constexpr int kMaxBatch = 128;
    /*!
     * Qt writes a body 16 KiB at a time with Nagle's algorithm on: a larger
     * txn waits for etcd's delayed acknowledgement, 40 ms, and so does
     * every request behind it on that connection (EtcdUpdateQueue says
     * more). A batch is cut before its body passes this.
     */
    static constexpr qsizetype kMaxBatchBytes = 15 * 1024;

    EtcdRangeBatcher(EtcdClient *client, int timeoutMs);

    /*!
     * Reads \a range (a RangeRequest's JSON); \a done takes the
     * RangeResponse, or why none came, exactly once, on a later turn.
     */
    void read(const QJsonObject &range, EtcdClient::ReplyHandler done);
    /*! Requests (alone or txns) sent and not yet answered. */
    int inFlight() const { return m_inFlight; }
    /*! Reads waiting for a request in flight to end. */
    int waiting() const;

private:
    struct Read
    {
        QJsonObject range;
        EtcdClient::ReplyHandler done;
        QDeadlineTimer deadline;
        /*! About what the read adds to a txn's body. */
        qsizetype wireBytes = 0;
    };

    /*! Sends what waits, as txns, while fewer than kMaxInFlight are out. */
    void sendWaiting();
    /*! Reads of a refused or unreadable txn, to go again as they are (one: alone). */
    struct Again
    {
        QList<Read> reads;
        /*! What the txn they were in met: their answer once their time is up. */
        StoreResult why;
        /*! Refused twice (the txn, then this half): a txn again would be refused again. */
        bool apart = false;
    };

    /*! The next reads to go, and whether they went before: a part of a refused txn first, else those that wait. */
    QList<Read> nextBatch(bool *apart);
    /*! False, and \a read answered as never sent, when it has too little time left for a txn. */
    bool inTime(Read &read);
    /*! Answers \a read with \a failure on a later turn: never inside the call that asked. */
    void answerLater(Read &read, const StoreResult &failure);
    void sendAlone(Read read);
    /*! \a apart: the reads come from a half of a refused txn. */
    void sendTogether(QList<Read> reads, bool apart);
    /*! The reads of a refused or unreadable txn go again, ahead of those that wait. */
    void sendAgain(QList<Read> reads, const StoreResult &why, bool apart);
    /*! The range answers of a txn of \a count reads; false when it does not hold them all. */
    static bool rangeAnswers(const QJsonObject &json, qsizetype count, QList<QJsonObject> *answers);
    /*! One request of reads has ended: what waits may go. */
    void ended();

    EtcdClient *m_client;
    int m_timeoutMs;
    std::deque<Read> m_waiting;
    /*! Parts of txns that etcd refused or answered unreadably, in the order they go. */
    std::deque<Again> m_again;
    int m_inFlight = 0;
    int m_maxBatch = kMaxBatch;
};

} // namespace baton
