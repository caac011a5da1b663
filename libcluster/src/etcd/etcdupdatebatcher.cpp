#include "etcdupdatebatcher.h"

#include "etcdclient.h"
#include "etcdreplies.h"
#include "etcdtxn.h"
#include "logging.h"
#include "storesupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QMetaObject>
#include <QPointer>

#include <algorithm>
#include <functional>

namespace baton {

using Status = StoreResult::Status;
using Failure = EtcdClient::Failure;

namespace {

const QString kOperation = QStringLiteral("update");
// Longer than etcd takes for a txn on a healthy cluster (a round trip and
// a write to its disk), so that a renewal slot's updates gather behind the
// first one; short beside any renewInterval.
constexpr int kPatienceMs = 25;

/*! Tells \a update how it went, as a store's update or as an election's renewal. */
void tell(const EtcdUpdateQueue::Update &update, const StoreResult &result)
{
    if (!update.leaseDone) {
        if (update.done)
            update.done(result);
    } else if (const std::optional<LeaseReply> reply = update.leaseReplyOf(result)) {
        update.leaseDone(*reply);
    }
}

} // namespace

EtcdUpdateBatcher::EtcdUpdateBatcher(EtcdClient *client, const QByteArray &prefix, int timeoutMs)
    : QObject(client)
    , m_client(client)
    , m_prefix(prefix)
    , m_timeoutMs(timeoutMs)
{
    m_patience.setSingleShot(true);
    m_patience.setInterval(kPatienceMs);
    connect(&m_patience, &QTimer::timeout, this, [this] {
        m_queue.release();
        send();
    });
}

void EtcdUpdateBatcher::enqueue(EtcdUpdateQueue::Update update)
{
    if (update.value.isEmpty())
        update.value = QJsonDocument(update.document).toJson(QJsonDocument::Compact);
    update.wireBytes = wireBytes(update);
    m_queue.enqueue(std::move(update));
}

void EtcdUpdateBatcher::send()
{
    while (const EtcdClient::RequestPtr txn = takeTxn())
        m_client->send(txn);
}

void EtcdUpdateBatcher::sendSoon()
{
    if (std::exchange(m_sendPosted, true))
        return;
    QMetaObject::invokeMethod(
            this,
            [this] {
                m_sendPosted = false;
                send();
            },
            Qt::QueuedConnection);
}

EtcdClient::RequestPtr EtcdUpdateBatcher::takeTxn()
{
    QList<EtcdUpdateQueue::Update> expired;
    // An update with less than half its timeout left would shorten the
    // transaction of every update it joins to its own deadline.
    QList<EtcdUpdateQueue::Update> batch = m_queue.takeBatch(&expired, minimumSendMs());
    if (m_queue.holdsBack() && !m_patience.isActive())
        m_patience.start();
    for (EtcdUpdateQueue::Update &tooLate : expired) {
        StoreResult late = storesupport::failure(
                Status::Unavailable,
                QStringLiteral("%1: update \"%2\": etcd had not answered earlier "
                               "updates within %3 ms of its %4 ms timeout, so this "
                               "one was never sent")
                        .arg(m_client->description(), tooLate.key)
                        .arg(m_timeoutMs - minimumSendMs())
                        .arg(m_timeoutMs));
        late.errorString = m_client->redact(late.errorString);
        QMetaObject::invokeMethod(
                this, [tooLate = std::move(tooLate), late] { tell(tooLate, late); },
                Qt::QueuedConnection);
    }
    if (batch.isEmpty())
        return {};
    // One comparison, put and read per update: the reads tell, when the
    // txn fails, which comparison failed.
    etcdtxn::GuardedPuts body;
    QDeadlineTimer deadline(QDeadlineTimer::Forever);
    for (const EtcdUpdateQueue::Update &update : std::as_const(batch)) {
        body.add(m_prefix + update.key.toUtf8(), update.revision, update.value);
        deadline = std::min(deadline, update.deadline);
    }
    // The answer bound straight to answer(): every renewal comes back that
    // way, a frame less.
    return EtcdClient::requestWritten(
            QStringLiteral("/v3/kv/txn"), body.take(),
            std::bind_front(&EtcdUpdateBatcher::answer, this, batch, Outcome::Answered), deadline,
            std::bind_front(&EtcdUpdateBatcher::answer, this, batch, Outcome::Refused));
}

qsizetype EtcdUpdateBatcher::wireBytes(const EtcdUpdateQueue::Update &update) const
{
    // The comparison, the put and the read name the key in base64; the put
    // carries the document's compact JSON in base64; about 150 bytes of
    // JSON around them.
    auto base64 = [](qsizetype bytes) { return (bytes + 2) / 3 * 4; };
    const qsizetype key = base64(m_prefix.size() + update.key.toUtf8().size());
    return 3 * key + base64(update.value.size()) + 150;
}

void EtcdUpdateBatcher::answer(QList<EtcdUpdateQueue::Update> batch, Outcome outcome,
                               const QJsonObject &json, const EtcdClient::Failure &failed)
{
    m_queue.batchDone();
    Answers answers;
    if (outcome == Outcome::Refused) {
        answers = settleRefused(std::move(batch), *failed);
    } else if (failed) {
        for (EtcdUpdateQueue::Update &update : batch)
            answers.append({ std::move(update), *failed });
    } else {
        answers = settle(std::move(batch), json);
    }
    // The queue is settled before anyone hears: an answer may enqueue the
    // next write, or end the client and this batcher with it.
    QPointer<EtcdUpdateBatcher> self(this);
    for (const auto &[update, result] : std::as_const(answers)) {
        StoreResult redacted = result;
        if (self)
            redacted.errorString = m_client->redact(result.errorString);
        // tell(), written out: a renewal's answer goes from here to the
        // election with no frame of ours between (tst_etcdrenewalpath).
        if (!update.leaseDone) {
            if (update.done)
                update.done(redacted);
        } else if (const std::optional<LeaseReply> reply = update.leaseReplyOf(redacted)) {
            update.leaseDone(*reply);
        }
    }
    if (self)
        send();
}

EtcdUpdateBatcher::Answers EtcdUpdateBatcher::settleRefused(QList<EtcdUpdateQueue::Update> batch,
                                                             const StoreResult &refusal)
{
    if (batch.size() == 1)
        return { { std::move(batch.first()), refusal } };
    if (etcdreplies::tooManyOperations(refusal)) {
        m_queue.shrinkBelow(batch.size());
        m_queue.requeue(std::move(batch));
        return {};
    }
    // One update etcd will not take (a key outside the user's role, a value
    // over --max-request-bytes) must not fail the others that shared its txn.
    qCDebug(lcEtcd).noquote() << m_client->description() << "etcd refused a txn of"
                              << batch.size() << "updates; sending it again in halves";
    m_queue.requeueSplit(std::move(batch));
    return {};
}

EtcdUpdateBatcher::Answers EtcdUpdateBatcher::settle(QList<EtcdUpdateQueue::Update> batch,
                                                      const QJsonObject &json)
{
    Answers settled;
    bool succeeded = false;
    qint64 revision = 0;
    QString unreadable;
    const bool readable = etcdtxn::outcome(json, &succeeded, &revision, &unreadable);
    const QString description = m_client->description();
    if (!readable || succeeded) {
        for (EtcdUpdateQueue::Update &update : batch) {
            StoreResult result = readable
                    ? storesupport::success(StoreEntry { update.key, update.document,
                                                         QString::number(revision) })
                    : etcdreplies::badReply(description, kOperation, update.key, unreadable);
            settled.append({ std::move(update), std::move(result) });
        }
        return settled;
    }
    // One failed comparison fails the whole txn. The updates whose key still
    // has the version they named lost only because they shared it: they go
    // again. When none really lost (no real etcd answers that), each is
    // answered with what it read, so that nothing goes round for ever.
    std::vector<StoreResult> answers;
    std::vector<bool> ownVersion;
    for (qsizetype i = 0; i < batch.size(); ++i) {
        const QString version = QString::number(batch.at(i).revision);
        answers.push_back(etcdreplies::notApplied(
                description, m_prefix, kOperation, batch.at(i).key, version,
                etcdtxn::response(json, i, QStringLiteral("response_range"))));
        ownVersion.push_back(answers.back().status == Status::Conflict
                             && answers.back().entry.version == version);
    }
    const bool anyLost = std::find(ownVersion.cbegin(), ownVersion.cend(), false) != ownVersion.cend();
    QList<EtcdUpdateQueue::Update> again;
    for (qsizetype i = 0; i < batch.size(); ++i) {
        if (ownVersion[size_t(i)] && anyLost)
            again.append(std::move(batch[i]));
        else
            settled.append({ std::move(batch[i]), answers[size_t(i)] });
    }
    if (!again.isEmpty())
        m_queue.requeue(std::move(again));
    return settled;
}

} // namespace baton
