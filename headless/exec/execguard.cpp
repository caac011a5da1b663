// baton-exec-guard: the parent of `baton join --exec`'s command, so that the
// command stops at the end of baton's authority even when baton itself is
// not scheduled (frozen by SIGSTOP, a debugger, Ctrl-Z) or is killed
// (docs/operations.md, "The exec guard"). Plain POSIX, no Qt: it must start
// fast, stay small, and depend on nothing baton's event loop does.
//
// Started by baton only:
//   baton-exec-guard GRACE_MS DEADLINE -- PROGRAM [ARG...]
// DEADLINE is the moment the command must be gone, in milliseconds of
// CLOCK_BOOTTIME (it counts a suspend, so a resumed host acts at once), or
// "none" where no lease bounds the authority (a single instance, W8).
//
// stdin, from baton, one line each:
//   deadline MS|none   the authority was renewed: the new end
//   stop               baton stepped down: SIGTERM now, SIGKILL after the grace
//   kill               SIGKILL now
//   (end of file)      baton died: SIGKILL now
// stdout, to baton, one line each:
//   refused            less than the grace was left before DEADLINE when the
//                      guard came to start the command: nothing ran; it exits 4
//   pid N              the command runs as N, in a process group of its own
//   expired            the deadline came before baton said stop
//   exit N | signal N  how the command's own process ended
//   stuck N            a descendant the guard gave up on (below); it exits 3
//
// stderr: what went wrong, for baton's log (a malformed control line is
// ignored with one line here; the deadline in force stays, so the command
// never runs longer for it).
//
// The guard is a child subreaper, so whatever the command starts stays its
// descendant even after leaving the group or calling setsid(). At the end it
// kills the group, then every descendant left (through pidfds, so that a pid
// reaped and handed out again since the scan of /proc reaches no stranger:
// processsignal.h), and exits when none is; a
// descendant that survives SIGKILL for giveUpMs (a process of another user,
// EPERM, or one stuck in the kernel, state D) is named on stderr and on
// stdout ("stuck N") and left, rather than waiting forever.
//
// Terminal stop signals (SIGTSTP, SIGTTIN, SIGTTOU) are ignored: a Ctrl-Z
// or a background read must not freeze the one process that enforces the
// deadline. The command gets them back at their defaults.
//
// The command's oom_score_adj is raised above the guard's, so that the OOM
// killer picks the command, not the guard that would otherwise leave it
// without a deadline.
//
// baton computes DEADLINE before it starts the guard, and the guard may be
// stalled or the host suspended on the way: the command is never started
// with less than the grace left (the moment the guard would stop it),
// checked before the fork and again in the child right before exec.

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "processsignal.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

constexpr long long noDeadline = -1;
// While descendants outlive SIGKILL for a moment (exiting, or not yet
// reparented to the guard), it looks again this often.
constexpr long long rescanMs = 20;
// How long the guard keeps killing a descendant that does not die before it
// names it and gives up on it: long enough for an exit that needs the disk,
// short enough that baton's stop does not hang on a process nobody can end.
constexpr long long defaultGiveUpMs = 5000;
// How much more likely to be picked by the OOM killer the command is than
// the guard, in oom_score_adj units (thousandths of the host's memory).
constexpr int oomScoreRaise = 500;
constexpr int oomScoreMax = 1000;

long long bootMs()
{
    timespec ts {};
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

void complain(const char *what)
{
    std::fprintf(stderr, "baton-exec-guard: %s\n", what);
}

/*!
 * Whether a command may no longer start: less than the grace is left
 * before \a deadline, when the guard would already be stopping it.
 * Async-signal-safe (clock_gettime only): the child calls it before exec.
 */
bool tooLateToStart(long long deadline, long long graceMs)
{
    return deadline != noDeadline && bootMs() >= deadline - graceMs;
}

bool parseMs(const char *text, long long *value)
{
    if (std::strcmp(text, "none") == 0) {
        *value = noDeadline;
        return true;
    }
    char *end = nullptr;
    errno = 0;
    const long long parsed = std::strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || parsed < 0)
        return false;
    *value = parsed;
    return true;
}

/*!
 * A test hook (tst_execguardprotocol): environment variables that shorten
 * the give-up bound and make the guard spare the processes of one name, as
 * if they were not its to kill, since a test cannot make an unkillable
 * process. Unset in production: the defaults above.
 */
long long giveUpMsFromEnvironment()
{
    long long value = 0;
    const char *text = std::getenv("BATON_EXEC_GUARD_GIVE_UP_MS");
    if (text && parseMs(text, &value) && value != noDeadline)
        return value;
    return defaultGiveUpMs;
}

/*!
 * A test hook (tst_execguardprotocol): how long the child waits between the
 * fork and its check before exec, so that a test can stop the guard in that
 * gap and see the child refuse by itself. Unset in production: no wait.
 */
long long execDelayMsFromEnvironment()
{
    long long value = 0;
    const char *text = std::getenv("BATON_EXEC_GUARD_TEST_EXEC_DELAY_MS");
    if (text && parseMs(text, &value) && value != noDeadline)
        return value;
    return 0;
}

int readOomScoreAdj()
{
    int value = 0;
    if (FILE *file = std::fopen("/proc/self/oom_score_adj", "re")) {
        if (std::fscanf(file, "%d", &value) != 1)
            value = 0;
        std::fclose(file);
    }
    return value;
}

void report(const std::string &line)
{
    const std::string text = line + '\n';
    // baton may be gone (then nobody reads this): EPIPE is ignored.
    while (::write(STDOUT_FILENO, text.data(), text.size()) < 0 && errno == EINTR) {
    }
}

using baton::execguard::ProcessIdentity;
using baton::execguard::SignalOutcome;

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

class Guard
{
public:
    Guard(long long graceMs, long long deadline)
        : m_graceMs(graceMs)
        , m_deadline(deadline)
        , m_giveUpMs(giveUpMsFromEnvironment())
    {
        if (const char *spared = std::getenv("BATON_EXEC_GUARD_TEST_SPARE"))
            m_spared = spared;
    }

    enum class Start { Running, Refused, Failed };
    Start start(char **argv);
    int run();

private:
    void onControl();
    void onSignals();
    void reap();
    void terminate();
    void killAll();
    void armTimer();
    void signalGroup(int signalNumber) const;
    void signalDescendants(int signalNumber);
    void giveUp();

    long long m_graceMs;
    long long m_deadline;
    long long m_giveUpMs;
    std::string m_spared;
    /*! When the guard began killing everything: the give-up bound runs from here. */
    long long m_killingSince = noDeadline;
    /*! Descendants whose kill was refused (EPERM), for giveUp() to say why they are left. */
    std::vector<pid_t> m_refused;
    pid_t m_command = 0;
    bool m_commandEnded = false;
    bool m_stopping = false;
    bool m_killing = false;
    long long m_killAt = noDeadline;
    bool m_controlOpen = true;
    std::string m_pending;
    int m_signalFd = -1;
    int m_timerFd = -1;
};

Guard::Start Guard::start(char **argv)
{
    // Whatever the command starts is reparented here, not to init, when its
    // parent dies: then nothing it started can escape the end.
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        complain("cannot become a child subreaper (prctl)");
        return Start::Failed;
    }
    sigset_t handled;
    sigemptyset(&handled);
    for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP})
        sigaddset(&handled, s);
    ::sigprocmask(SIG_BLOCK, &handled, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
    // A terminal's stop (Ctrl-Z, a read or write from the background) would
    // freeze the guard and with it the deadline. SIGSTOP cannot be ignored:
    // docs/operations.md says what is left then.
    for (int s : {SIGTSTP, SIGTTIN, SIGTTOU})
        std::signal(s, SIG_IGN);
    const int commandOomScoreAdj = std::min(readOomScoreAdj() + oomScoreRaise, oomScoreMax);
    m_signalFd = ::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
    // CLOCK_BOOTTIME and absolute: the timer fires at the deadline even
    // across a suspend, where a relative sleep would be late by the suspend.
    m_timerFd = ::timerfd_create(CLOCK_BOOTTIME, TFD_CLOEXEC | TFD_NONBLOCK);
    if (m_signalFd < 0 || m_timerFd < 0) {
        complain("cannot create its signal or timer descriptor");
        return Start::Failed;
    }
    ::fcntl(STDIN_FILENO, F_SETFL, ::fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);

    const long long execDelayMs = execDelayMsFromEnvironment();
    const long long deadline = m_deadline;
    const long long graceMs = m_graceMs;
    if (tooLateToStart(m_deadline, m_graceMs)) {
        const long long left = m_deadline - bootMs();
        if (left < 0)
            std::fprintf(stderr,
                         "baton-exec-guard: refused to start the command: "
                         "its deadline passed %lld ms ago\n",
                         -left);
        else
            std::fprintf(stderr,
                         "baton-exec-guard: refused to start the command: %lld ms were left "
                         "before its deadline, less than the grace of %lld ms\n",
                         left, m_graceMs);
        report("refused");
        return Start::Refused;
    }

    const pid_t guard = ::getpid();
    const pid_t child = ::fork();
    if (child < 0) {
        complain("cannot fork");
        return Start::Failed;
    }
    if (child == 0) {
        ::setpgid(0, 0); // its own group, so that a stop reaches its children too
        const int null = ::open("/dev/null", O_RDONLY);
        if (null >= 0) {
            ::dup2(null, STDIN_FILENO); // the control pipe is the guard's only
            ::close(null);
        }
        ::dup2(STDERR_FILENO, STDOUT_FILENO); // the status pipe is the guard's only
        ::prctl(PR_SET_PDEATHSIG, SIGKILL); // a guard killed outright takes its child along
        if (::getppid() != guard)
            ::_exit(127);
        // Raising is allowed without privilege; the OOM killer then ends the
        // command (and what it starts, which inherits this) before the guard.
        const int adj = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
        if (adj >= 0) {
            const std::string text = std::to_string(commandOomScoreAdj) + '\n';
            [[maybe_unused]] const ssize_t written = ::write(adj, text.data(), text.size());
            ::close(adj);
        }
        // An ignored signal stays ignored across exec: the command gets the defaults.
        for (int s : {SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU})
            std::signal(s, SIG_DFL);
        if (execDelayMs > 0) {
            const timespec delay {time_t(execDelayMs / 1000), long(execDelayMs % 1000) * 1000000L};
            ::nanosleep(&delay, nullptr);
        }
        // Again, as late as it can be: the guard may have been stalled since
        // the fork, and then nothing stops a command started now in time.
        if (tooLateToStart(deadline, graceMs)) {
            static const char refused[] = "baton-exec-guard: refused to start the command: its "
                                          "deadline, less the grace, passed between the fork "
                                          "and the exec\n";
            [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, refused, sizeof refused - 1);
            ::_exit(126);
        }
        ::sigprocmask(SIG_UNBLOCK, &handled, nullptr);
        ::execvp(argv[0], argv);
        std::fprintf(stderr, "baton-exec-guard: cannot run %s: %s\n", argv[0], std::strerror(errno));
        ::_exit(127);
    }
    ::setpgid(child, child); // also here: no signal to the group before the child made it
    m_command = child;
    report("pid " + std::to_string(child));
    return Start::Running;
}

int Guard::run()
{
    for (;;) {
        const long long now = bootMs();
        if (!m_stopping && m_deadline != noDeadline && now >= m_deadline - m_graceMs) {
            report("expired");
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
            return 0;
        if (m_killing && now - m_killingSince >= m_giveUpMs) {
            giveUp();
            return 3;
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
        if (line.rfind("deadline ", 0) == 0) {
            long long deadline = 0;
            if (parseMs(line.c_str() + 9, &deadline))
                m_deadline = deadline; // after a stop, m_killAt stays as it was
            else
                complain("ignored a deadline that is not a number");
        } else if (line == "stop") {
            terminate();
        } else if (line == "kill") {
            m_killing = true;
        } else {
            complain("ignored an unknown control line");
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
            report("signal " + std::to_string(WTERMSIG(status)));
        else
            report("exit " + std::to_string(WEXITSTATUS(status)));
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
        report("stuck " + std::to_string(process.pid));
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

} // namespace

int main(int argc, char **argv)
{
    long long graceMs = 0;
    long long deadline = 0;
    if (argc < 5 || std::strcmp(argv[3], "--") != 0 || !parseMs(argv[1], &graceMs)
        || graceMs == noDeadline || !parseMs(argv[2], &deadline)) {
        std::fprintf(stderr, "usage: baton-exec-guard GRACE_MS DEADLINE_MS|none -- PROGRAM [ARG...]\n"
                             "(started by `baton join --exec`, not by hand)\n");
        return 2;
    }
    Guard guard(graceMs, deadline);
    switch (guard.start(argv + 4)) {
    case Guard::Start::Running:
        return guard.run();
    case Guard::Start::Refused:
        return 4;
    case Guard::Start::Failed:
        break;
    }
    report("exit 127");
    return 127;
}
