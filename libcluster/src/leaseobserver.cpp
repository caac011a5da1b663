#include "leaseobserver.h"

#include "clock.h"
#include "leasecodec.h"
#include "logging.h"

#include <baton/store.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <climits>

namespace baton {

LeaseObserver::LeaseObserver(Store *store, const Clock *clock, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_clock(clock ? clock : &Clock::system())
{
    m_pollTimer.setSingleShot(true);
    connect(&m_pollTimer, &QTimer::timeout, this, &LeaseObserver::list);
    m_expiryTimer.setSingleShot(true);
    m_expiryTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_expiryTimer, &QTimer::timeout, this, &LeaseObserver::checkExpiry);
}

LeaseObserver::~LeaseObserver() = default;

void LeaseObserver::start()
{
    if (m_running || !m_store)
        return;
    m_running = true;
    // The watch first, so that no change falls between the list and it.
    m_watch = m_store->watch(keyPrefix, this);
    if (m_watch) {
        connect(m_watch, &StoreWatch::entryChanged, this, [this](const StoreEntry &entry) {
            if (m_listing)
                m_touchedDuringList.insert(entry.key);
            applyEntry(entry);
        });
        connect(m_watch, &StoreWatch::entryRemoved, this, [this](const QString &key) {
            if (m_listing)
                m_touchedDuringList.insert(key);
            removeKey(key);
        });
        connect(m_watch, &StoreWatch::resynchronise, this, &LeaseObserver::list);
    }
    list();
}

void LeaseObserver::stop()
{
    m_running = false;
    m_pollTimer.stop();
    m_expiryTimer.stop();
    delete m_watch;
    m_watch = nullptr;
}

void LeaseObserver::list()
{
    if (!m_running || !m_store || m_listing)
        return;
    m_listing = true;
    m_touchedDuringList.clear();
    QPointer<LeaseObserver> self(this);
    m_store->list(keyPrefix, [self](const StoreResult &result) {
        if (!self)
            return;
        self->m_listing = false;
        if (!self->m_running)
            return;
        if (result.ok()) {
            QSet<QString> present;
            for (const StoreEntry &entry : result.entries) {
                present.insert(entry.key);
                if (!self->m_touchedDuringList.contains(entry.key))
                    self->applyEntry(entry);
            }
            const QStringList known = self->m_leases.keys();
            for (const QString &name : known) {
                const QString key = keyPrefix + name;
                if (!present.contains(key) && !self->m_touchedDuringList.contains(key))
                    self->removeKey(key);
            }
        } else {
            qCWarning(lcStore).noquote() << QStringLiteral("observer: cannot list %1*: %2")
                                                    .arg(keyPrefix, result.errorString);
            Q_EMIT self->storeError(result.errorString);
        }
        if (!self->m_ready) {
            self->m_ready = true;
            Q_EMIT self->ready();
        }
        // Without a watch, or after a failure, the list is how news comes.
        if (!self->m_watch || !result.ok())
            self->m_pollTimer.start(self->m_pollIntervalMs);
    });
}

void LeaseObserver::applyEntry(const StoreEntry &entry)
{
    if (!entry.key.startsWith(keyPrefix))
        return;
    const QString name = entry.key.mid(keyPrefix.size());
    const qint64 now = m_clock->monotonicMs();
    auto it = m_leases.find(name);
    const bool known = it != m_leases.end();
    if (known && it->version == entry.version)
        return; // unchanged: the F2 clock keeps running from the first sighting

    ObservedLease next = known ? *it : ObservedLease {};
    next.name = name;
    next.version = entry.version;
    next.changedMono = now;
    LeaseRecord record;
    QString error;
    if (leasecodec::decode(entry.document, &record, &error)) {
        next.valid = true;
        next.error.clear();
    } else {
        // R1: shown as unreadable, never guessed at.
        next.valid = false;
        next.error = error;
        record = LeaseRecord {};
    }
    const QString previousHolder = known ? it->record.holder : QString();
    const bool previousExpired = known && it->expired;
    const qint64 previousChanged = known ? it->changedMono : now;
    const qint64 previousDuration = known ? it->record.leaseDurationMs : 0;
    next.record = record;
    next.expired = false;
    if (!known)
        next.holderSinceMono = now;

    // A lease created while this observer runs is a first acquisition too;
    // one found by the first list is where the history starts.
    const bool appeared = !known && m_ready;
    if ((known || appeared) && record.holder != previousHolder) {
        LeaseFailover change;
        change.lease = name;
        change.from = previousHolder;
        change.to = record.holder;
        change.when = m_clock->wallNow().toUTC();
        change.mono = now;
        change.transitions = record.transitions;
        // The same words as the participants' leader-changed records (O5).
        if (record.holder.isEmpty()) {
            change.why = QStringLiteral("released");
        } else if (previousHolder.isEmpty()) {
            change.why = QStringLiteral("first-acquire");
            if (known) // without a leader since the release was seen
                change.gapMs = now - previousChanged;
        } else if (previousExpired) {
            change.why = QStringLiteral("expired");
            change.gapMs = std::max<qint64>(0, now - (previousChanged + previousDuration));
        } else {
            change.why = QStringLiteral("taken-over");
            change.gapMs = 0;
        }
        next.holderSinceMono = now;
        ++next.changesSeen;
        m_leases.insert(name, next);
        m_history.append(change);
        qCInfo(lcElection).noquote() << QStringLiteral("observer: %1: %2 -> %3 (%4)")
                                                .arg(name,
                                                     change.from.isEmpty() ? QStringLiteral("(none)") : change.from,
                                                     change.to.isEmpty() ? QStringLiteral("(none)") : change.to,
                                                     change.why);
        Q_EMIT leaseChanged(name);
        Q_EMIT failover(change);
    } else {
        m_leases.insert(name, next);
        Q_EMIT leaseChanged(name);
    }
    armExpiry();
}

void LeaseObserver::removeKey(const QString &key)
{
    if (!key.startsWith(keyPrefix))
        return;
    const QString name = key.mid(keyPrefix.size());
    if (m_leases.remove(name) > 0)
        Q_EMIT leaseRemoved(name);
    armExpiry();
}

void LeaseObserver::armExpiry()
{
    qint64 earliest = LLONG_MAX;
    for (const ObservedLease &lease : std::as_const(m_leases))
        if (!lease.expired && lease.valid && !lease.record.holder.isEmpty())
            earliest = std::min(earliest, lease.changedMono + lease.record.leaseDurationMs);
    if (earliest == LLONG_MAX || !m_running) {
        m_expiryTimer.stop();
        return;
    }
    m_expiryTimer.start(int(qBound<qint64>(0, earliest - m_clock->monotonicMs(), qint64(INT_MAX))));
}

void LeaseObserver::checkExpiry()
{
    const qint64 now = m_clock->monotonicMs();
    QStringList expired;
    for (ObservedLease &lease : m_leases) {
        if (!lease.expired && lease.valid && !lease.record.holder.isEmpty()
            && now - lease.changedMono >= lease.record.leaseDurationMs) {
            lease.expired = true;
            expired.append(lease.name);
        }
    }
    for (const QString &name : std::as_const(expired)) {
        qCInfo(lcElection).noquote() << QStringLiteral("observer: %1: the lease of %2 expired unrenewed")
                                                .arg(name, m_leases.value(name).record.holder);
        Q_EMIT leaseExpired(name);
        Q_EMIT leaseChanged(name);
    }
    armExpiry();
}

QList<ObservedLease> LeaseObserver::leases() const
{
    QList<ObservedLease> all = m_leases.values();
    std::sort(all.begin(), all.end(),
              [](const ObservedLease &a, const ObservedLease &b) { return a.name < b.name; });
    return all;
}

std::optional<ObservedLease> LeaseObserver::lease(const QString &name) const
{
    const auto it = m_leases.constFind(name);
    if (it == m_leases.constEnd())
        return std::nullopt;
    return *it;
}

namespace {

QString csvField(const QString &text)
{
    // RFC 4180: quote a field that holds a separator, a quote or a line break.
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"'))
        && !text.contains(QLatin1Char('\n')) && !text.contains(QLatin1Char('\r')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

} // namespace

QByteArray LeaseObserver::historyToCsv(const QList<LeaseFailover> &history)
{
    QString out = QStringLiteral("lease,from,to,why,time,mono,gapMs,transitions\r\n");
    for (const LeaseFailover &f : history)
        out += QStringList {csvField(f.lease), csvField(f.from), csvField(f.to), csvField(f.why),
                            f.when.toUTC().toString(Qt::ISODateWithMs), QString::number(f.mono),
                            f.gapMs >= 0 ? QString::number(f.gapMs) : QString(),
                            QString::number(f.transitions)}
                       .join(QLatin1Char(','))
                + QStringLiteral("\r\n");
    return out.toUtf8();
}

QByteArray LeaseObserver::historyToJson(const QList<LeaseFailover> &history)
{
    QJsonArray rows;
    for (const LeaseFailover &f : history) {
        QJsonObject row {{QStringLiteral("lease"), f.lease},
                         {QStringLiteral("from"), f.from},
                         {QStringLiteral("to"), f.to},
                         {QStringLiteral("why"), f.why},
                         {QStringLiteral("time"), f.when.toUTC().toString(Qt::ISODateWithMs)},
                         {QStringLiteral("mono"), double(f.mono)},
                         {QStringLiteral("transitions"), double(f.transitions)}};
        if (f.gapMs >= 0)
            row.insert(QStringLiteral("gapMs"), double(f.gapMs));
        rows.append(row);
    }
    return QJsonDocument(QJsonObject {{QStringLiteral("v"), 1}, {QStringLiteral("history"), rows}})
            .toJson(QJsonDocument::Indented);
}

} // namespace baton
