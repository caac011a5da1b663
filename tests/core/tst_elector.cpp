// The Elector under simulated time: every rule of the F rules of the contract that one or
// two instances can show, with a lease store that the test applies by hand.
// No sleeps: the clocks move only when a test moves them.

#include "manualclock.h"
#include "elector.h"

#include <QTest>

using namespace baton;

// QCOMPARE prints these by their names in the event stream.
namespace baton {
char *toString(StopReason value)
{
    return qstrdup(qPrintable(baton::wireName(value)));
}
char *toString(HolderChange value)
{
    return qstrdup(qPrintable(baton::holderChangeName(value)));
}
char *toString(AttemptOutcome value)
{
    return qstrdup(qPrintable(baton::wireName(value)));
}
} // namespace baton

namespace {

constexpr qint64 L = 15000;
constexpr qint64 R = 5000;
constexpr qint64 Deadline = (L + R) / 2;

/*! One lease, versioned, with the conditional semantics every backend has. */
struct LeaseStore
{
    LeaseState state;
    int version = 0;
    /*! The changes the acquiring writes carried, as a store keeps them beside the lease (O2). */
    QList<HistoryEntry> history;

    LeaseReply apply(const ElectorAction &a)
    {
        if (std::holds_alternative<action::Read>(a))
            return LeaseReply::ok(state);
        if (const auto *create = std::get_if<action::Create>(&a)) {
            if (state.exists)
                return LeaseReply::conflict(state);
            write(create->record);
            if (create->change)
                history.append(*create->change);
            return LeaseReply::ok(state);
        }
        if (const auto *update = std::get_if<action::Update>(&a)) {
            if (!state.exists || state.version != update->version)
                return LeaseReply::conflict(state);
            write(update->record);
            if (update->change)
                history.append(*update->change);
            return LeaseReply::ok(state);
        }
        qFatal("not a request");
    }
    void write(const LeaseRecord &record)
    {
        state.exists = true;
        state.record = record;
        state.version = QString::number(++version);
    }
};

/*! One instance: its elector, its own clock, and what it was told. */
struct Instance
{
    explicit Instance(const QString &id, qint64 lease = L, qint64 renew = R,
                      const QString &incarnation = {}, bool renewTogether = false)
        : elector(ElectorParams {lease, renew, id, incarnation, true, renewTogether}, clock)
    {
    }
    test::ManualClock clock;
    Elector elector;
    std::optional<ElectorAction> pending; // a request sent and not yet answered
    std::vector<ElectorAction> told;

    template<typename T>
    bool wasTold() const
    {
        return std::any_of(told.begin(), told.end(),
                           [](const ElectorAction &a) { return std::holds_alternative<T>(a); });
    }
    template<typename T>
    const T *last() const
    {
        for (auto it = told.rbegin(); it != told.rend(); ++it)
            if (const auto *t = std::get_if<T>(&*it))
                return t;
        return nullptr;
    }
    quint64 pendingId() const;
};

quint64 requestIdOf(const ElectorAction &request)
{
    return std::visit(
            [](const auto &a) -> quint64 {
                if constexpr (requires { a.request; })
                    return a.request;
                else
                    return 0;
            },
            request);
}

quint64 Instance::pendingId() const
{
    return requestIdOf(*pending);
}

bool isRequest(const ElectorAction &a)
{
    return std::holds_alternative<action::Read>(a) || std::holds_alternative<action::Create>(a)
            || std::holds_alternative<action::Update>(a);
}

void take(Instance &i, ElectorActions actions)
{
    for (auto &a : actions) {
        if (isRequest(a))
            i.pending = a;
        i.told.push_back(std::move(a));
    }
}

/*! Answers every request at once until the instance waits for time to pass. */
void settle(Instance &i, LeaseStore &store)
{
    while (i.pending) {
        const ElectorAction request = *i.pending;
        i.pending.reset();
        take(i, i.elector.onReply(requestIdOf(request), store.apply(request)));
    }
}

/*! Starts \a leader, then \a follower, each answered until it waits. */
void startLeaderThenFollower(Instance &leader, Instance &follower, LeaseStore &store)
{
    take(leader, leader.elector.start());
    settle(leader, store);
    take(follower, follower.elector.start());
    settle(follower, store);
}

/*!
 * Moves the instance's clock to its next wake-up and lets it act; false
 * when it has none. The caller wraps the call in QVERIFY: a QVERIFY in here
 * would only leave this helper, and a loop around it would spin on.
 */
[[nodiscard]] bool wake(Instance &i, LeaseStore &store)
{
    const auto next = i.elector.nextWakeMono();
    if (!next.has_value())
        return false;
    if (*next > i.clock.monotonicMs())
        i.clock.setMonotonicMs(*next);
    take(i, i.elector.onTimer());
    settle(i, store);
    return true;
}

} // namespace

class TestElector : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void firstAttemptAtStartAcquiresAFreeLease();
    void twoInstancesNeverBothWinTheSameVersion();
    void leaderRenewsEveryRenewInterval();
    void leasesTakenAtOtherInstantsRenewTogether();
    void followerJudgesExpiryByItsOwnClock();
    void crashFailoverWithinLeaseDurationPlusRenewInterval();
    void followerAttemptsAtTheInstantTheLeaseExpires();
    void aWatchedFollowerReadsOnceALeaseDurationAndTakesOverAtExpiry_data();
    void aWatchedFollowerReadsOnceALeaseDurationAndTakesOverAtExpiry();
    void lateReplyStepsDownAtTheDeadline();
    void replyAfterTheDeadlineDoesNotMakeALeader();
    void frozenLeaderStepsDownBeforeAnythingElse();
    void renewalFailure_data();
    void renewalFailure();
    void cleanStopReleasesAndTheLeaseIsTakenAtTheNextAttempt();
    void releaseSeenByWatchIsTakenAtOnce();
    void requestOvertakenByAReleaseIsAbandonedNotAnError();
    void readAnsweredAfterStopLeadsToNoWrite_data();
    void readAnsweredAfterStopLeadsToNoWrite();
    void acquisitionAnsweredPastItsDeadlineAfterStopStillEndsTheStop();
    void releaseIsRefusedWhenTheLeaseChangedHands();
    void fencingTokenIncreasesAcrossLeaders();
    void lateReplyToAnAbandonedRequestIsIgnored();
    void watchEventWhileLeadingTriggersARenewalNotAStepDown();
    void aRecordNotOursSeenWhileAcquiringIsCheckedByARenewalAtOnce();
    void onlyAChangeOfHolderIsRecordedWithItsReasonAndGap();
    void twoProcessesWithOneInstanceIdNeverBothLead();
    void aProcessRestartedWithAFixedIdWaitsOneLeaseUnlessItsEarlierRunReleased_data();
    void aProcessRestartedWithAFixedIdWaitsOneLeaseUnlessItsEarlierRunReleased();
    void aWriteAnsweredWithAnotherIncarnationNeverMakesALeader();
    void aHandoverGoesToTheNamedSuccessorAndNobodyElseLeadsMeanwhile();
    void aSuccessorThatIsGoneCostsAtMostOneLeaseDuration();
    void aRecordWrittenByOthersWithoutAHandoverNeverEndsALeadership_data();
    void aRecordWrittenByOthersWithoutAHandoverNeverEndsALeadership();
    void aHandoverIsNeverWrittenPastTheDeadline_data();
    void aHandoverIsNeverWrittenPastTheDeadline();
    void aHandoverToAnyInstanceIsAPlainRelease();
    void aStopDuringAHandoverEndsWithTheRelease();
    void aLeaderAskedToHandOverOnItsOwnSideStopsFirst();
    void aStandingByInstanceTakesNoFreeExpiredOrMissingLease_data();
    void aStandingByInstanceTakesNoFreeExpiredOrMissingLease();
    void aStandingByInstanceTakesALeaseReservedForIt_data();
    void aStandingByInstanceTakesALeaseReservedForIt();
    void aLeaderStandingByKeepsRenewing();
    void theGateOpeningTakesAFreeLeaseAtOnce();
};

namespace {

int countOf(const Instance &i, auto predicate)
{
    return int(std::count_if(i.told.begin(), i.told.end(), predicate));
}

int identityConflictsTold(const Instance &i)
{
    return countOf(i, [](const ElectorAction &a) {
        return std::holds_alternative<action::IdentityConflict>(a);
    });
}

/*!
 * Lets both instances act whenever they are due, their clocks in step,
 * until \a untilMs; \a aAlive false leaves \a a as a crashed process.
 */
void runTogether(Instance &a, Instance &b, LeaseStore &store, qint64 untilMs, bool aAlive = true)
{
    for (qint64 t = b.clock.monotonicMs(); t <= untilMs; t += 50) {
        for (Instance *i : {&a, &b}) {
            if (i == &a && !aAlive)
                continue;
            i->clock.setMonotonicMs(t);
            const auto next = i->elector.nextWakeMono();
            if (next && *next <= t) {
                take(*i, i->elector.onTimer());
                settle(*i, store);
            }
        }
        // Both leading at one instant is the breach itself.
        QVERIFY2(!(a.elector.isLeader() && aAlive && b.elector.isLeader()),
                 qPrintable(QStringLiteral("both lead at %1 ms").arg(t)));
    }
}

} // namespace

void TestElector::twoProcessesWithOneInstanceIdNeverBothLead()
{
    // R5: a configuration copied to two machines names both "worker". The
    // second finds the first's record under its own name, with another
    // incarnation: another holder's, to wait for like any other.
    LeaseStore store;
    Instance a(QStringLiteral("worker"), L, R, QStringLiteral("aaaa"));
    Instance b(QStringLiteral("worker"), L, R, QStringLiteral("bbbb"));
    startLeaderThenFollower(a, b, store);
    QVERIFY(a.elector.isLeader());
    QVERIFY(!b.elector.isLeader());
    QCOMPARE(store.state.record.holderIncarnation, QStringLiteral("aaaa"));
    QCOMPARE(b.last<action::AttemptFinished>()->outcome, AttemptOutcome::Held);
    QCOMPARE(identityConflictsTold(b), 1);
    QCOMPARE(b.last<action::IdentityConflict>()->theirIncarnation, QStringLiteral("aaaa"));
    QCOMPARE(identityConflictsTold(a), 0);

    // Three leases of renewals: each is a new version, and none is told again.
    runTogether(a, b, store, 3 * L);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(a.elector.isLeader());
    QVERIFY(!b.wasTold<action::BecameLeader>());
    QCOMPARE(identityConflictsTold(b), 1);
    QCOMPARE(store.state.record.transitions, 0);

    // The first dies: the second takes the lease once it expired, as a new
    // holder with a new term and token, and the change is stored.
    const qint64 crashAt = b.clock.monotonicMs();
    const int storedBefore = int(store.history.size());
    runTogether(a, b, store, crashAt + L + R, /*aAlive=*/false);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(b.elector.isLeader());
    QCOMPARE(store.state.record.holderIncarnation, QStringLiteral("bbbb"));
    QCOMPARE(store.state.record.transitions, 1);
    QCOMPARE(b.last<action::BecameLeader>()->token, 1);
    QCOMPARE(b.last<action::LeaderChanged>()->why, HolderChange::Expired);
    QCOMPARE(store.history.size(), storedBefore + 1);
    QCOMPARE(store.history.constLast().why, QStringLiteral("expired"));
    // Its own record is no conflict.
    QCOMPARE(identityConflictsTold(b), 1);
}

void TestElector::aProcessRestartedWithAFixedIdWaitsOneLeaseUnlessItsEarlierRunReleased_data()
{
    QTest::addColumn<bool>("released");
    QTest::newRow("the earlier run was killed: one lease") << false;
    QTest::newRow("the earlier run stopped cleanly: at once") << true;
}

void TestElector::aProcessRestartedWithAFixedIdWaitsOneLeaseUnlessItsEarlierRunReleased()
{
    // R5: the price of safety. A record under our id from before the restart
    // may be a live twin's; only its release or its expiry makes it ours.
    QFETCH(bool, released);
    LeaseStore store;
    Instance before(QStringLiteral("worker"), L, R, QStringLiteral("run1"));
    take(before, before.elector.start());
    settle(before, store);
    QVERIFY(before.elector.isLeader());
    if (released) {
        take(before, before.elector.stop());
        take(before, before.elector.release());
        settle(before, store);
        QVERIFY(store.state.record.holder.isEmpty());
        QVERIFY(store.state.record.holderIncarnation.isEmpty());
    }
    Instance after(QStringLiteral("worker"), L, R, QStringLiteral("run2"));
    after.clock.setMonotonicMs(before.clock.monotonicMs());
    const qint64 restartAt = after.clock.monotonicMs();
    take(after, after.elector.start());
    settle(after, store);
    QCOMPARE(after.elector.isLeader(), released);
    QCOMPARE(identityConflictsTold(after), released ? 0 : 1);
    while (!after.elector.isLeader())
        QVERIFY(wake(after, store));
    QVERIFY(after.clock.monotonicMs() - restartAt >= (released ? 0 : L));
    QVERIFY(after.clock.monotonicMs() - restartAt <= (released ? 0 : L + R));
    QCOMPARE(store.state.record.transitions, 1);
}

void TestElector::firstAttemptAtStartAcquiresAFreeLease()
{
    // F1: the first attempt runs at start.
    LeaseStore store;
    Instance a(QStringLiteral("a"));
    take(a, a.elector.start());
    QVERIFY(a.pending && std::holds_alternative<action::Read>(*a.pending));
    settle(a, store);
    QVERIFY(a.elector.isLeader());
    QCOMPARE(store.state.record.holder, QStringLiteral("a"));
    QCOMPARE(a.last<action::BecameLeader>()->token, 0);
    QCOMPARE(a.last<action::BecameLeader>()->validUntilMono, a.clock.monotonicMs() + Deadline);
    QCOMPARE(a.last<action::LeaderChanged>()->why, HolderChange::FirstAcquire);
    QCOMPARE(a.last<action::AttemptFinished>()->outcome, AttemptOutcome::Acquired);
}

void TestElector::twoInstancesNeverBothWinTheSameVersion()
{
    // F1, B2: both read a free lease; the store takes the first write only.
    LeaseStore store;
    Instance a(QStringLiteral("a")), b(QStringLiteral("b"));
    take(a, a.elector.start());
    take(b, b.elector.start());
    auto answer = [&store](Instance &i) {
        const ElectorAction request = *i.pending;
        const quint64 id = i.pendingId();
        i.pending.reset();
        take(i, i.elector.onReply(id, store.apply(request)));
    };
    answer(a); // a reads: absent
    answer(b); // b reads: absent
    QVERIFY(std::holds_alternative<action::Create>(*a.pending));
    QVERIFY(std::holds_alternative<action::Create>(*b.pending));
    answer(a);
    answer(b);
    QVERIFY(a.elector.isLeader());
    QVERIFY(!b.elector.isLeader());
    QCOMPARE(b.last<action::AttemptFinished>()->outcome, AttemptOutcome::Conflict);
    QVERIFY(!b.wasTold<action::BecameLeader>());
}

void TestElector::leaderRenewsEveryRenewInterval()
{
    // F1: one conditional update per renewInterval, on the version it knows.
    LeaseStore store;
    Instance a(QStringLiteral("a"));
    take(a, a.elector.start());
    settle(a, store);
    const qint64 start = a.clock.monotonicMs();
    for (int round = 1; round <= 5; ++round) {
        QCOMPARE(*a.elector.nextWakeMono(), start + round * R);
        a.clock.setMonotonicMs(start + round * R);
        take(a, a.elector.onTimer());
        QVERIFY(a.pending && std::holds_alternative<action::Update>(*a.pending));
        settle(a, store);
        QCOMPARE(a.last<action::AttemptFinished>()->outcome, AttemptOutcome::Renewed);
        QVERIFY(a.elector.isLeader());
        QCOMPARE(a.elector.validUntilMono(), start + round * R + Deadline);
    }
    QCOMPARE(store.state.record.transitions, 0);
}

void TestElector::leasesTakenAtOtherInstantsRenewTogether()
{
    // Two leases of one process on a protocol that sends updates that come
    // together as one request (etcd), taken 7 ms and 131 ms into a second:
    // their renewals fall due on one grid of the boot clock (a twentieth of
    // R). A renewal comes at most one slot early, never after R from the
    // last attempt's start, and then every R. Elsewhere they keep their own
    // instants (leaderRenewsEveryRenewInterval).
    const qint64 slot = R / 20;
    LeaseStore storeA;
    LeaseStore storeB;
    Instance a(QStringLiteral("a"), L, R, {}, true);
    Instance b(QStringLiteral("b"), L, R, {}, true);
    Instance alone(QStringLiteral("alone"));
    LeaseStore storeAlone;
    alone.clock.setMonotonicMs(1'000'007);
    take(alone, alone.elector.start());
    settle(alone, storeAlone);
    QCOMPARE(*alone.elector.nextWakeMono(), 1'000'007 + R);
    a.clock.setMonotonicMs(1'000'007);
    b.clock.setMonotonicMs(1'000'131);
    take(a, a.elector.start());
    settle(a, storeA);
    take(b, b.elector.start());
    settle(b, storeB);
    QVERIFY(a.elector.isLeader() && b.elector.isLeader());
    const qint64 firstA = *a.elector.nextWakeMono();
    const qint64 firstB = *b.elector.nextWakeMono();
    QCOMPARE(firstA % slot, 0);
    QCOMPARE(firstB % slot, 0);
    QVERIFY(firstA <= 1'000'007 + R && firstA > 1'000'007 + R - slot);
    QVERIFY(firstB <= 1'000'131 + R && firstB > 1'000'131 + R - slot);
    qint64 previousA = 1'000'007;
    for (int round = 1; round <= 3; ++round) {
        QVERIFY(wake(a, storeA));
        QVERIFY(wake(b, storeB));
        QCOMPARE(a.last<action::AttemptFinished>()->outcome, AttemptOutcome::Renewed);
        QCOMPARE(b.last<action::AttemptFinished>()->outcome, AttemptOutcome::Renewed);
        QVERIFY(a.clock.monotonicMs() <= previousA + R);
        previousA = a.clock.monotonicMs();
        QCOMPARE(*a.elector.nextWakeMono(), previousA + R);
        QCOMPARE(*b.elector.nextWakeMono() % slot, 0);
    }
    // b took its lease 124 ms later, less than a slot: both renew together.
    QCOMPARE(*b.elector.nextWakeMono(), *a.elector.nextWakeMono());
}

void TestElector::followerJudgesExpiryByItsOwnClock()
{
    // F2: the record's timestamps say nothing to a follower; only the time
    // since it saw the record change does.
    LeaseStore store;
    store.write(LeaseRecord {QStringLiteral("gone"), L, QDateTime::fromSecsSinceEpoch(0, Qt::UTC),
                             QDateTime::fromSecsSinceEpoch(0, Qt::UTC), 4, {}});
    Instance b(QStringLiteral("b"));
    take(b, b.elector.start());
    settle(b, store);
    QVERIFY(!b.elector.isLeader());
    QCOMPARE(b.last<action::AttemptFinished>()->outcome, AttemptOutcome::Held);
    const qint64 firstSeen = b.clock.monotonicMs();
    while (!b.elector.isLeader()) {
        QVERIFY(wake(b, store));
        QVERIFY2(b.clock.monotonicMs() <= firstSeen + L, "no takeover when the lease expired");
    }
    QCOMPARE(b.clock.monotonicMs(), firstSeen + L);
    QCOMPARE(b.last<action::LeaderChanged>()->why, HolderChange::Expired);
    QCOMPARE(b.elector.fencingToken(), 5);
}

void TestElector::crashFailoverWithinLeaseDurationPlusRenewInterval()
{
    // F6: a leader that stops answering keeps its lease until it expires.
    LeaseStore store;
    Instance a(QStringLiteral("a")), b(QStringLiteral("b"));
    startLeaderThenFollower(a, b, store);
    // a renews twice, b polls along; then a dies just after a renewal.
    for (int i = 0; i < 2; ++i) {
        QVERIFY(wake(a, store));
        b.clock.setMonotonicMs(a.clock.monotonicMs());
        QVERIFY(wake(b, store));
    }
    const qint64 lastRenewal = a.clock.monotonicMs();
    QVERIFY(!b.elector.isLeader());
    while (!b.elector.isLeader()) {
        QVERIFY(wake(b, store));
        QVERIFY2(b.clock.monotonicMs() <= lastRenewal + L + R, "failover took longer than F6");
    }
    QVERIFY(b.clock.monotonicMs() - lastRenewal <= L + R);
    QCOMPARE(store.state.record.holder, QStringLiteral("b"));
}

void TestElector::followerAttemptsAtTheInstantTheLeaseExpires()
{
    // F8: the takeover attempt is scheduled for the expiry instant, not for
    // the first tick after it.
    LeaseStore store;
    Instance a(QStringLiteral("a")), b(QStringLiteral("b"));
    take(a, a.elector.start());
    settle(a, store);
    b.clock.advance(1234); // b starts off the leader's cadence
    take(b, b.elector.start());
    settle(b, store);
    const qint64 firstSeen = b.clock.monotonicMs();
    while (!b.elector.isLeader()) {
        QVERIFY(wake(b, store));
        QVERIFY2(b.clock.monotonicMs() <= firstSeen + L, "no takeover when the lease expired");
    }
    QCOMPARE(b.clock.monotonicMs(), firstSeen + L);
}

void TestElector::aWatchedFollowerReadsOnceALeaseDurationAndTakesOverAtExpiry_data()
{
    QTest::addColumn<bool>("watched");
    QTest::newRow("polling") << false;
    QTest::newRow("watched") << true;
}

void TestElector::aWatchedFollowerReadsOnceALeaseDurationAndTakesOverAtExpiry()
{
    // F8: the watch shows a follower every renewal, so it reads the lease
    // only as a check on the watch; where nothing watches, it polls every
    // renew interval. Either way it takes over when the lease expires.
    QFETCH(bool, watched);
    LeaseStore store;
    Instance a(QStringLiteral("a")), b(QStringLiteral("b"));
    b.elector.setFollowedByWatch(watched);
    startLeaderThenFollower(a, b, store);
    auto readsOfB = [&b] {
        return std::count_if(b.told.begin(), b.told.end(),
                             [](const ElectorAction &x) { return std::holds_alternative<action::Read>(x); });
    };
    const auto readsAtStart = readsOfB();
    const qint64 start = a.clock.monotonicMs();
    constexpr int kLeases = 6;
    qint64 lastChange = start;
    // Both instances on one time line: whichever is due acts; each renewal
    // of a reaches b's watch as it is written.
    while (a.clock.monotonicMs() < start + kLeases * L) {
        const qint64 nextA = *a.elector.nextWakeMono();
        const qint64 nextB = *b.elector.nextWakeMono();
        const qint64 next = std::max(a.clock.monotonicMs(), std::min(nextA, nextB));
        a.clock.setMonotonicMs(next);
        b.clock.setMonotonicMs(next);
        if (nextA <= nextB) {
            const QString version = store.state.version;
            QVERIFY(wake(a, store));
            const bool renewed = store.state.version != version;
            if (renewed)
                lastChange = next;
            if (renewed && watched) {
                take(b, b.elector.onWatch(store.state));
                settle(b, store);
            }
        } else {
            QVERIFY(wake(b, store));
        }
        QVERIFY(a.elector.isLeader());
        QVERIFY(!b.elector.isLeader());
    }
    const auto reads = readsOfB() - readsAtStart;
    // Watched: one read every L - R, so that the store answers within
    // every lease duration.
    if (watched)
        QVERIFY2(reads >= kLeases * L / (L - R) - 1 && reads <= kLeases * L / (L - R) + 1,
                 qPrintable(QStringLiteral("%1 reads in %2 leases").arg(reads).arg(kLeases)));
    else
        QVERIFY2(reads >= kLeases * (L / R) - 1,
                 qPrintable(QStringLiteral("%1 reads in %2 renew intervals").arg(reads).arg(kLeases * (L / R))));

    // a dies after its last renewal: b takes over when that one expires.
    while (!b.elector.isLeader()) {
        const QString version = store.state.version;
        QVERIFY(wake(b, store));
        if (store.state.version != version)
            break;
        QVERIFY2(b.clock.monotonicMs() <= lastChange + L + (watched ? 0 : R), "no takeover when the lease expired");
    }
    QVERIFY(b.elector.isLeader());
    if (watched)
        QCOMPARE(b.clock.monotonicMs(), lastChange + L);
}

void TestElector::lateReplyStepsDownAtTheDeadline()
{
    // F4: a renewal that hangs ends leadership at (L + R) / 2 after the start
    // of the last successful attempt, while the attempt is still pending.
    LeaseStore store;
    Instance a(QStringLiteral("a"));
    take(a, a.elector.start());
    settle(a, store);
    const qint64 lastSuccessStart = a.clock.monotonicMs();
    a.clock.setMonotonicMs(*a.elector.nextWakeMono());
    take(a, a.elector.onTimer());
    QVERIFY(a.pending); // the renewal is on its way and never answered
    QCOMPARE(*a.elector.nextWakeMono(), lastSuccessStart + Deadline);
    a.clock.setMonotonicMs(lastSuccessStart + Deadline - 1);
    QVERIFY(a.elector.isLeader());
    a.clock.setMonotonicMs(lastSuccessStart + Deadline);
    QVERIFY(!a.elector.isLeader()); // at call time, before any timer ran
    take(a, a.elector.onTimer());
    const auto *stopped = a.last<action::StoppedLeading>();
    QVERIFY(stopped);
    QCOMPARE(stopped->reason, StopReason::Deadline);
    QCOMPARE(stopped->validUntilMono, lastSuccessStart + Deadline);
}

void TestElector::replyAfterTheDeadlineDoesNotMakeALeader()
{
    // F4: an acquisition whose answer comes after its own deadline, and a
    // renewal answered after the step-down, make nobody leader.
    LeaseStore store;
    Instance a(QStringLiteral("a"));
    take(a, a.elector.start());
    settle(a, store); // read answered; the create is pending
    Q_UNUSED(store);
    LeaseStore slow;
    Instance b(QStringLiteral("b"));
    take(b, b.elector.start());
    const ElectorAction read = *b.pending;
    b.pending.reset();
    take(b, b.elector.onReply(std::get<action::Read>(read).request, slow.apply(read)));
    QVERIFY(b.pending && std::holds_alternative<action::Create>(*b.pending));
    const ElectorAction create = *b.pending;
    b.pending.reset();
    b.clock.advance(Deadline); // the create is answered exactly at its deadline
    take(b, b.elector.onReply(std::get<action::Create>(create).request, slow.apply(create)));
    QVERIFY(!b.elector.isLeader());
    QVERIFY(!b.wasTold<action::BecameLeader>());
    QCOMPARE(b.last<action::AttemptFinished>()->outcome, AttemptOutcome::Error);

    // The renewal case: leading, a renewal in flight past the deadline.
    const qint64 lastSuccessStart = a.clock.monotonicMs();
    a.clock.setMonotonicMs(*a.elector.nextWakeMono());
    take(a, a.elector.onTimer());
    const ElectorAction renewal = *a.pending;
    a.pending.reset();
    a.clock.setMonotonicMs(lastSuccessStart + Deadline + 10);
    take(a, a.elector.onReply(std::get<action::Update>(renewal).request, store.apply(renewal)));
    QVERIFY(!a.elector.isLeader());
    QCOMPARE(a.last<action::StoppedLeading>()->reason, StopReason::Deadline);
    QVERIFY(!std::holds_alternative<action::BecameLeader>(a.told.back()));
}

void TestElector::frozenLeaderStepsDownBeforeAnythingElse()
{
    // F4: a process frozen past its deadline (SIGSTOP, a debugger) sees
    // isLeader() == false on resume, and the first thing its elector says,
    // whatever woke it, is that it stopped leading.
    LeaseStore store;
    Instance a(QStringLiteral("a"));
    take(a, a.elector.start());
    settle(a, store);
    QVERIFY(a.elector.isLeader());
    a.clock.advance(3 * L); // frozen
    QVERIFY(!a.elector.isLeader());
    QCOMPARE(a.elector.fencingToken(), -1);
    a.told.clear();
    LeaseState seen = store.state;
    seen.version = QStringLiteral("other");
    take(a, a.elector.onWatch(seen));
    QVERIFY(!a.told.empty());
    QVERIFY(std::holds_alternative<action::StoppedLeading>(a.told.front()));
    QCOMPARE(std::get<action::StoppedLeading>(a.told.front()).reason, StopReason::Deadline);
    QVERIFY(std::get<action::StoppedLeading>(a.told.front()).validUntilMono
            <= a.clock.monotonicMs());
}

void TestElector::renewalFailure_data()
{
    QTest::addColumn<int>("failure");
    QTest::addColumn<int>("expectedReason");
    QTest::newRow("the store answers with an error") << 0 << int(StopReason::RenewFailed);
    QTest::newRow("another holder took the lease") << 1 << int(StopReason::TakenOver);
    // (L + R) / 2 after the last success always comes before L - R after
    // the send, so a renewal with no answer ends at the F4 deadline.
    QTest::newRow("no answer: the deadline comes first") << 2 << int(StopReason::Deadline);
}

void TestElector::renewalFailure()
{
    // F3: a leader that cannot renew stops leading at once.
    QFETCH(int, failure);
    QFETCH(int, expectedReason);
    const qint64 lease = 10000, renew = 2000;
    LeaseStore store;
    Instance a(QStringLiteral("a"), lease, renew);
    take(a, a.elector.start());
    settle(a, store);
    a.clock.setMonotonicMs(*a.elector.nextWakeMono());
    take(a, a.elector.onTimer());
    const ElectorAction renewal = *a.pending;
    a.pending.reset();
    const quint64 id = std::get<action::Update>(renewal).request;
    if (failure == 0) {
        take(a, a.elector.onReply(id, LeaseReply::error(QStringLiteral("503"))));
    } else if (failure == 1) {
        store.write(LeaseRecord {QStringLiteral("intruder"), lease, {}, {}, 1, {}});
        take(a, a.elector.onReply(id, store.apply(renewal)));
    } else {
        const qint64 sent = a.clock.monotonicMs();
        QCOMPARE(*a.elector.nextWakeMono(), sent - renew + (lease + renew) / 2);
        a.clock.setMonotonicMs(*a.elector.nextWakeMono());
        take(a, a.elector.onTimer());
    }
    QVERIFY(!a.elector.isLeader());
    QCOMPARE(int(a.last<action::StoppedLeading>()->reason), expectedReason);
    // F5: stepping down never ends campaigning.
    QVERIFY(a.elector.nextWakeMono().has_value());
}

void TestElector::cleanStopReleasesAndTheLeaseIsTakenAtTheNextAttempt()
{
    // F5: stop, then release (empty holder, conditional on the version);
    // F2: a released lease is taken at the next attempt, expiry or not.
    LeaseStore store;
    Instance a(QStringLiteral("a")), b(QStringLiteral("b"));
    startLeaderThenFollower(a, b, store);
    take(a, a.elector.stop());
    QCOMPARE(a.last<action::StoppedLeading>()->reason, StopReason::Stopping);
    QVERIFY(!a.elector.isLeader());
    QVERIFY(!a.pending); // nothing is released before the driver says so
    take(a, a.elector.release());
    QVERIFY(a.pending && std::holds_alternative<action::Update>(*a.pending));
    settle(a, store);
    QVERIFY(a.last<action::ReleaseFinished>()->released);
    QVERIFY(store.state.record.holder.isEmpty());
    QVERIFY(!a.elector.nextWakeMono().has_value()); // a stopped instance does not campaign
    const qint64 before = b.clock.monotonicMs();
    QVERIFY(wake(b, store));
    QVERIFY(b.elector.isLeader());
    QCOMPARE(b.clock.monotonicMs(), before + R);
    QCOMPARE(b.elector.fencingToken(), 1);
}

void TestElector::readAnsweredAfterStopLeadsToNoWrite_data()
{
    QTest::addColumn<bool>("releasedFirst");
    QTest::newRow("the reply comes before the driver asks for the release") << false;
    QTest::newRow("the reply comes after the release has finished") << true;
}

void TestElector::readAnsweredAfterStopLeadsToNoWrite()
{
    // F5: a follower is stopped while its read is on its way, and the read
    // finds the lease free: whatever the driver still delivers, the only
    // write after stop() is the release, so no stopped instance holds a
    // lease that nobody renews or releases.
    QFETCH(bool, releasedFirst);
    LeaseStore store;
    Instance a(QStringLiteral("a"));
    take(a, a.elector.start());
    QVERIFY(a.pending && std::holds_alternative<action::Read>(*a.pending));
    const ElectorAction read = *a.pending;
    a.pending.reset();
    take(a, a.elector.stop());
    if (releasedFirst) {
        take(a, a.elector.release());
        QVERIFY(a.last<action::ReleaseFinished>());
        QVERIFY(!a.pending);
    }
    take(a, a.elector.onReply(requestIdOf(read), store.apply(read)));
    QVERIFY2(!a.pending, "a write was sent after stop()");
    if (!releasedFirst) {
        take(a, a.elector.release());
        QVERIFY(!a.pending);
        QVERIFY(!a.last<action::ReleaseFinished>()->released);
    }
    QVERIFY(!store.state.exists);
    QVERIFY(!a.wasTold<action::BecameLeader>());
}

void TestElector::acquisitionAnsweredPastItsDeadlineAfterStopStillEndsTheStop()
{
    // F5, F4: stop() comes while a follower's acquisition is on its way, so
    // the release waits for its answer. The answer comes late, past the
    // deadline the write would have given: the stop must still end (a
    // ReleaseFinished), never wait for a wake-up that nothing arms.
    LeaseStore store;
    Instance a(QStringLiteral("a"));
    take(a, a.elector.start());
    QVERIFY(a.pending && std::holds_alternative<action::Read>(*a.pending));
    const ElectorAction read = *a.pending;
    a.pending.reset();
    take(a, a.elector.onReply(requestIdOf(read), store.apply(read)));
    QVERIFY(a.pending && std::holds_alternative<action::Create>(*a.pending));
    const ElectorAction create = *a.pending;
    a.pending.reset();
    take(a, a.elector.stop());
    take(a, a.elector.release());
    QVERIFY(!a.last<action::ReleaseFinished>());
    a.clock.advance((L + R) / 2 + 1);
    take(a, a.elector.onReply(requestIdOf(create), store.apply(create)));
    QVERIFY2(a.last<action::ReleaseFinished>(), "the stop waits for nothing that will come");
    QVERIFY(!a.last<action::ReleaseFinished>()->released);
    QVERIFY(!a.pending);
    QVERIFY(!a.wasTold<action::BecameLeader>());
}

void TestElector::releaseSeenByWatchIsTakenAtOnce()
{
    // F8: a follower that watches sees the release and attempts at once.
    LeaseStore store;
    Instance a(QStringLiteral("a")), b(QStringLiteral("b"));
    startLeaderThenFollower(a, b, store);
    take(a, a.elector.stop());
    take(a, a.elector.release());
    settle(a, store);
    const qint64 before = b.clock.monotonicMs();
    take(b, b.elector.onWatch(store.state));
    settle(b, store);
    QVERIFY(b.elector.isLeader());
    QCOMPARE(b.clock.monotonicMs(), before);
    // The take-up completes the release it follows; no first acquisition.
    QCOMPARE(b.last<action::LeaderChanged>()->from, QStringLiteral("a"));
    QCOMPARE(b.last<action::LeaderChanged>()->to, QStringLiteral("b"));
    QCOMPARE(b.last<action::LeaderChanged>()->why, HolderChange::Released);
}

void TestElector::requestOvertakenByAReleaseIsAbandonedNotAnError()
{
    // F8: a follower's request on its way when the watch shows the lease
    // released is given up for a takeover at once. That is no error: an
    // operator would read one at every clean handover.
    LeaseStore store;
    Instance a(QStringLiteral("a")), b(QStringLiteral("b"));
    startLeaderThenFollower(a, b, store);
    const auto wakeUp = b.elector.nextWakeMono();
    QVERIFY(wakeUp.has_value());
    b.clock.setMonotonicMs(*wakeUp);
    take(b, b.elector.onTimer());
    QVERIFY(b.pending.has_value());
    const quint64 overtaken = b.pendingId();
    take(a, a.elector.stop());
    take(a, a.elector.release());
    settle(a, store);
    take(b, b.elector.onWatch(store.state));
    const action::AttemptFinished *given = b.last<action::AttemptFinished>();
    QVERIFY(given);
    QCOMPARE(given->outcome, AttemptOutcome::Abandoned);
    QVERIFY2(given->errorString.isEmpty(), qPrintable(given->errorString));
    QVERIFY(b.pending.has_value());
    QVERIFY(b.pendingId() != overtaken);
    settle(b, store);
    QVERIFY(b.elector.isLeader());
}

void TestElector::releaseIsRefusedWhenTheLeaseChangedHands()
{
    // F5: the release is conditional; it never frees someone else's lease.
    LeaseStore store;
    Instance a(QStringLiteral("a"));
    take(a, a.elector.start());
    settle(a, store);
    take(a, a.elector.stop());
    store.write(LeaseRecord {QStringLiteral("b"), L, {}, {}, 1, {}});
    take(a, a.elector.release());
    settle(a, store);
    QVERIFY(!a.last<action::ReleaseFinished>()->released);
    QCOMPARE(store.state.record.holder, QStringLiteral("b"));
}

void TestElector::fencingTokenIncreasesAcrossLeaders()
{
    // F7: the transitions count read at acquisition is the token.
    LeaseStore store;
    std::vector<std::unique_ptr<Instance>> instances;
    qint64 lastToken = -1;
    for (int i = 0; i < 4; ++i) {
        instances.push_back(std::make_unique<Instance>(QStringLiteral("i%1").arg(i)));
        Instance &next = *instances.back();
        take(next, next.elector.start());
        settle(next, store);
        if (i > 0) {
            Instance &previous = *instances[i - 1];
            take(previous, previous.elector.stop());
            take(previous, previous.elector.release());
            settle(previous, store);
            take(next, next.elector.onWatch(store.state));
            settle(next, store);
        }
        QVERIFY(next.elector.isLeader());
        QVERIFY(next.elector.fencingToken() > lastToken);
        lastToken = next.elector.fencingToken();
    }
}

void TestElector::lateReplyToAnAbandonedRequestIsIgnored()
{
    // F3: after a timeout the attempt is over; its late reply changes nothing.
    LeaseStore store;
    Instance b(QStringLiteral("b"));
    take(b, b.elector.start());
    const ElectorAction read = *b.pending;
    b.pending.reset();
    b.clock.advance(L - R);
    take(b, b.elector.onTimer());
    QCOMPARE(b.last<action::AttemptFinished>()->outcome, AttemptOutcome::Error);
    const auto toldBefore = b.told.size();
    take(b, b.elector.onReply(std::get<action::Read>(read).request, store.apply(read)));
    QCOMPARE(b.told.size(), toldBefore);
    QVERIFY(!b.elector.hasObserved());
}

void TestElector::watchEventWhileLeadingTriggersARenewalNotAStepDown()
{
    // A watch event can be older than the reply that made us leader; the
    // renewal it triggers decides (F3), here in the leader's favour.
    LeaseStore store;
    Instance a(QStringLiteral("a"));
    take(a, a.elector.start());
    settle(a, store);
    LeaseState stale = store.state;
    stale.record.holder = QStringLiteral("previous");
    stale.version = QStringLiteral("0");
    a.clock.advance(10);
    take(a, a.elector.onWatch(stale));
    QVERIFY(a.elector.isLeader());
    QCOMPARE(*a.elector.nextWakeMono(), a.clock.monotonicMs());
    QVERIFY(wake(a, store));
    QVERIFY(a.elector.isLeader());
    QCOMPARE(a.last<action::AttemptFinished>()->outcome, AttemptOutcome::Renewed);
}

void TestElector::aRecordNotOursSeenWhileAcquiringIsCheckedByARenewalAtOnce()
{
    // F1, F3: a watch and a write's reply are two streams. Another writer's
    // record, written right after our acquisition, can be seen before the
    // acquisition's answer; versions are opaque, so the Elector cannot tell
    // which came last, and leading on until the next renewal would overlap
    // with whoever takes that record when it expires. The acquisition's
    // success is checked at once by a conditional renewal instead.
    LeaseStore store;
    Instance a(QStringLiteral("a"));
    take(a, a.elector.start());
    QVERIFY(a.pending);
    while (!std::holds_alternative<action::Create>(*a.pending)
           && !std::holds_alternative<action::Update>(*a.pending)) {
        const ElectorAction read = *a.pending;
        a.pending.reset();
        take(a, a.elector.onReply(requestIdOf(read), store.apply(read)));
        QVERIFY(a.pending);
    }
    const ElectorAction acquisition = *a.pending;
    a.pending.reset();
    const LeaseReply won = store.apply(acquisition);
    LeaseRecord intruder = store.state.record;
    intruder.holder = QStringLiteral("intruder");
    intruder.holderIncarnation.clear();
    store.write(intruder);
    a.clock.advance(5);
    take(a, a.elector.onWatch(store.state));
    a.clock.advance(5);
    take(a, a.elector.onReply(requestIdOf(acquisition), won));
    QVERIFY(a.elector.isLeader());
    QCOMPARE(*a.elector.nextWakeMono(), a.clock.monotonicMs());
    QVERIFY(wake(a, store));
    QVERIFY(!a.elector.isLeader());
    QCOMPARE(a.last<action::StoppedLeading>()->reason, StopReason::TakenOver);
}


void TestElector::onlyAChangeOfHolderIsRecordedWithItsReasonAndGap()
{
    // O2: the instance that takes the lease records the change (from, to,
    // why, gap, transitions) in the acquiring write; renewals and releases
    // record nothing.
    LeaseStore store;
    Instance a(QStringLiteral("a")), b(QStringLiteral("b"));
    startLeaderThenFollower(a, b, store);
    QCOMPARE(store.history.size(), 1);
    QCOMPARE(store.history.at(0).from, QString());
    QCOMPARE(store.history.at(0).to, QStringLiteral("a"));
    QCOMPARE(store.history.at(0).why, QStringLiteral("first-acquire"));
    QCOMPARE(store.history.at(0).gapMs, -1);
    QCOMPARE(store.history.at(0).transitions, store.state.record.transitions);

    // a renews, then dies; b takes the lease when it expires by b's clock.
    QVERIFY(wake(a, store));
    QCOMPARE(store.history.size(), 1);
    b.clock.setMonotonicMs(a.clock.monotonicMs());
    QVERIFY(wake(b, store));
    const qint64 lastSeen = b.clock.monotonicMs();
    while (!b.elector.isLeader())
        QVERIFY(wake(b, store));
    QCOMPARE(store.history.size(), 2);
    const HistoryEntry expired = store.history.at(1);
    QCOMPARE(expired.from, QStringLiteral("a"));
    QCOMPARE(expired.to, QStringLiteral("b"));
    QCOMPARE(expired.why, QStringLiteral("expired"));
    // From the last renewal b saw to its takeover, not from the expiry.
    QCOMPARE(expired.gapMs, b.clock.monotonicMs() - lastSeen);
    QVERIFY(expired.gapMs >= L);
    QCOMPARE(expired.transitions, store.state.record.transitions);
    QCOMPARE(expired.at, store.state.record.acquireTime);

    // b hands over cleanly to c, which watches and takes the lease the
    // instant it sees the release: a known gap of 0 on its clock.
    Instance c(QStringLiteral("c"));
    c.clock.setMonotonicMs(b.clock.monotonicMs());
    take(c, c.elector.start());
    settle(c, store);
    take(b, b.elector.stop());
    take(b, b.elector.release());
    settle(b, store);
    QCOMPARE(store.history.size(), 2); // a release records nothing itself
    take(c, c.elector.onWatch(store.state));
    settle(c, store);
    QVERIFY(c.elector.isLeader());
    QCOMPARE(store.history.size(), 3);
    QCOMPARE(store.history.at(2).from, QStringLiteral("b"));
    QCOMPARE(store.history.at(2).to, QStringLiteral("c"));
    QCOMPARE(store.history.at(2).why, QStringLiteral("released"));
    QCOMPARE(store.history.at(2).gapMs, 0);
}

void TestElector::aWriteAnsweredWithAnotherIncarnationNeverMakesALeader()
{
    // R5: something between us and the store (a webhook stripping unknown
    // annotations) rewrites the record. Leading on it would mean renewals
    // in a loop and a release refused as "not the holder": never lead.
    LeaseStore store;
    Instance a(QStringLiteral("worker"), L, R, QStringLiteral("aaaa"));
    take(a, a.elector.start());
    for (int round = 0; round < 4 && a.pending; ++round) {
        const ElectorAction request = *a.pending;
        a.pending.reset();
        LeaseReply reply = store.apply(request);
        store.state.record.holderIncarnation.clear();
        reply.state.record.holderIncarnation.clear();
        take(a, a.elector.onReply(requestIdOf(request), reply));
    }
    QVERIFY(!a.elector.isLeader());
    QVERIFY(!a.wasTold<action::BecameLeader>());
    QCOMPARE(a.last<action::AttemptFinished>()->outcome, AttemptOutcome::Error);
    QVERIFY(a.last<action::AttemptFinished>()->errorString.contains(QStringLiteral("not this instance's")));
}

QTEST_GUILESS_MAIN(TestElector)
#include "tst_elector.moc"

namespace {

/*! What `baton handover` writes: the holder's record, unchanged but for the request. */
void askForHandover(LeaseStore &store, const QString &to, const QString &by = QStringLiteral("operator@host"))
{
    LeaseRecord asked = store.state.record;
    asked.successor = to;
    asked.handoverRequestedBy = by;
    store.write(asked);
}

/*! \a leader sees the request by its renewal's conflict, and its work ends (the driver's part). */
void handOverAsAsked(Instance &leader, LeaseStore &store)
{
    QVERIFY(wake(leader, store));
    QVERIFY(leader.elector.awaitingHandover());
    take(leader, leader.elector.handOver());
    settle(leader, store);
}

} // namespace

void TestElector::aHandoverGoesToTheNamedSuccessorAndNobodyElseLeadsMeanwhile()
{
    // H1: the leader stops its work, then writes the lease free and kept
    // for the successor; a third instance treats it as held meanwhile.
    LeaseStore store;
    Instance a(QStringLiteral("a")), b(QStringLiteral("b")), c(QStringLiteral("c"));
    startLeaderThenFollower(a, b, store);
    take(c, c.elector.start());
    settle(c, store);
    const qint64 tokenBefore = a.elector.fencingToken();
    askForHandover(store, QStringLiteral("c"));
    QVERIFY(wake(a, store));
    QCOMPARE(a.last<action::HandoverRequested>()->to, QStringLiteral("c"));
    QCOMPARE(a.last<action::HandoverRequested>()->by, QStringLiteral("operator@host"));
    QCOMPARE(a.last<action::StoppedLeading>()->reason, StopReason::HandedOver);
    QVERIFY(!a.elector.isLeader());
    QVERIFY(!a.pending); // nothing is written before the driver says the work has ended
    QCOMPARE(store.state.record.holder, QStringLiteral("a"));
    take(a, a.elector.handOver());
    settle(a, store);
    QVERIFY(a.last<action::HandedOver>()->done);
    QVERIFY(store.state.record.holder.isEmpty());
    QCOMPARE(store.state.record.successor, QStringLiteral("c"));
    QCOMPARE(store.state.record.leaseDurationMs, L);

    take(b, b.elector.onWatch(store.state));
    settle(b, store);
    QVERIFY(!b.elector.isLeader());
    QCOMPARE(b.last<action::ReservedFor>()->to, QStringLiteral("c"));
    QCOMPARE(b.last<action::LeaderChanged>()->why, HolderChange::HandedOver);
    take(c, c.elector.onWatch(store.state));
    settle(c, store);
    QVERIFY(c.elector.isLeader());
    QVERIFY(c.elector.fencingToken() > tokenBefore);
    QCOMPARE(c.last<action::LeaderChanged>()->from, QStringLiteral("a"));
    QCOMPARE(c.last<action::LeaderChanged>()->why, HolderChange::HandedOver);
    QCOMPARE(store.history.last().why, QStringLiteral("handed-over"));
    QCOMPARE(store.history.last().from, QStringLiteral("a"));
    QCOMPARE(store.history.last().requestedBy, QStringLiteral("operator@host"));
    QVERIFY(store.state.record.successor.isEmpty());
    // The former leader and the third instance stay followers of c.
    for (int i = 0; i < 6; ++i) {
        QVERIFY(wake(b, store));
        QVERIFY(wake(a, store));
        QVERIFY(wake(c, store));
        QVERIFY(!b.elector.isLeader() && !a.elector.isLeader());
        QVERIFY(c.elector.isLeader());
    }
    // A follower tells the take-up as the handover it completes.
    QCOMPARE(b.last<action::LeaderChanged>()->from, QStringLiteral("a"));
    QCOMPARE(b.last<action::LeaderChanged>()->to, QStringLiteral("c"));
    QCOMPARE(b.last<action::LeaderChanged>()->why, HolderChange::HandedOver);
}

void TestElector::aSuccessorThatIsGoneCostsAtMostOneLeaseDuration()
{
    // H1: a reservation for an instance that never comes runs out one lease
    // duration after each follower saw it, by its own clock.
    LeaseStore store;
    Instance a(QStringLiteral("a")), b(QStringLiteral("b"));
    startLeaderThenFollower(a, b, store);
    askForHandover(store, QStringLiteral("gone"));
    handOverAsAsked(a, store);
    QCOMPARE(store.state.record.successor, QStringLiteral("gone"));
    b.clock.advance(100);
    take(b, b.elector.onWatch(store.state));
    settle(b, store);
    const qint64 seen = b.clock.monotonicMs();
    while (!b.elector.isLeader()) {
        QVERIFY(wake(b, store));
        QVERIFY(b.clock.monotonicMs() <= seen + L);
        if (!b.elector.isLeader())
            QVERIFY(b.clock.monotonicMs() < seen + L);
    }
    QCOMPARE(b.clock.monotonicMs(), seen + L);
}

void TestElector::aRecordWrittenByOthersWithoutAHandoverNeverEndsALeadership_data()
{
    QTest::addColumn<QString>("successor");
    QTest::newRow("H1: no successor") << QString();
    QTest::newRow("H1: the leader itself") << QStringLiteral("a");
}

void TestElector::aRecordWrittenByOthersWithoutAHandoverNeverEndsALeadership()
{
    // H1: a write that keeps the holder makes the renewal conflict; the
    // leader is still the holder, so it keeps leading and renews at once.
    QFETCH(QString, successor);
    LeaseStore store;
    Instance a(QStringLiteral("a"));
    take(a, a.elector.start());
    settle(a, store);
    askForHandover(store, successor);
    QVERIFY(wake(a, store));
    QCOMPARE(a.last<action::AttemptFinished>()->outcome, AttemptOutcome::Conflict);
    QVERIFY(a.elector.isLeader());
    QVERIFY(!a.wasTold<action::StoppedLeading>());
    QVERIFY(wake(a, store));
    QCOMPARE(a.last<action::AttemptFinished>()->outcome, AttemptOutcome::Renewed);
    QVERIFY(a.elector.isLeader());
    QVERIFY(store.state.record.successor.isEmpty());
}

void TestElector::aHandoverIsNeverWrittenPastTheDeadline_data()
{
    QTest::addColumn<bool>("timerFirst");
    QTest::newRow("H1: the deadline's timer comes first") << true;
    QTest::newRow("H1: the work ends after a freeze, no timer yet") << false;
}

void TestElector::aHandoverIsNeverWrittenPastTheDeadline()
{
    // H1 with F5: work that outlived the deadline is followed by no write;
    // the lease is left to expire, as a stop leaves it.
    QFETCH(bool, timerFirst);
    LeaseStore store;
    Instance a(QStringLiteral("a"));
    take(a, a.elector.start());
    settle(a, store);
    askForHandover(store, QStringLiteral("b"));
    QVERIFY(wake(a, store));
    QVERIFY(a.elector.awaitingHandover());
    const qint64 deadline = a.elector.validUntilMono();
    QCOMPARE(*a.elector.nextWakeMono(), deadline);
    if (timerFirst) {
        QVERIFY(wake(a, store));
        QVERIFY(!a.elector.awaitingHandover());
    } else {
        a.clock.setMonotonicMs(deadline);
    }
    take(a, a.elector.handOver());
    QVERIFY(!a.pending);
    QVERIFY(!a.last<action::HandedOver>()->done);
    QCOMPARE(store.state.record.holder, QStringLiteral("a"));
}

void TestElector::aHandoverToAnyInstanceIsAPlainRelease()
{
    LeaseStore store;
    Instance a(QStringLiteral("a")), b(QStringLiteral("b"));
    startLeaderThenFollower(a, b, store);
    askForHandover(store, anySuccessor);
    handOverAsAsked(a, store);
    QVERIFY(store.state.record.holder.isEmpty());
    QVERIFY(store.state.record.successor.isEmpty());
    take(b, b.elector.onWatch(store.state));
    settle(b, store);
    QVERIFY(b.elector.isLeader());
    QCOMPARE(store.history.last().why, QStringLiteral("released"));
}

void TestElector::aStopDuringAHandoverEndsWithTheRelease()
{
    // F5 over H1: a stop while the handover waits for the work releases
    // plainly, and a stop while its write is on its way waits for it.
    LeaseStore store;
    Instance a(QStringLiteral("a"));
    take(a, a.elector.start());
    settle(a, store);
    take(a, a.elector.requestHandover(QStringLiteral("b"), QStringLiteral("a")));
    take(a, a.elector.handOver());
    QVERIFY(a.pending);
    take(a, a.elector.stop());
    take(a, a.elector.release());
    settle(a, store);
    QVERIFY(a.last<action::ReleaseFinished>()->released);
    QCOMPARE(store.state.record.successor, QStringLiteral("b"));
    QVERIFY(!a.elector.nextWakeMono().has_value());
}

void TestElector::aLeaderAskedToHandOverOnItsOwnSideStopsFirst()
{
    LeaseStore store;
    Instance a(QStringLiteral("a")), b(QStringLiteral("b"));
    startLeaderThenFollower(a, b, store);
    take(a, a.elector.requestHandover(QStringLiteral("b"), QStringLiteral("a")));
    QCOMPARE(a.last<action::StoppedLeading>()->reason, StopReason::HandedOver);
    QVERIFY(!a.pending);
    take(a, a.elector.handOver());
    settle(a, store);
    QCOMPARE(store.state.record.handoverRequestedBy, QStringLiteral("a"));
    take(b, b.elector.onWatch(store.state));
    settle(b, store);
    QVERIFY(b.elector.isLeader());
}

void TestElector::aStandingByInstanceTakesNoFreeExpiredOrMissingLease_data()
{
    QTest::addColumn<QString>("lease");
    QTest::newRow("H3: no record yet") << QStringLiteral("missing");
    QTest::newRow("H3: released") << QStringLiteral("released");
    QTest::newRow("H3: its holder crashed") << QStringLiteral("expired");
}

void TestElector::aStandingByInstanceTakesNoFreeExpiredOrMissingLease()
{
    // H3: standing by, it writes nothing and leads never, however long the
    // lease stays free; it reads every renew interval, no more often.
    QFETCH(QString, lease);
    LeaseStore store;
    Instance a(QStringLiteral("a")), b(QStringLiteral("b"));
    take(b, b.elector.setStandingBy(true));
    QVERIFY(b.elector.standingBy());
    if (lease != QLatin1String("missing")) {
        take(a, a.elector.start());
        settle(a, store);
        QVERIFY(a.elector.isLeader());
    }
    take(b, b.elector.start());
    settle(b, store);
    if (lease == QLatin1String("released")) {
        take(a, a.elector.stop());
        take(a, a.elector.release());
        settle(a, store);
        QVERIFY(store.state.record.holder.isEmpty());
        take(b, b.elector.onWatch(store.state));
        settle(b, store);
    }
    const int version = store.version;
    const qint64 start = b.clock.monotonicMs();
    for (int wakes = 0; b.clock.monotonicMs() < start + 4 * L; ++wakes) {
        QVERIFY2(wakes <= 4 * L / R, qPrintable(QStringLiteral("%1 attempts by %2 ms")
                                                        .arg(wakes)
                                                        .arg(b.clock.monotonicMs() - start)));
        QVERIFY(wake(b, store));
        QVERIFY(!b.elector.isLeader());
        QCOMPARE(b.last<action::AttemptFinished>()->outcome, AttemptOutcome::Held);
    }
    QCOMPARE(store.version, version);
}

void TestElector::aStandingByInstanceTakesALeaseReservedForIt_data()
{
    QTest::addColumn<bool>("watched");
    QTest::newRow("H1 over H3: seen by a watch") << true;
    QTest::newRow("H1 over H3: seen by its next read") << false;
}

void TestElector::aStandingByInstanceTakesALeaseReservedForIt()
{
    // H3: an explicit handover to a drained instance is still obeyed (H1).
    QFETCH(bool, watched);
    LeaseStore store;
    Instance a(QStringLiteral("a")), b(QStringLiteral("b"));
    take(b, b.elector.setStandingBy(true));
    startLeaderThenFollower(a, b, store);
    askForHandover(store, QStringLiteral("b"));
    handOverAsAsked(a, store);
    QCOMPARE(store.state.record.successor, QStringLiteral("b"));
    if (watched) {
        take(b, b.elector.onWatch(store.state));
        settle(b, store);
    } else {
        QVERIFY(wake(b, store));
    }
    QVERIFY(b.elector.isLeader());
    QCOMPARE(store.history.last().why, QStringLiteral("handed-over"));
}

void TestElector::aLeaderStandingByKeepsRenewing()
{
    // H3: the gate is for acquisitions; a leader's renewals go on until the
    // handover the roster asks for.
    LeaseStore store;
    Instance a(QStringLiteral("a"));
    take(a, a.elector.start());
    settle(a, store);
    take(a, a.elector.setStandingBy(true));
    for (int i = 0; i < 6; ++i) {
        QVERIFY(wake(a, store));
        QVERIFY(a.elector.isLeader());
        QCOMPARE(a.last<action::AttemptFinished>()->outcome, AttemptOutcome::Renewed);
    }
}

void TestElector::theGateOpeningTakesAFreeLeaseAtOnce()
{
    // H3: undrained (or the other candidate gone), a free lease is taken
    // at once, not at the next attempt.
    LeaseStore store;
    Instance a(QStringLiteral("a")), b(QStringLiteral("b"));
    take(b, b.elector.setStandingBy(true));
    startLeaderThenFollower(a, b, store);
    take(a, a.elector.stop());
    take(a, a.elector.release());
    settle(a, store);
    take(b, b.elector.onWatch(store.state));
    QVERIFY(!b.pending); // a free lease seen is no reason to ask the store anything
    QVERIFY(!b.elector.isLeader());
    const qint64 before = b.clock.monotonicMs();
    take(b, b.elector.setStandingBy(false));
    settle(b, store);
    QVERIFY(b.elector.isLeader());
    QCOMPARE(b.clock.monotonicMs(), before);
    QCOMPARE(store.history.last().why, QStringLiteral("released"));
}
