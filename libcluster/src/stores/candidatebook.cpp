#include <batoninternal/candidatebook.h>
#include <batoninternal/isotime.h>

#include "candidaterecordbackend.h"
#include "followedlistings.h"

#include <baton/store.h>

#include <QTimer>

#include <algorithm>

namespace baton {

namespace {

QString timeText(const QDateTime &when)
{
    return isotime::format(when);
}

QDateTime readTime(const QJsonValue &value)
{
    return isotime::parse(value.toString());
}

// The range `baton join --priority` accepts: a record written by hand with
// more reads as the nearest bound, not as a lease that can never be taken over.
constexpr int lowestPriority = -1000;
constexpr int highestPriority = 1000;

} // namespace

QJsonObject CandidateRecord::toJson() const
{
    QJsonObject json {{QStringLiteral("instance"), instance},
                      {QStringLiteral("incarnation"), incarnation},
                      {QStringLiteral("priority"), priority},
                      {QStringLiteral("drained"), drained},
                      {QStringLiteral("heartbeat"), timeText(heartbeat)},
                      {QStringLiteral("heartbeatIntervalMs"), heartbeatIntervalMs},
                      {QStringLiteral("left"), left}};
    if (!drainedBy.isEmpty())
        json.insert(QStringLiteral("drainedBy"), drainedBy);
    if (drainedAt.isValid())
        json.insert(QStringLiteral("drainedAt"), timeText(drainedAt));
    if (!labels.isEmpty())
        json.insert(QStringLiteral("labels"), candidatelabels::toJson(labels));
    return json;
}

bool CandidateRecord::seemsLiveAt(const QDateTime &nowWall) const
{
    constexpr qint64 heartbeatsToGone = 3;
    return !left && heartbeatIntervalMs > 0 && heartbeat.isValid()
            && heartbeat.msecsTo(nowWall) <= heartbeatsToGone * heartbeatIntervalMs;
}

namespace {

// Longer than any instance id, incarnation or `user@host` written here.
constexpr qsizetype maxTextLength = 256;
// A record that says it stays live longer than this was not written by a
// candidate: it would hold drained instances back for ever.
constexpr qint64 maxHeartbeatIntervalMs = 3600 * 1000;

/*! Text that reaches logs and tables: short, and without control characters (no forged log lines). */
bool isPlainText(const QString &text)
{
    return text.size() <= maxTextLength
        && std::all_of(text.cbegin(), text.cend(), [](QChar c) { return c.isPrint(); });
}

} // namespace

std::optional<CandidateRecord> CandidateRecord::fromJson(const QJsonObject &json)
{
    CandidateRecord record;
    record.instance = json.value(QStringLiteral("instance")).toString();
    record.incarnation = json.value(QStringLiteral("incarnation")).toString();
    record.drainedBy = json.value(QStringLiteral("drainedBy")).toString();
    if (record.instance.isEmpty() || !isPlainText(record.instance) || !isPlainText(record.incarnation)
        || !isPlainText(record.drainedBy))
        return std::nullopt;
    // Each field read as what it should be, else as its default: a field of
    // the wrong type (a record edited by hand) never makes a candidate look
    // live, drained or preferred that was not written so.
    record.priority = std::clamp(json.value(QStringLiteral("priority")).toInt(0), lowestPriority, highestPriority);
    record.drained = json.value(QStringLiteral("drained")).toBool(false);
    record.drainedAt = readTime(json.value(QStringLiteral("drainedAt")));
    record.heartbeat = readTime(json.value(QStringLiteral("heartbeat")));
    record.heartbeatIntervalMs = std::clamp<qint64>(json.value(QStringLiteral("heartbeatIntervalMs")).toInteger(0), 0,
                                                    maxHeartbeatIntervalMs);
    // A record without the field was not written by a running candidate.
    record.left = json.value(QStringLiteral("left")).toBool(true);
    // Labels reach tables and logs: a pair that is not a label (edited by
    // hand) is left out, never shown or matched.
    const QJsonObject labels = json.value(QStringLiteral("labels")).toObject();
    constexpr qsizetype maxLabels = 64;
    for (auto it = labels.constBegin(); it != labels.constEnd() && record.labels.size() < maxLabels; ++it) {
        if (!it.value().isString())
            continue;
        const QString value = it.value().toString();
        if (candidatelabels::checkKey(it.key()).isEmpty() && candidatelabels::checkValue(value).isEmpty())
            record.labels.insert(it.key(), value);
    }
    return record;
}

CandidateBook::CandidateBook(Store *store, const QString &lease, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_lease(lease)
{
}

CandidateBook::CandidateBook(std::unique_ptr<CandidateRecordBackend> backend, const QString &lease,
                             QObject *parent)
    : QObject(parent)
    , m_lease(lease)
    , m_backend(std::move(backend))
{
}

CandidateBook::~CandidateBook()
{
    if (auto *followed = dynamic_cast<FollowedListings *>(m_store.data()); followed && m_following)
        followed->unfollowListing(prefix(m_lease));
}

void CandidateBook::followRecords()
{
    if (auto *followed = dynamic_cast<FollowedListings *>(m_store.data()); followed && !m_following) {
        followed->followListing(prefix(m_lease));
        m_following = true;
    }
}

QString CandidateBook::prefix(const QString &lease)
{
    return QStringLiteral("candidate:%1:").arg(lease);
}

QString CandidateBook::key(const QString &lease, const QString &instance)
{
    return prefix(lease) + instance;
}

namespace {

Store::Callback settle(QPointer<CandidateBook> book, CandidateRecord record, CandidateBook::Done done)
{
    return [book, record, done = std::move(done)](const StoreResult &result) mutable {
        if (!book)
            return;
        if (result.ok()) {
            record.version = result.entry.version;
            done(true, record, QString());
        } else if (result.status == StoreResult::Status::Conflict
                   || result.status == StoreResult::Status::NotFound) {
            done(false, record, QString()); // somebody else wrote it first
        } else {
            done(false, record, result.errorString);
        }
    };
}

/*! \a done, for a backend whose answers may outlive the book: not called once it is gone. */
template<typename Callback>
auto whileAlive(QPointer<CandidateBook> book, Callback done)
{
    return [book, done = std::move(done)](auto &&...arguments) {
        if (book)
            done(arguments...);
    };
}

/*!
 * The record \a entry of \a lease holds, or nothing: one that is not a
 * record, or one that names another instance than its key (a copy made
 * by hand), is nobody's announcement.
 */
std::optional<CandidateRecord> readEntry(const QString &lease, const StoreEntry &entry)
{
    std::optional<CandidateRecord> record = CandidateRecord::fromJson(entry.document);
    if (!record || entry.key != CandidateBook::key(lease, record->instance))
        return std::nullopt;
    record->version = entry.version;
    return record;
}

/*! \a entry, with the key it was read at (not every store's get sets it). */
StoreEntry keyed(StoreEntry entry, const QString &lease, const QString &instance)
{
    entry.key = CandidateBook::key(lease, instance);
    return entry;
}

} // namespace

void CandidateBook::read(const QString &instance, Read done)
{
    if (m_backend) {
        m_backend->read(instance, whileAlive(this, std::move(done)));
        return;
    }
    if (!m_store)
        return;
    QPointer<CandidateBook> self(this);
    const QString lease = m_lease;
    m_store->get(key(m_lease, instance), [self, lease, instance, done = std::move(done)](const StoreResult &result) {
        if (!self)
            return;
        if (result.status == StoreResult::Status::NotFound) {
            done(true, std::nullopt, QString());
        } else if (!result.ok()) {
            done(false, std::nullopt, result.errorString);
        } else if (std::optional<CandidateRecord> record = readEntry(lease, keyed(result.entry, lease, instance))) {
            done(true, record, QString());
        } else {
            // Something else sits under the instance's key: it reads as a
            // candidate that left, with that version, so that the next
            // write replaces it instead of failing on it forever.
            CandidateRecord replaceable;
            replaceable.instance = instance;
            replaceable.left = true;
            replaceable.version = result.entry.version;
            done(true, replaceable, QString());
        }
    });
}

void CandidateBook::create(const CandidateRecord &record, Done done)
{
    if (record.instance.isEmpty()) {
        QTimer::singleShot(0, this, [record, done = std::move(done)] {
            done(false, record, QStringLiteral("a candidate record needs an instance name"));
        });
        return;
    }
    if (m_backend) {
        m_backend->create(record, whileAlive(this, std::move(done)));
        return;
    }
    if (!m_store)
        return;
    m_store->create(key(m_lease, record.instance), record.toJson(), settle(this, record, std::move(done)));
}

void CandidateBook::replace(const CandidateRecord &earlier, const CandidateRecord &record, Done done)
{
    // Without the version read, a replace would be a blind write over an operator's drain.
    if (earlier.version.isEmpty() || record.instance != earlier.instance) {
        QTimer::singleShot(0, this, [record, done = std::move(done)] {
            done(false, record,
                 QStringLiteral("the candidate record of \"%1\" can only replace that instance's record as read "
                                "from the store")
                         .arg(record.instance));
        });
        return;
    }
    if (m_backend) {
        m_backend->update(earlier, record, whileAlive(this, std::move(done)));
        return;
    }
    if (!m_store)
        return;
    m_store->update(key(m_lease, record.instance), record.toJson(), earlier.version,
                    settle(this, record, std::move(done)));
}

void CandidateBook::list(Listed done)
{
    const auto byInstance = [](const CandidateRecord &a, const CandidateRecord &b) { return a.instance < b.instance; };
    if (m_backend) {
        m_backend->list(whileAlive(this, [done = std::move(done), byInstance](bool ok, QList<CandidateRecord> records,
                                                                               const QString &error) {
            std::sort(records.begin(), records.end(), byInstance);
            done(ok, records, error);
        }));
        return;
    }
    if (!m_store)
        return;
    QPointer<CandidateBook> self(this);
    const QString lease = m_lease;
    m_store->list(prefix(m_lease), [self, lease, done = std::move(done), byInstance](const StoreResult &result) {
        if (!self)
            return;
        if (!result.ok()) {
            done(false, {}, result.errorString);
            return;
        }
        QList<CandidateRecord> records;
        for (const StoreEntry &entry : result.entries)
            if (std::optional<CandidateRecord> record = readEntry(lease, entry))
                records.append(*record);
        std::sort(records.begin(), records.end(), byInstance);
        done(true, records, QString());
    });
}

void CandidateBook::remove(const CandidateRecord &record)
{
    // Only at the version read: a removal never takes a record written since.
    if (record.version.isEmpty())
        return;
    if (m_backend) {
        m_backend->remove(record);
        return;
    }
    if (m_store)
        m_store->remove(key(m_lease, record.instance), record.version, [](const StoreResult &) {});
}

} // namespace baton
