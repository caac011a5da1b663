// baton-exec-guard: the parent of `baton join --exec`'s command, so that the
// command stops at the end of baton's authority even when baton itself is
// not scheduled (frozen by SIGSTOP, a debugger, Ctrl-Z) or is killed
// (docs/safety.md, "The exec guard"). Plain POSIX, no Qt: it must start
// fast, stay small, and depend on nothing baton's event loop does.
//
// What baton and the guard say to each other (its arguments, the control
// lines on stdin, the reports on stdout, its exit codes) is in
// guardprotocol.h, which both ends use.
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
using baton::execguard::report;
using namespace baton::guardprotocol;

int main(int argc, char **argv)
{
    long long graceMs = 0;
    long long deadline = 0;
    if (argc < 5 || std::strcmp(argv[3], argumentsEnd) != 0 || !parseMs(argv[1], &graceMs)
        || graceMs == noDeadline || !parseMs(argv[2], &deadline)) {
        std::fprintf(stderr, "usage: baton-exec-guard GRACE_MS DEADLINE_MS|none -- PROGRAM [ARG...]\n"
                             "(started by `baton join --exec`, not by hand)\n");
        return BadUsage;
    }
    Guard guard(graceMs, deadline);
    switch (guard.start(argv + 4)) {
    case Guard::Start::Running:
        return guard.run();
    case Guard::Start::Refused:
        return Refused;
    case Guard::Start::Failed:
        break;
    }
    report(reportLine(Report::Exit, CannotStart));
    return CannotStart;
}
