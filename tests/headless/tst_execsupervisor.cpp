// The --exec supervisor on real cluster services and real commands
// (O3, F3, F5, W3): the command runs only while leading, gets SIGTERM then
// SIGKILL after the grace period, is never running twice at once, and is
// dead before the lease is released. Instances share one MemoryStore in this
// process; every wait is for a signal or a condition.

#include <baton/clock.h>
#include "execsupervisor.h"
#include "memorystore.h"
#include "storecluster.h"
#include "testsupport.h"

#include <baton/clusterservice.h>

#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
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

QTEST_GUILESS_MAIN(TestExecSupervisor)
#include "tst_execsupervisor.moc"
