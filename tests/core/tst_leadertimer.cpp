// LeaderTimer: a timer that ticks on the leader only (W1, W2, W6, F4).
// Instances share one MemoryStore; time that decides leadership comes from a
// ManualClock, and every wait is for a signal, never for time to pass.

#include "manualclock.h"
#include "storecluster.h"

#include <baton/clusterservice.h>
#include <baton/leadertimer.h>

#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace baton;
using baton::test::makeStore;
using baton::test::StoreCluster;

namespace {

bool start(ClusterService &cluster)
{
    QString error;
    const bool ok = cluster.init(&error);
    if (!ok)
        qWarning("%s", qPrintable(error));
    return ok;
}

void stopAndWait(ClusterService &cluster)
{
    QSignalSpy stopped(&cluster, &Service::stopped);
    cluster.stop();
    QVERIFY(stopped.wait(10000));
}

// The QTimer underneath: the test waits for it to fire, to see that a fire
// past the deadline emits nothing.
QTimer *underlyingTimer(LeaderTimer &timer)
{
    return timer.findChild<QTimer *>(QStringLiteral("baton-leadertimer-tick"));
}

} // namespace

class TestLeaderTimer : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void ticksWhileLeading();
    void frozenLeaderPastItsDeadlineDoesNotTick();
    void stopsOnStepDownAndRestartsOnReElection();
    void ticksOnlyWhenStartedAndLeading();
    void followerDoesNotTick();
};

void TestLeaderTimer::ticksWhileLeading()
{
    // W1: started on an instance that already leads, it ticks.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    LeaderTimer timer(a);
    QSignalSpy ticks(&timer, &LeaderTimer::timeout);
    timer.start(1);
    QTRY_VERIFY(timer.isTicking());
    QTRY_VERIFY(ticks.count() >= 3);
    QCOMPARE(timer.interval(), 1);
    stopAndWait(a);
    QVERIFY(!timer.isTicking());
}

void TestLeaderTimer::frozenLeaderPastItsDeadlineDoesNotTick()
{
    // F4: the process "resumes" past its deadline (the manual clock jumps)
    // and the underlying timer fires before the election acts: no timeout().
    // Long timings keep the election's own timers from acting during the test.
    auto store = makeStore();
    test::ManualClock clock;
    const StoreCluster::Timings timings {60000, 20000};
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("leader"), timings, &clock);
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    LeaderTimer timer(a);
    QSignalSpy ticks(&timer, &LeaderTimer::timeout);
    timer.start(1);
    QVERIFY(ticks.wait(5000));

    QTimer *tick = underlyingTimer(timer);
    QVERIFY(tick);
    clock.advance(a.timings().stepDownDeadline);
    QVERIFY(!a.isLeader());
    ticks.clear();
    QSignalSpy fires(tick, &QTimer::timeout);
    QTRY_VERIFY(fires.count() >= 3);
    QCOMPARE(ticks.count(), 0);
}

void TestLeaderTimer::stopsOnStepDownAndRestartsOnReElection()
{
    // W2: the timer stops when the instance stops leading (here F4: its
    // deadline passed) and starts again when it is elected again.
    auto store = makeStore();
    test::ManualClock clock;
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("leader"), {}, &clock);
    LeaderTimer timer(a);
    QSignalSpy ticking(&timer, &LeaderTimer::tickingChanged);
    timer.start(1);
    QVERIFY(start(a));
    QTRY_COMPARE(ticking.count(), 1);
    QCOMPARE(ticking.at(0).at(0).toBool(), true);

    QSignalSpy leadership(&a, &ClusterService::leadershipChanged);
    clock.advance(a.timings().stepDownDeadline);
    QTRY_VERIFY(leadership.count() >= 2); // stepped down, then elected again
    QTRY_COMPARE(ticking.count(), 3);
    QCOMPARE(ticking.at(1).at(0).toBool(), false);
    QCOMPARE(ticking.at(2).at(0).toBool(), true);

    QSignalSpy ticks(&timer, &LeaderTimer::timeout);
    QVERIFY(ticks.wait(5000));
    stopAndWait(a);
    QVERIFY(!timer.isTicking());
    QVERIFY(timer.isActive());
}

void TestLeaderTimer::ticksOnlyWhenStartedAndLeading()
{
    // The program's start() and stop() hold whatever the election does.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    LeaderTimer timer(a);
    timer.setInterval(1);
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
    QVERIFY(!timer.isActive());
    QVERIFY(!timer.isTicking()); // leading, not started

    QSignalSpy ticks(&timer, &LeaderTimer::timeout);
    timer.start();
    QVERIFY(timer.isActive());
    QVERIFY(timer.isTicking());
    QVERIFY(ticks.wait(5000));

    timer.stop();
    QVERIFY(!timer.isActive());
    QVERIFY(!timer.isTicking()); // leading, stopped by the program
    stopAndWait(a);
    timer.start();
    QVERIFY(timer.isActive());
    QVERIFY(!timer.isTicking()); // started, not leading
}

void TestLeaderTimer::followerDoesNotTick()
{
    // Two instances, one lease: only the leader's timer ticks; when the
    // leader stops cleanly, the follower's timer takes over (W2).
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    StoreCluster b(store.get(), QStringLiteral("b"));
    LeaderTimer timerA(a);
    LeaderTimer timerB(b);
    timerA.start(1);
    timerB.start(1);
    QVERIFY(start(a));
    QTRY_VERIFY(timerA.isTicking());
    QVERIFY(start(b));
    QSignalSpy ticksA(&timerA, &LeaderTimer::timeout);
    QVERIFY(ticksA.wait(5000));
    QVERIFY(!timerB.isTicking());

    stopAndWait(a);
    QVERIFY(!timerA.isTicking());
    QTRY_VERIFY(timerB.isTicking());
    QSignalSpy ticksB(&timerB, &LeaderTimer::timeout);
    QVERIFY(ticksB.wait(5000));
    stopAndWait(b);
}

QTEST_GUILESS_MAIN(TestLeaderTimer)
#include "tst_leadertimer.moc"
