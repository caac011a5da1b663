#include "execsupervisor.h"

#include "clock.h"
#include "eventdispatcher.h"
#include "eventrecord.h"
#include "headlesslogging.h"

#include <baton/clusterservice.h>

#include <QProcess>
#include <QPromise>

#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace baton {

ExecSupervisor::ExecSupervisor(ClusterService *cluster, Options options, QObject *parent)
    : QObject(parent)
    , m_cluster(cluster)
    , m_options(std::move(options))
{
    m_restartDelayMs = m_options.restartDelayMs;
    m_restartTimer.setSingleShot(true);
    m_restartTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_restartTimer, &QTimer::timeout, this, [this] {
        if (m_leading && !m_process && m_cluster && m_cluster->isLeader())
            startCommand();
    });
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
        killGroup(SIGKILL);
    });
}

ExecSupervisor::~ExecSupervisor()
{
    m_registration();
    if (m_process) {
        // Not stopped through the election (the process is going away):
        // the command must not outlive its supervisor.
        killGroup(SIGKILL);
        m_process->waitForFinished(5000);
        delete m_process;
        m_process = nullptr;
    }
    if (m_exited) {
        m_exited->finish();
        m_exited.reset();
    }
}

qint64 ExecSupervisor::effectiveGrace(qint64 requestedMs, const ElectionTimings &timings,
                                      QString *errorString)
{
    if (requestedMs < 0)
        return timings.safetyMargin / 2;
    if (requestedMs > timings.safetyMargin) {
        *errorString = QStringLiteral(
                               "--grace %1 ms does not fit in the safety margin of %2 ms "
                               "((leaseDuration %3 - renewInterval %4) / 2): the command could "
                               "still run when another instance takes the lease (SPEC O3); "
                               "use at most %2 ms, or a longer leaseDuration")
                               .arg(requestedMs)
                               .arg(timings.safetyMargin)
                               .arg(timings.leaseDuration)
                               .arg(timings.renewInterval);
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
    return m_process ? m_pid : 0;
}

bool ExecSupervisor::isRunning() const
{
    return m_process != nullptr;
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
    if (!m_process)
        return QtFuture::makeReadyFuture();
    if (!m_exited) {
        m_exited = std::make_shared<QPromise<void>>();
        m_exited->start();
    }
    if (!m_terminating) {
        m_terminating = true;
        qCInfo(lcExec).noquote() << QStringLiteral("%1: no longer leading: SIGTERM to pid %2, SIGKILL in %3 ms")
                                            .arg(m_cluster ? m_cluster->leaseName() : QString())
                                            .arg(m_pid)
                                            .arg(m_graceMs);
        killGroup(SIGTERM);
        // A stopped group (a frozen host resumed, a debugger) would hold the
        // TERM pending until the grace ends; let it act on it now.
        killGroup(SIGCONT);
        m_graceTimer.start(int(m_graceMs));
    }
    return m_exited->future();
}

void ExecSupervisor::startCommand()
{
    // W3 already keeps a new leadership waiting for the previous command's
    // exit; this is the last line of that promise.
    if (m_process) {
        qCCritical(lcExec) << "refusing to start a second copy of the command";
        return;
    }
    m_terminating = false;
    m_killed = false;
    auto *process = new QProcess(this);
    process->setProgram(QStringLiteral("/bin/sh"));
    process->setArguments({QStringLiteral("-c"), m_options.command});
    process->setStandardInputFile(QProcess::nullDevice());
    process->setProcessChannelMode(QProcess::ForwardedChannels);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    eventdispatcher::restoreForChild(&environment);
    if (m_cluster) {
        environment.insert(QStringLiteral("BATON_LEASE"), m_cluster->leaseName());
        environment.insert(QStringLiteral("BATON_INSTANCE"), m_cluster->instanceId());
        environment.insert(QStringLiteral("BATON_FENCING_TOKEN"),
                           QString::number(m_cluster->fencingToken()));
    }
    process->setProcessEnvironment(environment);
    const pid_t parent = ::getpid();
    // Runs in the child between fork and exec: async-signal-safe calls only.
    process->setChildProcessModifier([parent] {
        ::setpgid(0, 0); // its own group, so that a stop reaches its children too
        ::dup2(STDERR_FILENO, STDOUT_FILENO); // stdout is the event stream
        ::prctl(PR_SET_PDEATHSIG, SIGKILL); // killed with baton: no orphan keeps working
        if (::getppid() != parent) // baton died before the line above
            ::_exit(127);
    });
    connect(process, &QProcess::finished, this, [this, process](int exitCode, QProcess::ExitStatus status) {
        if (process == m_process)
            onFinished(exitCode, status == QProcess::CrashExit);
    });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart && process == m_process) {
            qCWarning(lcExec).noquote() << QStringLiteral("cannot start /bin/sh: %1").arg(process->errorString());
            onFinished(127, false);
        }
    });
    m_process = process;
    process->start();
    m_pid = process->processId();
    m_running.start();
    if (m_pid <= 0)
        return; // errorOccurred(FailedToStart) has been or will be handled
    qCInfo(lcExec).noquote() << QStringLiteral("%1: started pid %2: %3")
                                        .arg(m_cluster ? m_cluster->leaseName() : QString())
                                        .arg(m_pid)
                                        .arg(m_options.command);
    emitEvent(QStringLiteral("exec-started"), {{QStringLiteral("pid"), double(m_pid)}});
    Q_EMIT started(m_pid);
}

void ExecSupervisor::onFinished(int exitCode, bool crashed)
{
    const qint64 pid = m_pid;
    const bool byUs = m_terminating;
    // Whatever it left in its group goes with it: nothing of the command
    // may outlive the moment the lease is given up.
    if (pid > 0)
        killGroup(SIGKILL);
    m_graceTimer.stop();
    m_process->deleteLater();
    m_process = nullptr;
    m_pid = 0;
    m_terminating = false;

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
    if (byUs || (!crashed && exitCode == 0))
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
    if (m_options.onExit == OnExit::StepDown) {
        qCWarning(lcExec).noquote() << QStringLiteral("%1: --on-exit step-down: giving up the lease").arg(lease);
        Q_EMIT stepDownRequested();
        return;
    }
    // A command that ran well for a while starts again from the short delay.
    if (m_running.elapsed() > m_options.restartDelayMaxMs)
        m_restartDelayMs = m_options.restartDelayMs;
    qCInfo(lcExec).noquote() << QStringLiteral("%1: restarting the command in %2 ms").arg(lease).arg(m_restartDelayMs);
    m_restartTimer.start(int(m_restartDelayMs));
    m_restartDelayMs = std::min(m_restartDelayMs * 2, m_options.restartDelayMaxMs);
}

void ExecSupervisor::killGroup(int signalNumber)
{
    // The group id is the command's pid; Linux does not hand out a pid that
    // is still some group's id, so this never reaches a stranger.
    if (m_pid > 0)
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
