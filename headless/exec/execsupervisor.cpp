#include "execsupervisor.h"

#include <baton/clock.h>
#include "eventdispatcher.h"
#include <batoninternal/eventrecord.h>
#include "headlesslogging.h"
#include "modulepath.h"
#include "processsignal.h"

#include <baton/clusterservice.h>

#include <QProcess>
#include <QPromise>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace baton {

namespace {

/*! The guard's clock: it counts a suspend, and every process of the host shares it. */
qint64 bootTimeMs()
{
    timespec ts {};
    ::clock_gettime(CLOCK_BOOTTIME, &ts);
    return qint64(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// While what a dead guard left behind outlives SIGKILL for a moment
// (exiting, or not yet reparented here), the sweep looks again this often;
// past the bound it names what is left and goes on, as the guard does.
constexpr int sweepRescanMs = 20;
constexpr qint64 sweepGiveUpMs = 5000;

using execguard::ProcessIdentity;

QPair<qint64, quint64> identity(const ProcessIdentity &process)
{
    return {qint64(process.pid), quint64(process.startTime)};
}

/*!
 * What a dead guard left behind: children of this process outside its own
 * process group, except \a keep, and everything below them. The guard and
 * the command each got a group of their own, so whatever the command
 * started is in neither this process's group nor its session; a helper the
 * library starts (a credential plugin) stays in this process's group. \a keep
 * names processes by pid and start time, so that a pid used again is not
 * spared for what an earlier process of that pid did.
 */
std::vector<ProcessIdentity> strays(const QList<QPair<qint64, quint64>> &keep)
{
    const std::vector<ProcessIdentity> processes = execguard::readAllProcesses();
    const pid_t self = ::getpid();
    const pid_t ownGroup = ::getpgrp();
    std::vector<ProcessIdentity> found;
    for (const ProcessIdentity &process : processes)
        if (process.parent == self && process.group != ownGroup && !keep.contains(identity(process)))
            found.push_back(process);
    for (size_t i = 0; i < found.size(); ++i)
        for (const ProcessIdentity &process : processes)
            if (process.parent == found[i].pid && !keep.contains(identity(process)))
                found.push_back(process);
    return found;
}

} // namespace

ExecSupervisor::ExecSupervisor(ClusterService *cluster, Options options, QObject *parent)
    : QObject(parent)
    , m_cluster(cluster)
    , m_options(std::move(options))
{
    m_restartDelayMs = m_options.restartDelayMs;
    m_restartTimer.setSingleShot(true);
    m_restartTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_restartTimer, &QTimer::timeout, this, [this] {
        if (m_leading && !m_process && !m_sweeping && m_cluster && m_cluster->isLeader())
            startCommand();
    });
    m_sweepTimer.setSingleShot(true);
    connect(&m_sweepTimer, &QTimer::timeout, this, &ExecSupervisor::sweepStrays);
    m_graceTimer.setSingleShot(true);
    m_graceTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_graceTimer, &QTimer::timeout, this, [this] {
        if (!m_process)
            return;
        qCWarning(lcExec).noquote() << QStringLiteral("%1: pid %2 still running %3 ms after SIGTERM: SIGKILL")
                                               .arg(m_cluster ? m_cluster->leaseName() : QString())
                                               .arg(m_pid)
                                               .arg(m_graceMs);
        m_killed = true;
        // The guard kills at this moment too; this is the same end by
        // another way, should the guard not be scheduled.
        tellGuard("kill\n");
        killGroup(SIGKILL);
    });
}

ExecSupervisor::~ExecSupervisor()
{
    m_registration();
    if (m_process) {
        // Not stopped through the election (the process is going away):
        // the command must not outlive its supervisor. The end of the
        // guard's input means "kill everything at once".
        killGroup(SIGKILL);
        m_process->closeWriteChannel();
        m_process->waitForFinished(5000);
        delete m_process;
        m_process = nullptr;
    }
    if (m_exited) {
        m_exited->finish();
        m_exited.reset();
    }
}

qint64 ExecSupervisor::maxGrace(const ElectionTimings &timings)
{
    // SIGKILL at the end of the grace must land before the earliest
    // takeover, leaseDuration after the attempt by the follower's clock. A
    // grace of the whole margin would leave nothing for the kill itself
    // (the signal, the scheduler, the exit) nor for the leader's clock
    // running slow (toleratedClockDrift). A quarter of the margin is kept:
    // tens of milliseconds or more, where a kill takes a few, and a quarter
    // of the tolerated drift still holds at the cap (docs/operations.md).
    const qint64 reserve = (timings.safetyMargin + 3) / 4;
    return std::max<qint64>(0, timings.safetyMargin - reserve);
}

qint64 ExecSupervisor::effectiveGrace(qint64 requestedMs, const ElectionTimings &timings,
                                      QString *errorString)
{
    if (requestedMs < 0)
        return timings.safetyMargin / 2;
    const qint64 cap = maxGrace(timings);
    if (requestedMs > cap) {
        *errorString = QStringLiteral(
                               "--grace %1 ms does not fit in the safety margin of %2 ms "
                               "((leaseDuration %3 - renewInterval %4) / 2) with the quarter "
                               "kept for the kill and clock drift: the command could still run "
                               "when another instance takes the lease; use at most "
                               "%5 ms, or a longer leaseDuration")
                               .arg(requestedMs)
                               .arg(timings.safetyMargin)
                               .arg(timings.leaseDuration)
                               .arg(timings.renewInterval)
                               .arg(cap);
        return -1;
    }
    return requestedMs;
}

bool ExecSupervisor::attach(QString *errorString)
{
    if (!m_cluster) {
        *errorString = QStringLiteral("no cluster service to follow");
        return false;
    }
    m_graceMs = effectiveGrace(m_options.graceMs, m_cluster->timings(), errorString);
    if (m_graceMs < 0)
        return false;
    // Should the guard be killed outright, the command's descendants are
    // reparented to the nearest subreaper above them: this process, not
    // init, so that sweepStrays() can still end them.
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        qCWarning(lcExec).noquote() << QStringLiteral("cannot become a child subreaper (%1): should the exec "
                                                      "guard be killed, what the command started escapes")
                                               .arg(QString::fromLocal8Bit(std::strerror(errno)));
    // Each successful renewal moves the F4 deadline on; the guard follows.
    connect(m_cluster, &ClusterService::electionEvent, this, [this] {
        if (m_process && !m_terminating)
            sendDeadline();
    });
    QPointer<ExecSupervisor> self(this);
    m_registration = m_cluster->whenLeader(
            [self] {
                if (self)
                    self->onLeading();
            },
            [self]() -> QFuture<void> {
                return self ? self->onNotLeading() : QtFuture::makeReadyFuture();
            });
    return true;
}

void ExecSupervisor::detach()
{
    m_registration();
}

qint64 ExecSupervisor::pid() const
{
    return m_process && !m_commandEnded ? m_pid : 0;
}

bool ExecSupervisor::isRunning() const
{
    return m_process != nullptr || m_sweeping;
}

void ExecSupervisor::onLeading()
{
    m_leading = true;
    m_restartDelayMs = m_options.restartDelayMs;
    startCommand();
}

QFuture<void> ExecSupervisor::onNotLeading()
{
    m_leading = false;
    m_restartTimer.stop();
    if (!m_process && !m_sweeping)
        return QtFuture::makeReadyFuture();
    if (!m_exited) {
        m_exited = std::make_shared<QPromise<void>>();
        m_exited->start();
    }
    // While sweeping, the guard is gone: the future ends with the sweep.
    if (m_process && !m_terminating) {
        m_terminating = true;
        qCInfo(lcExec).noquote() << QStringLiteral("%1: no longer leading: SIGTERM to pid %2, SIGKILL in %3 ms")
                                            .arg(m_cluster ? m_cluster->leaseName() : QString())
                                            .arg(m_pid)
                                            .arg(m_graceMs);
        // The guard sends TERM, then CONT: a stopped group (a frozen host
        // resumed, a debugger) would hold the TERM until the grace ends.
        tellGuard("stop\n");
        // A guard frozen with this process (a whole tree stopped, only baton
        // resumed) must act on it now, as it would on its own deadline.
        if (m_process->processId() > 0)
            ::kill(pid_t(m_process->processId()), SIGCONT);
        m_graceTimer.start(int(m_graceMs));
    }
    return m_exited->future();
}

void ExecSupervisor::startCommand()
{
    // W3 already keeps a new leadership waiting for the previous command's
    // exit; this is the last line of that promise.
    if (m_process || m_sweeping) {
        qCCritical(lcExec) << "refusing to start a second copy of the command";
        return;
    }
    m_terminating = false;
    m_killed = false;
    m_expired = false;
    m_commandEnded = false;
    m_commandExitCode = 0;
    m_commandSignal = 0;
    m_pid = 0;
    m_running.invalidate(); // from the command's start, not the guard's
    const QString guard = m_options.guardProgram.isEmpty()
            ? modulePath(QStringLiteral(BATON_EXEC_GUARD_FILE_NAME))
            : m_options.guardProgram;
    auto *process = new QProcess(this);
    process->setProgram(guard);
    // The deadline is an argument, so that the guard never runs the command
    // without one.
    process->setArguments({QString::number(m_graceMs), QString::fromLatin1(deadlineText()),
                           QStringLiteral("--"), QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                           m_options.command});
    // stdin: what this process tells the guard; stdout: what the guard
    // reports; stderr: the guard's and the command's, on this process's.
    process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    eventdispatcher::restoreForChild(&environment);
    // The guard's test hooks (give up at once, spare a process by name) are
    // for tests that drive the guard itself; a guard started here never
    // honours them, whatever the service's environment holds.
    environment.remove(QStringLiteral("BATON_EXEC_GUARD_GIVE_UP_MS"));
    environment.remove(QStringLiteral("BATON_EXEC_GUARD_TEST_SPARE"));
    environment.remove(QStringLiteral("BATON_EXEC_GUARD_TEST_EXEC_DELAY_MS"));
    if (m_cluster) {
        environment.insert(QStringLiteral("BATON_LEASE"), m_cluster->leaseName());
        environment.insert(QStringLiteral("BATON_INSTANCE"), m_cluster->instanceId());
        environment.insert(QStringLiteral("BATON_FENCING_TOKEN"),
                           QString::number(m_cluster->fencingToken()));
    }
    process->setProcessEnvironment(environment);
    // Runs in the child between fork and exec: async-signal-safe calls
    // only. A group of its own, so that a stop of this process's group
    // (Ctrl-Z, a service manager) leaves the guard awake. No
    // PR_SET_PDEATHSIG: when this process dies the guard must live on for
    // the moment it takes to kill everything (its input ends).
    process->setChildProcessModifier([] { ::setpgid(0, 0); });
    connect(process, &QProcess::readyReadStandardOutput, this, [this, process] {
        if (process == m_process)
            onGuardOutput();
    });
    connect(process, &QProcess::finished, this, [this, process](int exitCode, QProcess::ExitStatus status) {
        if (process == m_process)
            onFinished(exitCode, status == QProcess::CrashExit);
    });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart && process == m_process) {
            qCWarning(lcExec).noquote() << QStringLiteral("cannot start the exec guard %1: %2")
                                                   .arg(process->program(), process->errorString());
            m_commandEnded = true;
            m_commandExitCode = 127;
            onFinished(127, false);
        }
    });
    m_process = process;
    process->start();
}

QByteArray ExecSupervisor::deadlineText() const
{
    // Sent as an absolute CLOCK_BOOTTIME time, computed now from the time
    // left on the service's own clock: right whichever clock the library
    // decides by. The guard ends the command by the F4 deadline plus the
    // grace, as this process does at its own step-down.
    const qint64 remaining = m_cluster ? m_cluster->remainingLeadershipMs() : -1;
    if (remaining < 0)
        return QByteArrayLiteral("none");
    return QByteArray::number(bootTimeMs() + remaining + m_graceMs);
}

void ExecSupervisor::sendDeadline()
{
    // Not while stepping down: the "stopped-leading" record comes before
    // deregisteredFn, which tells the guard to stop; a deadline of now would
    // only make it report an expiry that is not one.
    if (m_cluster && m_cluster->remainingLeadershipMs() == 0)
        return;
    tellGuard("deadline " + deadlineText() + '\n');
}

void ExecSupervisor::tellGuard(const QByteArray &line)
{
    if (m_process && m_process->state() != QProcess::NotRunning)
        m_process->write(line);
}

void ExecSupervisor::onGuardOutput()
{
    while (m_process->canReadLine()) {
        const QByteArray line = m_process->readLine().trimmed();
        const qsizetype space = line.indexOf(' ');
        const QByteArray word = space < 0 ? line : line.left(space);
        const int number = space < 0 ? 0 : line.mid(space + 1).toInt();
        if (word == "pid" && number > 0 && m_pid == 0) {
            m_pid = number;
            m_running.start();
            qCInfo(lcExec).noquote() << QStringLiteral("%1: started pid %2: %3")
                                                .arg(m_cluster ? m_cluster->leaseName() : QString())
                                                .arg(m_pid)
                                                .arg(m_options.command);
            emitEvent(QStringLiteral("exec-started"), {{QStringLiteral("pid"), double(m_pid)}});
            Q_EMIT started(m_pid);
        } else if (word == "expired") {
            m_expired = true;
            qCWarning(lcExec).noquote()
                    << QStringLiteral("%1: the exec guard saw the step-down deadline pass before this "
                                      "process stepped down: it stops pid %2")
                               .arg(m_cluster ? m_cluster->leaseName() : QString())
                               .arg(m_pid);
        } else if (word == "refused") {
            // Started too late (this process or the guard stalled, the host
            // suspended): the authority ended before the command could run.
            // As at an expiry, the step-down follows from the election.
            m_expired = true;
            qCWarning(lcExec).noquote()
                    << QStringLiteral("%1: the exec guard did not start the command: less than the grace "
                                      "of %2 ms was left before the leader's deadline")
                               .arg(m_cluster ? m_cluster->leaseName() : QString())
                               .arg(m_graceMs);
        } else if (word == "stuck" && number > 0) {
            // The guard named it on stderr (our log) and exits: the sweep
            // must not wait on it again.
            for (const ProcessIdentity &process : execguard::readAllProcesses())
                if (process.pid == number)
                    m_abandoned.append(identity(process));
        } else if (word == "exit" || word == "signal") {
            m_commandEnded = true;
            m_commandExitCode = word == "exit" ? number : 0;
            m_commandSignal = word == "signal" ? number : 0;
        }
    }
}

void ExecSupervisor::onFinished(int guardExitCode, bool guardCrashed)
{
    onGuardOutput();
    // The guard exits when nothing of the command is left. Should it have
    // died first, the group at least goes now, and sweepStrays() ends the rest.
    if (m_pid > 0 && !m_commandEnded) {
        qCWarning(lcExec).noquote() << QStringLiteral("%1: the exec guard ended before pid %2 (%3 %4): "
                                                      "killing what the command left behind")
                                               .arg(m_cluster ? m_cluster->leaseName() : QString())
                                               .arg(m_pid)
                                               .arg(guardCrashed ? QStringLiteral("signal") : QStringLiteral("exit code"))
                                               .arg(guardExitCode);
        killGroup(SIGKILL);
    }
    m_guardExitCode = guardExitCode;
    m_guardCrashed = guardCrashed;
    // How long the command ran, not counting the sweep below.
    m_ranMs = m_running.isValid() ? m_running.elapsed() : -1;
    m_graceTimer.stop();
    m_process->deleteLater();
    m_process = nullptr;
    m_sweeping = true;
    m_sweepStarted.start();
    sweepStrays();
}

void ExecSupervisor::sweepStrays()
{
    // Nothing is left when the guard did its job; after a guard killed
    // outright, its descendants are here, and the lease must not go, nor a
    // new copy start, while one of them runs (F5, W3).
    const std::vector<ProcessIdentity> left = strays(m_abandoned);
    if (!left.empty() && m_sweepStarted.elapsed() < sweepGiveUpMs) {
        for (const ProcessIdentity &process : left) {
            // By pidfd, once the pid is checked to name the process found:
            // one reaped since the scan leaves its pid to anyone.
            execguard::signalIfStillTheOneSeen(process, SIGKILL, ::getpid());
            // Ours since the guard died: reap it, or it stays a zombie.
            if (process.parent == ::getpid())
                ::waitpid(process.pid, nullptr, WNOHANG | __WALL);
        }
        m_sweepTimer.start(sweepRescanMs);
        return;
    }
    for (const ProcessIdentity &process : left) {
        if (process.state == 'Z')
            continue;
        qCCritical(lcExec).noquote() << QStringLiteral("gave up on pid %1 (state %2), left by the command, "
                                                       "after %3 ms of SIGKILL; it is left running")
                                                .arg(process.pid)
                                                .arg(QLatin1Char(process.state))
                                                .arg(sweepGiveUpMs);
        m_abandoned.append(identity(process));
    }
    m_sweeping = false;
    afterCommandGone();
}

void ExecSupervisor::afterCommandGone()
{
    const qint64 pid = m_pid;
    const bool byUs = m_terminating || m_expired;
    const bool crashed = m_commandEnded ? m_commandSignal != 0 : m_guardCrashed;
    const int exitCode = m_commandEnded ? (crashed ? m_commandSignal : m_commandExitCode) : m_guardExitCode;
    if (crashed && exitCode == SIGKILL && byUs)
        m_killed = true;
    m_pid = 0;
    m_terminating = false;
    const bool expired = m_expired;
    m_expired = false;

    const QString lease = m_cluster ? m_cluster->leaseName() : QString();
    QJsonObject fields {{QStringLiteral("pid"), double(pid)},
                        {QStringLiteral("reason"), byUs ? QStringLiteral("stopped") : QStringLiteral("exited")}};
    if (crashed)
        fields.insert(QStringLiteral("signal"), exitCode);
    else
        fields.insert(QStringLiteral("exitCode"), exitCode);
    if (byUs && m_killed)
        fields.insert(QStringLiteral("killed"), true);
    const QString status = crashed ? QStringLiteral("signal %1").arg(exitCode)
                                   : QStringLiteral("exit code %1").arg(exitCode);
    if (pid <= 0 && expired) {
        // The guard refused to start it, and said why.
    } else if (byUs || (!crashed && exitCode == 0))
        qCInfo(lcExec).noquote() << QStringLiteral("%1: pid %2 ended: %3").arg(lease).arg(pid).arg(status);
    else
        qCWarning(lcExec).noquote() << QStringLiteral("%1: pid %2 ended by itself while leading: %3")
                                               .arg(lease)
                                               .arg(pid)
                                               .arg(status);
    if (pid > 0) {
        emitEvent(QStringLiteral("exec-stopped"), fields);
        Q_EMIT stopped(pid, crashed ? 0 : exitCode, crashed ? exitCode : 0);
    }

    if (m_exited) {
        auto exited = std::move(m_exited);
        exited->finish();
        return;
    }
    if (!m_leading)
        return;
    if (expired) {
        // Stopped by the guard at the deadline: the step-down follows from
        // the election; a late renewal that kept the lead restarts it.
        m_restartTimer.start(int(m_restartDelayMs));
        return;
    }
    if (m_options.onExit == OnExit::StepDown) {
        qCWarning(lcExec).noquote() << QStringLiteral("%1: --on-exit step-down: giving up the lease").arg(lease);
        Q_EMIT stepDownRequested();
        return;
    }
    // A command that ran well for a while starts again from the short delay.
    if (m_ranMs > m_options.restartDelayMaxMs)
        m_restartDelayMs = m_options.restartDelayMs;
    qCInfo(lcExec).noquote() << QStringLiteral("%1: restarting the command in %2 ms").arg(lease).arg(m_restartDelayMs);
    m_restartTimer.start(int(m_restartDelayMs));
    m_restartDelayMs = std::min(m_restartDelayMs * 2, m_options.restartDelayMaxMs);
}

void ExecSupervisor::killGroup(int signalNumber)
{
    // The group id is the command's pid; Linux does not hand out a pid that
    // is still some group's id, and the guard has not reaped the command
    // while it has not said so: this never reaches a stranger.
    if (m_pid > 0 && !m_commandEnded)
        ::kill(-pid_t(m_pid), signalNumber);
}

void ExecSupervisor::emitEvent(const QString &name, QJsonObject fields)
{
    QJsonObject record = eventrecord::make(Clock::system(),
                                           m_cluster ? m_cluster->leaseName() : QString(),
                                           m_cluster ? m_cluster->instanceId() : QString(), name);
    for (auto it = fields.constBegin(); it != fields.constEnd(); ++it)
        record.insert(it.key(), it.value());
    Q_EMIT event(record);
}

} // namespace baton
