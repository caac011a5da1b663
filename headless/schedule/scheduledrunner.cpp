#include "scheduledrunner.h"

#include "execsupervisor.h"

#include <baton/clock.h>
#include <baton/clusterservice.h>
#include <batoninternal/eventrecord.h>

#include <QLoggingCategory>

#include <algorithm>

namespace baton {

Q_LOGGING_CATEGORY(lcSchedule, "baton.schedule", QtInfoMsg)

namespace {

// The timer is armed for at most this long, then looks at the wall clock
// again: a clock set forward or back, or a host that slept, is seen soon.
constexpr qint64 kLongestWaitMs = 30 * 1000;

QString outcomeOf(int exitCode, int signal)
{
    if (signal != 0)
        return QStringLiteral("failed: signal %1").arg(signal);
    if (exitCode != 0)
        return QStringLiteral("failed: exit code %1").arg(exitCode);
    return RunRecord::succeeded;
}

} // namespace

ScheduledRunner::ScheduledRunner(ClusterService *cluster, Store *store, Options options, QObject *parent)
    : QObject(parent)
    , m_cluster(cluster)
    , m_ledger(store, cluster->leaseName())
    , m_options(std::move(options))
    , m_planner({m_options.schedule, m_options.onInterrupted, m_options.catchUpMs, m_options.overlap},
                cluster->instanceId())
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        carryOut(m_planner.timerFired(QDateTime::currentDateTimeUtc()));
    });
}

ScheduledRunner::~ScheduledRunner()
{
    // The command goes before the registration that bounds it.
    delete m_exec;
}

bool ScheduledRunner::attach(QString *errorString)
{
    m_graceMs = ExecSupervisor::effectiveGrace(m_options.graceMs, m_cluster->timings(), errorString);
    if (m_graceMs < 0)
        return false;
    QPointer<ScheduledRunner> self(this);
    m_registration = m_cluster->whenLeader(
            [self] {
                if (self)
                    self->onLeading();
            },
            [self] {
                if (self)
                    self->onNotLeading();
            });
    return true;
}

void ScheduledRunner::onLeading()
{
    carryOut(m_planner.leadershipStarted(m_cluster->fencingToken(), QDateTime::currentDateTimeUtc()));
}

void ScheduledRunner::onNotLeading()
{
    carryOut(m_planner.leadershipEnded(QDateTime::currentDateTimeUtc()));
}

void ScheduledRunner::armTimer()
{
    const QDateTime wake = m_planner.wakeAt();
    if (!wake.isValid()) {
        m_timer.stop();
        return;
    }
    const QDateTime now = QDateTime::currentDateTimeUtc();
    m_timer.start(int(std::clamp<qint64>(now.msecsTo(wake), 0, kLongestWaitMs)));
}

void ScheduledRunner::carryOut(const QList<TickPlanner::Action> &actions)
{
    using Kind = TickPlanner::Action::Kind;
    const QString lease = m_cluster->leaseName();
    QPointer<ScheduledRunner> self(this);
    for (const TickPlanner::Action &action : actions) {
        const RunRecord &record = action.record;
        switch (action.kind) {
        case Kind::ReadRecords:
            m_ledger.list([self, token = record.token](bool ok, const QList<RunRecord> &records, const QString &error) {
                if (!self || !self->m_planner.isLeading())
                    return;
                if (!ok) {
                    qCWarning(lcSchedule).noquote() << QStringLiteral("%1: cannot read the run records: %2")
                                                               .arg(self->m_cluster->leaseName(), error);
                    return;
                }
                self->carryOut(self->m_planner.recordsListed(token, records, QDateTime::currentDateTimeUtc()));
            });
            break;
        case Kind::Claim:
        case Kind::TakeOver: {
            // F4: a leader frozen past its deadline must not start anything.
            if (!m_cluster->isLeader()) {
                carryOut(m_planner.claimAnswered(record, TickPlanner::ClaimAnswer::Failed,
                                                 QDateTime::currentDateTimeUtc()));
                break;
            }
            auto claimed = [self](bool ok, const RunRecord &r, const QString &error) {
                if (self)
                    self->answerClaim(ok, r, error);
            };
            if (action.kind == Kind::TakeOver)
                m_ledger.replace(action.earlier, record, claimed);
            else
                m_ledger.claim(record, claimed);
            break;
        }
        case Kind::MarkInterrupted: {
            // Left running by an earlier leadership, or claimed for one
            // that ended before the answer came: either way it ends here.
            m_ledger.replace(action.earlier, record, [self](bool done, const RunRecord &r, const QString &) {
                if (self && done)
                    self->emitEvent(QStringLiteral("run-finished"),
                                    {{QStringLiteral("tick"), r.tick},
                                     {QStringLiteral("ranBy"), r.instance},
                                     {QStringLiteral("outcome"), r.outcome}});
            });
            break;
        }
        case Kind::RecordSkip:
            if (!m_cluster->isLeader())
                break;
            qCInfo(lcSchedule).noquote() << QStringLiteral("%1: tick %2 skipped: the run of %3 is still going")
                                                    .arg(lease, record.tick, action.earlier.tick);
            emitEvent(QStringLiteral("run-skipped"),
                      {{QStringLiteral("tick"), record.tick},
                       {QStringLiteral("reason"), QStringLiteral("previous run still going")}});
            m_ledger.claim(record, [](bool, const RunRecord &, const QString &) {});
            break;
        case Kind::StartWork:
            startRun(record);
            break;
        case Kind::InterruptWork:
            // A run going is stopped by its own registration (the guard),
            // awaited before the lease is released; its end settles its
            // record. A command that never started (the guard refused for
            // lack of time) has no end to wait for.
            if (!m_exec || !m_exec->isRunning()) {
                qCInfo(lcSchedule).noquote()
                        << QStringLiteral("%1: tick %2: the leadership ended before the command started")
                                   .arg(lease, record.tick);
                onRunStopped(0, 0, true);
            }
            break;
        case Kind::Settle:
            m_ledger.replace(action.earlier, record, [self](bool ok, const RunRecord &r, const QString &error) {
                if (!self)
                    return;
                if (!ok && !error.isEmpty())
                    qCWarning(lcSchedule).noquote()
                            << QStringLiteral("%1: tick %2: cannot record its end (%3): %4")
                                       .arg(self->m_cluster->leaseName(), r.tick, r.outcome, error);
                self->m_ledger.trim();
            });
            qCInfo(lcSchedule).noquote() << QStringLiteral("%1: tick %2: %3").arg(lease, record.tick, record.outcome);
            emitEvent(QStringLiteral("run-finished"),
                      {{QStringLiteral("tick"), record.tick}, {QStringLiteral("outcome"), record.outcome}});
            break;
        }
    }
    armTimer();
}

void ScheduledRunner::answerClaim(bool ok, const RunRecord &record, const QString &error)
{
    const QString lease = m_cluster->leaseName();
    TickPlanner::ClaimAnswer answer = TickPlanner::ClaimAnswer::Claimed;
    if (!ok && error.isEmpty()) {
        qCDebug(lcSchedule).noquote() << QStringLiteral("%1: tick %2 is another instance's").arg(lease, record.tick);
        answer = TickPlanner::ClaimAnswer::Taken;
    } else if (!ok) {
        qCWarning(lcSchedule).noquote() << QStringLiteral("%1: tick %2 not run: cannot record its run: %3")
                                                   .arg(lease, record.tick, error);
        answer = TickPlanner::ClaimAnswer::Failed;
    }
    carryOut(m_planner.claimAnswered(record, answer, QDateTime::currentDateTimeUtc()));
}

void ScheduledRunner::startRun(const RunRecord &record)
{
    ExecSupervisor::Options exec;
    exec.command = m_options.command;
    exec.graceMs = m_graceMs;
    exec.onExit = ExecSupervisor::OnExit::Finish;
    exec.environment = {{QStringLiteral("BATON_TICK"), record.tick}};
    m_exec = new ExecSupervisor(m_cluster, exec, this);
    connect(m_exec, &ExecSupervisor::event, this, &ScheduledRunner::event);
    connect(m_exec, &ExecSupervisor::stopped, this,
            [this](qint64, int exitCode, int signal, ExecSupervisor::StopReason reason) {
                onRunStopped(exitCode, signal, reason == ExecSupervisor::StopReason::Stopped);
            });
    QString error;
    if (!m_exec->attach(&error))
        qCWarning(lcSchedule).noquote() << error; // the grace was checked in attach(): not reached
    qCInfo(lcSchedule).noquote() << QStringLiteral("%1: tick %2: running the command (attempt %3)")
                                            .arg(m_cluster->leaseName(), record.tick)
                                            .arg(record.attempt);
    emitEvent(QStringLiteral("run-started"), {{QStringLiteral("tick"), record.tick},
                                              {QStringLiteral("attempt"), record.attempt}});
}

void ScheduledRunner::onRunStopped(int exitCode, int signal, bool byLeadershipEnd)
{
    if (!m_exec)
        return;
    // Not from inside its own signal: the supervisor is still in the call.
    ExecSupervisor *exec = m_exec;
    m_exec = nullptr;
    QMetaObject::invokeMethod(exec, [exec] {
        exec->detach();
        exec->deleteLater();
    }, Qt::QueuedConnection);
    const QString outcome = byLeadershipEnd ? RunRecord::interrupted : outcomeOf(exitCode, signal);
    carryOut(m_planner.runEnded(outcome, QDateTime::currentDateTimeUtc()));
}

void ScheduledRunner::emitEvent(const QString &name, const QJsonObject &fields)
{
    QJsonObject record = eventrecord::make(Clock::system(), m_cluster->leaseName(), m_cluster->instanceId(), name);
    record.insert(QStringLiteral("token"), QString::number(m_cluster->fencingToken()));
    for (auto it = fields.constBegin(); it != fields.constEnd(); ++it)
        record.insert(it.key(), it.value());
    Q_EMIT event(record);
}

} // namespace baton
