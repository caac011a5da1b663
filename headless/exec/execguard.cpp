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

#include "execguard.h"

#include <cstdio>
#include <cstring>

using baton::execguard::Guard;
using baton::execguard::noDeadline;
using baton::execguard::parseMs;
using baton::execguard::report;

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
