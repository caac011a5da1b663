#pragma once

#include "etcdclient.h"

#include <QDeadlineTimer>
#include <QJsonObject>
#include <QList>
#include <QObject>

#include <deque>

namespace baton {

/*!
 * Sends the reads of one EtcdClient (a store's get() and list()). While
 * fewer than kMaxInFlight requests of reads are out, a read goes alone, as
 * the range request it is; beyond, the reads that wait go together as the
 * range operations of one txn with no comparison, which etcd answers at one
 * revision, each as the range request would have been answered. A process
 * in thousands of elections reads thousands of leases and candidate records
 * at its start, and lists candidates in bursts on the renewals' grid: a txn
 * of a hundred reads costs etcd and this process about what one read does.
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
