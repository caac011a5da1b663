#include <baton/leaderschedule.h>

#include <baton/clusterservice.h>
#include <baton/remover.h>
#include <baton/store.h>
#include <batoninternal/openrunledger.h>
#include <batoninternal/runledger.h>
#include <batoninternal/tickplanner.h>

#include <QLoggingCategory>
#include <QPointer>
#include <QTimer>

#include <algorithm>

namespace baton {

Q_LOGGING_CATEGORY(lcLeaderSchedule, "baton.schedule", QtInfoMsg)

namespace {

// The timer is armed for at most this long, then looks at the wall clock
// again: a clock set forward or back, or a host that slept, is seen soon.
constexpr qint64 kLongestWaitMs = 30 * 1000;

RunId runIdOf(const RunRecord &record)
{
    return RunId(record.tick, record.token, record.attempt);
}

} // namespace

RunId::RunId(const QString &tick, qint64 fencingToken, int attempt)
    : m_tick(tick)
    , m_token(fencingToken)
    , m_attempt(attempt)
{
}

QDateTime RunId::tickTime() const
{
    return QDateTime::fromString(m_tick, Qt::ISODate);
}

class LeaderSchedulePrivate
{
public:
    LeaderSchedulePrivate(LeaderSchedule *owner, ClusterService &service)
        : q(owner)
        , cluster(&service)
    {
    }

    void leadershipStarted();
    void carryOut(const QList<TickPlanner::Action> &actions);
    void answerClaim(bool ok, const RunRecord &record, const QString &error);
    void armTimer();
    bool fail(LeaderSchedule::Error code, const QString &message);

    LeaderSchedule *q;
    QPointer<ClusterService> cluster;
    /*! Given, or opened where the lease lives at start(). */
    QPointer<Store> store;
    RunLedger *ledger = nullptr;
    TickPlanner::Policy policy;
    std::unique_ptr<TickPlanner> planner;
    QTimer timer;
    Remover registration;
    LeaderSchedule::Error lastError = LeaderSchedule::Error::NoError;
    QString lastErrorString;
};

bool LeaderSchedulePrivate::fail(LeaderSchedule::Error code, const QString &message)
{
    lastError = code;
    lastErrorString = message;
    // The program is told (error(), errorString()) and says it as it sees fit.
    qCDebug(lcLeaderSchedule).noquote() << message;
    return false;
}

void LeaderSchedulePrivate::armTimer()
{
    const QDateTime wake = planner ? planner->wakeAt() : QDateTime();
    if (!wake.isValid()) {
        timer.stop();
        return;
    }
    timer.start(int(std::clamp<qint64>(QDateTime::currentDateTimeUtc().msecsTo(wake), 0, kLongestWaitMs)));
}

void LeaderSchedulePrivate::carryOut(const QList<TickPlanner::Action> &actions)
{
    using Kind = TickPlanner::Action::Kind;
    if (!planner)
        return;
    QPointer<LeaderSchedule> self(q);
    const QString lease = cluster->leaseName();
    for (const TickPlanner::Action &action : actions) {
        const RunRecord &record = action.record;
        switch (action.kind) {
        case Kind::ReadRecords:
            ledger->list([self, token = record.token](bool ok, const QList<RunRecord> &records, const QString &error) {
                if (!self || !self->d->planner)
                    return;
                if (!ok) {
                    qCWarning(lcLeaderSchedule).noquote() << QStringLiteral("%1: cannot read the run records: %2")
                                                                     .arg(self->d->cluster->leaseName(), error);
                    return;
                }
                self->d->carryOut(self->d->planner->recordsListed(token, records, QDateTime::currentDateTimeUtc()));
            });
            break;
        case Kind::Claim:
        case Kind::TakeOver: {
            // F4: a leader frozen past its deadline must not start anything.
            if (!cluster->isLeader()) {
                carryOut(planner->claimAnswered(record, TickPlanner::ClaimAnswer::Failed,
                                                QDateTime::currentDateTimeUtc()));
                break;
            }
            auto claimed = [self](bool ok, const RunRecord &r, const QString &error) {
                if (self)
                    self->d->answerClaim(ok, r, error);
            };
            if (action.kind == Kind::TakeOver)
                ledger->replace(action.earlier, record, claimed);
            else
                ledger->claim(record, claimed);
            break;
        }
        case Kind::MarkInterrupted:
            ledger->replace(action.earlier, record, [self](bool done, const RunRecord &r, const QString &) {
                if (self && done)
                    Q_EMIT self->earlierRunInterrupted(runIdOf(r), r.instance);
            });
            break;
        case Kind::RecordSkip:
            if (!cluster->isLeader())
                break;
            qCInfo(lcLeaderSchedule).noquote() << QStringLiteral("%1: tick %2 skipped: the run of %3 is still going")
                                                          .arg(lease, record.tick, action.earlier.tick);
            ledger->claim(record, [](bool, const RunRecord &, const QString &) {});
            Q_EMIT q->skipped(record.tick);
            break;
        case Kind::StartWork:
            qCDebug(lcLeaderSchedule).noquote() << QStringLiteral("%1: tick %2 is due (attempt %3)")
                                                          .arg(lease, record.tick)
                                                          .arg(record.attempt);
            Q_EMIT q->due(runIdOf(record));
            break;
        case Kind::InterruptWork:
        {
            // Settled before the program hears of it: a finish() from its
            // slot finds no run, and the record says interrupted.
            const auto settle = planner->runEnded(RunRecord::interrupted, QDateTime::currentDateTimeUtc());
            Q_EMIT q->interrupted(runIdOf(record));
            if (self && planner)
                carryOut(settle);
            break;
        }
        case Kind::Settle:
            ledger->replace(action.earlier, record, [self](bool ok, const RunRecord &r, const QString &error) {
                if (!self)
                    return;
                if (!ok && !error.isEmpty())
                    qCWarning(lcLeaderSchedule).noquote()
                            << QStringLiteral("%1: tick %2: cannot record its end (%3): %4")
                                       .arg(self->d->cluster->leaseName(), r.tick, r.outcome, error);
                self->d->ledger->trim();
            });
            qCInfo(lcLeaderSchedule).noquote() << QStringLiteral("%1: tick %2: %3").arg(lease, record.tick, record.outcome);
            break;
        }
        if (!self)
            return; // a slot connected to a signal above deleted the schedule
    }
    armTimer();
}

void LeaderSchedulePrivate::answerClaim(bool ok, const RunRecord &record, const QString &error)
{
    if (!planner)
        return;
    auto answer = TickPlanner::ClaimAnswer::Claimed;
    if (!ok && error.isEmpty()) {
        answer = TickPlanner::ClaimAnswer::Taken;
    } else if (!ok) {
        qCWarning(lcLeaderSchedule).noquote() << QStringLiteral("%1: tick %2 not run: cannot record its run: %3")
                                                         .arg(cluster->leaseName(), record.tick, error);
        answer = TickPlanner::ClaimAnswer::Failed;
    }
    carryOut(planner->claimAnswered(record, answer, QDateTime::currentDateTimeUtc()));
}

LeaderSchedule::LeaderSchedule(ClusterService &cluster, QObject *parent)
    : QObject(parent)
    , d(std::make_unique<LeaderSchedulePrivate>(this, cluster))
{
    d->timer.setSingleShot(true);
    connect(&d->timer, &QTimer::timeout, this, [this] {
        if (d->planner)
            d->carryOut(d->planner->timerFired(QDateTime::currentDateTimeUtc()));
    });
}

LeaderSchedule::LeaderSchedule(ClusterService &cluster, Store &store, QObject *parent)
    : LeaderSchedule(cluster, parent)
{
    d->store = &store;
}

LeaderSchedule::~LeaderSchedule()
{
    d->planner.reset();
    d->registration();
}

bool LeaderSchedule::setSchedule(const QString &spec)
{
    QString problem;
    const auto parsed = TickSchedule::parse(spec, &problem);
    if (!parsed)
        return d->fail(Error::BadSchedule, QStringLiteral("schedule \"%1\": %2").arg(spec, problem));
    d->policy.schedule = *parsed;
    d->lastError = Error::NoError;
    d->lastErrorString.clear();
    return true;
}

QString LeaderSchedule::schedule() const
{
    return d->policy.schedule.text();
}

void LeaderSchedule::setOnInterrupted(OnInterrupted policy)
{
    d->policy.onInterrupted = policy == OnInterrupted::Rerun ? TickPlanner::OnInterrupted::Rerun
                                                             : TickPlanner::OnInterrupted::Skip;
}

LeaderSchedule::OnInterrupted LeaderSchedule::onInterrupted() const
{
    return d->policy.onInterrupted == TickPlanner::OnInterrupted::Rerun ? OnInterrupted::Rerun
                                                                        : OnInterrupted::Skip;
}

void LeaderSchedule::setCatchUp(qint64 msec)
{
    d->policy.catchUpMs = std::max<qint64>(msec, 0);
}

qint64 LeaderSchedule::catchUp() const
{
    return d->policy.catchUpMs;
}

void LeaderSchedule::setOverlap(Overlap policy)
{
    d->policy.overlap = policy == Overlap::Queue ? TickPlanner::Overlap::Queue : TickPlanner::Overlap::Skip;
}

LeaderSchedule::Overlap LeaderSchedule::overlap() const
{
    return d->policy.overlap == TickPlanner::Overlap::Queue ? Overlap::Queue : Overlap::Skip;
}

LeaderSchedule::Error LeaderSchedule::error() const
{
    return d->lastError;
}

QString LeaderSchedule::errorString() const
{
    return d->lastErrorString;
}

bool LeaderSchedule::isActive() const
{
    return d->planner != nullptr;
}

bool LeaderSchedule::start()
{
    if (d->planner)
        return true;
    if (d->policy.schedule.text().isEmpty())
        return d->fail(Error::BadSchedule, QStringLiteral("no schedule: set one with setSchedule() before start()"));
    if (!d->cluster)
        return d->fail(Error::NoRunStore, QStringLiteral("the cluster service is gone"));
    if (!d->ledger) {
        QString error;
        d->ledger = d->store ? new RunLedger(d->store, d->cluster->leaseName(), this)
                             : openRunLedger(d->cluster, this, &error);
        if (!d->ledger)
            return d->fail(Error::NoRunStore, error);
    }
    d->lastError = Error::NoError;
    d->lastErrorString.clear();
    d->planner = std::make_unique<TickPlanner>(d->policy, d->cluster->instanceId());
    // The second callback may come after the schedule is gone (W6).
    QPointer<LeaderSchedule> self(this);
    d->registration = d->cluster->whenLeader(
            this,
            [self] {
                if (self && self->d->planner)
                    self->d->carryOut(self->d->planner->leadershipStarted(self->d->cluster->fencingToken(),
                                                                          QDateTime::currentDateTimeUtc()));
            },
            [self] {
                if (self && self->d->planner)
                    self->d->carryOut(self->d->planner->leadershipEnded(QDateTime::currentDateTimeUtc()));
            });
    return true;
}

void LeaderSchedule::stop()
{
    if (!d->planner)
        return;
    QPointer<LeaderSchedule> self(this);
    d->carryOut(d->planner->leadershipEnded(QDateTime::currentDateTimeUtc())); // a run going is interrupted
    if (!self)
        return;
    d->planner.reset();
    d->registration();
    d->timer.stop();
}

void LeaderSchedule::finish(const RunId &run, bool ok, const QString &detail)
{
    if (!d->planner)
        return;
    const auto current = d->planner->current();
    if (!current || !(runIdOf(*current) == run))
        return;
    QString outcome = RunRecord::succeeded;
    if (!ok)
        outcome = detail.isEmpty() ? QStringLiteral("failed") : QStringLiteral("failed: %1").arg(detail);
    d->carryOut(d->planner->runEnded(outcome, QDateTime::currentDateTimeUtc()));
}

} // namespace baton
