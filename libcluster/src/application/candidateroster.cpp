#include "candidateroster.h"

#include "clusterservice_p.h"
#include "logging.h"
#include "renewalslot.h"

#include <baton/clock.h>
#include <batoninternal/durationtext.h>
#include <batoninternal/opencandidatebook.h>

#include <QRandomGenerator>

#include <algorithm>
#include <utility>

namespace baton {

namespace {

// A conflict means somebody else wrote the record (an operator's drain):
// it is read again and written over, a few times at most per heartbeat.
constexpr int kMaxWriteAttempts = 3;
// A candidate's record unchanged for this many heartbeats, as the leader
// saw it, is removed: its process stopped or crashed long ago.
constexpr qint64 kRemoveAfterHeartbeats = 10;
// A store that refuses the records (a Kubernetes Role without ConfigMaps)
// refuses them at every heartbeat: after each heartbeat at which a step
// (the write, or the listing) failed, that step waits twice as long, up to
// this many heartbeats, so that a thousand elections do not send two
// refused requests each per lease duration forever. Deciding goes on at
// every heartbeat, on what was seen.
constexpr int kMaxPauseHeartbeats = 16;

QString requestedBy(SteeringDecision::Why why)
{
    return why == SteeringDecision::Why::Drained ? QStringLiteral("drain")
                                                 : QStringLiteral("preferred holder");
}

} // namespace

CandidateRoster::CandidateRoster(ClusterServicePrivate *election, CandidateBook *book)
    : m_election(election)
    , m_book(book)
    , m_policy({election->params.identity, election->priority, election->standby, election->preferAfterMs})
    , m_writeBackoff(kMaxPauseHeartbeats)
    , m_listBackoff(kMaxPauseHeartbeats)
{
    m_book->setParent(this);
    connect(&m_heartbeat, &BootTimer::timeout, this, [this] { beat(now()); });
    connect(&m_stopBound, &BootTimer::timeout, this, [this] {
        failed(QStringLiteral("leave"), QStringLiteral("no answer from the store in time"));
        finishStop();
    });
    // Decided again on becoming leader, from a fresh listing: the last one
    // may be a heartbeat old, and an instance drained or undrained since
    // would be handed the lease back and forth until its next heartbeat.
    connect(election->q, &ClusterService::holderChanged, this,
            [this](const QString &holder) { m_policy.holderSeen(holder); });
    connect(election->q, &ClusterService::leadershipChanged, this,
            [this](bool leading) {
                if (leading)
                    backOffFromAFailedHandover();
                if (!leading || m_stopping || m_busy)
                    return; // the heartbeat on its way ends with a listing and a decision
                m_busy = true;
                listAndApply();
            },
            Qt::QueuedConnection);
}

void CandidateRoster::attach(ClusterService *service)
{
    ClusterServicePrivate::setSteeringFactory(
            service, [](ClusterServicePrivate *election, QString *errorString) -> ElectionSteering * {
                CandidateBook *book = openCandidateBook(election->q, nullptr, errorString);
                if (!book)
                    return nullptr;
                book->followRecords(); // listed every heartbeat
                return new CandidateRoster(election, book);
            });
}

qint64 CandidateRoster::now() const
{
    return m_election->clock->monotonicMs();
}

void CandidateRoster::start()
{
    // Started as a standby: no lease is taken before the first listing
    // says whether another candidate could take it instead.
    if (m_election->standby)
        standBy(true);
    beat(now());
    // The elections of one process start together and would beat together
    // for as long as they run: a thousand writes and listings in one
    // instant every leaseDuration, which delayed the renewals falling due
    // then by hundreds of milliseconds. The second heartbeat comes at a
    // random instant of the first interval, so that theirs spread over it;
    // never later than a heartbeat, so no record looks stale for it.
    if (!m_stopping && m_heartbeat.isActive())
        armHeartbeat(untilBeat(1 + QRandomGenerator::global()->bounded(m_election->params.leaseDurationMs)));
}

qint64 CandidateRoster::untilBeat(qint64 afterMs) const
{
    // In the slot where the leases renew together (on etcd): the record's
    // write then shares their txn instead of being one more.
    if (!m_election->params.renewTogether)
        return afterMs;
    const qint64 due = renewalSlotStart(now() + afterMs, m_election->params.renewIntervalMs);
    return std::max<qint64>(1, due - now());
}

void CandidateRoster::armHeartbeat(qint64 ms)
{
    m_heartbeatDueMono = now() + ms;
    m_heartbeat.start(ms);
}

void CandidateRoster::renewing()
{
    // A heartbeat due before the next renewal goes with this one, at most a
    // renewInterval early: its write shares the renewal's txn, so that even
    // a leader alone sends one request a renewInterval. The next one counts
    // from when this one was due, so that records are still written every
    // leaseDuration. Not while the writes fail: one etcd refuses, or a
    // record an operator changed, would fail the renewal's txn with it.
    if (m_stopping || m_busy || !m_heartbeat.isActive() || m_writeBackoff.failing()
        || m_heartbeatDueMono - now() > m_election->params.renewIntervalMs)
        return;
    beat(m_heartbeatDueMono);
}

void CandidateRoster::beat(qint64 dueMono)
{
    if (m_stopping)
        return;
    armHeartbeat(untilBeat(dueMono + m_election->params.leaseDurationMs - now()));
    if (m_busy)
        return; // a slow store: the next heartbeat is the one on its way
    const bool writeThisBeat = m_writeBackoff.takeTurn();
    m_listThisBeat = m_listBackoff.takeTurn();
    if (!writeThisBeat && !m_listThisBeat) {
        apply(); // the sightings age as they would
        return;
    }
    m_busy = true;
    if (!writeThisBeat)
        listAndApply();
    else if (m_written)
        write(m_written, 1);
    else
        rereadAndWrite(1);
}

void CandidateRoster::listOrApply()
{
    if (m_listThisBeat) {
        listAndApply();
        return;
    }
    m_busy = false;
    apply();
}

bool CandidateRoster::drained() const
{
    // As last known from its writes and the listings (the store's, which an
    // operator may have changed since): a write that failed keeps it.
    return m_lastDrained.value_or(m_election->standby);
}

CandidateRecord CandidateRoster::composed(const std::optional<CandidateRecord> &stored) const
{
    CandidateRecord record;
    record.instance = m_election->params.identity;
    record.incarnation = m_election->params.incarnation;
    record.priority = m_election->priority;
    record.heartbeat = m_election->clock->wallNow();
    record.heartbeatIntervalMs = m_election->params.leaseDurationMs;
    record.left = m_stopping;
    record.labels = m_election->labels;
    // The drain is the store's: an operator's `baton drain` or `undrain`
    // wins over what this instance last wrote, and over `--standby` after
    // the first write.
    if (stored && stored->drained) {
        record.drained = true;
        record.drainedBy = stored->drainedBy;
        record.drainedAt = stored->drainedAt;
    } else if (m_election->standby && m_firstWrite) {
        record.drained = true;
        record.drainedBy = QStringLiteral("standby");
        record.drainedAt = m_election->clock->wallNow();
    }
    return record;
}

void CandidateRoster::rereadAndWrite(int attempt)
{
    m_book->read(m_election->params.identity,
                 [this, attempt](bool ok, const std::optional<CandidateRecord> &stored, const QString &error) {
                     if (!ok) {
                         failed(QStringLiteral("read"), error);
                         m_writeBackoff.failed();
                         if (m_stopping)
                             finishStop();
                         else
                             listOrApply();
                         return;
                     }
                     succeeded(QStringLiteral("read"));
                     write(stored, attempt);
                 });
}

void CandidateRoster::write(const std::optional<CandidateRecord> &stored, int attempt)
{
    const CandidateRecord record = composed(stored);
    auto done = [this, attempt, leaving = record.left](bool ok, const CandidateRecord &written,
                                                        const QString &error) {
        if (ok) {
            m_written = written;
            m_lastDrained = written.drained;
            m_firstWrite = false;
            succeeded(QStringLiteral("write"));
            m_writeBackoff.succeeded();
        } else if (error.isEmpty() && attempt < kMaxWriteAttempts) {
            rereadAndWrite(attempt + 1); // written by someone else: keep their drain
            return;
        } else {
            failed(QStringLiteral("write"),
                   error.isEmpty() ? QStringLiteral("the record kept changing while written") : error);
            m_written.reset(); // read again at the next heartbeat
            m_writeBackoff.failed();
        }
        if (m_stopping) {
            if (leaving)
                finishStop();
            else
                leave(); // written before the stop began
            return;
        }
        listOrApply();
    };
    if (stored && !stored->version.isEmpty())
        m_book->replace(*stored, record, done);
    else
        m_book->create(record, done);
}

void CandidateRoster::listAndApply()
{
    m_book->list([this](bool ok, const QList<CandidateRecord> &records, const QString &error) {
        m_busy = false;
        if (m_stopping) {
            leave();
            return;
        }
        if (ok) {
            succeeded(QStringLiteral("list"));
            m_listBackoff.succeeded();
            adoptOwn(records);
            m_policy.observe(records, now());
            removeLongGone();
        } else {
            failed(QStringLiteral("list"), error);
            m_listBackoff.failed();
        }
        // Decided on what was seen last even so: those sightings age out
        // (three heartbeats), so a standby cut off from the records ends
        // up leading rather than waiting for candidates it cannot see.
        apply();
    });
}

void CandidateRoster::removeLongGone()
{
    // The leader alone: one process tidies, not every candidate at once.
    if (!m_election->isLeaderNow())
        return;
    const qint64 at = now();
    for (const CandidateSighting &other : m_policy.sightings(at)) {
        // A drain is the operator's, and outlives the process until undrained.
        if (other.live || other.record.drained)
            continue;
        const qint64 heartbeat = std::max(other.record.heartbeatIntervalMs, m_election->params.leaseDurationMs);
        if (at - other.versionSeenAtMs >= kRemoveAfterHeartbeats * heartbeat)
            m_book->remove(other.record); // at the version seen: a record written since stays
    }
}

void CandidateRoster::adoptOwn(const QList<CandidateRecord> &records)
{
    for (const CandidateRecord &record : records) {
        if (record.instance != m_election->params.identity || record.incarnation != m_election->params.incarnation)
            continue;
        m_lastDrained = record.drained;
        // The next heartbeat replaces the version seen, keeping its drain.
        if (m_written && m_written->version != record.version)
            m_written = record;
    }
}

void CandidateRoster::apply()
{
    ClusterServicePrivate *e = m_election;
    if (!e->elector || e->stopping)
        return;
    const bool isDrained = drained();
    if (m_toldDrained != isDrained) {
        m_toldDrained = isDrained;
        const QString by = m_written ? m_written->drainedBy : QString();
        if (isDrained)
            qCInfo(lcElection).noquote() << QStringLiteral("%1: %2 is drained (by %3): it hands the lease "
                                                           "over and takes none while another candidate runs")
                                                    .arg(e->leaseName, e->params.identity,
                                                         by.isEmpty() ? QStringLiteral("unknown") : by);
        e->emitEvent(QStringLiteral("candidate-drained"),
                     {{QStringLiteral("drained"), isDrained}, {QStringLiteral("by"), by}});
    }
    m_policy.setSelf({e->params.identity, e->priority, isDrained, e->preferAfterMs});
    const qint64 at = now();
    const bool leading = e->isLeaderNow();
    const SteeringDecision decision = m_policy.decide(leading, at);
    int live = 1; // this instance
    for (const CandidateSighting &other : m_policy.sightings(at))
        live += other.live ? 1 : 0;
    announce(live);
    if (decision.standBy != e->elector->standingBy())
        standBy(decision.standBy);
    if (leading && !decision.handOverTo.isEmpty() && e->isLeaderNow()) {
        if (decision.why == SteeringDecision::Why::PreferredHolder)
            m_policy.handingOverTo(decision.handOverTo);
        e->requestHandover(decision.handOverTo, requestedBy(decision.why));
    }
}

void CandidateRoster::backOffFromAFailedHandover()
{
    const std::optional<CandidateSighting> missed = m_policy.lastHandoverTarget();
    const std::optional<qint64> wait = m_policy.leadingAgain(now());
    if (!wait || !missed)
        return;
    qCWarning(lcElection).noquote()
            << QStringLiteral("%1: %2 did not take the lease handed to it as the preferred holder (it may lack "
                              "the right to write the lease, or reach the store); it gets it again only once "
                              "it has run unchanged for %3")
                       .arg(m_election->leaseName, missed->record.instance, durationtext::format(*wait));
    m_election->emitEvent(QStringLiteral("handover-missed"),
                          {{QStringLiteral("to"), missed->record.instance}, {QStringLiteral("backoffMs"), double(*wait)}});
}

void CandidateRoster::standBy(bool standingBy)
{
    ClusterServicePrivate *e = m_election;
    qCInfo(lcElection).noquote() << (standingBy ? QStringLiteral("%1: %2 stands by: it is drained, and takes no lease "
                                                                 "while another candidate can lead")
                                                : QStringLiteral("%1: %2 no longer stands by"))
                                            .arg(e->leaseName, e->params.identity);
    e->emitEvent(QStringLiteral("standing-by"), {{QStringLiteral("standingBy"), standingBy}});
    e->execute(e->elector->setStandingBy(standingBy));
}

void CandidateRoster::announce(int live)
{
    // For the metrics: told when the count changes, with what this
    // instance announces.
    if (live == m_toldLive && m_countedDrained == drained())
        return;
    m_toldLive = live;
    m_countedDrained = drained();
    m_election->emitEvent(QStringLiteral("candidates"),
                          {{QStringLiteral("live"), live},
                           {QStringLiteral("priority"), m_election->priority},
                           {QStringLiteral("drained"), drained()}});
}

void CandidateRoster::failed(const QString &step, const QString &error)
{
    m_election->emitEvent(QStringLiteral("steering-failed"),
                          {{QStringLiteral("step"), step}, {QStringLiteral("error"), error}});
    if (m_logged.contains(step))
        return;
    m_logged.append(step);
    qCWarning(lcElection).noquote()
            << QStringLiteral("%1: candidate record (%2): %3; the election goes on without preference or drain "
                              "until it works again, tried again after pauses that double up to %4")
                       .arg(m_election->leaseName, step, error,
                            durationtext::format(kMaxPauseHeartbeats * m_election->params.leaseDurationMs));
}

void CandidateRoster::succeeded(const QString &step)
{
    if (m_logged.removeAll(step) > 0)
        qCInfo(lcElection).noquote()
                << QStringLiteral("%1: candidate record (%2) works again").arg(m_election->leaseName, step);
}

void CandidateRoster::stop(std::function<void()> done)
{
    m_stopping = true;
    m_stopped = std::move(done);
    m_heartbeat.stop();
    // A store that never answers: the stop ends all the same.
    m_stopBound.start(m_election->params.leaseDurationMs);
    if (!m_busy)
        leave();
    // Else the heartbeat on its way leaves when it ends.
}

void CandidateRoster::leave()
{
    if (!m_written) {
        finishStop(); // nothing of this run's is stored; a drain stays as it is
        return;
    }
    m_busy = true;
    write(m_written, 1);
}

void CandidateRoster::finishStop()
{
    m_stopBound.stop();
    if (!m_stopped)
        return;
    auto done = std::move(m_stopped);
    m_stopped = nullptr;
    QMetaObject::invokeMethod(this, std::move(done), Qt::QueuedConnection);
}

} // namespace baton
