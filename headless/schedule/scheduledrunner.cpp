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

ScheduledRunner::ScheduledRunner(ClusterService *cluster, RunLedger *ledger, Options options, QObject *parent)
    : QObject(parent)
    , m_cluster(cluster)
    , m_ledger(ledger)
    , m_options(std::move(options))
{
    m_ledger->setParent(this);
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &ScheduledRunner::onTimer);
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
    m_leading = true;
    reviewRecords();
    armTimer();
}

void ScheduledRunner::onNotLeading()
{
    m_leading = false;
    m_timer.stop();
    m_queued.reset();
    // A run still going is stopped by its own registration (the guard),
    // awaited before the lease is released; its end settles its record.
    // A run whose command never started (the leadership ended first, or
    // the guard refused for lack of time) has no end to wait for.
    if (m_running && m_exec && !m_exec->isRunning()) {
        qCInfo(lcSchedule).noquote() << QStringLiteral("%1: tick %2: the leadership ended before the command started")
                                                .arg(m_cluster->leaseName(), m_running->tick);
        onRunStopped(0, 0, true);
    }
}

void ScheduledRunner::reviewRecords()
{
    const qint64 token = m_cluster->fencingToken();
    QPointer<ScheduledRunner> self(this);
    m_ledger->list([self, token](bool ok, const QList<RunRecord> &records, const QString &error) {
        if (!self || !self->m_leading || self->m_cluster->fencingToken() != token)
            return;
        if (!ok) {
            qCWarning(lcSchedule).noquote() << QStringLiteral("%1: cannot read the run records: %2")
                                                       .arg(self->m_cluster->leaseName(), error);
            return;
        }
        // Running under an earlier leadership: that leader's guard killed
        // the command before this instance could take the lease.
        QList<RunRecord> stale;
        for (const RunRecord &record : records)
            if (record.isRunning() && record.token != token)
                stale.append(record);
        std::optional<RunRecord> rerun;
        if (self->m_options.onInterrupted == OnInterrupted::Rerun && !stale.isEmpty())
            rerun = stale.takeLast(); // the latest one only
        for (const RunRecord &record : std::as_const(stale)) {
            RunRecord settled = record;
            settled.outcome = RunRecord::interrupted;
            settled.end = QDateTime::currentDateTimeUtc();
            self->m_ledger->replace(record, settled, [self](bool done, const RunRecord &r, const QString &) {
                if (self && done)
                    self->emitEvent(QStringLiteral("run-finished"),
                                    {{QStringLiteral("tick"), r.tick},
                                     {QStringLiteral("ranBy"), r.instance},
                                     {QStringLiteral("outcome"), r.outcome}});
            });
        }
        if (rerun) {
            self->claimAndRun(QDateTime::fromString(rerun->tick, Qt::ISODate), rerun);
            return;
        }
        if (self->m_options.catchUpMs <= 0)
            return;
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const QDateTime latest = self->m_options.schedule.latestAtOrBefore(now);
        const QString name = TickSchedule::tickName(latest);
        const bool started = std::any_of(records.cbegin(), records.cend(),
                                         [&name](const RunRecord &r) { return r.tick == name; });
        if (latest.isValid() && !started && latest.msecsTo(now) <= self->m_options.catchUpMs) {
            qCInfo(lcSchedule).noquote() << QStringLiteral("%1: tick %2 was missed: running it now (catch-up)")
                                                    .arg(self->m_cluster->leaseName(), name);
            self->claimAndRun(latest, std::nullopt);
        }
    });
}

void ScheduledRunner::armTimer()
{
    if (!m_leading)
        return;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    if (!m_nextTick.isValid() || m_nextTick <= now.addSecs(-1))
        m_nextTick = m_options.schedule.nextAfter(now);
    if (!m_nextTick.isValid())
        return;
    m_timer.start(int(std::clamp<qint64>(now.msecsTo(m_nextTick), 0, kLongestWaitMs)));
}

void ScheduledRunner::onTimer()
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    if (now < m_nextTick) {
        armTimer();
        return;
    }
    const QDateTime tick = m_nextTick;
    m_nextTick = m_options.schedule.nextAfter(std::max(now, tick));
    tickDue(tick);
    armTimer();
}

void ScheduledRunner::tickDue(const QDateTime &tick)
{
    // F4: a leader frozen past its deadline must not start anything.
    if (!m_leading || !m_cluster->isLeader())
        return;
    if (!m_running) {
        claimAndRun(tick, std::nullopt);
        return;
    }
    if (m_options.overlap == Overlap::Queue) {
        if (m_queued)
            recordSkip(*m_queued); // one tick waits at most: the newer one
        m_queued = tick;
        return;
    }
    recordSkip(tick);
}

RunRecord ScheduledRunner::freshRecord(const QDateTime &tick) const
{
    RunRecord record;
    record.tick = TickSchedule::tickName(tick);
    record.instance = m_cluster->instanceId();
    record.token = m_cluster->fencingToken();
    record.start = QDateTime::currentDateTimeUtc();
    record.outcome = RunRecord::running;
    record.schedule = m_options.schedule.text();
    return record;
}

void ScheduledRunner::claimAndRun(const QDateTime &tick, std::optional<RunRecord> interrupted)
{
    RunRecord record = freshRecord(tick);
    if (interrupted)
        record.attempt = interrupted->attempt + 1;
    m_running = record; // a tick that comes meanwhile finds this one going
    QPointer<ScheduledRunner> self(this);
    auto claimed = [self](bool ok, const RunRecord &r, const QString &error) {
        if (!self)
            return;
        const QString lease = self->m_cluster->leaseName();
        if (!ok) {
            self->m_running.reset();
            if (error.isEmpty())
                qCDebug(lcSchedule).noquote() << QStringLiteral("%1: tick %2 is another instance's").arg(lease, r.tick);
            else
                qCWarning(lcSchedule).noquote() << QStringLiteral("%1: tick %2 not run: cannot record its run: %3")
                                                           .arg(lease, r.tick, error);
            return;
        }
        if (!self->m_leading || self->m_cluster->fencingToken() != r.token) {
            RunRecord settled = r;
            settled.outcome = RunRecord::interrupted;
            settled.end = QDateTime::currentDateTimeUtc();
            self->m_running.reset();
            self->m_ledger->replace(r, settled, [](bool, const RunRecord &, const QString &) {});
            return;
        }
        self->startRun(r);
    };
    if (interrupted)
        m_ledger->replace(*interrupted, record, claimed);
    else
        m_ledger->claim(record, claimed);
}

void ScheduledRunner::startRun(const RunRecord &record)
{
    m_running = record;
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
    if (!m_running)
        return;
    RunRecord settled = *m_running;
    settled.outcome = byLeadershipEnd ? RunRecord::interrupted : outcomeOf(exitCode, signal);
    settled.end = QDateTime::currentDateTimeUtc();
    const RunRecord claimed = *m_running;
    m_running.reset();
    // Not from inside its own signal: the supervisor is still in the call.
    ExecSupervisor *exec = m_exec;
    m_exec = nullptr;
    QMetaObject::invokeMethod(exec, [exec] {
        exec->detach();
        exec->deleteLater();
    }, Qt::QueuedConnection);
    QPointer<ScheduledRunner> self(this);
    m_ledger->replace(claimed, settled, [self](bool ok, const RunRecord &r, const QString &error) {
        if (!self)
            return;
        if (!ok && !error.isEmpty())
            qCWarning(lcSchedule).noquote() << QStringLiteral("%1: tick %2: cannot record its end (%3): %4")
                                                       .arg(self->m_cluster->leaseName(), r.tick, r.outcome, error);
        self->m_ledger->trim();
    });
    qCInfo(lcSchedule).noquote() << QStringLiteral("%1: tick %2: %3")
                                            .arg(m_cluster->leaseName(), settled.tick, settled.outcome);
    emitEvent(QStringLiteral("run-finished"), {{QStringLiteral("tick"), settled.tick},
                                               {QStringLiteral("outcome"), settled.outcome}});
    if (m_queued && m_leading) {
        const QDateTime next = *m_queued;
        m_queued.reset();
        QMetaObject::invokeMethod(this, [this, next] { tickDue(next); }, Qt::QueuedConnection);
    }
}

void ScheduledRunner::recordSkip(const QDateTime &tick)
{
    RunRecord record = freshRecord(tick);
    record.outcome = RunRecord::skipped;
    record.end = record.start;
    qCInfo(lcSchedule).noquote() << QStringLiteral("%1: tick %2 skipped: the run of %3 is still going")
                                            .arg(m_cluster->leaseName(), record.tick,
                                                 m_running ? m_running->tick : QString());
    emitEvent(QStringLiteral("run-skipped"), {{QStringLiteral("tick"), record.tick},
                                              {QStringLiteral("reason"), QStringLiteral("previous run still going")}});
    m_ledger->claim(record, [](bool, const RunRecord &, const QString &) {});
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
