#include "leaseobserver_p.h"

#include <baton/clock.h>
#include "handoverrequest.h"
#include "leaseprotocol.h"
#include "leaseprotocolsource.h"
#include "storeleaseprotocol.h"
#include "logging.h"

#include <baton/application.h>
#include <batoninternal/leasehistory.h>
#include <batoninternal/observercandidatebook.h>
#include <batoninternal/successorchoice.h>
#include <baton/store.h>

#include <algorithm>
#include <utility>

namespace baton {

LeaseObserver::LeaseObserver(Store *store, const Clock *clock, QObject *parent)
    : LeaseObserver(new LeaseObserverPrivate(openLeaseProtocol(store, leasehistory::defaultLength).release(), clock), parent)
{
    d->m_store = store;
}

LeaseObserver::LeaseObserver(LeaseObserverPrivate *dd, QObject *parent)
    : QObject(parent)
    , d(dd)
{
    d->attach(this);
}

LeaseObserver::~LeaseObserver()
{
    // The watch and the protocol read the store: they go first, before
    // what open() opened.
    d->m_watch = nullptr;
    qDeleteAll(findChildren<LeaseWatch *>(Qt::FindDirectChildrenOnly)); // also one a stop() left
    delete d->m_protocol;
    d->m_protocol = nullptr;
}

LeaseObserver *LeaseObserverPrivate::create(LeaseProtocol *protocol, const Clock *clock, QObject *parent)
{
    return new LeaseObserver(new LeaseObserverPrivate(protocol, clock), parent);
}

LeaseObserverPrivate::LeaseObserverPrivate(LeaseProtocol *protocol, const Clock *clock)
    : m_protocol(protocol)
    , m_clock(clock ? clock : &Clock::system())
    , m_emptyText(QStringLiteral("no cluster:* entries in the Registry"))
{
}

void LeaseObserverPrivate::attach(LeaseObserver *observer)
{
    q = observer;
    m_protocol->setParent(nullptr); // deleted by ~LeaseObserver, before what open() opened
    m_pollTimer.setSingleShot(true);
    QObject::connect(&m_pollTimer, &QTimer::timeout, q, [this] { list(); });
    m_expiryTimer.setSingleShot(true);
    m_expiryTimer.setTimerType(Qt::PreciseTimer);
    QObject::connect(&m_expiryTimer, &QTimer::timeout, q, [this] { checkExpiry(); });
    m_sliceTimer.setSingleShot(true);
    QObject::connect(&m_sliceTimer, &QTimer::timeout, q, [this] { applySlice(); });
}

LeaseObserverPrivate::~LeaseObserverPrivate() = default;

QString LeaseObserver::describeSource() const
{
    return d->m_protocol->describe();
}

QString LeaseObserver::describeEmpty() const
{
    return d->m_emptyText;
}

Store *LeaseObserver::store() const
{
    return d->m_store;
}

bool LeaseObserver::isDefaultRegistry() const
{
    return d->m_defaultRegistry;
}

void LeaseObserver::setPollInterval(int ms)
{
    d->m_pollIntervalMs = ms;
}

int LeaseObserver::pollInterval() const
{
    return d->m_pollIntervalMs;
}

bool LeaseObserver::isReady() const
{
    return d->m_ready;
}

QList<LeaseFailover> LeaseObserver::history() const
{
    return d->m_recordedRuns.isEmpty() && d->m_pendingRecorded.isEmpty() ? d->m_history
                                                                         : d->historyWithWaiting();
}

const Clock &LeaseObserver::clock() const
{
    return *d->m_clock;
}

int LeaseObserverPrivate::apply(const SourcedLease &lease)
{
    applyRecord(lease);
    if (!lease.historyError.isEmpty() && !m_historyWarned.contains(lease.name)) {
        // O2: a stored history is a courtesy; a bad one is skipped, once said.
        m_historyWarned.insert(lease.name);
        qCWarning(lcElection).noquote() << QStringLiteral("observer: %1: ignoring its stored history: %2")
                                                   .arg(lease.name, lease.historyError);
    }
    // After the record, so that a change the record itself shows (a watch
    // on Kubernetes brings both at once) is the live row, not a second one.
    return lease.history ? mergeRecorded(lease.name, *lease.history) : 0;
}

int LeaseObserverPrivate::mergeRecorded(const QString &name, const QList<HistoryEntry> &changes)
{
    // A change is known by its lease and its transitions (F7: one per
    // term), whether this observer saw it or read it.
    QHash<qint64, QString> &known = m_historyTransitions[name];
    const qint64 nowMono = m_clock->monotonicMs();
    const QDateTime nowWall = m_clock->wallNow();
    int added = 0;
    for (const HistoryEntry &entry : changes) {
        if (known.contains(entry.transitions) || entry.to.isEmpty())
            continue;
        known.insert(entry.transitions, entry.to);
        const auto open = m_openRelease.constFind(name);
        // A successor that never saw the lease held stores no previous holder.
        if (open != m_openRelease.cend() && entry.why == QLatin1String("released")
            && entry.transitions > m_history.at(*open).transitions
            && (entry.from.isEmpty() || entry.from == m_history.at(*open).from)) {
            // The release was seen live and its successor read from the
            // stored history before its record arrived: one handover, one row.
            const qsizetype row = *open;
            m_openRelease.erase(open);
            LeaseFailover &handover = m_history[row];
            handover.to = entry.to;
            handover.gapMs = entry.gapMs;
            handover.transitions = entry.transitions;
            Q_EMIT q->handedOver(int(row), handover);
            continue;
        }
        LeaseFailover row;
        row.lease = name;
        row.from = entry.from;
        row.to = entry.to;
        row.why = entry.why;
        row.when = entry.at.toUTC();
        // The writer's wall clock, placed on ours by its age: for drawing
        // only, like every recorded time.
        row.mono = nowMono - entry.at.msecsTo(nowWall);
        row.gapMs = entry.gapMs;
        row.transitions = entry.transitions;
        row.recorded = true;
        m_pendingRecorded.append(std::move(row));
        ++added;
    }
    return added;
}

QList<LeaseFailover> LeaseObserverPrivate::queueRecorded()
{
    if (m_pendingRecorded.isEmpty())
        return {};
    return m_recordedRuns.push(std::exchange(m_pendingRecorded, {}));
}

QList<LeaseFailover> LeaseObserverPrivate::historyWithWaiting() const
{
    RecordedRuns waiting = m_recordedRuns;
    waiting.push(m_pendingRecorded);
    return RecordedRuns::merged(m_history, waiting.takeAll());
}

void LeaseObserverPrivate::insertRecorded()
{
    // One merge of two lists sorted by time, instead of an insertion in the
    // middle of the history per change: a first list of 5,000 leases with
    // 20 stored changes each took minutes that way (benchmarks.md).
    const QList<LeaseFailover> added = queueRecorded();
    if (m_recordedRuns.isEmpty())
        return;
    QList<LeaseFailover> recorded = m_recordedRuns.takeAll();
    // An open release moves down by the stored changes of an earlier time.
    for (qsizetype &open : m_openRelease)
        open += std::lower_bound(recorded.cbegin(), recorded.cend(), m_history.at(open), RecordedRuns::earlier)
                - recorded.cbegin();
    m_history = RecordedRuns::merged(std::move(m_history), std::move(recorded));
    if (!m_ready && !added.isEmpty())
        Q_EMIT q->storedHistoryAdded(added);
}

void LeaseObserverPrivate::applyRecord(const SourcedLease &lease)
{
    const QString &name = lease.name;
    const qint64 now = m_clock->monotonicMs();
    auto it = m_leases.find(name);
    const bool known = it != m_leases.end();
    if (known && it->version == lease.version)
        return; // unchanged: the F2 clock keeps running from the first sighting

    ObservedLease next = known ? *it : ObservedLease {};
    next.name = name;
    next.version = lease.version;
    next.changedMono = now;
    next.valid = lease.valid;
    next.error = lease.valid ? QString() : lease.error;
    const LeaseRecord record = lease.valid ? lease.record : LeaseRecord {};
    const QString previousHolder = known ? it->record.holder : QString();
    // R5: the same name with another incarnation is another process, one
    // that took the lease after the first's ran out.
    const bool holderChanged = record.holder != previousHolder
            || (known && !record.holder.isEmpty()
                && record.holderIncarnation != it->record.holderIncarnation);
    const bool previousExpired = known && it->expired;
    const qint64 previousChanged = known ? it->changedMono : now;
    const qint64 previousDuration = known ? it->record.leaseDurationMs : 0;
    const QDateTime previousRenewal = known ? it->record.renewTime : QDateTime();
    next.record = record;
    next.expired = false;
    if (!known)
        next.holderSinceMono = now;

    // A lease created while this observer runs is a first acquisition too;
    // one found by the first list is where the history starts.
    const bool appeared = !known && m_ready;
    // A change already read from the stored history (a list between the
    // write and its watch event, or a lagging watch) is that row: its record
    // adds no second, guessed one.
    const bool alreadyStored = !record.holder.isEmpty()
            && m_historyTransitions.value(name).value(record.transitions) == record.holder;
    const auto openRelease = m_openRelease.constFind(name);
    if (known && previousHolder.isEmpty() && !record.holder.isEmpty() && openRelease != m_openRelease.cend()) {
        // The successor of a release seen: the release's row gets it.
        const qsizetype row = *openRelease;
        m_openRelease.erase(openRelease);
        LeaseFailover &change = m_history[row];
        change.to = record.holder;
        change.gapMs = now - change.mono;
        change.transitions = record.transitions;
        m_historyTransitions[name].insert(change.transitions, QString());
        next.holderSinceMono = now;
        ++next.changesSeen;
        m_leases.insert(name, next);
        schedule(next);
        qCDebug(lcElection).noquote() << QStringLiteral("observer: %1: handed over from %2 to %3 (%4 ms without a leader)")
                                                .arg(name, change.from, change.to)
                                                .arg(change.gapMs);
        Q_EMIT q->leaseChanged(name);
        Q_EMIT q->handedOver(int(row), change);
    } else if ((known || appeared) && holderChanged && !alreadyStored) {
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
            if (known) // without a leader at least since this observer saw it free
                change.gapMs = now - previousChanged;
        } else if (previousExpired || now - previousChanged >= previousDuration / 2) {
            // A successor takes an unreleased lease only once it judged it
            // expired, on its own clock, which may run a little ahead of
            // ours: a holder unseen for half a lease had stopped renewing.
            change.why = QStringLiteral("expired");
            // From the last renewal seen, not from the expiry (docs/reference/command-line.md).
            change.gapMs = leasehistory::crashGapMs(now - previousChanged, previousRenewal, record.acquireTime);
        } else {
            change.why = QStringLiteral("taken-over");
            change.gapMs = 0;
        }
        next.holderSinceMono = now;
        ++next.changesSeen;
        m_leases.insert(name, next);
        schedule(next);
        m_openRelease.remove(name);
        if (change.why == QLatin1String("released"))
            m_openRelease.insert(name, m_history.size());
        m_history.append(change);
        if (!change.to.isEmpty())
            m_historyTransitions[name].insert(change.transitions, QString());
        // Debug: whoever observes prints the change (status, the dashboard); at
        // info every change would show twice.
        qCDebug(lcElection).noquote() << QStringLiteral("observer: %1: %2 -> %3 (%4)")
                                                .arg(name,
                                                     change.from.isEmpty() ? QStringLiteral("(none)") : change.from,
                                                     change.to.isEmpty() ? QStringLiteral("(none)") : change.to,
                                                     change.why);
        Q_EMIT q->leaseChanged(name);
        Q_EMIT q->failover(change);
    } else if (alreadyStored && holderChanged) {
        // Its row is there, read from the stored history: this is when the
        // change is seen, and told as a completed row, not a new one.
        next.holderSinceMono = now;
        ++next.changesSeen;
        m_openRelease.remove(name);
        m_leases.insert(name, next);
        schedule(next);
        Q_EMIT q->leaseChanged(name);
        insertRecorded(); // the stored row may still wait for its place
        for (qsizetype row = m_history.size() - 1; row >= 0; --row) {
            const LeaseFailover &stored = m_history.at(row);
            if (stored.recorded && stored.lease == name && stored.transitions == record.transitions) {
                Q_EMIT q->storedChangeSeen(int(row), stored);
                break;
            }
        }
    } else {
        m_leases.insert(name, next);
        schedule(next);
        Q_EMIT q->leaseChanged(name);
    }
    armExpiry();
}

void LeaseObserverPrivate::remove(const QString &name)
{
    unschedule(name);
    m_openRelease.remove(name);
    if (m_leases.remove(name) > 0)
        Q_EMIT q->leaseRemoved(name);
    armExpiry();
}

QList<ObservedLease> LeaseObserver::leases() const
{
    QList<ObservedLease> all = d->m_leases.values();
    std::sort(all.begin(), all.end(),
              [](const ObservedLease &a, const ObservedLease &b) { return a.name < b.name; });
    return all;
}

std::optional<ObservedLease> LeaseObserver::lease(const QString &name) const
{
    const auto it = d->m_leases.constFind(name);
    if (it == d->m_leases.constEnd())
        return std::nullopt;
    return *it;
}

} // namespace baton

namespace baton {

void LeaseObserver::requestHandover(const QString &name, const QString &to, const QString &requestedBy,
                                    std::function<void(bool ok, const QString &message)> done)
{
    handoverrequest::send(d->m_protocol, name, to, requestedBy, std::move(done));
}

void LeaseObserver::requestHandoverToMatching(const QString &name, const QString &selector,
                                              const QString &requestedBy,
                                              std::function<void(bool ok, const QString &message)> done)
{
    QString error;
    const std::optional<LabelSelector> parsed = LabelSelector::parse(selector, &error);
    CandidateBook *book = parsed ? openCandidateBook(this, name, this, &error) : nullptr;
    if (!book) {
        QMetaObject::invokeMethod(this, [done = std::move(done), error] { done(false, error); },
                                  Qt::QueuedConnection);
        return;
    }
    book->list([this, book, name, selector = *parsed, requestedBy,
                done = std::move(done)](bool ok, const QList<CandidateRecord> &records, const QString &why) {
        book->deleteLater();
        if (!ok) {
            done(false, QStringLiteral("%1: could not list the lease's candidates: %2")
                                .arg(d->m_protocol->describeLease(name), why));
            return;
        }
        const QDateTime nowWall = d->m_clock->wallNow();
        handoverrequest::sendToChosen(
                d->m_protocol, name,
                [records, selector, nowWall](const QString &holder) {
                    const SuccessorChoice choice = chooseSuccessor(records, selector, holder, nowWall);
                    return handoverrequest::Choice {choice.instance, choice.holderMatches, choice.explanation};
                },
                requestedBy, done);
    });
}

} // namespace baton
