// The --exec supervisor on real cluster services and real commands
// (O3, F3, F5, W3): the command runs only while leading, gets SIGTERM then
// SIGKILL after the grace period, is never running twice at once, and is
// dead before the lease is released. Instances share one MemoryStore in this
// process; every wait is for a signal or a condition. The batonAlone* tests
// replace the guard by a stand-in that kills nothing (Options::guardProgram,
// the seam the other tests use to find the guard) so that baton's own kill
// path is seen on its own.

#include <baton/clock.h>
#include "execsupervisor.h"
#include "memorystore.h"
#include "storecluster.h"
#include "testsupport.h"

#include <baton/clusterservice.h>

#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace baton;
using baton::test::makeStore;
using baton::test::StoreCluster;

namespace {

// Scaled where the machine is slow (the sanitizer pass): a stop must end
// the command well before the step-down deadline, (leaseMs + renewMs) / 2
// after the last renewal, or the supervisor rightly leaves the lease to
// expire and the command's end is reported after stopped().
const int leaseMs = int(baton::test::scaledMs(600));
const int renewMs = int(baton::test::scaledMs(100));

bool isAlive(qint64 pid)
{
    return pid > 0 && ::kill(pid_t(pid), 0) == 0;
}


/*! Every exec-started / exec-stopped and election record of several instances, in order. */
class Journal : public QObject
{
public:
    void follow(ClusterService *cluster, ExecSupervisor *supervisor)
    {
        connect(cluster, &ClusterService::electionEvent, this, [this](const QJsonObject &e) { records.append(e); });
        connect(supervisor, &ExecSupervisor::event, this, [this](const QJsonObject &e) {
            records.append(e);
            const QString name = e.value(QStringLiteral("event")).toString();
            running += name == QLatin1String("exec-started") ? 1 : -1;
            maxRunning = std::max(maxRunning, running);
        });
    }
    int count(const QString &event, const QString &instance = {}) const
    {
        return int(std::count_if(records.begin(), records.end(), [&](const QJsonObject &e) {
            return e.value(QStringLiteral("event")).toString() == event
                    && (instance.isEmpty() || e.value(QStringLiteral("instance")).toString() == instance);
        }));
    }
    qsizetype indexOf(const QString &event, const QString &instance) const
    {
        for (qsizetype i = 0; i < records.size(); ++i)
            if (records.at(i).value(QStringLiteral("event")).toString() == event
                && records.at(i).value(QStringLiteral("instance")).toString() == instance)
                return i;
        return -1;
    }
    QJsonObject last(const QString &event) const
    {
        for (auto it = records.rbegin(); it != records.rend(); ++it)
            if (it->value(QStringLiteral("event")).toString() == event)
                return *it;
        return {};
    }

    QList<QJsonObject> records;
    int running = 0;
    int maxRunning = 0;
};

/*! Options for \a command under the guard built with this test (it is not beside the test's executable). */
ExecSupervisor::Options withGuard(const QString &command, qint64 graceMs = -1)
{
    ExecSupervisor::Options options {command, graceMs};
    options.guardProgram = QStringLiteral(BATON_EXEC_GUARD);
    return options;
}

/*!
 * A stand-in for the guard that never signals anything (the test seam is
 * Options::guardProgram): it runs the command in a group of its own, says
 * "pid", ignores every control line, and once the command's process and
 * every live process of its group are gone reports how the command ended.
 * Under it only baton's own kill path can end the command, so a test sees
 * that path break although the real guard would kill in its place. (A
 * zombie of the group, reparented to this process, does not count: nobody
 * reaps it before the sweep.)
 */
QString writeInertGuard(const QTemporaryDir &folder)
{
    const QString path = folder.filePath(QStringLiteral("inert-guard"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write("#!/bin/sh\n"
               "shift 3\n"
               "setsid \"$@\" </dev/null >&2 &\n"
               "pid=$!\n"
               "echo \"pid $pid\"\n"
               "wait $pid\n"
               "status=$?\n"
               "while ps -e -o pgid=,stat= | awk -v g=$pid '$1 == g && $2 !~ /^Z/ { found = 1 } END { exit !found }'; do\n"
               "  sleep 0.02\n"
               "done\n"
               "if [ $status -gt 128 ]; then echo \"signal $((status - 128))\"; else echo \"exit $status\"; fi\n");
    file.close();
    file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

qint64 monoOf(const QJsonObject &e)
{
    return qint64(e.value(QStringLiteral("mono")).toDouble());
}

} // namespace

class TestExecSupervisor : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void graceMustFitTheSafetyMargin_data();
    void graceMustFitTheSafetyMargin();
    void commandRunsOnTheLeaderOnlyAndIsDeadBeforeTheRelease();
    void commandIgnoringSigtermIsKilledAfterTheGrace();
    void commandExitingWhileLeadingIsRestartedWithBackOff();
    void stepDownOnExitAsksTheCallerToStop();
    void removingTheRegistrationStopsTheCommand();
    void stepDownReachesTheCommandsChildren();
    void batonAloneKillsACommandIgnoringSigtermAfterTheGrace();
    void batonAloneKillsTheCommandsWholeGroupAfterTheGrace();
};

void TestExecSupervisor::graceMustFitTheSafetyMargin_data()
{
    QTest::addColumn<qint64>("requested");
    QTest::addColumn<qint64>("expected"); // -1: refused
    // lease 600, renewal 100: deadline 350, safety margin 250, of which a
    // quarter (63 ms) is kept for the kill and clock drift.
    QTest::newRow("no grace given is half the margin") << qint64(-1) << qint64(125);
    QTest::newRow("zero kills at once") << qint64(0) << qint64(0);
    QTest::newRow("three quarters of the margin fit") << qint64(187) << qint64(187);
    QTest::newRow("one millisecond more is refused") << qint64(188) << qint64(-1);
    QTest::newRow("the whole margin is refused") << qint64(250) << qint64(-1);
    QTest::newRow("a grace longer than the lease is refused") << qint64(5000) << qint64(-1);
}

void TestExecSupervisor::graceMustFitTheSafetyMargin()
{
    // O3: SIGKILL must come before any other instance may take the lease,
    // with room for the kill itself and for clock drift.
    QFETCH(qint64, requested);
    QFETCH(qint64, expected);
    auto store = makeStore();
    // The timings of the rows above, not scaled: arithmetic, not waiting.
    StoreCluster cluster(store.get(), QStringLiteral("a"), QStringLiteral("exec"), {600, 100});
    QString error;
    QVERIFY(cluster.validate(&error));
    ExecSupervisor supervisor(&cluster, withGuard(QStringLiteral("true"), requested));
    const bool attached = supervisor.attach(&error);
    QCOMPARE(attached, expected >= 0);
    if (attached) {
        QCOMPARE(supervisor.graceMs(), expected);
    } else {
        QVERIFY2(error.contains(QStringLiteral("safety margin of 250 ms")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("at most 187 ms")), qPrintable(error));
        QVERIFY2(error.contains(QString::number(requested)), qPrintable(error));
    }
}

void TestExecSupervisor::commandRunsOnTheLeaderOnlyAndIsDeadBeforeTheRelease()
{
    // O3, W3, F5: two instances with the same command; the command starts on
    // the leader only; a clean stop of the leader kills it before the release,
    // and the other instance starts its own only after that.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("exec"), {leaseMs, renewMs});
    StoreCluster b(store.get(), QStringLiteral("b"), QStringLiteral("exec"), {leaseMs, renewMs});
    const QString command = QStringLiteral("trap 'exit 0' TERM; while :; do sleep 0.05; done");
    ExecSupervisor execA(&a, withGuard(command));
    ExecSupervisor execB(&b, withGuard(command));
    Journal journal;
    journal.follow(&a, &execA);
    journal.follow(&b, &execB);
    QString error;
    QVERIFY(a.validate(&error) && b.validate(&error));
    QVERIFY(execA.attach(&error) && execB.attach(&error));
    QVERIFY(a.init(&error));
    QTRY_VERIFY(execA.pid() > 0);
    QVERIFY(b.init(&error));
    QVERIFY(a.isLeader());
    const qint64 firstPid = execA.pid();
    QVERIFY(isAlive(firstPid));
    QVERIFY(!execB.isRunning());

    QSignalSpy aStopped(&a, &Service::stopped);
    a.stop();
    QVERIFY(aStopped.wait(10000));
    QVERIFY(!isAlive(firstPid));
    // F5: exec-stopped, then the release; b starts its command after both.
    const qsizetype stoppedAt = journal.indexOf(QStringLiteral("exec-stopped"), QStringLiteral("a"));
    const qsizetype releasedAt = journal.indexOf(QStringLiteral("released"), QStringLiteral("a"));
    QVERIFY(stoppedAt >= 0 && releasedAt > stoppedAt);
    QCOMPARE(journal.last(QStringLiteral("exec-stopped")).value(QStringLiteral("reason")).toString(),
             QStringLiteral("stopped"));
    QCOMPARE(journal.last(QStringLiteral("exec-stopped")).value(QStringLiteral("exitCode")).toInt(), 0);
    QTRY_VERIFY(execB.pid() > 0);
    QVERIFY(journal.indexOf(QStringLiteral("exec-started"), QStringLiteral("b")) > releasedAt);
    QCOMPARE(journal.maxRunning, 1);

    QSignalSpy bStopped(&b, &Service::stopped);
    const qint64 secondPid = execB.pid();
    b.stop();
    QVERIFY(bStopped.wait(10000));
    QVERIFY(!isAlive(secondPid));
    QCOMPARE(journal.count(QStringLiteral("exec-started")), 2);
    QCOMPARE(journal.count(QStringLiteral("exec-stopped")), 2);
    QCOMPARE(journal.maxRunning, 1);
}

void TestExecSupervisor::commandIgnoringSigtermIsKilledAfterTheGrace()
{
    // O3: SIGTERM first, SIGKILL once the grace period is over, to the whole
    // group (the shell and its sleep both ignore TERM here).
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("exec"), {leaseMs, renewMs});
    QTemporaryDir folder;
    const QString ready = folder.filePath(QStringLiteral("trap-set"));
    // The file says the trap is in place: a TERM before it would end the shell.
    ExecSupervisor exec(&a, withGuard(QStringLiteral("trap '' TERM; touch '%1'; while :; do sleep 0.05; done").arg(ready), 150));
    Journal journal;
    journal.follow(&a, &exec);
    QString error;
    QVERIFY(a.validate(&error) && exec.attach(&error) && a.init(&error));
    QTRY_VERIFY(exec.pid() > 0);
    QTRY_VERIFY(QFile::exists(ready));
    const qint64 pid = exec.pid();
    QSignalSpy stopped(&a, &Service::stopped);
    a.stop();
    QVERIFY(stopped.wait(10000));
    QVERIFY(!isAlive(pid));
    const QJsonObject ended = journal.last(QStringLiteral("exec-stopped"));
    QCOMPARE(ended.value(QStringLiteral("signal")).toInt(), SIGKILL);
    QVERIFY(ended.value(QStringLiteral("killed")).toBool());
    QVERIFY(!ended.contains(QStringLiteral("exitCode")));
    // The kill came after the grace period, counted from the step-down.
    const qint64 steppedDown = monoOf(journal.last(QStringLiteral("stopped-leading")));
    QVERIFY(monoOf(ended) - steppedDown >= 150);
    QVERIFY(journal.indexOf(QStringLiteral("released"), QStringLiteral("a"))
            > journal.indexOf(QStringLiteral("exec-stopped"), QStringLiteral("a")));
}

void TestExecSupervisor::commandExitingWhileLeadingIsRestartedWithBackOff()
{
    // --on-exit restart: a command that ends by itself while leading runs
    // again, after a delay that doubles; it is logged with its exit status.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("exec"), {leaseMs, renewMs});
    ExecSupervisor::Options options = withGuard(QStringLiteral("exit 3"));
    options.restartDelayMs = 20;
    options.restartDelayMaxMs = 80;
    ExecSupervisor exec(&a, options);
    Journal journal;
    journal.follow(&a, &exec);
    QString error;
    QVERIFY(a.validate(&error) && exec.attach(&error) && a.init(&error));
    QTRY_VERIFY_WITH_TIMEOUT(journal.count(QStringLiteral("exec-stopped")) >= 4, 10000);
    const QJsonObject ended = journal.last(QStringLiteral("exec-stopped"));
    QCOMPARE(ended.value(QStringLiteral("exitCode")).toInt(), 3);
    QCOMPARE(ended.value(QStringLiteral("reason")).toString(), QStringLiteral("exited"));
    // The back-off: each restart waits at least as long as the one before.
    QList<qint64> waits;
    qint64 lastStop = -1;
    for (const QJsonObject &e : std::as_const(journal.records)) {
        const QString name = e.value(QStringLiteral("event")).toString();
        if (name == QLatin1String("exec-stopped"))
            lastStop = monoOf(e);
        else if (name == QLatin1String("exec-started") && lastStop >= 0)
            waits.append(monoOf(e) - lastStop);
    }
    QVERIFY(waits.size() >= 3);
    // (mono is whole milliseconds: a wait may read 1 ms short.)
    QVERIFY2(waits.at(0) >= 19 && waits.at(1) >= 39 && waits.at(2) >= 79,
             qPrintable(QStringLiteral("restart waits %1 ms, %2 ms, %3 ms")
                                .arg(waits.at(0)).arg(waits.at(1)).arg(waits.at(2))));
    QCOMPARE(journal.maxRunning, 1);
    QSignalSpy stopped(&a, &Service::stopped);
    a.stop();
    QVERIFY(stopped.wait(10000));
    QVERIFY(!exec.isRunning());
}

void TestExecSupervisor::stepDownOnExitAsksTheCallerToStop()
{
    // --on-exit step-down: no restart; the caller is asked to give the lease up.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("exec"), {leaseMs, renewMs});
    ExecSupervisor::Options options = withGuard(QStringLiteral("exit 7"));
    options.onExit = ExecSupervisor::OnExit::StepDown;
    ExecSupervisor exec(&a, options);
    QSignalSpy stepDown(&exec, &ExecSupervisor::stepDownRequested);
    QSignalSpy ended(&exec, &ExecSupervisor::stopped);
    QString error;
    QVERIFY(a.validate(&error) && exec.attach(&error) && a.init(&error));
    QVERIFY(stepDown.wait(10000));
    QCOMPARE(ended.count(), 1);
    QCOMPARE(ended.at(0).at(1).toInt(), 7);
    QVERIFY(!exec.isRunning());
    QSignalSpy stopped(&a, &Service::stopped);
    a.stop();
    QVERIFY(stopped.wait(10000));
    QCOMPARE(ended.count(), 1);
}

void TestExecSupervisor::removingTheRegistrationStopsTheCommand()
{
    // W5: removing the registration while leading runs its deregisteredFn:
    // the command is stopped, the instance keeps leading.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("exec"), {leaseMs, renewMs});
    ExecSupervisor exec(&a, withGuard(QStringLiteral("exec sleep 30")));
    QString error;
    QVERIFY(a.validate(&error) && exec.attach(&error) && a.init(&error));
    QTRY_VERIFY(exec.pid() > 0);
    const qint64 pid = exec.pid();
    QSignalSpy ended(&exec, &ExecSupervisor::stopped);
    exec.detach();
    QVERIFY(ended.wait(10000));
    QCOMPARE(ended.at(0).at(2).toInt(), SIGTERM);
    QVERIFY(!isAlive(pid));
    QVERIFY(a.isLeader());
    QSignalSpy stopped(&a, &Service::stopped);
    a.stop();
    QVERIFY(stopped.wait(10000));
}

void TestExecSupervisor::stepDownReachesTheCommandsChildren()
{
    // O3: the stop goes to the command's whole process group, so work the
    // shell started in the background ends with it; a signal to the shell
    // alone would leave that work running under the next leader.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("exec"), {leaseMs, renewMs});
    QTemporaryDir folder;
    const QString childPidFile = folder.filePath(QStringLiteral("child.pid"));
    ExecSupervisor exec(&a, withGuard(QStringLiteral("sleep 30 & echo $! > '%1'; wait").arg(childPidFile)));
    QString error;
    QVERIFY(a.validate(&error) && exec.attach(&error) && a.init(&error));
    QTRY_VERIFY(exec.isRunning());
    QTRY_VERIFY(QFileInfo(childPidFile).size() > 0);
    QFile pidFile(childPidFile);
    QVERIFY(pidFile.open(QIODevice::ReadOnly));
    const qint64 child = pidFile.readAll().trimmed().toLongLong();
    QVERIFY(isAlive(child));
    QSignalSpy stopped(&a, &Service::stopped);
    a.stop();
    QVERIFY(stopped.wait(10000));
    // Killed by the TERM to the group; once orphaned it is reaped by init,
    // hence a wait rather than a single look.
    QTRY_VERIFY2(!isAlive(child), qPrintable(QStringLiteral("pid %1, started by the command, still runs").arg(child)));
}

void TestExecSupervisor::batonAloneKillsACommandIgnoringSigtermAfterTheGrace()
{
    // O3: baton's own SIGKILL at the end of the grace, with a guard that
    // kills nothing: either path must suffice, and with the real guard
    // killing at the same moment no other test sees this one break.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("exec"), {leaseMs, renewMs});
    QTemporaryDir folder;
    ExecSupervisor::Options options {QStringLiteral("trap '' TERM; touch '%1'; while :; do sleep 0.05; done")
                                             .arg(folder.filePath(QStringLiteral("trap-set"))),
                                     150};
    options.guardProgram = writeInertGuard(folder);
    QVERIFY(!options.guardProgram.isEmpty());
    ExecSupervisor exec(&a, options);
    Journal journal;
    journal.follow(&a, &exec);
    QString error;
    QVERIFY(a.validate(&error) && exec.attach(&error) && a.init(&error));
    QTRY_VERIFY(exec.pid() > 0);
    QTRY_VERIFY(QFile::exists(folder.filePath(QStringLiteral("trap-set"))));
    const qint64 pid = exec.pid();
    QSignalSpy stopped(&a, &Service::stopped);
    a.stop();
    QVERIFY(stopped.wait(10000));
    QVERIFY2(!isAlive(pid), "the command outlived the grace with only baton to kill it");
    const QJsonObject ended = journal.last(QStringLiteral("exec-stopped"));
    QCOMPARE(ended.value(QStringLiteral("signal")).toInt(), SIGKILL);
    QVERIFY(ended.value(QStringLiteral("killed")).toBool());
    QVERIFY(journal.indexOf(QStringLiteral("released"), QStringLiteral("a"))
            > journal.indexOf(QStringLiteral("exec-stopped"), QStringLiteral("a")));
}

void TestExecSupervisor::batonAloneKillsTheCommandsWholeGroupAfterTheGrace()
{
    // O3: baton's own SIGKILL reaches the command's whole group, with a
    // guard that kills nothing: work the shell started in the background
    // ends with it (a kill of the shell alone leaves it to the next leader).
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("exec"), {leaseMs, renewMs});
    QTemporaryDir folder;
    const QString childPidFile = folder.filePath(QStringLiteral("child.pid"));
    ExecSupervisor::Options options {
            QStringLiteral("trap '' TERM; sleep 30 & echo $! > '%1'; wait").arg(childPidFile), 150};
    options.guardProgram = writeInertGuard(folder);
    QVERIFY(!options.guardProgram.isEmpty());
    ExecSupervisor exec(&a, options);
    QString error;
    QVERIFY(a.validate(&error) && exec.attach(&error) && a.init(&error));
    QTRY_VERIFY(QFileInfo(childPidFile).size() > 0);
    QFile pidFile(childPidFile);
    QVERIFY(pidFile.open(QIODevice::ReadOnly));
    const qint64 child = pidFile.readAll().trimmed().toLongLong();
    QVERIFY(isAlive(child));
    const auto cleanup = qScopeGuard([child] { ::kill(pid_t(child), SIGKILL); });
    QSignalSpy stopped(&a, &Service::stopped);
    a.stop();
    QVERIFY(stopped.wait(10000));
    // Reparented to this process (a subreaper) when its shell died: a
    // zombie here until the sweep reaps it, hence a wait.
    QTRY_VERIFY2(!baton::test::isRunningProcess(child),
                 qPrintable(QStringLiteral("pid %1, started by the command, still runs").arg(child)));
}

QTEST_GUILESS_MAIN(TestExecSupervisor)
#include "tst_execsupervisor.moc"
