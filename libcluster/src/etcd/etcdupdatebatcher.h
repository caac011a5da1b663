#pragma once

#include "etcdclient.h"
#include "etcdupdatequeue.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

#include <utility>

namespace baton {

/*!
 * Sends the conditional updates of one EtcdClient: the Registry store's
 * update() and the lease protocol's renewals share its transactions
 * (EtcdUpdateQueue says how they are grouped). Each update is answered
 * straight from the answer of its txn, with no turn of the event loop in
 * between: the caller's own answer is on a later turn already. Only an
 * update answered without being sent (too little time left) is answered on
 * a later turn, so that no answer runs inside the call that sent another.
 * Failures are redacted (R2).
 */
class EtcdUpdateBatcher final : public QObject
{
    Q_OBJECT
public:
    /*! \a prefix: the store's key prefix; the keys of the updates go after it. */
    EtcdUpdateBatcher(EtcdClient *client, const QByteArray &prefix, int timeoutMs);

    /*!
     * Queues \a update (its key goes after the prefix; its deadline counts
     * its wait here) for send() or sendSoon() to send.
     */
    void enqueue(EtcdUpdateQueue::Update update);
    /*!
     * Sends what the queue lets go now, one txn per batch: an update goes in
     * a txn now, or in the next one when maxInFlight are out.
     */
    void send();
    /*!
     * send() once this turn of the event loop has run: the renewals and
     * candidate records that fall due in one turn (one firing of the boot
     * clock's timers) go in one txn, not the first alone and the others
     * behind its answer.
     */
    void sendSoon();
    EtcdClient *client() const { return m_client; }
    int timeoutMs() const { return m_timeoutMs; }

private:
    /*! The next txn the queue lets go now, its answer bound to this batcher; null when none may go. */
    EtcdClient::RequestPtr takeTxn();
    /*! Each update, with what it is told. */
    using Answers = QList<std::pair<EtcdUpdateQueue::Update, StoreResult>>;

    /*! The answer of each update of a transaction; those that lost only by company are queued again. */
    Answers settle(QList<EtcdUpdateQueue::Update> batch, const QJsonObject &json);
    /*! etcd refused a whole transaction for what it holds: smaller ones may pass. */
    Answers settleRefused(QList<EtcdUpdateQueue::Update> batch, const StoreResult &refusal);
    /*! How etcd took a transaction: answered (or not at all), or refused for what it holds. */
    enum class Outcome { Answered, Refused };
    /*!
     * Answers each update of \a batch from etcd's answer to its txn
     * (redacted, R2), then sends what may go now.
     */
    void answer(QList<EtcdUpdateQueue::Update> batch, Outcome outcome, const QJsonObject &json,
                const EtcdClient::Failure &failed);
    /*! About what \a update adds to the body of its transaction. */
    qsizetype wireBytes(const EtcdUpdateQueue::Update &update) const;
    /*! Less time than this left, an update is answered rather than sent. */
    qint64 minimumSendMs() const { return m_timeoutMs / 2; }

    EtcdClient *m_client;
    QByteArray m_prefix;
    int m_timeoutMs;
    EtcdUpdateQueue m_queue;
    /*!
     * How long updates wait for an answer before they go without it: one
     * transaction stuck on a connection that lost its packets holds no
     * renewal back for longer than this (kPatienceMs); only maxInFlight
     * stuck at once hold the rest until their deadline.
     */
    QTimer m_patience;
    bool m_sendPosted = false;
};

} // namespace baton
