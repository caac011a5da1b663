// LeaderSchedule: scheduled work in a Qt program, once per tick, on the
// leader (S1-S3). Real cluster services on one MemoryStore; the schedule
// ticks every second, and every wait is for a signal or a record.

#include "storecluster.h"

#include <baton/clusterservice.h>
#include <baton/leaderschedule.h>
#include <batoninternal/runledger.h>

#include <QSignalSpy>
#include <QTest>

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

// The records of the lease "leader", read from the store.
QList<RunRecord> records(Store *store)
{
    RunLedger ledger(store, QStringLiteral("leader"));
    QList<RunRecord> result;
    bool done = false;
    ledger.list([&](bool ok, const QList<RunRecord> &listed, const QString &) {
        if (ok)
            result = listed;
        done = true;
    });
    if (!QTest::qWaitFor([&] { return done; }, 5000))
        qWarning("the run records were not listed");
    return result;
}

std::optional<RunRecord> recordOf(Store *store, const QString &tick)
{
    for (const RunRecord &record : records(store))
        if (record.tick == tick)
            return record;
    return std::nullopt;
}

} // namespace

class TestLeaderSchedule : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void eachTickIsDueOnOneInstanceOnly();
    void finishWritesTheOutcome();
    void theLeadershipEndingMidRunMarksItInterrupted();
    void stoppingTheScheduleInterruptsTheRunGoing();
    void aBadScheduleIsRefusedNamingTheField();
    void aScheduleWithNowhereToKeepItsRecordsIsRefused();
};

// S1: of two instances, the leader gets each tick, once, after its record.
void TestLeaderSchedule::eachTickIsDueOnOneInstanceOnly()
{
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    StoreCluster b(store.get(), QStringLiteral("b"));
    QVERIFY(start(a));
    QVERIFY(start(b));
    QTRY_VERIFY(a.isLeader() || b.isLeader());

    LeaderSchedule onA(a, *store);
    LeaderSchedule onB(b, *store);
    QStringList ticks;
    QStringList ranBy;
    for (auto [schedule, name] : {std::pair{&onA, QStringLiteral("a")}, std::pair{&onB, QStringLiteral("b")}}) {
        QVERIFY(schedule->setSchedule(QStringLiteral("every 1s")));
        LeaderSchedule *s = schedule;
        const QString instance = name;
        connect(s, &LeaderSchedule::due, s, [&, s, instance](const RunId &run) {
            ticks.append(run.tick());
            ranBy.append(instance);
            s->finish(run, true);
        });
        QVERIFY(s->start());
    }
    QTRY_VERIFY_WITH_TIMEOUT(ticks.size() >= 3, 15000);
    QCOMPARE(QSet<QString>(ticks.cbegin(), ticks.cend()).size(), ticks.size());
    const QString leader = a.isLeader() ? QStringLiteral("a") : QStringLiteral("b");
    QCOMPARE(ranBy.count(leader), ranBy.size());
    const QString first = ticks.first();
    QTRY_COMPARE(recordOf(store.get(), first).value_or(RunRecord()).outcome, RunRecord::succeeded);
    QCOMPARE(recordOf(store.get(), first)->instance, leader);
    onA.stop();
    onB.stop();
    stopAndWait(a);
    stopAndWait(b);
}

void TestLeaderSchedule::finishWritesTheOutcome()
{
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    LeaderSchedule schedule(a, *store);
    QVERIFY(schedule.setSchedule(QStringLiteral("every 1s")));
    QSignalSpy due(&schedule, &LeaderSchedule::due);
    QVERIFY(schedule.start());
    QVERIFY(due.wait(5000));
    const RunId run = due.first().first().value<RunId>();
    QCOMPARE(run.fencingToken(), a.fencingToken());
    QCOMPARE(run.attempt(), 1);
    QCOMPARE(run.tickTime().toUTC(), QDateTime::fromString(run.tick(), Qt::ISODate));
    schedule.finish(run, false, QStringLiteral("disk full"));
    QTRY_COMPARE(recordOf(store.get(), run.tick()).value_or(RunRecord()).outcome,
                 QStringLiteral("failed: disk full"));
    QVERIFY(recordOf(store.get(), run.tick())->end.isValid());
    schedule.stop();
    stopAndWait(a);
}

// S2: the program is told to stop the work, and the record says interrupted.
void TestLeaderSchedule::theLeadershipEndingMidRunMarksItInterrupted()
{
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    LeaderSchedule schedule(a, *store);
    QVERIFY(schedule.setSchedule(QStringLiteral("every 1s")));
    QSignalSpy due(&schedule, &LeaderSchedule::due);
    QSignalSpy interrupted(&schedule, &LeaderSchedule::interrupted);
    QVERIFY(schedule.start());
    QVERIFY(due.wait(5000));
    const RunId run = due.first().first().value<RunId>();
    stopAndWait(a);
    QCOMPARE(interrupted.count(), 1);
    QCOMPARE(interrupted.first().first().value<RunId>(), run);
    schedule.finish(run, true); // too late: ignored
    QTRY_COMPARE(recordOf(store.get(), run.tick()).value_or(RunRecord()).outcome, RunRecord::interrupted);
    QCOMPARE(due.count(), 1);
}

// S2: stop() ends the work as the end of the leadership would; no tick after it.
void TestLeaderSchedule::stoppingTheScheduleInterruptsTheRunGoing()
{
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    LeaderSchedule schedule(a, *store);
    QVERIFY(schedule.setSchedule(QStringLiteral("every 1s")));
    QSignalSpy due(&schedule, &LeaderSchedule::due);
    QSignalSpy interrupted(&schedule, &LeaderSchedule::interrupted);
    QVERIFY(schedule.start());
    QVERIFY(due.wait(5000));
    const RunId run = due.first().first().value<RunId>();
    schedule.stop();
    QVERIFY(!schedule.isActive());
    QCOMPARE(interrupted.count(), 1);
    QCOMPARE(interrupted.first().first().value<RunId>(), run);
    QTRY_COMPARE(recordOf(store.get(), run.tick()).value_or(RunRecord()).outcome, RunRecord::interrupted);
    QVERIFY(!due.wait(2500)); // a tick would have come within this time
    stopAndWait(a);
}

void TestLeaderSchedule::aBadScheduleIsRefusedNamingTheField()
{
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    LeaderSchedule schedule(a, *store);
    QVERIFY(!schedule.setSchedule(QStringLiteral("60 3 * * *")));
    QCOMPARE(schedule.error(), LeaderSchedule::Error::BadSchedule);
    QVERIFY2(schedule.errorString().contains(QLatin1String("minute \"60\"")), qPrintable(schedule.errorString()));
    QVERIFY(schedule.schedule().isEmpty());
    QVERIFY(!schedule.start());
    QVERIFY(!schedule.isActive());
    QVERIFY(schedule.setSchedule(QStringLiteral("every 10m")));
    QCOMPARE(schedule.error(), LeaderSchedule::Error::NoError);
    QCOMPARE(schedule.schedule(), QStringLiteral("every 10m"));
}

// A cluster service built without an application has no store of its own.
void TestLeaderSchedule::aScheduleWithNowhereToKeepItsRecordsIsRefused()
{
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    LeaderSchedule schedule(a);
    QVERIFY(schedule.setSchedule(QStringLiteral("every 10m")));
    QVERIFY(!schedule.start());
    QCOMPARE(schedule.error(), LeaderSchedule::Error::NoRunStore);
    QVERIFY2(schedule.errorString().contains(QLatin1String("no store for the run records")),
             qPrintable(schedule.errorString()));
}

QTEST_GUILESS_MAIN(TestLeaderSchedule)
#include "tst_leaderschedule.moc"
