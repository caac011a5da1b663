#include "etcdrangebatcher.h"

#include "etcdreplies.h"
#include "logging.h"
#include "storesupport.h"

#include <QJsonArray>
#include <QMetaObject>
#include <QPointer>

#include <algorithm>

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
    if (m_inFlight < kMaxInFlight && m_waiting.empty() && m_again.empty()) {
        sendAlone(std::move(read));
        return;
    }
    m_waiting.push_back(std::move(read));
}

int EtcdRangeBatcher::waiting() const
{
    qsizetype again = 0;
    for (const Again &part : m_again)
        again += part.reads.size();
    return int(m_waiting.size() + again);
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

bool EtcdRangeBatcher::inTime(Read &read)
{
    // A read with less than half its timeout left would cut the time of
    // every fresher read it joined to its own: it is answered unsent.
    const qint64 minimumSendMs = m_timeoutMs / 2;
    if (read.deadline.remainingTime() >= minimumSendMs)
        return true;
    const StoreResult late = storesupport::failure(
            StoreResult::Status::Unavailable,
            QStringLiteral("%1: etcd had not answered earlier reads within %2 ms of its "
                           "%3 ms timeout, so this one was never sent")
                    .arg(m_client->description())
                    .arg(m_timeoutMs - minimumSendMs)
                    .arg(m_timeoutMs));
    answerLater(read, late);
    return false;
}

void EtcdRangeBatcher::answerLater(Read &read, const StoreResult &failure)
{
    QMetaObject::invokeMethod(
            this, [done = std::move(read.done), failure] { done({}, failure); }, Qt::QueuedConnection);
}

QList<EtcdRangeBatcher::Read> EtcdRangeBatcher::nextBatch(bool *apart)
{
    QList<Read> batch;
    while (batch.isEmpty() && !m_again.empty()) {
        Again part = std::move(m_again.front());
        m_again.pop_front();
        *apart = part.apart;
        // Sent once and refused: it goes again while its time lasts (it
        // joins only reads of its own txn, as old as it), and is answered
        // with what it met once that is up, not as a read never sent.
        for (Read &read : part.reads) {
            if (read.deadline.hasExpired())
                answerLater(read, part.why);
            else
                batch.append(std::move(read));
        }
    }
    if (!batch.isEmpty())
        return batch;
    *apart = false;
    qsizetype batchBytes = 0;
    while (batch.isEmpty() && !m_waiting.empty()) {
        while (!m_waiting.empty() && batch.size() < m_maxBatch
               && (batch.isEmpty() || batchBytes + m_waiting.front().wireBytes <= kMaxBatchBytes)) {
            Read next = std::move(m_waiting.front());
            m_waiting.pop_front();
            if (!inTime(next))
                continue;
            batchBytes += next.wireBytes;
            batch.append(std::move(next));
        }
    }
    return batch;
}

void EtcdRangeBatcher::sendWaiting()
{
    while (m_inFlight < kMaxInFlight) {
        bool apart = false;
        QList<Read> batch = nextBatch(&apart);
        if (batch.isEmpty())
            return;
        if (batch.size() == 1)
            sendAlone(std::move(batch.first()));
        else
            sendTogether(std::move(batch), apart);
    }
}

void EtcdRangeBatcher::sendTogether(QList<Read> reads, bool apart)
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
            [this, reads, apart](const QJsonObject &json, const EtcdClient::Failure &failed) {
                QList<QJsonObject> answers;
                // An answer too large for the client, or one that does not
                // hold a range answer per read (etcd always gives one), is
                // no answer to the reads: they are asked again, fewer at a time.
                if (failed && failed->status == StoreResult::Status::BadReply) {
                    sendAgain(reads, *failed, apart);
                    return;
                }
                if (!failed && !rangeAnswers(json, reads.size(), &answers)) {
                    sendAgain(reads,
                              storesupport::failure(StoreResult::Status::BadReply,
                                                    QStringLiteral("%1: a txn of reads was not answered "
                                                                   "with one range answer per read")
                                                            .arg(m_client->description())),
                              apart);
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
            [this, reads, apart](const QJsonObject &, const EtcdClient::Failure &refusal) {
                sendAgain(reads, *refusal, apart);
            });
}

void EtcdRangeBatcher::sendAgain(QList<Read> reads, const StoreResult &why, bool apart)
{
    qCDebug(lcEtcd).noquote() << m_client->description() << "a txn of" << reads.size()
                              << "reads goes again:" << m_client->redact(why.errorString);
    std::vector<Again> parts;
    if (etcdreplies::tooManyOperations(why)) {
        // Cut to the size etcd may take; refused for what they hold, each
        // part is still halved.
        m_maxBatch = std::clamp(int(reads.size() / 2), 1, m_maxBatch);
        for (qsizetype from = 0; from < reads.size(); from += m_maxBatch)
            parts.push_back({ reads.mid(from, m_maxBatch), why, apart });
    } else if (!apart) {
        const qsizetype half = reads.size() / 2;
        parts.push_back({ reads.first(half), why, true });
        parts.push_back({ reads.sliced(half), why, true });
    } else {
        for (const Read &read : std::as_const(reads))
            parts.push_back({ { read }, why, true });
    }
    for (auto part = parts.rbegin(); part != parts.rend(); ++part)
        m_again.push_front(std::move(*part));
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
