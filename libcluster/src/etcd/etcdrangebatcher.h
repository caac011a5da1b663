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
 * A txn that etcd refuses (a key outside the user's role, too many
 * operations) or whose answer cannot be read (larger than the client takes)
 * is not the reads' fault: each goes again alone. A txn that is not
 * answered fails every read in it, as each alone would have.
 */
class EtcdRangeBatcher final : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxInFlight = 4;
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
    int waiting() const { return int(m_waiting.size() + m_alone.size()); }

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
    void sendAlone(Read read);
    void sendTogether(QList<Read> reads);
    /*! The reads of a txn go again, each alone, ahead of those that wait. */
    void goAlone(const QList<Read> &reads);
    /*! The range answers of a txn of \a count reads; false when it does not hold them all. */
    static bool rangeAnswers(const QJsonObject &json, qsizetype count, QList<QJsonObject> *answers);
    /*! One request of reads has ended: what waits may go. */
    void ended();

    EtcdClient *m_client;
    int m_timeoutMs;
    std::deque<Read> m_waiting;
    /*! Reads of a txn that etcd refused or answered unreadably. */
    std::deque<Read> m_alone;
    int m_inFlight = 0;
};

} // namespace baton
