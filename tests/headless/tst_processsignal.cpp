// How the exec guard signals a descendant it found in /proc (O3;
// headless/exec/processsignal.h): only the process the scan saw, never a
// stranger that got its pid since. The test cannot make the kernel hand a
// pid out again at will; it proves the parts that make reuse harmless: a
// process whose start time or parent is not the one seen (as a reused pid's
// would not be) is left alone, a pidfd of a process that ended and was
// reaped signals nothing, and a process still the one seen is signalled
// through its pidfd. What it does not prove: a pid really handed out again
// between the scan and the kill (that would take the whole pid space).

#include "processsignal.h"

#include <QTest>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace baton::execguard;

namespace {

/*! A child of the test that waits until a signal ends it. */
pid_t startChild()
{
    const pid_t child = ::fork();
    if (child == 0) {
        for (;;)
            ::pause();
    }
    return child;
}

/*! Whether \a child still runs (not ended): it is the test's to reap. */
bool stillRuns(pid_t child)
{
    siginfo_t info {};
    return ::waitid(P_PID, id_t(child), &info, WEXITED | WNOHANG | WNOWAIT) == 0
            && info.si_pid == 0;
}

/*! Reaps \a child; the signal that ended it, or 0. */
int reap(pid_t child)
{
    int status = 0;
    if (::waitpid(child, &status, 0) != child)
        return -1;
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

} // namespace

class TestProcessSignal : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aProcessStillTheOneSeenIsSignalledThroughItsPidfd();
    void aProcessOfAnotherStartTimeIsNeverSignalled();
    void aProcessOfAnotherParentIsNeverSignalled();
    void aPidfdOfAProcessEndedAndReapedSignalsNothing();
    void aProcessReparentedToTheReaperIsStillTheOneSeen();
};

void TestProcessSignal::aProcessStillTheOneSeenIsSignalledThroughItsPidfd()
{
    // O3: the guard's kill reaches its descendant, by pidfd where the kernel
    // has them (5.3 and later; the suite's hosts all do).
    const pid_t child = startChild();
    QVERIFY(child > 0);
    ProcessIdentity seen;
    QVERIFY(readProcess(child, &seen));
    QCOMPARE(seen.parent, ::getpid());
    QVERIFY(seen.startTime > 0);
    QCOMPARE(signalIfStillTheOneSeen(seen, SIGKILL, ::getpid()), SignalOutcome::ThroughPidfd);
    QCOMPARE(reap(child), SIGKILL);
}

void TestProcessSignal::aProcessOfAnotherStartTimeIsNeverSignalled()
{
    // O3: a pid handed out again names a process that started later than
    // the one the scan saw: it is not signalled.
    const pid_t child = startChild();
    QVERIFY(child > 0);
    ProcessIdentity seen;
    QVERIFY(readProcess(child, &seen));
    seen.startTime -= 1; // the one seen started earlier: this is a stranger
    QCOMPARE(signalIfStillTheOneSeen(seen, SIGKILL, ::getpid()), SignalOutcome::NotTheOneSeen);
    QVERIFY(stillRuns(child));
    ::kill(child, SIGKILL);
    QCOMPARE(reap(child), SIGKILL);
}

void TestProcessSignal::aProcessOfAnotherParentIsNeverSignalled()
{
    // O3: the scan took it for a descendant by its parent; a process of
    // that pid below another parent (neither the one seen nor the guard)
    // is not the guard's to kill.
    const pid_t child = startChild();
    QVERIFY(child > 0);
    ProcessIdentity seen;
    QVERIFY(readProcess(child, &seen));
    seen.parent = 1;
    QCOMPARE(signalIfStillTheOneSeen(seen, SIGKILL, 1), SignalOutcome::NotTheOneSeen);
    QVERIFY(stillRuns(child));
    ::kill(child, SIGKILL);
    QCOMPARE(reap(child), SIGKILL);
}

void TestProcessSignal::aPidfdOfAProcessEndedAndReapedSignalsNothing()
{
    // O3: the check passed, then the process ended and was reaped (its pid
    // free for anyone) before the signal: the pidfd still names the process
    // that ended, so nothing is signalled, whoever has the pid now.
    const pid_t child = startChild();
    QVERIFY(child > 0);
    ProcessIdentity seen;
    QVERIFY(readProcess(child, &seen));
    SignalOutcome outcome = SignalOutcome::Gone;
    const int pidfd = openIfStillTheOneSeen(seen, ::getpid(), &outcome);
    QVERIFY(pidfd >= 0);
    QCOMPARE(outcome, SignalOutcome::ThroughPidfd);
    ::kill(child, SIGKILL);
    QCOMPARE(reap(child), SIGKILL);
    QCOMPARE(signalThroughPidfd(pidfd, SIGKILL), SignalOutcome::Gone);
    // And found again by its old pid, it is gone, not signalled.
    QCOMPARE(signalIfStillTheOneSeen(seen, SIGKILL, ::getpid()), SignalOutcome::Gone);
}

void TestProcessSignal::aProcessReparentedToTheReaperIsStillTheOneSeen()
{
    // O3: a descendant whose parent died since the scan is reparented to
    // the guard (its subreaper): still its own, still signalled.
    const pid_t child = startChild();
    QVERIFY(child > 0);
    ProcessIdentity seen;
    QVERIFY(readProcess(child, &seen));
    seen.parent = 1; // as seen below a parent that died since; the test is the reaper
    QCOMPARE(signalIfStillTheOneSeen(seen, SIGKILL, ::getpid()), SignalOutcome::ThroughPidfd);
    QCOMPARE(reap(child), SIGKILL);
}

QTEST_GUILESS_MAIN(TestProcessSignal)
#include "tst_processsignal.moc"
