#include "etcdrangebatcher.h"

#include "logging.h"
#include "storesupport.h"

#include <QJsonArray>
#include <QMetaObject>
#include <QPointer>

namespace baton {

namespace {

const QString kRangePath = QStringLiteral("/v3/kv/range");
const QString kTxnPath = QStringLiteral("/v3/kv/txn");
const QString kRequestRange = QStringLiteral("request_range");
const QLatin1String kResponseRange("response_range");

} // namespace

EtcdRangeBatcher::EtcdRangeBatcher(EtcdClient *client, int timeoutMs)
    : QObject(client)
    , m_client(client)
    , m_timeoutMs(timeoutMs)
{
}

void EtcdRangeBatcher::read(const QJsonObject &range, EtcdClient::ReplyHandler done)
{
    // The key and range end as sent (base64 already), their names, and
    // the operation around them.
    qsizetype wireBytes = 40;
    for (auto it = range.constBegin(); it != range.constEnd(); ++it)
        wireBytes += it.key().size() + it.value().toString().size() + 6;
    Read read { range, std::move(done), QDeadlineTimer(m_timeoutMs), wireBytes };
    if (m_inFlight < kMaxInFlight && m_waiting.empty() && m_alone.empty()) {
        sendAlone(std::move(read));
        return;
    }
    m_waiting.push_back(std::move(read));
}

void EtcdRangeBatcher::ended()
{
    --m_inFlight;
    sendWaiting();
}

void EtcdRangeBatcher::sendAlone(Read read)
{
    ++m_inFlight;
    m_client->call(kRangePath, read.range,
                   [this, done = std::move(read.done)](const QJsonObject &json,
                                                      const EtcdClient::Failure &failed) {
                       // What waits goes first: the answer may end the store, and this with it.
                       ended();
                       done(json, failed);
                   },
                   read.deadline);
}

void EtcdRangeBatcher::sendWaiting()
{
    // A read with less than half its timeout left would cut the time of
    // every fresher read it joined to its own: it is answered unsent.
    const qint64 minimumSendMs = m_timeoutMs / 2;
    while (m_inFlight < kMaxInFlight && !m_alone.empty()) {
        Read next = std::move(m_alone.front());
        m_alone.pop_front();
        sendAlone(std::move(next));
    }
    while (m_inFlight < kMaxInFlight && !m_waiting.empty()) {
        QList<Read> batch;
        qsizetype batchBytes = 0;
        while (!m_waiting.empty() && batch.size() < kMaxBatch
               && (batch.isEmpty() || batchBytes + m_waiting.front().wireBytes <= kMaxBatchBytes)) {
            Read next = std::move(m_waiting.front());
            m_waiting.pop_front();
            if (next.deadline.remainingTime() >= minimumSendMs) {
                batchBytes += next.wireBytes;
                batch.append(std::move(next));
                continue;
            }
            const StoreResult late = storesupport::failure(
                    StoreResult::Status::Unavailable,
                    QStringLiteral("%1: etcd had not answered earlier reads within %2 ms of its "
                                   "%3 ms timeout, so this one was never sent")
                            .arg(m_client->description())
                            .arg(m_timeoutMs - minimumSendMs)
                            .arg(m_timeoutMs));
            QMetaObject::invokeMethod(
                    this, [done = std::move(next.done), late] { done({}, late); },
                    Qt::QueuedConnection);
        }
        if (batch.size() == 1)
            sendAlone(std::move(batch.first()));
        else if (!batch.isEmpty())
            sendTogether(std::move(batch));
    }
}

void EtcdRangeBatcher::sendTogether(QList<Read> reads)
{
    ++m_inFlight;
    QJsonArray operations;
    QDeadlineTimer deadline(QDeadlineTimer::Forever);
    for (const Read &read : std::as_const(reads)) {
        operations.append(QJsonObject { { kRequestRange, read.range } });
        deadline = std::min(deadline, read.deadline);
    }
    // No comparison: the success branch always runs.
    const QJsonObject body { { QStringLiteral("success"), operations } };
    m_client->call(
            kTxnPath, body,
            [this, reads](const QJsonObject &json, const EtcdClient::Failure &failed) {
                QList<QJsonObject> answers;
                // An answer too large for the client, or one that does not
                // hold a range answer per read (etcd always gives one), is
                // no answer to the reads: each is asked alone.
                if ((failed && failed->status == StoreResult::Status::BadReply)
                    || (!failed && !rangeAnswers(json, reads.size(), &answers))) {
                    goAlone(reads);
                    return;
                }
                QPointer<EtcdRangeBatcher> self(this);
                ended();
                for (qsizetype i = 0; i < reads.size() && self; ++i) {
                    if (failed)
                        reads.at(i).done({}, failed);
                    else
                        reads.at(i).done(answers.at(i), std::nullopt);
                }
            },
            deadline,
            // Refused by etcd (a key outside the user's role, too many
            // operations): not the fault of every read in it.
            [this, reads](const QJsonObject &, const EtcdClient::Failure &) { goAlone(reads); });
}

void EtcdRangeBatcher::goAlone(const QList<Read> &reads)
{
    qCDebug(lcEtcd).noquote() << m_client->description() << "a txn of" << reads.size()
                              << "reads was refused or unreadable; each goes again alone";
    m_alone.insert(m_alone.end(), reads.cbegin(), reads.cend());
    ended();
}

bool EtcdRangeBatcher::rangeAnswers(const QJsonObject &json, qsizetype count, QList<QJsonObject> *answers)
{
    const QJsonArray responses = json.value(QLatin1String("responses")).toArray();
    if (responses.size() != count)
        return false;
    answers->reserve(count);
    for (const QJsonValue &response : responses) {
        const QJsonValue range = response.toObject().value(kResponseRange);
        if (!range.isObject())
            return false;
        answers->append(range.toObject());
    }
    return true;
}

} // namespace baton
