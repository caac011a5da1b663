#include "scheduledrunner.h"

#include "execsupervisor.h"

#include <baton/clock.h>
#include <baton/clusterservice.h>
#include <batoninternal/eventrecord.h>
#include <batoninternal/runledger.h>

#include <QLoggingCategory>

namespace baton {

Q_LOGGING_CATEGORY(lcSchedule, "baton.schedule", QtInfoMsg)

ScheduledRunner::ScheduledRunner(ClusterService *cluster, Options options, QObject *parent)
    : QObject(parent)
    , m_cluster(cluster)
    , m_options(std::move(options))
    , m_schedule(*cluster)
{
    connect(&m_schedule, &LeaderSchedule::due, this, &ScheduledRunner::startRun);
    connect(&m_schedule, &LeaderSchedule::interrupted, this, &ScheduledRunner::onInterrupted);
    connect(&m_schedule, &LeaderSchedule::skipped, this, [this](const QString &tick) {
        emitEvent(QStringLiteral("run-skipped"),
                  {{QStringLiteral("tick"), tick}, {QStringLiteral("reason"), QStringLiteral("previous run still going")}});
    });
    connect(&m_schedule, &LeaderSchedule::earlierRunInterrupted, this,
            [this](const RunId &run, const QString &instance) {
                emitEvent(QStringLiteral("run-finished"), {{QStringLiteral("tick"), run.tick()},
                                                           {QStringLiteral("ranBy"), instance},
                                                           {QStringLiteral("outcome"), RunRecord::interrupted}});
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
    m_schedule.setOnInterrupted(m_options.onInterrupted);
    m_schedule.setCatchUp(m_options.catchUpMs);
    m_schedule.setOverlap(m_options.overlap);
    if (!m_schedule.setSchedule(m_options.schedule.text()) || !m_schedule.start()) {
        *errorString = QStringLiteral("--schedule: %1").arg(m_schedule.errorString());
        return false;
    }
    return true;
}

void ScheduledRunner::startRun(const RunId &run)
{
    m_run = run;
    ExecSupervisor::Options exec;
    exec.command = m_options.command;
    exec.graceMs = m_graceMs;
    exec.onExit = ExecSupervisor::OnExit::Finish;
    exec.environment = {{QStringLiteral("BATON_TICK"), run.tick()}};
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
                                            .arg(m_cluster->leaseName(), run.tick())
                                            .arg(run.attempt());
    emitEvent(QStringLiteral("run-started"), {{QStringLiteral("tick"), run.tick()},
                                              {QStringLiteral("attempt"), run.attempt()}});
}

void ScheduledRunner::onRunStopped(int exitCode, int signal, bool byLeadershipEnd)
{
    disposeExec();
    // Stopped by the guard: the schedule settles the run as interrupted.
    if (byLeadershipEnd || !m_run.isValid())
        return;
    const RunId run = m_run;
    m_run = RunId();
    QString failure;
    if (signal != 0)
        failure = QStringLiteral("signal %1").arg(signal);
    else if (exitCode != 0)
        failure = QStringLiteral("exit code %1").arg(exitCode);
    const QString outcome = failure.isEmpty() ? RunRecord::succeeded : QStringLiteral("failed: %1").arg(failure);
    emitEvent(QStringLiteral("run-finished"), {{QStringLiteral("tick"), run.tick()},
                                               {QStringLiteral("outcome"), outcome}});
    m_schedule.finish(run, failure.isEmpty(), failure);
}

void ScheduledRunner::onInterrupted(const RunId &run)
{
    m_run = RunId();
    // A command still going is stopped by its own registration (the
    // guard), awaited before the lease is released. One that never
    // started (the guard refused for lack of time) has no end to wait for.
    if (m_exec && !m_exec->isRunning()) {
        qCInfo(lcSchedule).noquote() << QStringLiteral("%1: tick %2: the leadership ended before the command started")
                                                .arg(m_cluster->leaseName(), run.tick());
        disposeExec();
    }
    emitEvent(QStringLiteral("run-finished"), {{QStringLiteral("tick"), run.tick()},
                                               {QStringLiteral("outcome"), RunRecord::interrupted}});
}

void ScheduledRunner::disposeExec()
{
    if (!m_exec)
        return;
    // Not from inside its own signal: the supervisor may still be in the call.
    ExecSupervisor *exec = m_exec;
    m_exec = nullptr;
    QMetaObject::invokeMethod(exec, [exec] {
        exec->detach();
        exec->deleteLater();
    }, Qt::QueuedConnection);
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
