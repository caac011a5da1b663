#include "execsupervisor.h"

#include <baton/clock.h>
#include <batoninternal/eventrecord.h>
#include "execsweep.h"
#include "guardprotocol.h"
#include "headlesslogging.h"

#include <baton/clusterservice.h>

#include <QProcess>
#include <QPromise>

#include <csignal>
#include <cstring>
#include <vector>

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace baton {

namespace {

QString reasonText(ExecSupervisor::StopReason reason)
{
    return reason == ExecSupervisor::StopReason::Stopped ? QStringLiteral("stopped") : QStringLiteral("exited");
}

} // namespace

using execsweep::identity;
using execsweep::ProcessIdentity;
using execsweep::strays;
using execsweep::sweepGiveUpMs;
using execsweep::sweepRescanMs;

ExecSupervisor::ExecSupervisor(ClusterService *cluster, Options options, QObject *parent)
    : QObject(parent)
    , m_cluster(cluster)
    , m_options(std::move(options))
    , m_backoff(m_options.restartDelayMs, m_options.restartDelayMaxMs)
{
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
        tellGuard(guardprotocol::killLine);
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
    m_backoff.reset();
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
        tellGuard(guardprotocol::stopLine);
        // A guard frozen with this process (a whole tree stopped, only baton
        // resumed) must act on it now, as it would on its own deadline.
        if (m_process->processId() > 0)
            ::kill(pid_t(m_process->processId()), SIGCONT);
        m_graceTimer.start(int(m_graceMs));
    }
    return m_exited->future();
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
    const StopReason reason = byUs ? StopReason::Stopped : StopReason::Exited;
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
                        {QStringLiteral("reason"), reasonText(reason)}};
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
        Q_EMIT stopped(pid, crashed ? 0 : exitCode, crashed ? exitCode : 0, reason);
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
        m_restartTimer.start(int(m_backoff.currentMs()));
        return;
    }
    if (m_options.onExit == OnExit::Finish)
        return;
    if (m_options.onExit == OnExit::StepDown) {
        qCWarning(lcExec).noquote() << QStringLiteral("%1: --on-exit step-down: giving up the lease").arg(lease);
        Q_EMIT stepDownRequested();
        return;
    }
    if (m_options.onExit == OnExit::Once) {
        Q_EMIT stepDownRequested();
        return;
    }
    const qint64 delayMs = m_backoff.next(m_ranMs);
    qCInfo(lcExec).noquote() << QStringLiteral("%1: restarting the command in %2 ms").arg(lease).arg(delayMs);
    m_restartTimer.start(int(delayMs));
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
