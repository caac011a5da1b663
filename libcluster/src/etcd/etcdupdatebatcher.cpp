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

} // namespace

EtcdUpdateBatcher::EtcdUpdateBatcher(EtcdClient *client, const QByteArray &prefix, int timeoutMs)
    : QObject(client)
    , m_client(client)
    , m_prefix(prefix)
    , m_timeoutMs(timeoutMs)
{
}

void EtcdUpdateBatcher::send(std::optional<EtcdUpdateQueue::Update> added)
{
    if (added) {
        added->value = QJsonDocument(added->document).toJson(QJsonDocument::Compact);
        added->wireBytes = wireBytes(*added);
        m_queue.enqueue(std::move(*added));
    }
    for (;;) {
        QList<EtcdUpdateQueue::Update> expired;
        // An update with less than half its timeout left would shorten the
        // transaction of every update it joins to its own deadline.
        QList<EtcdUpdateQueue::Update> batch = m_queue.takeBatch(&expired, minimumSendMs());
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
                    this, [done = std::move(tooLate.done), late] { done(late); },
                    Qt::QueuedConnection);
        }
        if (batch.isEmpty())
            return;
        // One comparison, put and read per update: the reads tell, when the
        // txn fails, which comparison failed.
        QJsonArray compares;
        QJsonArray puts;
        QJsonArray reads;
        QDeadlineTimer deadline(QDeadlineTimer::Forever);
        for (const EtcdUpdateQueue::Update &update : std::as_const(batch)) {
            const QByteArray full = m_prefix + update.key.toUtf8();
            compares.append(etcdtxn::modifiedAt(full, update.revision));
            puts.append(etcdtxn::putValueOp(full, update.value));
            reads.append(etcdtxn::rangeOp(full));
            deadline = std::min(deadline, update.deadline);
        }
        const QJsonObject body { { QStringLiteral("compare"), compares },
                                 { QStringLiteral("success"), puts },
                                 { QStringLiteral("failure"), reads } };
        // The answer bound straight to answer(), and the client's send()
        // called as such: every renewal passes here, a frame less each way.
        m_client->send(EtcdClient::request(
                QStringLiteral("/v3/kv/txn"), body,
                std::bind_front(&EtcdUpdateBatcher::answer, this, batch, Outcome::Answered),
                deadline, std::bind_front(&EtcdUpdateBatcher::answer, this, batch, Outcome::Refused)));
    }
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
        for (const EtcdUpdateQueue::Update &update : std::as_const(batch))
            answers.append({ update.done, *failed });
    } else {
        answers = settle(std::move(batch), json);
    }
    // The queue is settled before anyone hears: an answer may enqueue the
    // next write, or end the client and this batcher with it.
    QPointer<EtcdUpdateBatcher> self(this);
    for (const auto &[done, result] : std::as_const(answers)) {
        StoreResult redacted = result;
        if (self)
            redacted.errorString = m_client->redact(result.errorString);
        done(redacted);
    }
    if (self)
        send();
}

EtcdUpdateBatcher::Answers EtcdUpdateBatcher::settleRefused(QList<EtcdUpdateQueue::Update> batch,
                                                             const StoreResult &refusal)
{
    if (batch.size() == 1)
        return { { batch.constFirst().done, refusal } };
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
        for (const EtcdUpdateQueue::Update &update : std::as_const(batch)) {
            settled.append({ update.done,
                             readable ? storesupport::success(StoreEntry {
                                                update.key, update.document, QString::number(revision) })
                                      : etcdreplies::badReply(description, kOperation, update.key,
                                                              unreadable) });
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
            settled.append({ batch.at(i).done, answers[size_t(i)] });
    }
    if (!again.isEmpty())
        m_queue.requeue(std::move(again));
    return settled;
}

} // namespace baton
