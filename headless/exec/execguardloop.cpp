// baton-exec-guard: watching the command to its end (execguard.cpp says
// what the guard is for): the deadline, baton's control lines, the kills of
// the group and of every descendant left.

#include "execguard.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include <poll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

namespace baton::execguard {

namespace {

/*! Every process below this one, read from /proc. */
std::vector<ProcessIdentity> descendants()
{
    const std::vector<ProcessIdentity> parents = baton::execguard::readAllProcesses();
    std::vector<ProcessIdentity> found(1);
    found[0].pid = ::getpid();
    for (size_t i = 0; i < found.size(); ++i)
        for (const ProcessIdentity &process : parents)
            if (process.parent == found[i].pid)
                found.push_back(process);
    found.erase(found.begin()); // not the guard itself
    return found;
}

bool hasChildren()
{
    // WNOWAIT: a child that just ended is left for reap() and its status.
    siginfo_t info {};
    return ::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT | __WALL) == 0 || errno != ECHILD;
}

} // namespace

int Guard::run()
{
    for (;;) {
        const long long now = bootMs();
        if (!m_stopping && m_deadline != noDeadline && now >= m_deadline - m_graceMs) {
            report(guardprotocol::reportLine(guardprotocol::Report::Expired));
            terminate();
        }
        if (m_stopping && !m_killing && now >= m_killAt)
            m_killing = true;
        if (m_killing && m_killingSince == noDeadline)
            m_killingSince = now;
        if (m_killing)
            killAll();
        reap();
        if (m_commandEnded && !m_killing) {
            // Whatever it left behind goes with it: nothing of the command
            // outlives its main process.
            m_killing = true;
            killAll();
            reap();
        }
        if (m_killing && !hasChildren())
            return guardprotocol::Done;
        if (m_killing && now - m_killingSince >= m_giveUpMs) {
            giveUp();
            return guardprotocol::GaveUp;
        }
        armTimer();

        pollfd fds[3] = {{m_signalFd, POLLIN, 0}, {m_timerFd, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
        const int count = m_controlOpen ? 3 : 2;
        if (::poll(fds, nfds_t(count), -1) < 0 && errno != EINTR) {
            complain("poll failed");
            m_killing = true;
            continue;
        }
        if (fds[1].revents & POLLIN) {
            uint64_t expirations = 0;
            [[maybe_unused]] const ssize_t n = ::read(m_timerFd, &expirations, sizeof expirations);
        }
        if (fds[0].revents & POLLIN)
            onSignals();
        if (m_controlOpen && (fds[2].revents & (POLLIN | POLLHUP | POLLERR)))
            onControl();
    }
}

void Guard::onControl()
{
    char buffer[256];
    for (;;) {
        const ssize_t size = ::read(STDIN_FILENO, buffer, sizeof buffer);
        if (size > 0) {
            m_pending.append(buffer, size_t(size));
            continue;
        }
        if (size < 0 && errno == EINTR)
            continue;
        if (size < 0 && errno == EAGAIN)
            break;
        // End of file: baton is gone, and with it the authority.
        m_controlOpen = false;
        m_killing = true;
        break;
    }
    size_t end;
    while ((end = m_pending.find('\n')) != std::string::npos) {
        const std::string line = m_pending.substr(0, end);
        m_pending.erase(0, end + 1);
        const guardprotocol::ControlLine control = guardprotocol::decodeControl(line);
        switch (control.kind) {
        case guardprotocol::Control::Deadline:
            m_deadline = control.deadline; // after a stop, m_killAt stays as it was
            break;
        case guardprotocol::Control::BadDeadline:
            complain("ignored a deadline that is not a number");
            break;
        case guardprotocol::Control::Stop:
            terminate();
            break;
        case guardprotocol::Control::Kill:
            m_killing = true;
            break;
        case guardprotocol::Control::Unknown:
            complain("ignored an unknown control line");
            break;
        }
    }
}

void Guard::onSignals()
{
    signalfd_siginfo info {};
    while (::read(m_signalFd, &info, sizeof info) == ssize_t(sizeof info)) {
        // SIGCHLD: reap() runs on every turn. A termination request (a
        // service manager stopping everything) is a stop like baton's.
        if (info.ssi_signo != SIGCHLD)
            terminate();
    }
}

void Guard::reap()
{
    for (;;) {
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, WNOHANG | __WALL);
        if (pid <= 0)
            return;
        if (pid != m_command || m_commandEnded)
            continue;
        m_commandEnded = true;
        if (WIFSIGNALED(status))
            report(guardprotocol::reportLine(guardprotocol::Report::Signal, WTERMSIG(status)));
        else
            report(guardprotocol::reportLine(guardprotocol::Report::Exit, WEXITSTATUS(status)));
    }
}

void Guard::terminate()
{
    if (m_stopping)
        return;
    m_stopping = true;
    const long long graceEnd = bootMs() + m_graceMs;
    m_killAt = m_deadline == noDeadline ? graceEnd : std::min(graceEnd, m_deadline);
    signalGroup(SIGTERM);
    signalDescendants(SIGTERM);
    // A stopped group would hold the TERM until the grace ends.
    signalGroup(SIGCONT);
}

void Guard::killAll()
{
    if (m_killingSince == noDeadline)
        m_killingSince = bootMs();
    signalGroup(SIGKILL);
    signalDescendants(SIGKILL);
}

void Guard::signalDescendants(int signalNumber)
{
    const pid_t self = ::getpid();
    for (const ProcessIdentity &process : descendants()) {
        // The test hook: a spared process is refused as another user's would be.
        const bool spared = !m_spared.empty() && process.name == m_spared;
        // By pidfd: a descendant reaped since the scan leaves its pid to
        // anyone, and the kill must not follow the pid there.
        if (!spared
            && baton::execguard::signalIfStillTheOneSeen(process, signalNumber, self) != SignalOutcome::Refused)
            continue;
        if (std::find(m_refused.begin(), m_refused.end(), process.pid) == m_refused.end())
            m_refused.push_back(process.pid);
    }
}

void Guard::giveUp()
{
    // Waiting on would hold baton's step-down, and its stop, forever: name
    // what is left instead, for the operator, and let baton go on.
    reap();
    for (const ProcessIdentity &process : descendants()) {
        if (process.state == 'Z')
            continue; // ended; its parent, not the guard, has yet to reap it
        const bool refused = std::find(m_refused.begin(), m_refused.end(), process.pid) != m_refused.end();
        const char *why = refused ? "the kill was refused (EPERM: another user's process)"
                : process.state == 'D' ? "it is stuck in the kernel (state D)"
                                       : "it outlived SIGKILL";
        std::fprintf(stderr, "baton-exec-guard: gave up on pid %d (%s) after %lld ms: %s; it is left running\n",
                     int(process.pid), process.name.c_str(), m_giveUpMs, why);
        report(guardprotocol::reportLine(guardprotocol::Report::Stuck, process.pid));
    }
}

void Guard::signalGroup(int signalNumber) const
{
    // The group id is the command's pid, not handed out again before the
    // guard reaps it: until then this reaches no stranger. Afterwards what
    // is left of the group is among the descendants.
    if (m_command > 0 && !m_commandEnded)
        ::kill(-m_command, signalNumber);
}

void Guard::armTimer()
{
    long long at = noDeadline;
    if (m_killing)
        at = bootMs() + rescanMs;
    else if (m_stopping)
        at = m_killAt;
    else if (m_deadline != noDeadline)
        at = m_deadline - m_graceMs;
    itimerspec spec {};
    if (at != noDeadline) {
        at = std::max(at, 1LL); // zero would disarm
        spec.it_value.tv_sec = time_t(at / 1000);
        spec.it_value.tv_nsec = long(at % 1000) * 1000000L;
    }
    ::timerfd_settime(m_timerFd, TFD_TIMER_ABSTIME, &spec, nullptr);
}

} // namespace baton::execguard
