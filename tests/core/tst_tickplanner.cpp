// The decisions of scheduled work (S1-S3), without a clock or a store: the
// planner is told what happened, with the wall time, and each case checks
// the actions it asks of its driver. Ticks every 10 s from a fixed moment.

#include <batoninternal/tickplanner.h>

#include <QTest>

using namespace baton;
using Kind = TickPlanner::Action::Kind;
using Answer = TickPlanner::ClaimAnswer;

namespace {

const QDateTime t0 = QDateTime::fromString(QStringLiteral("2026-12-01T03:00:00Z"), Qt::ISODate);

QDateTime at(qint64 seconds)
{
    return t0.addSecs(seconds);
}

QString tickAt(qint64 seconds)
{
    return TickSchedule::tickName(at(seconds));
}

TickPlanner::Policy policy(const QString &spec = QStringLiteral("every 10s"))
{
    TickPlanner::Policy p;
    p.schedule = *TickSchedule::parse(spec, nullptr);
    return p;
}

QList<Kind> kinds(const QList<TickPlanner::Action> &actions)
{
    QList<Kind> result;
    for (const auto &action : actions)
        result.append(action.kind);
    return result;
}

RunRecord stored(RunRecord record)
{
    record.version = QStringLiteral("v1");
    return record;
}

RunRecord leftRunning(const QString &tick, qint64 token, int attempt = 1)
{
    RunRecord record;
    record.tick = tick;
    record.instance = QStringLiteral("old");
    record.token = token;
    record.start = QDateTime::fromString(tick, Qt::ISODate);
    record.outcome = RunRecord::running;
    record.attempt = attempt;
    record.version = QStringLiteral("v0");
    return record;
}

// Leading under token 7 from 2 s after t0, the records read.
void lead(TickPlanner &planner, const QList<RunRecord> &records = {}, qint64 seconds = 2)
{
    const auto started = planner.leadershipStarted(7, at(seconds));
    QCOMPARE(kinds(started), QList<Kind>{Kind::ReadRecords});
    QCOMPARE(started.first().record.token, 7);
    planner.recordsListed(7, records, at(seconds));
}

// The tick at \a seconds is due, claimed, answered Claimed: its work starts.
RunRecord runTick(TickPlanner &planner, qint64 seconds)
{
    const auto fired = planner.timerFired(at(seconds));
    if (fired.size() != 1 || fired.first().kind != Kind::Claim)
        qFatal("the tick was not claimed");
    const auto started = planner.claimAnswered(stored(fired.first().record), Answer::Claimed, at(seconds));
    if (started.size() != 1 || started.first().kind != Kind::StartWork)
        qFatal("the work did not start");
    return started.first().record;
}

} // namespace

class TestTickPlanner : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aDueTickIsClaimedThenRunThenSettled();
    void aTimerFiringEarlyClaimsNothing();
    void aTickAnotherInstanceClaimedIsNotRun();
    void aClaimNotCarriedOutStartsNothing();
    void interruptedRunsAreSettledAndNotRerunByDefault();
    void underRerunTheLatestInterruptedRunIsTakenOver();
    void underRerunARunItsOwnLeaderSettledAsInterruptedIsRerunIfNewest();
    void underRerunTheLatestMissedTickRunsAfterTheRerun();
    void withoutCatchUpAMissedTickIsNotRun();
    void withCatchUpTheLatestMissedTickRunsOnce_data();
    void withCatchUpTheLatestMissedTickRunsOnce();
    void overlapSkipRecordsTheTickAsSkipped();
    void overlapQueueRunsOneWaitingTickAfterTheRun();
    void aClaimAnsweredAfterTheLeadershipEndedIsSettledAsInterrupted();
    void theLeadershipEndingMidRunInterruptsTheWork();
    void anAnswerForAnEarlierLeadershipIsIgnored();
    void aClockSetForwardRunsOneMissedTickNotEach();
    void aClockSetBackRunsNoTickTwice();
    void notLeadingNoTimerRuns();
};

// S1: claim first (a conditional create with the token), then the work.
void TestTickPlanner::aDueTickIsClaimedThenRunThenSettled()
{
    TickPlanner planner(policy(), QStringLiteral("a"));
    lead(planner);
    QCOMPARE(planner.wakeAt(), at(10));

    const auto fired = planner.timerFired(at(10));
    QCOMPARE(kinds(fired), QList<Kind>{Kind::Claim});
    const RunRecord claim = fired.first().record;
    QCOMPARE(claim.tick, tickAt(10));
    QCOMPARE(claim.instance, QStringLiteral("a"));
    QCOMPARE(claim.token, 7);
    QCOMPARE(claim.outcome, RunRecord::running);
    QCOMPARE(claim.attempt, 1);
    QCOMPARE(planner.wakeAt(), at(20));

    const auto started = planner.claimAnswered(stored(claim), Answer::Claimed, at(10));
    QCOMPARE(kinds(started), QList<Kind>{Kind::StartWork});
    QCOMPARE(started.first().record.version, QStringLiteral("v1"));

    const auto ended = planner.runEnded(RunRecord::succeeded, at(13));
    QCOMPARE(kinds(ended), QList<Kind>{Kind::Settle});
    QCOMPARE(ended.first().record.outcome, RunRecord::succeeded);
    QCOMPARE(ended.first().record.end, at(13));
    QCOMPARE(ended.first().earlier.version, QStringLiteral("v1")); // conditional on the claim
    QVERIFY(!planner.current());
}

void TestTickPlanner::aTimerFiringEarlyClaimsNothing()
{
    TickPlanner planner(policy(), QStringLiteral("a"));
    lead(planner);
    QVERIFY(planner.timerFired(at(9)).isEmpty());
    QCOMPARE(planner.wakeAt(), at(10));
}

// S1: the conditional create decides; the loser runs nothing and waits for the next tick.
void TestTickPlanner::aTickAnotherInstanceClaimedIsNotRun()
{
    TickPlanner planner(policy(), QStringLiteral("a"));
    lead(planner);
    const auto fired = planner.timerFired(at(10));
    QVERIFY(planner.claimAnswered(fired.first().record, Answer::Taken, at(10)).isEmpty());
    QVERIFY(!planner.current());
    QCOMPARE(kinds(planner.timerFired(at(20))), QList<Kind>{Kind::Claim}); // not an overlap
}

// S1 with F4: a driver that finds its lease expired answers Failed.
void TestTickPlanner::aClaimNotCarriedOutStartsNothing()
{
    TickPlanner planner(policy(), QStringLiteral("a"));
    lead(planner);
    const auto fired = planner.timerFired(at(10));
    QVERIFY(planner.claimAnswered(fired.first().record, Answer::Failed, at(10)).isEmpty());
    QVERIFY(!planner.current());
}

// S2: default onInterrupted skip.
void TestTickPlanner::interruptedRunsAreSettledAndNotRerunByDefault()
{
    TickPlanner planner(policy(), QStringLiteral("a"));
    planner.leadershipStarted(7, at(2));
    const RunRecord old = leftRunning(tickAt(0), 3);
    RunRecord mine = leftRunning(tickAt(-10), 7); // this leadership's own: not stale
    const auto actions = planner.recordsListed(7, {mine, old}, at(2));
    QCOMPARE(kinds(actions), QList<Kind>{Kind::MarkInterrupted});
    QCOMPARE(actions.first().earlier.tick, old.tick);
    QCOMPARE(actions.first().earlier.version, old.version);
    QCOMPARE(actions.first().record.outcome, RunRecord::interrupted);
    QCOMPARE(actions.first().record.end, at(2));
    QVERIFY(!planner.current());
}

// S2: onInterrupted rerun takes over the latest run as its next attempt, settles the others.
void TestTickPlanner::underRerunTheLatestInterruptedRunIsTakenOver()
{
    TickPlanner::Policy p = policy();
    p.onInterrupted = TickPlanner::OnInterrupted::Rerun;
    TickPlanner planner(p, QStringLiteral("a"));
    planner.leadershipStarted(7, at(2));
    const RunRecord older = leftRunning(tickAt(-10), 3);
    const RunRecord latest = leftRunning(tickAt(0), 5, 2);
    const auto actions = planner.recordsListed(7, {older, latest}, at(2));
    QCOMPARE(kinds(actions), (QList<Kind>{Kind::MarkInterrupted, Kind::TakeOver}));
    QCOMPARE(actions.at(0).earlier.tick, older.tick);
    QCOMPARE(actions.at(1).earlier.version, latest.version);
    QCOMPARE(actions.at(1).record.tick, latest.tick);
    QCOMPARE(actions.at(1).record.attempt, 3);
    QCOMPARE(actions.at(1).record.token, 7);
    QCOMPARE(actions.at(1).record.instance, QStringLiteral("a"));
    QCOMPARE(kinds(planner.claimAnswered(stored(actions.at(1).record), Answer::Claimed, at(2))),
             QList<Kind>{Kind::StartWork});
}

// S2: a leader that stopped cleanly settles its own run "interrupted"; under
// Rerun the next leader owes the newest tick its run as much as when the
// leader died, and leaves an older interrupted tick alone.
void TestTickPlanner::underRerunARunItsOwnLeaderSettledAsInterruptedIsRerunIfNewest()
{
    TickPlanner::Policy p = policy();
    p.onInterrupted = TickPlanner::OnInterrupted::Rerun;
    RunRecord settled = leftRunning(tickAt(0), 5);
    settled.outcome = RunRecord::interrupted;
    settled.end = at(1);
    {
        TickPlanner planner(p, QStringLiteral("a"));
        planner.leadershipStarted(7, at(2));
        const auto actions = planner.recordsListed(7, {settled}, at(2));
        QCOMPARE(kinds(actions), QList<Kind>{Kind::TakeOver});
        QCOMPARE(actions.first().earlier.version, settled.version);
        QCOMPARE(actions.first().record.attempt, 2);
    }
    {
        TickPlanner planner(p, QStringLiteral("a"));
        planner.leadershipStarted(7, at(12));
        RunRecord later = leftRunning(tickAt(10), 5);
        later.outcome = RunRecord::succeeded;
        QVERIFY(kinds(planner.recordsListed(7, {settled, later}, at(12))).isEmpty());
    }
}

// S2: under Rerun with a catch-up window, the rerun goes first and the latest
// tick missed while nobody led runs once after it.
void TestTickPlanner::underRerunTheLatestMissedTickRunsAfterTheRerun()
{
    TickPlanner::Policy p = policy();
    p.onInterrupted = TickPlanner::OnInterrupted::Rerun;
    p.catchUpMs = 3600 * 1000;
    TickPlanner planner(p, QStringLiteral("a"));
    planner.leadershipStarted(7, at(25));
    const auto actions = planner.recordsListed(7, {leftRunning(tickAt(0), 5)}, at(25));
    QCOMPARE(kinds(actions), QList<Kind>{Kind::TakeOver});
    QCOMPARE(kinds(planner.claimAnswered(stored(actions.first().record), Answer::Claimed, at(25))),
             QList<Kind>{Kind::StartWork});
    const auto ended = planner.runEnded(RunRecord::succeeded, at(27));
    QCOMPARE(kinds(ended), (QList<Kind>{Kind::Settle, Kind::Claim}));
    QCOMPARE(ended.at(1).record.tick, tickAt(20));
}

// S2: catch-up 0 (the default): a missed tick stays missed.
void TestTickPlanner::withoutCatchUpAMissedTickIsNotRun()
{
    TickPlanner planner(policy(), QStringLiteral("a"));
    planner.leadershipStarted(7, at(5));
    QVERIFY(planner.recordsListed(7, {}, at(5)).isEmpty());
    QCOMPARE(planner.wakeAt(), at(10));
}

void TestTickPlanner::withCatchUpTheLatestMissedTickRunsOnce_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<qint64>("becameLeader");
    QTest::addColumn<bool>("alreadyRecorded");
    QTest::addColumn<bool>("runs");

    // Hourly ticks at minute 0; t0 is 03:00.
    QTest::newRow("S2: 20 min late, nobody started it: runs") << "0 * * * *" << qint64(20 * 60) << false << true;
    QTest::newRow("S2: started by another leader: not again") << "0 * * * *" << qint64(20 * 60) << true << false;
    QTest::newRow("S2: older than the window: missed") << "0 3 * * *" << qint64(61 * 60) << false << false;
}

// S2: catch-up 1h runs the latest missed tick, once.
void TestTickPlanner::withCatchUpTheLatestMissedTickRunsOnce()
{
    QFETCH(QString, spec);
    QFETCH(qint64, becameLeader);
    QFETCH(bool, alreadyRecorded);
    QFETCH(bool, runs);
    TickPlanner::Policy p = policy(spec);
    p.catchUpMs = 3600 * 1000;
    TickPlanner planner(p, QStringLiteral("a"));
    planner.leadershipStarted(7, at(becameLeader));
    QList<RunRecord> records;
    if (alreadyRecorded) {
        RunRecord done = leftRunning(tickAt(0), 3);
        done.outcome = RunRecord::succeeded;
        done.end = at(30);
        records.append(done);
    }
    const auto actions = planner.recordsListed(7, records, at(becameLeader));
    if (!runs) {
        QVERIFY(actions.isEmpty());
        return;
    }
    QCOMPARE(kinds(actions), QList<Kind>{Kind::Claim});
    QCOMPARE(actions.first().record.tick, tickAt(0));
}

// S3: default overlap skip.
void TestTickPlanner::overlapSkipRecordsTheTickAsSkipped()
{
    TickPlanner planner(policy(), QStringLiteral("a"));
    lead(planner);
    runTick(planner, 10);
    const auto fired = planner.timerFired(at(20));
    QCOMPARE(kinds(fired), QList<Kind>{Kind::RecordSkip});
    QCOMPARE(fired.first().record.tick, tickAt(20));
    QCOMPARE(fired.first().record.outcome, RunRecord::skipped);
    QCOMPARE(fired.first().earlier.tick, tickAt(10)); // the run still going
    QCOMPARE(kinds(planner.runEnded(RunRecord::succeeded, at(25))), QList<Kind>{Kind::Settle});
}

// S3: overlap queue: the tick waits for the run; one waits at most.
void TestTickPlanner::overlapQueueRunsOneWaitingTickAfterTheRun()
{
    TickPlanner::Policy p = policy();
    p.overlap = TickPlanner::Overlap::Queue;
    TickPlanner planner(p, QStringLiteral("a"));
    lead(planner);
    runTick(planner, 10);
    QVERIFY(planner.timerFired(at(20)).isEmpty());
    const auto pushed = planner.timerFired(at(30));
    QCOMPARE(kinds(pushed), QList<Kind>{Kind::RecordSkip});
    QCOMPARE(pushed.first().record.tick, tickAt(20));

    const auto ended = planner.runEnded(RunRecord::succeeded, at(33));
    QCOMPARE(kinds(ended), (QList<Kind>{Kind::Settle, Kind::Claim}));
    QCOMPARE(ended.at(1).record.tick, tickAt(30));
    QCOMPARE(ended.at(1).record.start, at(33));
}

// S1, S2: a claim written for a leadership that ended meanwhile is not run, and not left "running".
void TestTickPlanner::aClaimAnsweredAfterTheLeadershipEndedIsSettledAsInterrupted()
{
    TickPlanner planner(policy(), QStringLiteral("a"));
    lead(planner);
    const RunRecord claim = planner.timerFired(at(10)).first().record;
    QVERIFY(planner.leadershipEnded(at(11)).isEmpty()); // nothing started: nothing to stop
    QVERIFY(!planner.wakeAt().isValid());
    const auto answered = planner.claimAnswered(stored(claim), Answer::Claimed, at(12));
    QCOMPARE(kinds(answered), QList<Kind>{Kind::MarkInterrupted});
    QCOMPARE(answered.first().earlier.version, QStringLiteral("v1"));
    QCOMPARE(answered.first().record.outcome, RunRecord::interrupted);
    QVERIFY(!planner.current());
}

// S2: the work of a leadership that ended stops, and its record says so.
void TestTickPlanner::theLeadershipEndingMidRunInterruptsTheWork()
{
    TickPlanner::Policy p = policy();
    p.overlap = TickPlanner::Overlap::Queue;
    TickPlanner planner(p, QStringLiteral("a"));
    lead(planner);
    const RunRecord run = runTick(planner, 10);
    QVERIFY(planner.timerFired(at(20)).isEmpty()); // queued
    const auto ended = planner.leadershipEnded(at(21));
    QCOMPARE(kinds(ended), QList<Kind>{Kind::InterruptWork});
    QCOMPARE(ended.first().record.tick, run.tick);
    const auto settled = planner.runEnded(RunRecord::interrupted, at(22));
    QCOMPARE(kinds(settled), QList<Kind>{Kind::Settle}); // the queued tick went with the leadership
    QCOMPARE(settled.first().record.outcome, RunRecord::interrupted);
}

void TestTickPlanner::anAnswerForAnEarlierLeadershipIsIgnored()
{
    TickPlanner planner(policy(), QStringLiteral("a"));
    planner.leadershipStarted(7, at(2));
    planner.leadershipEnded(at(3));
    planner.leadershipStarted(9, at(4));
    QVERIFY(planner.recordsListed(7, {leftRunning(tickAt(0), 3)}, at(4)).isEmpty());
    QCOMPARE(kinds(planner.recordsListed(9, {leftRunning(tickAt(0), 3)}, at(4))),
             QList<Kind>{Kind::MarkInterrupted});
}

// S1: after a jump forward the waited tick runs once, late, and the next is
// the first after the new time: no burst of every tick in between.
void TestTickPlanner::aClockSetForwardRunsOneMissedTickNotEach()
{
    TickPlanner planner(policy(), QStringLiteral("a"));
    lead(planner);
    const auto fired = planner.timerFired(at(3600));
    QCOMPARE(kinds(fired), QList<Kind>{Kind::Claim});
    QCOMPARE(fired.first().record.tick, tickAt(10));
    QCOMPARE(planner.wakeAt(), at(3610));
}

// S2: after a jump back, ticks already passed are not due again.
void TestTickPlanner::aClockSetBackRunsNoTickTwice()
{
    TickPlanner planner(policy(), QStringLiteral("a"));
    lead(planner);
    runTick(planner, 10);
    planner.runEnded(RunRecord::succeeded, at(11));
    QVERIFY(planner.timerFired(at(-600)).isEmpty());
    QCOMPARE(planner.wakeAt(), at(20));
    QCOMPARE(planner.timerFired(at(20)).first().record.tick, tickAt(20));
}

void TestTickPlanner::notLeadingNoTimerRuns()
{
    TickPlanner planner(policy(), QStringLiteral("a"));
    QVERIFY(!planner.wakeAt().isValid());
    QVERIFY(planner.timerFired(at(10)).isEmpty());
    QVERIFY(planner.runEnded(RunRecord::succeeded, at(10)).isEmpty());
}

QTEST_GUILESS_MAIN(TestTickPlanner)
#include "tst_tickplanner.moc"
