// whenLeader() and the cluster service on a real event loop, with real
// stores (W1-W8, C1, C3, P3, F4, F5, F7). Instances share one
// MemoryStore in this process, so elections take milliseconds; every wait
// is for a signal or a condition, never for time to pass.

#include "clusterservice_p.h"
#include "localleaseprotocol.h"
#include "manualclock.h"
#include "leaserecord.h"
#include "storecluster.h"
#include "storeleaseprotocol.h"

#include <baton/application.h>
#include <baton/cluster.h>
#include <baton/clusterservice.h>
#include <batoninternal/leasecodec.h>
#include <batoninternal/registrykey.h>

#include <QJsonObject>
#include <QPromise>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace baton;
using baton::test::makeStore;
using baton::test::StoreCluster;

namespace {

constexpr int shortLease = 600;
constexpr int shortRenew = 100;

/*! The local cluster (W8) on a clock the test moves. */
class LocalCluster : public ClusterService
{
public:
    explicit LocalCluster(const Clock *clock)
        : ClusterService(QStringLiteral("solo"),
                         QJsonObject {{QStringLiteral("leaseDuration"), 600},
                                      {QStringLiteral("renewInterval"), 100}},
                         nullptr)
    {
        setClock(clock);
        ClusterServicePrivate::setLeaseProtocolFactory(
                this, [](QString *) { return std::make_unique<LocalLeaseProtocol>(); });
    }
};

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

/*! The lease as the store holds it now, read as any other process would. */
std::optional<LeaseState> readLease(Store *store, const QString &leaseName)
{
    StoreLeaseProtocol reader(store);
    std::optional<LeaseReply> reply;
    reader.get(leaseName, [&](const LeaseReply &r) { reply = r; });
    if (!QTest::qWaitFor([&] { return reply.has_value(); }, 5000)
        || reply->outcome != LeaseReply::Outcome::Ok)
        return std::nullopt;
    return reply->state;
}

/*! The values leadershipChanged carried, in order. */
QList<bool> values(const QSignalSpy &spy)
{
    QList<bool> out;
    for (const QList<QVariant> &arguments : spy)
        out.append(arguments.first().toBool());
    return out;
}

/*! The events of one kind among the electionEvent records a spy saw. */
QList<QJsonObject> eventsNamed(const QSignalSpy &spy, const QString &name)
{
    QList<QJsonObject> out;
    for (const QList<QVariant> &arguments : spy) {
        const QJsonObject record = arguments.first().toJsonObject();
        if (record.value(QStringLiteral("event")).toString() == name)
            out.append(record);
    }
    return out;
}

} // namespace

class TestClusterService : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void registrationBeforeStartRunsWhenLeading();
    void registrationWhileLeadingRunsOnTheNextTurn();
    void deregisteredRunsOnStopWhenLeading();
    void failingCallbackDoesNotStopTheElection();
    void removerWhileLeadingWhileFollowingAndTwice();
    void contextDestroyedWhileLeadingRemovesTheRegistration();
    void callbacksRunOnTheServiceThread();
    void cleanStopWaitsForAsyncDeregistrationThenHandsOver();
    void stopOfAFollowerWaitsForTheDeregistrationOfItsLastTerm();
    void stopPastTheDeadlineBeforeAnyTimerWaitsForTheDeregistration();
    void stopOfAFollowerEndsAtTheLeaseExpiryOfItsLastTermWhenItsCallbackNeverFinishes();
    void stopOfAFollowerLongAfterItsLastTermDoesNotWaitForAHungCallback();
    void leadershipChangedHandlerThatStopsTheServiceSeesTheTruthInOrder();
    void leadershipChangedHandlerThatRegistersAgainRunsTheNewFnOnce();
    void fnThatStopsTheServiceIsDeregisteredBeforeTheRelease();
    void leadershipChangedEndsOnFalseWhenFnStopsTheService();
    void stoppedWhileItsFirstReadIsOnItsWayNeverTakesTheLease();
    void resumedHostStepsDownAtItsFirstEventWithItsDeadline();
    void fencingTokenIncreasesAcrossLeaders();
    void handOverOnTheLeaderOrAFollowerGoesToTheNamedInstance();
    void propertiesFollowTheElectionForBindings();
    void aRestartUnderTheSameIdIsToldAsANewTerm();
    void isLeaderComparesTheDeadlineAtCallTime();
    void severalElectionsInOneProcess();
    void registrationsBeforeTheApplicationStartsWaitForItsCluster();
    void withoutAClusterServiceTheLocalClusterAlwaysLeads();
    void theLocalClusterStillLeadsAfterSleepingLongerThanItsLease();
    void useClusterReturnsTheFirstClusterInConfigurationOrder();
    void electionWaitsForAStoreListedAfterTheCluster();
};

void TestClusterService::propertiesFollowTheElectionForBindings()
{
    // C1, F7: leader, holder and fencingToken as Q_PROPERTYs with NOTIFY
    // signals, so that a property binding or QML can follow the election.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    StoreCluster b(store.get(), QStringLiteral("b"));
    const QMetaObject *meta = a.metaObject();
    for (const char *name : {"leader", "holder", "fencingToken"}) {
        const QMetaProperty property = meta->property(meta->indexOfProperty(name));
        QVERIFY2(property.isValid() && property.hasNotifySignal(), name);
    }
    QSignalSpy leadership(&a, &ClusterService::leadershipChanged);
    QSignalSpy holderOfA(&a, &ClusterService::holderChanged);
    QSignalSpy holderOfB(&b, &ClusterService::holderChanged);
    QVERIFY(start(a));
    QTRY_VERIFY(a.property("leader").toBool());
    QCOMPARE(a.property("holder").toString(), QStringLiteral("a"));
    // The holder, the one before and why, typed.
    QCOMPARE(holderOfA.size(), 1);
    QCOMPARE(holderOfA.first().at(0).toString(), QStringLiteral("a"));
    QCOMPARE(holderOfA.first().at(1).toString(), QString());
    QCOMPARE(holderOfA.first().at(2).value<HolderChange>(), HolderChange::FirstAcquire);
    QCOMPARE(a.property("fencingToken").toLongLong(), a.fencingToken());
    QVERIFY(a.property("fencingToken").toLongLong() >= 0);
    QVERIFY(!leadership.isEmpty());
    // A follower that only read the record still announces who holds it.
    QVERIFY(start(b));
    QTRY_COMPARE(b.property("holder").toString(), QStringLiteral("a"));
    QVERIFY(!holderOfB.isEmpty());
    QCOMPARE(holderOfB.size(), 1);
    QCOMPARE(holderOfB.last().at(0).toString(), QStringLiteral("a"));
    QCOMPARE(holderOfB.last().at(2).value<HolderChange>(), HolderChange::Seen);
    QVERIFY(!b.property("leader").toBool());
    QCOMPARE(b.property("fencingToken").toLongLong(), -1);
    stopAndWait(a);
    QTRY_VERIFY(!a.property("leader").toBool());
    QTRY_COMPARE(b.property("holder").toString(), QStringLiteral("b"));
    // Each change told once, each from the holder told before it.
    QString told = QStringLiteral("a");
    QList<HolderChange> whys;
    for (qsizetype i = 1; i < holderOfB.size(); ++i) {
        QCOMPARE(holderOfB.at(i).at(1).toString(), told);
        told = holderOfB.at(i).at(0).toString();
        whys.append(holderOfB.at(i).at(2).value<HolderChange>());
    }
    QCOMPARE(told, QStringLiteral("b"));
    QVERIFY2(whys.contains(HolderChange::Released), qPrintable(QString::number(whys.size())));
    QVERIFY(!whys.contains(HolderChange::Seen));
    stopAndWait(b);
}

void TestClusterService::aRestartUnderTheSameIdIsToldAsANewTerm()
{
    // R5: a process restarted with a fixed instanceId finds its earlier
    // run's lease under its own id: read as held (the holder seen), then
    // taken once it ran out, and that new term is told though the id stays.
    auto store = makeStore();
    LeaseRecord earlier;
    earlier.holder = QStringLiteral("a");
    earlier.holderIncarnation = QStringLiteral("an-earlier-run");
    earlier.leaseDurationMs = 600;
    earlier.acquireTime = earlier.renewTime = QDateTime::currentDateTimeUtc();
    earlier.transitions = 1;
    bool written = false;
    store->create(registryLeaseKey(QStringLiteral("leader")), leasecodec::encode(earlier),
                  [&written](const StoreResult &result) { written = result.ok(); });
    QTRY_VERIFY(written);

    StoreCluster a(store.get(), QStringLiteral("a"));
    QSignalSpy holder(&a, &ClusterService::holderChanged);
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    QCOMPARE(holder.size(), 2);
    QCOMPARE(holder.first().at(0).toString(), QStringLiteral("a"));
    QCOMPARE(holder.first().at(1).toString(), QString());
    QCOMPARE(holder.first().at(2).value<HolderChange>(), HolderChange::Seen);
    QCOMPARE(holder.last().at(0).toString(), QStringLiteral("a"));
    QCOMPARE(holder.last().at(1).toString(), QStringLiteral("a"));
    QCOMPARE(holder.last().at(2).value<HolderChange>(), HolderChange::Expired);
    stopAndWait(a);
}

void TestClusterService::registrationBeforeStartRunsWhenLeading()
{
    // W1, W2: registered before the election started; fn runs once leading.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    int runs = 0;
    a.whenLeader([&] { ++runs; });
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    QTRY_COMPARE(runs, 1);
    QCOMPARE(a.currentHolder(), QStringLiteral("a"));
    stopAndWait(a);
}

void TestClusterService::registrationWhileLeadingRunsOnTheNextTurn()
{
    // W1: registering while leading runs fn at once: not inside the call,
    // but in the next turn of the event loop.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    bool ran = false;
    a.whenLeader([&] { ran = true; });
    QVERIFY(!ran);
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
    QVERIFY(ran);
    stopAndWait(a);
}

void TestClusterService::deregisteredRunsOnStopWhenLeading()
{
    // W2: deregisteredFn on stop() of a leading cluster service.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    QStringList log;
    a.whenLeader([&] { log << QStringLiteral("fn"); }, [&] { log << QStringLiteral("dereg"); });
    QVERIFY(start(a));
    QTRY_COMPARE(log, QStringList {QStringLiteral("fn")});
    stopAndWait(a);
    QCOMPARE(log, (QStringList {QStringLiteral("fn"), QStringLiteral("dereg")}));
    QVERIFY(!a.isLeader());
}

void TestClusterService::failingCallbackDoesNotStopTheElection()
{
    // W4: a throwing fn is logged and the other registrations still run.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("leader.*boom|boom.*leader")));
    a.whenLeader([] { throw std::runtime_error("boom"); });
    bool otherRan = false;
    a.whenLeader([&] { otherRan = true; });
    QVERIFY(start(a));
    QTRY_VERIFY(otherRan);
    QVERIFY(a.isLeader());
    stopAndWait(a);
}

void TestClusterService::removerWhileLeadingWhileFollowingAndTwice()
{
    // W5
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    StoreCluster b(store.get(), QStringLiteral("b"));
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    QVERIFY(start(b));

    int leaderDereg = 0;
    Remover onLeader = a.whenLeader([] {}, [&] { ++leaderDereg; });
    QTRY_VERIFY(onLeader.isActive());
    QCoreApplication::processEvents();
    onLeader();
    QTRY_COMPARE(leaderDereg, 1); // fn had run: dereg runs on removal
    onLeader();
    QCoreApplication::processEvents();
    QCOMPARE(leaderDereg, 1); // twice is harmless
    QVERIFY(!onLeader.isActive());

    int followerCalls = 0;
    Remover onFollower = b.whenLeader([&] { ++followerCalls; }, [&] { ++followerCalls; });
    onFollower();
    QCoreApplication::processEvents();
    QCOMPARE(followerCalls, 0); // never ran: nothing to undo
    stopAndWait(a);
    stopAndWait(b);
}

void TestClusterService::contextDestroyedWhileLeadingRemovesTheRegistration()
{
    // W6 through a running cluster service (the rule itself, thread and
    // pending cases included, is proved in tst_registrations): destroying the
    // context removes the registration, runs the deregisteredFn it owes once
    // (W5), and stop() calls neither callback again (W2 would, were it kept).
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    auto *context = new QObject;
    int fnRuns = 0;
    int deregRuns = 0;
    Remover remover = a.whenLeader(context, [&] { ++fnRuns; }, [&] { ++deregRuns; });
    QTRY_COMPARE(fnRuns, 1);
    QCOMPARE(deregRuns, 0);
    delete context;
    QTRY_COMPARE(deregRuns, 1);
    remover(); // the registration is gone: nothing left to undo (W5)
    stopAndWait(a);
    QCOMPARE(fnRuns, 1);
    QCOMPARE(deregRuns, 1);
}

void TestClusterService::callbacksRunOnTheServiceThread()
{
    // C3: never on a network or worker thread.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    QThread *fnThread = nullptr;
    QThread *deregThread = nullptr;
    a.whenLeader([&] { fnThread = QThread::currentThread(); },
                 [&] { deregThread = QThread::currentThread(); });
    QVERIFY(start(a));
    QTRY_VERIFY(fnThread);
    stopAndWait(a);
    QCOMPARE(fnThread, a.thread());
    QCOMPARE(deregThread, a.thread());
}

void TestClusterService::cleanStopWaitsForAsyncDeregistrationThenHandsOver()
{
    // F5, W3: the lease is released only after the deregistered callback's
    // future has finished; then the follower takes over at once.
    // A lease long enough that a's step-down deadline (F4) cannot end the
    // wait below on a slow machine; the handover itself is by release.
    const StoreCluster::Timings timings {.leaseMs = 4000, .renewMs = 100};
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("leader"), timings);
    StoreCluster b(store.get(), QStringLiteral("b"), QStringLiteral("leader"), timings);
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    QVERIFY(start(b));
    QTRY_COMPARE(b.currentHolder(), QStringLiteral("a"));
    QSignalSpy bLeadership(&b, &ClusterService::leadershipChanged);

    QPromise<void> deregistration;
    bool deregStarted = false;
    a.whenLeader([] {}, [&] {
        deregStarted = true;
        deregistration.start();
        return deregistration.future();
    });
    QCoreApplication::processEvents();
    QSignalSpy stopped(&a, &Service::stopped);
    a.stop();
    QTRY_VERIFY(deregStarted);
    QVERIFY(!a.isLeader());
    // While the deregistration runs, the lease stays with a: the store says
    // so at two reads, each answered on a later turn, and b, whose watch
    // would show a release and take the lease at once, does not lead.
    for (int read = 0; read < 2; ++read) {
        std::optional<QString> holder;
        store->get(registryLeaseKey(QStringLiteral("leader")), [&holder](const StoreResult &result) {
            LeaseRecord record;
            QString error;
            holder = result.ok() && leasecodec::decode(result.entry.document, &record, &error)
                    ? record.holder
                    : QStringLiteral("(unreadable: %1)").arg(error);
        });
        QTRY_VERIFY(holder.has_value());
        QCOMPARE(*holder, QStringLiteral("a"));
    }
    QVERIFY(bLeadership.isEmpty());
    QVERIFY(!b.isLeader());
    QCOMPARE(stopped.count(), 0);
    deregistration.finish();
    QVERIFY(stopped.wait());
    QTRY_VERIFY(b.isLeader());
    stopAndWait(b);
}

void TestClusterService::stopOfAFollowerWaitsForTheDeregistrationOfItsLastTerm()
{
    // F5, F3: a taken over, its deregistered callback still runs (an --exec
    // command in its grace period) when stop() comes; the stop ends when
    // the callback does, not never. Each instance has a clock that moves
    // only when told, so b takes over when the test says and a never sees
    // b's lease expire.
    auto store = makeStore();
    test::ManualClock clockA;
    test::ManualClock clockB;
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("leader"), {}, &clockA);
    StoreCluster b(store.get(), QStringLiteral("b"), QStringLiteral("leader"), {}, &clockB);
    QPromise<void> deregistration;
    bool deregStarted = false;
    a.whenLeader([] {}, [&] {
        deregStarted = true;
        deregistration.start();
        return deregistration.future();
    });
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    QSignalSpy bEvents(&b, &ClusterService::electionEvent);
    QVERIFY(start(b));
    QTRY_VERIFY(!eventsNamed(bEvents, QStringLiteral("attempt")).isEmpty()); // b has seen a's lease
    clockB.advance(shortLease); // a's lease has expired for b
    QTRY_VERIFY(b.isLeader());
    QTRY_VERIFY(deregStarted);
    QVERIFY(!a.isLeader());

    QSignalSpy stopped(&a, &Service::stopped);
    a.stop();
    QCoreApplication::processEvents();
    QCOMPARE(stopped.count(), 0); // the callback still runs
    deregistration.finish();
    QVERIFY(stopped.wait());
    stopAndWait(b);
}

void TestClusterService::stopPastTheDeadlineBeforeAnyTimerWaitsForTheDeregistration()
{
    // F4, F5: stop() comes after the deadline and before the timer that
    // would have reported it: stop() itself reports the step-down, the
    // deregistered callback starts, and the stop ends when it is done,
    // without a release (past the deadline the lease is left to expire).
    auto store = makeStore();
    test::ManualClock clock;
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("leader"), {}, &clock);
    QPromise<void> deregistration;
    bool deregStarted = false;
    a.whenLeader([] {}, [&] {
        deregStarted = true;
        deregistration.start();
        return deregistration.future();
    });
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    QCoreApplication::processEvents(); // fn has run
    QSignalSpy events(&a, &ClusterService::electionEvent);
    QSignalSpy stopped(&a, &Service::stopped);
    clock.advance(a.timings().stepDownDeadline);
    a.stop();
    QVERIFY(deregStarted);
    QCoreApplication::processEvents();
    QCOMPARE(stopped.count(), 0);
    deregistration.finish();
    QVERIFY(stopped.wait());
    const QList<QJsonObject> stoppedLeading = eventsNamed(events, QStringLiteral("stopped-leading"));
    QCOMPARE(stoppedLeading.size(), 1);
    QCOMPARE(stoppedLeading.first().value(QStringLiteral("reason")).toString(), QStringLiteral("deadline"));
    const QList<QJsonObject> released = eventsNamed(events, QStringLiteral("released"));
    QCOMPARE(released.size(), 1);
    QCOMPARE(released.first().value(QStringLiteral("released")).toBool(), false);
}

namespace {

/*!
 * Makes \a a, already leading, a follower that stepped down because \a b
 * took the lease over (F3): b's clock moves past a's lease, a's does not,
 * so a's last term ends by the takeover and not by its deadline.
 */
bool takeOver(ClusterService &a, ClusterService &b, test::ManualClock &clockB)
{
    QSignalSpy bEvents(&b, &ClusterService::electionEvent);
    if (!start(b))
        return false;
    if (!QTest::qWaitFor([&] { return !eventsNamed(bEvents, QStringLiteral("attempt")).isEmpty(); }))
        return false; // b has seen a's lease
    clockB.advance(b.timings().leaseDuration);
    return QTest::qWaitFor([&] { return b.isLeader() && !a.isLeader(); });
}

} // namespace

void TestClusterService::stopOfAFollowerEndsAtTheLeaseExpiryOfItsLastTermWhenItsCallbackNeverFinishes()
{
    // F5, W2: a stop always ends. A follower whose deregistered callback of
    // its last term never completes its future still ends its stop: once
    // the lease of that term has expired for the others (its F4 deadline
    // plus the safety margin, the room an --exec grace has), nothing is
    // left that waiting could protect. It ends without a release.
    auto store = makeStore();
    test::ManualClock clockA;
    test::ManualClock clockB;
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("leader"), {}, &clockA);
    StoreCluster b(store.get(), QStringLiteral("b"), QStringLiteral("leader"), {}, &clockB);
    QPromise<void> neverFinished;
    bool deregStarted = false;
    a.whenLeader([] {}, [&] {
        deregStarted = true;
        neverFinished.start();
        return neverFinished.future();
    });
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    QVERIFY(takeOver(a, b, clockB));
    QTRY_VERIFY(deregStarted);

    QSignalSpy events(&a, &ClusterService::electionEvent);
    QSignalSpy stopped(&a, &Service::stopped);
    QTest::ignoreMessage(QtWarningMsg,
                         QRegularExpression(QStringLiteral("deregistered callbacks still running")));
    a.stop();
    QCoreApplication::processEvents();
    QCOMPARE(stopped.count(), 0); // the callback had its time: the lease has not expired
    // By a's clock nothing moves: the bound is counted by the driver's own
    // timer, at most one lease of real time from now.
    QVERIFY(stopped.wait(10000));
    // Nothing was given back: b holds the lease. (The stop asks the elector
    // for a release all the same, so that a write still on its way, had it
    // won, would be given back; here it finds a not the holder.)
    for (const QJsonObject &released : eventsNamed(events, QStringLiteral("released")))
        QVERIFY(!released.value(QStringLiteral("released")).toBool());
    const std::optional<LeaseState> lease = readLease(store.get(), QStringLiteral("leader"));
    QVERIFY(lease && lease->exists);
    QCOMPARE(lease->record.holder, QStringLiteral("b"));
    stopAndWait(b);
}

void TestClusterService::stopOfAFollowerLongAfterItsLastTermDoesNotWaitForAHungCallback()
{
    // F5, W2: the lease of the follower's last term expired long ago for
    // everyone; a callback of that term still hanging does not keep stop()
    // (nor the process) open. W6: the service may then go while the
    // callback's future is still pending; its end finds nothing to touch.
    auto store = makeStore();
    test::ManualClock clockA;
    test::ManualClock clockB;
    QPromise<void> neverFinished;
    auto a = std::make_unique<StoreCluster>(store.get(), QStringLiteral("a"), QStringLiteral("leader"),
                                            StoreCluster::Timings {}, &clockA);
    StoreCluster b(store.get(), QStringLiteral("b"), QStringLiteral("leader"), {}, &clockB);
    a->whenLeader([] {}, [&] {
        neverFinished.start();
        return neverFinished.future();
    });
    QVERIFY(start(*a));
    QTRY_VERIFY(a->isLeader());
    QVERIFY(takeOver(*a, b, clockB));
    clockA.advance(10 * a->timings().leaseDuration);

    QSignalSpy stopped(a.get(), &Service::stopped);
    QTest::ignoreMessage(QtWarningMsg,
                         QRegularExpression(QStringLiteral("deregistered callbacks still running")));
    a->stop();
    QVERIFY(stopped.count() == 1 || stopped.wait(10000));
    a.reset();
    neverFinished.finish();
    QCoreApplication::processEvents();
    stopAndWait(b);
}

void TestClusterService::leadershipChangedHandlerThatStopsTheServiceSeesTheTruthInOrder()
{
    // O1, F5: a slot of leadershipChanged(true) calls stop(). Every
    // receiver, connected before or after that slot, sees true then false,
    // never false then true; the last value is the elector's state.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    QSignalSpy before(&a, &ClusterService::leadershipChanged);
    connect(&a, &ClusterService::leadershipChanged, &a, [&a](bool leading) {
        if (leading)
            a.stop();
    });
    QSignalSpy after(&a, &ClusterService::leadershipChanged);
    QSignalSpy events(&a, &ClusterService::electionEvent);
    QSignalSpy stopped(&a, &Service::stopped);
    QVERIFY(start(a));
    QVERIFY(stopped.count() == 1 || stopped.wait());
    QVERIFY(!a.isLeader());
    QCOMPARE(values(before), (QList<bool> {true, false}));
    QCOMPARE(values(after), (QList<bool> {true, false}));
    // The events tell the same story, and nothing follows the release.
    QStringList names;
    for (const QList<QVariant> &arguments : events)
        names << arguments.first().toJsonObject().value(QStringLiteral("event")).toString();
    QCOMPARE(names.count(QStringLiteral("started-leading")), 1);
    QCOMPARE(names.count(QStringLiteral("stopped-leading")), 1);
    QVERIFY(names.indexOf(QStringLiteral("started-leading")) < names.indexOf(QStringLiteral("stopped-leading")));
    // The attempt that made it leader is told before the stop it led to.
    QVERIFY2(names.indexOf(QStringLiteral("attempt")) < names.indexOf(QStringLiteral("stopped-leading")),
             qPrintable(names.join(QLatin1Char(' '))));
    QCOMPARE(names.last(), QStringLiteral("released"));
    QVERIFY(!readLease(store.get(), QStringLiteral("leader"))->record.holder.contains(QStringLiteral("a")));
}

void TestClusterService::leadershipChangedHandlerThatRegistersAgainRunsTheNewFnOnce()
{
    // W1, W2: a slot of leadershipChanged(true) registers with whenLeader():
    // the new fn runs once for this term, its deregisteredFn once at the
    // stop, and the signals still end on the elector's state.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    int fnRuns = 0;
    int deregRuns = 0;
    connect(&a, &ClusterService::leadershipChanged, &a, [&](bool leading) {
        if (leading)
            a.whenLeader([&] { ++fnRuns; }, [&] { ++deregRuns; });
    });
    QSignalSpy leadership(&a, &ClusterService::leadershipChanged);
    QVERIFY(start(a));
    QTRY_COMPARE(fnRuns, 1);
    QVERIFY(a.isLeader());
    stopAndWait(a);
    QCOMPARE(fnRuns, 1);
    QCOMPARE(deregRuns, 1);
    QCOMPARE(values(leadership), (QList<bool> {true, false}));
}

void TestClusterService::fnThatStopsTheServiceIsDeregisteredBeforeTheRelease()
{
    // F5, W3: fn calls stop() before it returns; the stop's step-down
    // reaches the registrations after fn, and the release waits for the
    // deregistered callback's future, as for any other stop.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    QPromise<void> deregistration;
    bool deregStarted = false;
    a.whenLeader([&] { a.stop(); }, [&] {
        deregStarted = true;
        deregistration.start();
        return deregistration.future();
    });
    QSignalSpy events(&a, &ClusterService::electionEvent);
    QSignalSpy stopped(&a, &Service::stopped);
    QVERIFY(start(a));
    QTRY_VERIFY(deregStarted);
    // Another's read is answered after anything a's release sent before it.
    const std::optional<LeaseState> during = readLease(store.get(), QStringLiteral("leader"));
    QVERIFY(during && during->exists);
    QCOMPARE(during->record.holder, QStringLiteral("a"));
    QVERIFY(eventsNamed(events, QStringLiteral("released")).isEmpty());
    deregistration.finish();
    QVERIFY(stopped.count() == 1 || stopped.wait());
    const QList<QJsonObject> released = eventsNamed(events, QStringLiteral("released"));
    QCOMPARE(released.size(), 1);
    QVERIFY(released.first().value(QStringLiteral("released")).toBool());
}

void TestClusterService::leadershipChangedEndsOnFalseWhenFnStopsTheService()
{
    // O1, F5: fn calls stop() before it returns; the signals say what
    // happened in the order it happened, and the last one says "not
    // leading", as isLeader() does.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    QSignalSpy leadership(&a, &ClusterService::leadershipChanged);
    QSignalSpy stopped(&a, &Service::stopped);
    a.whenLeader([&] { a.stop(); });
    QVERIFY(start(a));
    QVERIFY(stopped.wait());
    QVERIFY(!a.isLeader());
    QCOMPARE(values(leadership), (QList<bool> {true, false}));
}

void TestClusterService::stoppedWhileItsFirstReadIsOnItsWayNeverTakesTheLease()
{
    // F5: stop() comes while the first read is on its way; the stop ends at
    // once (nothing to release), and the read's answer, a free lease, must
    // not lead to a write: a lease taken by a stopped instance is renewed
    // by nobody and released by nobody, and the others wait a whole lease.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"));
    QSignalSpy stopped(&a, &Service::stopped);
    QVERIFY(start(a));
    a.stop();
    QVERIFY(stopped.count() == 1 || stopped.wait());
    // The store answers in order: by the time this read is answered, the
    // answer to a's read has been handled, and any write it led to applied.
    const std::optional<LeaseState> lease = readLease(store.get(), QStringLiteral("leader"));
    QVERIFY(lease);
    QVERIFY2(!lease->exists || lease->record.holder != QStringLiteral("a"),
             "the stopped instance wrote itself into the lease");
}

void TestClusterService::resumedHostStepsDownAtItsFirstEventWithItsDeadline()
{
    // F4: the host was suspended past the deadline. Its clock counted the
    // suspension, its timers did not: whatever comes first after the
    // resume finds isLeader() false, and the step-down reports the deadline,
    // not the moment it was noticed.
    auto store = makeStore();
    test::ManualClock clock;
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("leader"), {}, &clock);
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    QSignalSpy events(&a, &ClusterService::electionEvent);
    QSignalSpy leadership(&a, &ClusterService::leadershipChanged);
    const qint64 suspendedAt = clock.monotonicMs();
    clock.advance(100 * shortLease);
    QVERIFY(!a.isLeader());
    QVERIFY(leadership.wait());
    QCOMPARE(leadership.first().first().toBool(), false);
    const QList<QJsonObject> stoppedLeading = eventsNamed(events, QStringLiteral("stopped-leading"));
    QCOMPARE(stoppedLeading.size(), 1);
    QCOMPARE(stoppedLeading.first().value(QStringLiteral("reason")).toString(), QStringLiteral("deadline"));
    QVERIFY(stoppedLeading.first().value(QStringLiteral("validUntilMono")).toInteger()
            <= suspendedAt + a.timings().stepDownDeadline);
    stopAndWait(a);
}

void TestClusterService::fencingTokenIncreasesAcrossLeaders()
{
    // F7
    auto store = makeStore();
    qint64 previous = -1;
    for (int i = 0; i < 3; ++i) {
        StoreCluster next(store.get(), QStringLiteral("i%1").arg(i));
        QCOMPARE(next.fencingToken(), -1);
        QVERIFY(start(next));
        QTRY_VERIFY(next.isLeader());
        QVERIFY(next.fencingToken() > previous);
        previous = next.fencingToken();
        stopAndWait(next);
        QCOMPARE(next.fencingToken(), -1);
    }
}

void TestClusterService::handOverOnTheLeaderOrAFollowerGoesToTheNamedInstance()
{
    // H1 through the public API: called on the leader it begins at once;
    // called on a follower it asks the leader through the lease record.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a")), b(store.get(), QStringLiteral("b")),
            c(store.get(), QStringLiteral("c"));
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    QVERIFY(start(b));
    QVERIFY(start(c));
    QTRY_COMPARE(b.currentHolder(), QStringLiteral("a"));
    QTRY_COMPARE(c.currentHolder(), QStringLiteral("a"));
    QSignalSpy cLeads(&c, &ClusterService::leadershipChanged);
    a.handOver(QStringLiteral("b"));
    QVERIFY(!a.isLeader()); // stopped at once, before the write
    QTRY_VERIFY(b.isLeader());
    QVERIFY(cLeads.isEmpty());
    c.handOver(QStringLiteral("a")); // from a follower: through the record
    QTRY_VERIFY(a.isLeader());
    QVERIFY(!b.isLeader());
    QVERIFY(cLeads.isEmpty());
}

void TestClusterService::isLeaderComparesTheDeadlineAtCallTime()
{
    // F4: a leader frozen past its deadline reads isLeader() == false on
    // the first call, before any timer of its own has run.
    auto store = makeStore();
    test::ManualClock clock;
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("leader"), {}, &clock);
    QVERIFY(start(a));
    QTRY_VERIFY(a.isLeader());
    clock.advance((shortLease + shortRenew) / 2 - 1);
    QVERIFY(a.isLeader());
    clock.advance(1);
    QVERIFY(!a.isLeader());
    QCOMPARE(a.fencingToken(), -1);
}

void TestClusterService::severalElectionsInOneProcess()
{
    // P3: one process, two lease names, each with its own registrations.
    auto store = makeStore();
    StoreCluster cron(store.get(), QStringLiteral("p"), QStringLiteral("cron"));
    StoreCluster poller(store.get(), QStringLiteral("p"), QStringLiteral("poller"));
    StoreCluster otherPoller(store.get(), QStringLiteral("q"), QStringLiteral("poller"));
    QVERIFY(start(otherPoller));
    QTRY_VERIFY(otherPoller.isLeader());
    int cronRuns = 0, pollerRuns = 0;
    cron.whenLeader([&] { ++cronRuns; });
    poller.whenLeader([&] { ++pollerRuns; });
    QVERIFY(start(cron));
    QVERIFY(start(poller));
    QTRY_VERIFY(cron.isLeader());
    QTRY_COMPARE(cronRuns, 1);
    QVERIFY(!poller.isLeader());
    QCOMPARE(pollerRuns, 0);
    stopAndWait(otherPoller);
    QTRY_COMPARE(pollerRuns, 1);
    stopAndWait(cron);
    stopAndWait(poller);
}

void TestClusterService::registrationsBeforeTheApplicationStartsWaitForItsCluster()
{
    // W7: registered before the cluster service exists, started with it.
    Application app;
    int runs = 0;
    Remover early = whenLeader([&] { ++runs; });
    QString error;
    QVERIFY2(app.loadConfig(R"({"services": {
        "Registry": {"type": "Webda/MemoryStore"},
        "cluster": {"type": "Webda/StoreClusterService", "leaseDuration": 600, "renewInterval": 100}}})",
                            QStringLiteral("w7.json"), &error),
             qPrintable(error));
    int removedEarly = 0;
    Remover removed = whenLeader([&] { ++removedEarly; });
    removed();
    QCOMPARE(runs, 0);
    QVERIFY2(app.init(&error), qPrintable(error));
    QTRY_COMPARE(runs, 1);
    QVERIFY(useCluster().isLeader());
    QCOMPARE(removedEarly, 0);
    QVERIFY(early.isActive());
    QSignalSpy stopped(&app, &Application::stopped);
    app.stop();
    QVERIFY(stopped.wait());
}

void TestClusterService::withoutAClusterServiceTheLocalClusterAlwaysLeads()
{
    // W8: no configuration at all: a single instance that always leads.
    {
        int runs = 0;
        whenLeader([&] { ++runs; });
        QTRY_COMPARE(runs, 1);
        QVERIFY(useCluster().isLeader());
    }
    Application app;
    QString error;
    QVERIFY(app.loadConfig(R"({"services": {}})", QStringLiteral("empty.json"), &error));
    int runs = 0;
    whenLeader([&] { ++runs; });
    QVERIFY(app.init(&error));
    QTRY_COMPARE(runs, 1);
    QVERIFY(useCluster().isLeader());
    QCOMPARE(useCluster().fencingToken(), 0);
}

void TestClusterService::theLocalClusterStillLeadsAfterSleepingLongerThanItsLease()
{
    // W8: the only instance always leads. Its election runs on an
    // always-granting backend, but with no deadline: a laptop that slept an
    // hour (the boot clock counts the sleep) wakes up leading, with no
    // deregistered callback and no second fn.
    test::ManualClock clock;
    LocalCluster solo(&clock);
    int runs = 0;
    int deregistered = 0;
    solo.whenLeader([&] { ++runs; }, [&] { ++deregistered; });
    QVERIFY(start(solo));
    QTRY_COMPARE(runs, 1);
    QSignalSpy leadership(&solo, &ClusterService::leadershipChanged);
    QSignalSpy events(&solo, &ClusterService::electionEvent);
    clock.advance(3600 * 1000);
    QVERIFY(solo.isLeader());
    QCOMPARE(solo.remainingLeadershipMs(), qint64(-1));
    // Its next renewal comes and goes; it still leads, once.
    QTRY_VERIFY_WITH_TIMEOUT(!eventsNamed(events, QStringLiteral("attempt")).isEmpty(), 20000);
    QVERIFY(solo.isLeader());
    QCOMPARE(runs, 1);
    QCOMPARE(deregistered, 0);
    QVERIFY(leadership.isEmpty());
    stopAndWait(solo);
}

void TestClusterService::useClusterReturnsTheFirstClusterInConfigurationOrder()
{
    // C1, P3
    Application app;
    QString error;
    QVERIFY2(app.loadConfig(R"({"services": {
        "Registry": {"type": "Webda/MemoryStore"},
        "zcron": {"type": "StoreClusterService", "leaseName": "cron", "leaseDuration": 600, "renewInterval": 100},
        "apoller": {"type": "StoreClusterService", "leaseName": "poller", "leaseDuration": 600, "renewInterval": 100}}})",
                            QStringLiteral("c1.json"), &error),
             qPrintable(error));
    QVERIFY2(app.init(&error), qPrintable(error));
    QCOMPARE(useCluster().leaseName(), QStringLiteral("cron"));
    QCOMPARE(useCluster(QStringLiteral("apoller"))->leaseName(), QStringLiteral("poller"));
    QCOMPARE(useCluster(QStringLiteral("Registry")), nullptr);
    QTRY_VERIFY(useCluster(QStringLiteral("apoller"))->isLeader());
    QSignalSpy stopped(&app, &Application::stopped);
    app.stop();
    QVERIFY(stopped.wait());
}

void TestClusterService::electionWaitsForAStoreListedAfterTheCluster()
{
    // C2: services start in file order; the election itself begins once
    // every service has started, so its first attempt finds the store ready.
    QTest::failOnWarning(QRegularExpression(QStringLiteral("attempt failed")));
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    Application app;
    QString error;
    QVERIFY2(app.loadConfig(QStringLiteral(R"({"services": {
        "cluster": {"type": "StoreClusterService", "leaseDuration": 600, "renewInterval": 100},
        "Registry": {"type": "Webda/FileStore", "folder": "%1"}}})")
                                    .arg(folder.filePath(QStringLiteral("registry")))
                                    .toUtf8(),
                            QStringLiteral("order.json"), &error),
             qPrintable(error));
    QSignalSpy events(app.firstCluster(), &ClusterService::electionEvent);
    QVERIFY2(app.init(&error), qPrintable(error));
    QTRY_VERIFY(useCluster().isLeader());
    // The first of the election's own events (the candidate roster tells its own beside).
    QString first;
    for (const QList<QVariant> &event : std::as_const(events)) {
        first = event.first().toJsonObject().value(QStringLiteral("event")).toString();
        if (!first.startsWith(QLatin1String("candidate")))
            break;
    }
    QCOMPARE(first, QStringLiteral("leader-changed"));
    for (const QList<QVariant> &event : events)
        QVERIFY(event.first().toJsonObject().value(QStringLiteral("outcome")).toString()
                != QStringLiteral("error"));
    QSignalSpy stopped(&app, &Application::stopped);
    app.stop();
    QVERIFY(stopped.wait());
}

QTEST_GUILESS_MAIN(TestClusterService)
#include "tst_clusterservice.moc"
