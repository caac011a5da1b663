// Signalling a process found in /proc without reaching a stranger that got
// its pid since (baton-exec-guard, which kills every descendant of the
// command, scanning /proc every 20 ms while they outlive SIGKILL, and
// baton's sweep of what a guard killed outright left). Plain
// POSIX and header-only: the guard depends on nothing but libc, and
// tst_processsignal tests these functions on their own.
//
// A pid read from /proc names a process only until that process is reaped:
// one of the command's descendants reaped by its own parent between the scan
// and the kill leaves its pid free for any process of the host. Where the
// kernel has pidfds (Linux 5.3), a pidfd is opened first, then the process
// that now has the pid is checked to be the one the scan saw (the same start
// time, the same parent or, its parent dead since, the guard that reaped it
// up), and only then signalled, through the pidfd: a pidfd names one process
// for good, so a process that ended after the check is not signalled at all
// (ESRCH), whoever has its pid by then. Without pidfds (ENOSYS) the same
// check is followed by kill(): the gap shrinks to the moment between the
// check and the kill, it does not close.

#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
// glibc 2.36 (Debian 12) declares these without C linkage for C++.
extern "C" {
#include <sys/pidfd.h>
}

namespace baton::execguard {

/*! One process as /proc/PID/stat shows it (proc(5), fields 1 to 5 and 22). */
struct ProcessIdentity
{
    pid_t pid = 0;
    pid_t parent = 0;
    pid_t group = 0;
    char state = 0;
    /*! Clock ticks after boot: with the pid, names one process for good. */
    unsigned long long startTime = 0;
    std::string name;
};

/*! Reads /proc/PID/stat; false when there is no such process (or it cannot be read). */
inline bool readProcess(pid_t pid, ProcessIdentity *out)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", int(pid));
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char buffer[1024];
    const ssize_t size = ::read(fd, buffer, sizeof buffer - 1);
    ::close(fd);
    if (size <= 0)
        return false;
    buffer[size] = '\0';
    // The name in parentheses may hold spaces and ')': skip to the last one.
    const char *name = std::strchr(buffer, '(');
    const char *afterName = std::strrchr(buffer, ')');
    if (!name || !afterName || afterName < name)
        return false;
    int parent = 0;
    int group = 0;
    ProcessIdentity process;
    // Fields 3 to 22 of proc(5): state, ppid, pgrp, ..., starttime.
    if (std::sscanf(afterName + 1,
                    " %c %d %d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                    &process.state, &parent, &group, &process.startTime)
        != 4)
        return false;
    process.pid = pid;
    process.parent = pid_t(parent);
    process.group = pid_t(group);
    process.name.assign(name + 1, afterName);
    *out = process;
    return true;
}

/*! Every process /proc shows now, read as readProcess() reads one. */
inline std::vector<ProcessIdentity> readAllProcesses()
{
    std::vector<ProcessIdentity> processes;
    DIR *proc = ::opendir("/proc");
    if (!proc)
        return processes;
    while (const dirent *entry = ::readdir(proc)) {
        char *end = nullptr;
        const long pid = std::strtol(entry->d_name, &end, 10);
        if (pid <= 0 || *end != '\0')
            continue;
        ProcessIdentity process;
        if (readProcess(pid_t(pid), &process))
            processes.push_back(std::move(process));
    }
    ::closedir(proc);
    return processes;
}

/*!
 * Whether the process that has \a now's pid is still the one \a seen
 * describes: the same start time, and the same parent, or \a reaper (the
 * subreaper that inherits it when its parent dies).
 */
inline bool isStillTheOneSeen(const ProcessIdentity &seen, const ProcessIdentity &now, pid_t reaper)
{
    return now.pid == seen.pid && now.startTime == seen.startTime
            && (now.parent == seen.parent || now.parent == reaper);
}

enum class SignalOutcome {
    ThroughPidfd,  ///< signalled through a pidfd opened before the check
    ThroughKill,   ///< signalled with kill() after the check: the kernel has no pidfds
    Gone,          ///< it had ended (or was reaped): nothing was signalled
    NotTheOneSeen, ///< its pid names another process now: nothing was signalled
    Refused,       ///< EPERM: not this process's to signal
};

/*!
 * Opens a pidfd for \a seen's pid and checks that it names the process the
 * scan saw. Returns the pidfd, or -1 with \a outcome set (Gone,
 * NotTheOneSeen), or -1 with \a outcome ThroughKill when the kernel has no
 * pidfds and the check passed: then the caller may only kill() by pid.
 */
inline int openIfStillTheOneSeen(const ProcessIdentity &seen, pid_t reaper, SignalOutcome *outcome)
{
    const int pidfd = ::pidfd_open(seen.pid, 0);
    if (pidfd < 0 && errno == ESRCH) {
        *outcome = SignalOutcome::Gone;
        return -1;
    }
    // Checked after the open: from here the pidfd names the process checked,
    // or one that has ended, which no signal reaches.
    ProcessIdentity now;
    if (!readProcess(seen.pid, &now) || !isStillTheOneSeen(seen, now, reaper)) {
        if (pidfd >= 0)
            ::close(pidfd);
        *outcome = SignalOutcome::NotTheOneSeen;
        return -1;
    }
    if (pidfd < 0) {
        // ENOSYS (a kernel before 5.3), or out of descriptors: by pid.
        *outcome = SignalOutcome::ThroughKill;
        return -1;
    }
    *outcome = SignalOutcome::ThroughPidfd;
    return pidfd;
}

/*! Sends \a signalNumber through \a pidfd and closes it. */
inline SignalOutcome signalThroughPidfd(int pidfd, int signalNumber)
{
    const int result = ::pidfd_send_signal(pidfd, signalNumber, nullptr, 0);
    const int error = errno;
    ::close(pidfd);
    if (result == 0)
        return SignalOutcome::ThroughPidfd;
    return error == EPERM ? SignalOutcome::Refused : SignalOutcome::Gone;
}

/*!
 * Sends \a signalNumber to the process \a seen describes, only if its pid
 * still names that process (see the top of this file).
 */
inline SignalOutcome signalIfStillTheOneSeen(const ProcessIdentity &seen, int signalNumber,
                                             pid_t reaper)
{
    SignalOutcome outcome = SignalOutcome::Gone;
    const int pidfd = openIfStillTheOneSeen(seen, reaper, &outcome);
    if (pidfd >= 0)
        return signalThroughPidfd(pidfd, signalNumber);
    if (outcome != SignalOutcome::ThroughKill)
        return outcome;
    if (::kill(seen.pid, signalNumber) == 0)
        return SignalOutcome::ThroughKill;
    return errno == EPERM ? SignalOutcome::Refused : SignalOutcome::Gone;
}

} // namespace baton::execguard
