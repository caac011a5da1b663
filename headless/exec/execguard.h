// The guard's one class and the helpers both of its halves use
// (execguardstart.cpp: starting the command; execguardloop.cpp: watching it
// to its end). Plain POSIX, no Qt: see execguard.cpp.

#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "guardprotocol.h"
#include "processsignal.h"

#include <unistd.h>

namespace baton::execguard {

using guardprotocol::noDeadline;
using guardprotocol::parseMs;

// While descendants outlive SIGKILL for a moment (exiting, or not yet
// reparented to the guard), it looks again this often.
constexpr long long rescanMs = 20;
// How long the guard keeps killing a descendant that does not die before it
// names it and gives up on it: long enough for an exit that needs the disk,
// short enough that baton's stop does not hang on a process nobody can end.
constexpr long long defaultGiveUpMs = 5000;

inline long long bootMs()
{
    timespec ts {};
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

inline void complain(const char *what)
{
    std::fprintf(stderr, "baton-exec-guard: %s\n", what);
}

/*! Writes one line of guardprotocol.h to baton. */
inline void report(const std::string &text)
{
    // baton may be gone (then nobody reads this): EPIPE is ignored.
    while (::write(STDOUT_FILENO, text.data(), text.size()) < 0 && errno == EINTR) {
    }
}

/*!
 * A test hook (tst_execguardprotocol): environment variables that shorten
 * the give-up bound and make the guard spare the processes of one name, as
 * if they were not its to kill, since a test cannot make an unkillable
 * process. Unset in production: the defaults above.
 */
inline long long giveUpMsFromEnvironment()
{
    long long value = 0;
    const char *text = std::getenv(guardprotocol::giveUpMsVariable);
    if (text && parseMs(text, &value) && value != noDeadline)
        return value;
    return defaultGiveUpMs;
}

class Guard
{
public:
    Guard(long long graceMs, long long deadline)
        : m_graceMs(graceMs)
        , m_deadline(deadline)
        , m_giveUpMs(giveUpMsFromEnvironment())
    {
        if (const char *spared = std::getenv(guardprotocol::spareVariable))
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

} // namespace baton::execguard
