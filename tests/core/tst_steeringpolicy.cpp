// Preference (H2) and drain (H3) as the pure policy decides them: each case
// feeds listings of candidate records with the boot time they arrived and
// checks the sightings and the decision. Heartbeats every second (a record
// unchanged for 3 s is gone), hysteresis 10 s, unless a case says otherwise.

#include <batoninternal/steeringpolicy.h>

#include <QTest>

using namespace baton;
using Why = SteeringDecision::Why;

namespace {

constexpr qint64 interval = 1000;
constexpr qint64 preferAfter = 10000;

const QString self = QStringLiteral("self");

SteeringPolicy policy(int priority = 0, bool drained = false)
{
    return SteeringPolicy({self, priority, drained, preferAfter});
}

// One candidate's record as a heartbeat writes it: every beat is a new version.
struct Candidate
{
    QString instance;
    int priority = 0;
    bool drained = false;
    QString incarnation = QStringLiteral("i1");
    qint64 intervalMs = interval;
    bool left = false;
    int beats = 0;

    CandidateRecord beat()
    {
        ++beats;
        return current();
    }

    CandidateRecord current() const
    {
        CandidateRecord record;
        record.instance = instance;
        record.incarnation = incarnation;
        record.priority = priority;
        record.drained = drained;
        record.heartbeatIntervalMs = intervalMs;
        record.left = left;
        record.version = QStringLiteral("%1-%2").arg(instance).arg(beats);
        return record;
    }
};

Candidate candidate(const QString &instance, int priority = 0, bool drained = false)
{
    Candidate c;
    c.instance = instance;
    c.priority = priority;
    c.drained = drained;
    return c;
}

// Every candidate beats once a second from \a from to \a to (inclusive),
// each listing observed; \a check runs after each observation.
void beatAll(SteeringPolicy &p, QList<Candidate *> candidates, qint64 from, qint64 to,
             const std::function<void(qint64)> &check = {})
{
    for (qint64 now = from; now <= to; now += interval) {
        QList<CandidateRecord> records;
        for (Candidate *c : candidates)
            records.append(c->beat());
        p.observe(records, now);
        if (check)
            check(now);
    }
}

std::optional<CandidateSighting> sighting(const SteeringPolicy &p, const QString &instance, qint64 now)
{
    for (const CandidateSighting &s : p.sightings(now))
        if (s.record.instance == instance)
            return s;
    return std::nullopt;
}

// What a leader would do at \a now, as a line for a failure message; none when nothing.
QStringList movesAt(const SteeringPolicy &p, qint64 now)
{
    const SteeringDecision decision = p.decide(true, now);
    if (decision == SteeringDecision{})
        return {};
    return {QStringLiteral("at %1 ms: hand over to '%2'").arg(now).arg(decision.handOverTo)};
}

} // namespace

class tst_SteeringPolicy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // H2/H3: liveness is judged by how long this reader has seen a version, three intervals at most.
    void aCandidateIsLiveWhileItsVersionIsYoungerThanThreeIntervals()
    {
        SteeringPolicy p = policy();
        Candidate a = candidate(QStringLiteral("a"));
        p.observe({a.beat()}, 0);
        QVERIFY(sighting(p, QStringLiteral("a"), 0)->live);
        QVERIFY(sighting(p, QStringLiteral("a"), 3000)->live);
        QVERIFY(!sighting(p, QStringLiteral("a"), 3001)->live);
        // The same version read again is no heartbeat: its age runs on.
        p.observe({a.current()}, 2000);
        QCOMPARE(sighting(p, QStringLiteral("a"), 2000)->versionSeenAtMs, 0);
        QVERIFY(!sighting(p, QStringLiteral("a"), 3001)->live);
        // A new version starts its age again.
        p.observe({a.beat()}, 2500);
        QCOMPARE(sighting(p, QStringLiteral("a"), 2500)->versionSeenAtMs, 2500);
        QVERIFY(sighting(p, QStringLiteral("a"), 5500)->live);
        QVERIFY(!sighting(p, QStringLiteral("a"), 5501)->live);
    }

    // H2/H3: a candidate that stopped cleanly, or never said how often it beats, is never live.
    void aCandidateThatLeftOrHasNoIntervalIsNeverLive_data()
    {
        QTest::addColumn<bool>("left");
        QTest::addColumn<qint64>("intervalMs");
        QTest::newRow("left after a clean stop") << true << interval;
        QTest::newRow("written by a drain before it ever started (interval 0)") << true << qint64(0);
        QTest::newRow("interval 0 though not left") << false << qint64(0);
    }
    void aCandidateThatLeftOrHasNoIntervalIsNeverLive()
    {
        QFETCH(bool, left);
        QFETCH(qint64, intervalMs);
        SteeringPolicy p = policy(0, true);
        Candidate a = candidate(QStringLiteral("a"), 100);
        a.left = left;
        a.intervalMs = intervalMs;
        p.observe({a.beat()}, 0);
        QVERIFY(!sighting(p, QStringLiteral("a"), 0)->live);
        // Nobody can take the lease: the drained leader keeps it.
        QCOMPARE(p.decide(true, 0), SteeringDecision{});
    }

    // H2: steady heartbeats keep the stability; only the changes that matter restart it.
    void stabilityRestartsWhenIncarnationPriorityOrDrainChanges_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<bool>("restarts");
        QTest::newRow("a heartbeat only") << QStringLiteral("none") << false;
        QTest::newRow("a restart (new incarnation)") << QStringLiteral("incarnation") << true;
        QTest::newRow("a new priority") << QStringLiteral("priority") << true;
        QTest::newRow("drained") << QStringLiteral("drained") << true;
    }
    void stabilityRestartsWhenIncarnationPriorityOrDrainChanges()
    {
        QFETCH(QString, change);
        QFETCH(bool, restarts);
        SteeringPolicy p = policy();
        Candidate a = candidate(QStringLiteral("a"), 1);
        beatAll(p, {&a}, 0, 5000);
        QCOMPARE(sighting(p, QStringLiteral("a"), 5000)->stableSinceMs, 0);
        if (change == QLatin1String("incarnation"))
            a.incarnation = QStringLiteral("i2");
        else if (change == QLatin1String("priority"))
            a.priority = 2;
        else if (change == QLatin1String("drained"))
            a.drained = true;
        p.observe({a.beat()}, 6000);
        QCOMPARE(sighting(p, QStringLiteral("a"), 6000)->stableSinceMs, restarts ? 6000 : 0);
    }

    // H2: a candidate that lapsed (unchanged for more than three intervals) starts over when it comes back.
    void stabilityRestartsAfterALapse()
    {
        SteeringPolicy p = policy();
        Candidate a = candidate(QStringLiteral("a"), 1);
        beatAll(p, {&a}, 0, 2000);
        p.observe({a.current()}, 4000);
        p.observe({a.current()}, 5500);
        QVERIFY(!sighting(p, QStringLiteral("a"), 5500)->live);
        p.observe({a.beat()}, 6000);
        const CandidateSighting back = *sighting(p, QStringLiteral("a"), 6000);
        QVERIFY(back.live);
        QCOMPARE(back.stableSinceMs, 6000);
    }

    // H2: equal priorities never move the lease, however long the other is stable.
    void anEqualPriorityNeverMovesTheLease()
    {
        SteeringPolicy p = policy(5);
        Candidate a = candidate(QStringLiteral("a"), 5);
        QStringList moves;
        beatAll(p, {&a}, 0, 60000, [&](qint64 now) { moves += movesAt(p, now); });
        QCOMPARE(moves, QStringList());
    }

    // H2: a higher priority takes the lease only once stable for the hysteresis, and a lower one never.
    void aHigherPriorityMovesTheLeaseOnlyAfterPreferAfter()
    {
        SteeringPolicy p = policy(1);
        Candidate higher = candidate(QStringLiteral("higher"), 2);
        Candidate lower = candidate(QStringLiteral("lower"), 0);
        beatAll(p, {&higher, &lower}, 0, 9000);
        QCOMPARE(p.decide(true, 9999), SteeringDecision{});
        const SteeringDecision moved = p.decide(true, preferAfter);
        QCOMPARE(moved.handOverTo, QStringLiteral("higher"));
        QCOMPARE(moved.why, Why::PreferredHolder);
        QVERIFY(!moved.standBy);
        // A follower hands nothing over: the leader does.
        QCOMPARE(p.decide(false, preferAfter), SteeringDecision{});
    }

    // H2: a higher-priority candidate that restarts faster than the hysteresis never moves the lease.
    void aFlappingCandidateNeverMovesTheLease()
    {
        SteeringPolicy p = policy(0);
        Candidate flapping = candidate(QStringLiteral("flapping"), 10);
        int restarts = 0;
        QStringList moves;
        beatAll(p, {&flapping}, 0, 120000, [&](qint64 now) {
            moves += movesAt(p, now);
            if (now % (preferAfter - interval) == 0)
                flapping.incarnation = QStringLiteral("i%1").arg(++restarts);
        });
        QCOMPARE(moves, QStringList());
        QVERIFY(restarts > 10);
    }

    // H2: a preferred holder that heartbeats but never takes the lease is
    // handed it again only after twice the wait of the time before; one
    // that took it, or restarted, starts afresh.
    void aPreferredHolderThatNeverTakesTheLeaseIsBackedOff()
    {
        SteeringPolicy p = policy(0);
        Candidate stuck = candidate(QStringLiteral("stuck"), 10);
        beatAll(p, {&stuck}, 0, preferAfter);
        QCOMPARE(p.decide(true, preferAfter).handOverTo, QStringLiteral("stuck"));
        p.handingOverTo(QStringLiteral("stuck"));
        QCOMPARE(p.lastHandoverTarget()->record.instance, QStringLiteral("stuck"));
        // The reservation lapses; this instance takes the lease back.
        const qint64 back = preferAfter + 2 * interval;
        beatAll(p, {&stuck}, preferAfter + interval, back);
        QCOMPARE(p.leadingAgain(back), std::optional<qint64>(2 * preferAfter));
        QVERIFY(!p.lastHandoverTarget());
        QStringList moves;
        beatAll(p, {&stuck}, back + interval, back + 2 * preferAfter,
                [&](qint64 now) { moves += movesAt(p, now); });
        QCOMPARE(moves, QStringList {QStringLiteral("at %1 ms: hand over to 'stuck'").arg(back + 2 * preferAfter)});
        // Missed again: four times the hysteresis; then eight, ... up to 64.
        p.handingOverTo(QStringLiteral("stuck"));
        QCOMPARE(p.leadingAgain(back + 2 * preferAfter), std::optional<qint64>(4 * preferAfter));
        qint64 wait = 0;
        for (int failure = 3; failure <= 8; ++failure) {
            p.handingOverTo(QStringLiteral("stuck"));
            wait = *p.leadingAgain(back + 2 * preferAfter);
        }
        QCOMPARE(wait, 64 * preferAfter);
        // Leading again without a handover asked, or after the target held the lease: nothing.
        QCOMPARE(p.leadingAgain(back), std::nullopt);
        p.handingOverTo(QStringLiteral("stuck"));
        p.holderSeen(QStringLiteral("stuck"));
        QCOMPARE(p.leadingAgain(back), std::nullopt);
        // A restart is a new process: the back-off is forgotten.
        stuck.incarnation = QStringLiteral("i2");
        const qint64 restarted = back + 3 * preferAfter;
        beatAll(p, {&stuck}, restarted, restarted + preferAfter);
        QCOMPARE(p.decide(true, restarted + preferAfter).handOverTo, QStringLiteral("stuck"));
        p.handingOverTo(QStringLiteral("stuck"));
        QCOMPARE(p.leadingAgain(restarted + preferAfter), std::optional<qint64>(2 * preferAfter));
    }

    // H2: a drained candidate is never the preferred holder.
    void aDrainedCandidateIsNeverPreferred()
    {
        SteeringPolicy p = policy(0);
        Candidate drained = candidate(QStringLiteral("drained"), 10, true);
        beatAll(p, {&drained}, 0, 30000);
        QCOMPARE(p.decide(true, 30000), SteeringDecision{});
    }

    // H3: a drained leader hands over at once to the best live candidate that is not drained.
    void aDrainedLeaderHandsOverAtOnceToTheBestLiveUndrained()
    {
        SteeringPolicy p = policy(50, true);
        Candidate drainedToo = candidate(QStringLiteral("a-drained"), 100, true);
        Candidate lower = candidate(QStringLiteral("b-lower"), 1);
        Candidate gone = candidate(QStringLiteral("c-gone"), 100);
        gone.left = true;
        beatAll(p, {&drainedToo, &lower, &gone}, 0, 1000);
        const SteeringDecision decision = p.decide(true, 1000);
        QCOMPARE(decision.handOverTo, QStringLiteral("b-lower"));
        QCOMPARE(decision.why, Why::Drained);
        QVERIFY(decision.standBy);
    }

    // H2/H3: a record seen once may be a killed process's, still young: a
    // drained instance waits for it, but nobody hands it the lease until
    // its version has been seen to change.
    void aRecordSeenOnceIsWaitedForButNeverHandedTheLease()
    {
        SteeringPolicy drained = policy(0, true);
        Candidate other = candidate(QStringLiteral("other"));
        drained.observe({other.beat()}, 0);
        QVERIFY(drained.decide(true, 0).standBy);
        QVERIFY(drained.decide(true, 0).handOverTo.isEmpty());
        QVERIFY(!sighting(drained, QStringLiteral("other"), 0)->heartbeatSeen);
        drained.observe({other.current()}, 1000); // the same version: no heartbeat seen yet
        QVERIFY(drained.decide(true, 1000).handOverTo.isEmpty());
        drained.observe({other.beat()}, 2000);
        QCOMPARE(drained.decide(true, 2000).handOverTo, QStringLiteral("other"));

        // A higher priority whose long-lived record never changes is never preferred.
        SteeringPolicy leader = policy(0);
        Candidate dead = candidate(QStringLiteral("dead"), 9);
        dead.intervalMs = 20 * interval;
        const CandidateRecord once = dead.beat();
        for (qint64 now = 0; now <= 3 * preferAfter; now += interval)
            leader.observe({once}, now);
        QVERIFY(sighting(leader, QStringLiteral("dead"), 3 * preferAfter)->live);
        QCOMPARE(leader.decide(true, 3 * preferAfter), SteeringDecision{});
        // A restart (new incarnation) must be seen heartbeating again.
        SteeringPolicy again = policy(0, true);
        Candidate restarted = candidate(QStringLiteral("restarted"));
        beatAll(again, {&restarted}, 0, 1000);
        QCOMPARE(again.decide(true, 1000).handOverTo, QStringLiteral("restarted"));
        restarted.incarnation = QStringLiteral("i2");
        beatAll(again, {&restarted}, 2000, 2000);
        QVERIFY(again.decide(true, 2000).handOverTo.isEmpty());
    }

    // H3: with nobody else to take the lease, a drained instance keeps it and takes a free one.
    void aDrainedInstanceLeadsWhenNobodyElseCan()
    {
        SteeringPolicy p = policy(0, true);
        Candidate drainedToo = candidate(QStringLiteral("a"), 0, true);
        beatAll(p, {&drainedToo}, 0, 5000);
        QCOMPARE(p.decide(true, 5000), SteeringDecision{});
        QCOMPARE(p.decide(false, 5000), SteeringDecision{});
        QCOMPARE(policy(0, true).decide(false, 0), SteeringDecision{});
    }

    // H3: a drained follower stands by only while a live candidate that is not drained exists.
    void aDrainedFollowerStandsByOnlyWhileAnUndrainedCandidateIsLive()
    {
        SteeringPolicy p = policy(0, true);
        Candidate other = candidate(QStringLiteral("other"), -5);
        beatAll(p, {&other}, 0, 4000, [&](qint64 now) {
            const SteeringDecision decision = p.decide(false, now);
            QVERIFY(decision.standBy);
            QVERIFY(decision.handOverTo.isEmpty());
            QCOMPARE(decision.why, Why::Drained);
        });
        QVERIFY(p.decide(false, 7000).standBy);
        // The other stopped beating: the work must run somewhere.
        QCOMPARE(p.decide(false, 7001), SteeringDecision{});
        // Undrained itself: no stand-by at all.
        p.setSelf({self, 0, false, preferAfter});
        beatAll(p, {&other}, 8000, 9000);
        QCOMPARE(p.decide(false, 9000), SteeringDecision{});
    }

    // H2/H3: the best candidate is the highest priority, then the longest stable, then the smallest id.
    void theBestCandidateIsChosenAlike_data()
    {
        QTest::addColumn<bool>("drained");
        QTest::addColumn<QString>("expected");
        QTest::newRow("drained leader") << true << QStringLiteral("z-high");
        QTest::newRow("preferred holder") << false << QStringLiteral("z-high");
    }
    void theBestCandidateIsChosenAlike()
    {
        QFETCH(bool, drained);
        QFETCH(QString, expected);
        SteeringPolicy p = policy(0, drained);
        Candidate old = candidate(QStringLiteral("a-old"), 5);
        Candidate high = candidate(QStringLiteral("z-high"), 6);
        Candidate younger = candidate(QStringLiteral("b-younger"), 6);
        Candidate twin = candidate(QStringLiteral("y-twin"), 6);
        beatAll(p, {&old}, 0, 1000);
        beatAll(p, {&old, &high, &twin}, 2000, 3000);
        beatAll(p, {&old, &high, &twin, &younger}, 4000, 20000);
        // z-high and y-twin equally stable, b-younger less: highest
        // priority, then longest stable, then the smallest id.
        QCOMPARE(p.decide(true, 20000).handOverTo, QStringLiteral("y-twin"));
        // Once y-twin restarts, z-high is the longest stable of the highest.
        twin.incarnation = QStringLiteral("i2");
        beatAll(p, {&old, &high, &twin, &younger}, 21000, 21000);
        QCOMPARE(p.decide(true, 21000).handOverTo, expected);
    }

    // H2: only stable-enough candidates are compared for the preferred holder.
    void thePreferredHolderIsTheBestOfThoseStableLongEnough()
    {
        SteeringPolicy p = policy(0);
        Candidate stable = candidate(QStringLiteral("stable"), 1);
        Candidate fresh = candidate(QStringLiteral("fresh"), 9);
        beatAll(p, {&stable}, 0, 5000);
        beatAll(p, {&stable, &fresh}, 6000, 12000);
        QCOMPARE(p.decide(true, 12000).handOverTo, QStringLiteral("stable"));
        beatAll(p, {&stable, &fresh}, 13000, 16000);
        QCOMPARE(p.decide(true, 16000).handOverTo, QStringLiteral("fresh"));
    }

    // H2/H3: this instance's own record in a listing is not a candidate to hand over to.
    void theOwnRecordIsIgnoredAndAMissingOneForgotten()
    {
        SteeringPolicy p = policy(0, true);
        Candidate me = candidate(self, 100);
        Candidate other = candidate(QStringLiteral("other"));
        beatAll(p, {&me, &other}, 0, 1000);
        QCOMPARE(p.sightings(1000).size(), 1);
        QCOMPARE(p.decide(true, 1000).handOverTo, QStringLiteral("other"));
        beatAll(p, {&me}, 2000, 2000);
        QVERIFY(p.sightings(2000).isEmpty());
        QCOMPARE(p.decide(true, 2000), SteeringDecision{});
    }
};

QTEST_GUILESS_MAIN(tst_SteeringPolicy)
#include "tst_steeringpolicy.moc"
