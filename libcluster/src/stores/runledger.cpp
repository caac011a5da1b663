#include <batoninternal/isotime.h>
#include <batoninternal/runledger.h>

#include "runrecordbackend.h"

#include <baton/store.h>

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace baton {

const QString RunRecord::running = QStringLiteral("running");
const QString RunRecord::succeeded = QStringLiteral("succeeded");
const QString RunRecord::interrupted = QStringLiteral("interrupted: leadership ended");
const QString RunRecord::skipped = QStringLiteral("skipped: previous run still going");

namespace {

QString timeText(const QDateTime &when)
{
    return isotime::format(when);
}

QDateTime readTime(const QJsonValue &value)
{
    return isotime::parse(value.toString());
}

} // namespace

QJsonObject RunRecord::toJson() const
{
    QJsonObject json {{QStringLiteral("tick"), tick},
                      {QStringLiteral("instance"), instance},
                      // A string: a token past 2^53 survives every JSON reader.
                      {QStringLiteral("token"), QString::number(token)},
                      {QStringLiteral("start"), timeText(start)},
                      {QStringLiteral("outcome"), outcome},
                      {QStringLiteral("attempt"), attempt}};
    if (end.isValid())
        json.insert(QStringLiteral("end"), timeText(end));
    if (!schedule.isEmpty())
        json.insert(QStringLiteral("schedule"), schedule);
    return json;
}

std::optional<RunRecord> RunRecord::fromEntry(const StoreEntry &entry)
{
    const QJsonObject json = entry.document;
    RunRecord record;
    record.tick = json.value(QStringLiteral("tick")).toString();
    record.outcome = json.value(QStringLiteral("outcome")).toString();
    if (record.tick.isEmpty() || record.outcome.isEmpty())
        return std::nullopt;
    record.instance = json.value(QStringLiteral("instance")).toString();
    record.token = json.value(QStringLiteral("token")).toString().toLongLong();
    record.start = readTime(json.value(QStringLiteral("start")));
    record.end = readTime(json.value(QStringLiteral("end")));
    record.attempt = std::max(1, json.value(QStringLiteral("attempt")).toInt(1));
    record.schedule = json.value(QStringLiteral("schedule")).toString();
    record.version = entry.version;
    return record;
}

RunLedger::RunLedger(Store *store, const QString &lease, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_lease(lease)
{
}

RunLedger::RunLedger(std::unique_ptr<RunRecordBackend> backend, const QString &lease, QObject *parent)
    : QObject(parent)
    , m_lease(lease)
    , m_backend(std::move(backend))
{
}

RunLedger::~RunLedger() = default;

QString RunLedger::prefix(const QString &lease)
{
    return QStringLiteral("run:%1:").arg(lease);
}

QString RunLedger::key(const QString &lease, const QString &tick)
{
    return prefix(lease) + tick;
}

namespace {

Store::Callback settle(QPointer<RunLedger> ledger, RunRecord record, RunLedger::Done done)
{
    return [ledger, record, done = std::move(done)](const StoreResult &result) mutable {
        if (!ledger)
            return;
        if (result.ok()) {
            record.version = result.entry.version;
            done(true, record, QString());
        } else if (result.status == StoreResult::Status::Conflict
                   || result.status == StoreResult::Status::NotFound) {
            done(false, record, QString()); // another instance got there first
        } else {
            done(false, record, result.errorString);
        }
    };
}

/*! \a done, for a backend whose answers may outlive the ledger: not called once it is gone. */
template<typename Callback>
auto whileAlive(QPointer<RunLedger> ledger, Callback done)
{
    return [ledger, done = std::move(done)](auto &&...arguments) {
        if (ledger)
            done(arguments...);
    };
}

} // namespace

void RunLedger::claim(const RunRecord &record, Done done)
{
    if (m_backend) {
        m_backend->create(record, whileAlive(this, std::move(done)));
        return;
    }
    if (!m_store)
        return;
    m_store->create(key(m_lease, record.tick), record.toJson(), settle(this, record, std::move(done)));
}

void RunLedger::replace(const RunRecord &earlier, const RunRecord &record, Done done)
{
    if (m_backend) {
        m_backend->update(earlier, record, whileAlive(this, std::move(done)));
        return;
    }
    if (!m_store)
        return;
    m_store->update(key(m_lease, record.tick), record.toJson(), earlier.version,
                    settle(this, record, std::move(done)));
}

void RunLedger::list(Listed done)
{
    if (m_backend) {
        m_backend->list(whileAlive(this, [done = std::move(done)](bool ok, QList<RunRecord> records,
                                                                   const QString &error) {
            std::sort(records.begin(), records.end(),
                      [](const RunRecord &a, const RunRecord &b) { return a.tick < b.tick; });
            done(ok, records, error);
        }));
        return;
    }
    if (!m_store)
        return;
    QPointer<RunLedger> self(this);
    m_store->list(prefix(m_lease), [self, done = std::move(done)](const StoreResult &result) {
        if (!self)
            return;
        if (!result.ok()) {
            done(false, {}, result.errorString);
            return;
        }
        QList<RunRecord> records;
        for (const StoreEntry &entry : result.entries)
            if (auto record = RunRecord::fromEntry(entry))
                records.append(*record);
        // Tick names are UTC instants in one format: their order is time order.
        std::sort(records.begin(), records.end(),
                  [](const RunRecord &a, const RunRecord &b) { return a.tick < b.tick; });
        done(true, records, QString());
    });
}

void RunLedger::trim(int keepCount, qint64 keepBytes)
{
    QPointer<RunLedger> self(this);
    list([self, keepCount, keepBytes](bool ok, const QList<RunRecord> &records, const QString &) {
        if (!ok || !self || (!self->m_store && !self->m_backend))
            return;
        qint64 bytes = 0;
        int kept = 0;
        // From the newest back: what fits is kept, the rest goes unless it still runs.
        for (qsizetype i = records.size() - 1; i >= 0; --i) {
            const RunRecord &record = records.at(i);
            bytes += QJsonDocument(record.toJson()).toJson(QJsonDocument::Compact).size();
            ++kept;
            if ((kept > keepCount || bytes > keepBytes) && !record.isRunning()) {
                if (self->m_backend)
                    self->m_backend->remove(record);
                else
                    self->m_store->remove(key(self->m_lease, record.tick), record.version,
                                          [](const StoreResult &) {});
            }
        }
    });
}

} // namespace baton
