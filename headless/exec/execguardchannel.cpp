// The guard channel of ExecSupervisor: starting baton-exec-guard, what this
// process tells it (the deadline, stop, kill) and what it reports.

#include "execsupervisor.h"

#include "eventdispatcher.h"
#include "execsweep.h"
#include "guardprotocol.h"
#include "headlesslogging.h"
#include "modulepath.h"

#include <baton/clusterservice.h>

#include <QProcess>

#include <ctime>

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

} // namespace

using execsweep::identity;
using execsweep::ProcessIdentity;

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
    process->setArguments({QString::fromStdString(guardprotocol::msText(m_graceMs)),
                           QString::fromStdString(guardprotocol::msText(deadlineMs())),
                           QLatin1String(guardprotocol::argumentsEnd), QStringLiteral("/bin/sh"),
                           QStringLiteral("-c"), m_options.command});
    // stdin: what this process tells the guard; stdout: what the guard
    // reports; stderr: the guard's and the command's, on this process's.
    process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    eventdispatcher::restoreForChild(&environment);
    // The guard's test hooks (give up at once, spare a process by name) are
    // for tests that drive the guard itself; a guard started here never
    // honours them, whatever the service's environment holds.
    for (const char *hook : {guardprotocol::giveUpMsVariable, guardprotocol::spareVariable,
                             guardprotocol::execDelayMsVariable})
        environment.remove(QLatin1String(hook));
    if (m_cluster) {
        environment.insert(QStringLiteral("BATON_LEASE"), m_cluster->leaseName());
        environment.insert(QStringLiteral("BATON_INSTANCE"), m_cluster->instanceId());
        environment.insert(QStringLiteral("BATON_FENCING_TOKEN"),
                           QString::number(m_cluster->fencingToken()));
    }
    for (const auto &[name, value] : std::as_const(m_options.environment))
        environment.insert(name, value);
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

qint64 ExecSupervisor::deadlineMs() const
{
    // Sent as an absolute CLOCK_BOOTTIME time, computed now from the time
    // left on the service's own clock: right whichever clock the library
    // decides by. The guard ends the command by the F4 deadline plus the
    // grace, as this process does at its own step-down.
    const qint64 remaining = m_cluster ? m_cluster->remainingLeadershipMs() : -1;
    if (remaining < 0)
        return guardprotocol::noDeadline;
    return bootTimeMs() + remaining + m_graceMs;
}

void ExecSupervisor::sendDeadline()
{
    // Not while stepping down: the "stopped-leading" record comes before
    // deregisteredFn, which tells the guard to stop; a deadline of now would
    // only make it report an expiry that is not one.
    if (m_cluster && m_cluster->remainingLeadershipMs() == 0)
        return;
    tellGuard(QByteArray::fromStdString(guardprotocol::deadlineLine(deadlineMs())));
}

void ExecSupervisor::tellGuard(const QByteArray &line)
{
    if (m_process && m_process->state() != QProcess::NotRunning)
        m_process->write(line);
}

void ExecSupervisor::onGuardOutput()
{
    while (m_process->canReadLine()) {
        using guardprotocol::Report;
        const QByteArray line = m_process->readLine().trimmed();
        const guardprotocol::ReportLine report =
                guardprotocol::decodeReport(std::string_view(line.constData(), size_t(line.size())));
        const int number = report.number;
        if (report.kind == Report::Pid && number > 0 && m_pid == 0) {
            m_pid = number;
            m_running.start();
            qCInfo(lcExec).noquote() << QStringLiteral("%1: started pid %2: %3")
                                                .arg(m_cluster ? m_cluster->leaseName() : QString())
                                                .arg(m_pid)
                                                .arg(m_options.command);
            emitEvent(QStringLiteral("exec-started"), {{QStringLiteral("pid"), double(m_pid)}});
            Q_EMIT started(m_pid);
        } else if (report.kind == Report::Expired) {
            m_expired = true;
            qCWarning(lcExec).noquote()
                    << QStringLiteral("%1: the exec guard saw the step-down deadline pass before this "
                                      "process stepped down: it stops pid %2")
                               .arg(m_cluster ? m_cluster->leaseName() : QString())
                               .arg(m_pid);
        } else if (report.kind == Report::Refused) {
            // Started too late (this process or the guard stalled, the host
            // suspended): the authority ended before the command could run.
            // As at an expiry, the step-down follows from the election.
            m_expired = true;
            qCWarning(lcExec).noquote()
                    << QStringLiteral("%1: the exec guard did not start the command: less than the grace "
                                      "of %2 ms was left before the leader's deadline")
                               .arg(m_cluster ? m_cluster->leaseName() : QString())
                               .arg(m_graceMs);
        } else if (report.kind == Report::Stuck && number > 0) {
            // The guard named it on stderr (our log) and exits: the sweep
            // must not wait on it again.
            for (const ProcessIdentity &process : execguard::readAllProcesses())
                if (process.pid == number)
                    m_abandoned.append(identity(process));
        } else if (report.kind == Report::Exit || report.kind == Report::Signal) {
            m_commandEnded = true;
            m_commandExitCode = report.kind == Report::Exit ? number : 0;
            m_commandSignal = report.kind == Report::Signal ? number : 0;
        }
    }
}

} // namespace baton
