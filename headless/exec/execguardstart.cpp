// baton-exec-guard: starting the command (execguard.cpp says what the guard
// is for): never with less than the grace left, in a group of its own, the
// OOM killer's first choice.

#include "execguard.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

namespace baton::execguard {

namespace {

// How much more likely to be picked by the OOM killer the command is than
// the guard, in oom_score_adj units (thousandths of the host's memory).
constexpr int oomScoreRaise = 500;
constexpr int oomScoreMax = 1000;

/*!
 * Whether a command may no longer start: less than the grace is left
 * before \a deadline, when the guard would already be stopping it.
 * Async-signal-safe (clock_gettime only): the child calls it before exec.
 */
bool tooLateToStart(long long deadline, long long graceMs)
{
    return deadline != noDeadline && bootMs() >= deadline - graceMs;
}


/*!
 * A test hook (tst_execguardprotocol): how long the child waits between the
 * fork and its check before exec, so that a test can stop the guard in that
 * gap and see the child refuse by itself. Unset in production: no wait.
 */
long long execDelayMsFromEnvironment()
{
    long long value = 0;
    const char *text = std::getenv(guardprotocol::execDelayMsVariable);
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

} // namespace

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
    // docs/safety.md says what is left then.
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
        report(guardprotocol::reportLine(guardprotocol::Report::Refused));
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
    report(guardprotocol::reportLine(guardprotocol::Report::Pid, child));
    return Start::Running;
}

} // namespace baton::execguard
