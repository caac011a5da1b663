// LeaseObserver: every lease of a store, listed and watched without taking
// part (O2), expiry judged by the observer's own clock (F2), history
// of holder changes with causes (O1) and its CSV and JSON exports. Real
// cluster services on a MemoryStore; waits are for signals.

#include <baton/clock.h>
#include <batoninternal/leasecodec.h>
#include <batoninternal/leasehistory.h>
#include <baton/leaseobserver.h>
#include "memorystore.h"
#include "storecluster.h"

#include <baton/clusterservice.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <algorithm>

using namespace baton;
using baton::test::makeStore;
using baton::test::StoreCluster;

namespace {

/*! A MemoryStore that cannot watch, as a store without watches: the observer polls. */
class UnwatchableStore : public MemoryStore
{
public:
    using MemoryStore::MemoryStore;
    StoreWatch *watch(const QString &, QObject *) override { return nullptr; }
};

bool start(ClusterService &cluster)
{
    QString error;
    return cluster.init(&error);
}

void stopAndWait(ClusterService &cluster)
{
    QSignalSpy stopped(&cluster, &Service::stopped);
    cluster.stop();
    QVERIFY(stopped.wait(10000));
}

void writeRecord(Store &store, const QString &lease, const LeaseRecord &record)
{
    bool done = false;
    store.create(QStringLiteral("cluster:") + lease, leasecodec::encode(record),
                 [&](const StoreResult &result) {
                     QVERIFY(result.ok());
                     done = true;
                 });
    QTRY_VERIFY(done);
}

/*! Writes \a lease's stored history over whatever its holders stored. */
void writeHistory(Store &store, const QString &lease, const QList<HistoryEntry> &changes)
{
    const QString key = leasehistory::registryKey(lease);
    const QJsonObject document = leasehistory::encode(changes);
    bool done = false;
    store.get(key, [&](const StoreResult &current) {
        const auto written = [&](const StoreResult &result) {
            QVERIFY2(result.ok(), qPrintable(result.errorString));
            done = true;
        };
        if (current.ok())
            store.update(key, document, current.entry.version, written);
        else
            store.create(key, document, written);
    });
    QTRY_VERIFY(done);
}

HistoryEntry change(const QString &from, const QString &to, const QString &why, qint64 transitions,
                    const QDateTime &at)
{
    HistoryEntry entry;
    entry.from = from;
    entry.to = to;
    entry.why = why;
    entry.transitions = transitions;
    entry.at = at;
    entry.gapMs = why == QLatin1String("first-acquire") ? -1 : 40 * (transitions + 1);
    return entry;
}

/*! Writes \a lease held by \a holder for a minute, and returns its record. */
LeaseRecord writeHeld(Store &store, const QString &lease, const QString &holder)
{
    LeaseRecord held;
    held.holder = holder;
    held.leaseDurationMs = 60000;
    writeRecord(store, lease, held);
    return held;
}

/*! Replaces \a lease's record, whatever its version, as its next holder would. */
void updateRecord(Store &store, const QString &lease, const LeaseRecord &record)
{
    const QString key = QStringLiteral("cluster:") + lease;
    bool done = false;
    store.get(key, [&](const StoreResult &current) {
        QVERIFY2(current.ok(), qPrintable(current.errorString));
        store.update(key, leasecodec::encode(record), current.entry.version, [&](const StoreResult &result) {
            QVERIFY2(result.ok(), qPrintable(result.errorString));
            done = true;
        });
    });
    QTRY_VERIFY(done);
}

QString holderOf(const LeaseObserver &observer, const QString &lease)
{
    const auto l = observer.lease(lease);
    return l ? l->record.holder : QStringLiteral("<absent>");
}

} // namespace

class TestLeaseObserver : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void listsEveryLeaseAndNothingElse();
    void aCleanHandoverIsOneHistoryRowWithTheGap();
    void anUnrenewedLeaseExpiresByTheObserversClock();
    void aCrashSeenLateCountsFromTheRecordsLastRenewal();
    void anUnreadableEntryIsShownNotGuessed();
    void withoutAWatchTheObserverPolls();
    void historyExportsAsCsvAndJson();
    void theStoredHistoryIsThereBeforeReady();
    void aStoredChangeAlsoSeenLiveIsOneRow();
    void aChangeReadStoredBeforeItsRecordIsOneRow_data();
    void aChangeReadStoredBeforeItsRecordIsOneRow();
    void aHandoverWhoseSuccessorIsReadStoredFirstIsOneRow_data();
    void aHandoverWhoseSuccessorIsReadStoredFirstIsOneRow();
    void aLongListIsTakenAFewHundredLeasesPerTurn();
    void aLeaseGoneFromALaterListIsRemoved();
    void stoppingDuringAListEndsIt();
    void stoppingWhenStoredChangesAreToldEndsTheList();
    void stoppingWhenALeaseIsToldGoneEndsTheList();
    void restartingDuringAListTakesTheNextList();
};

void TestLeaseObserver::listsEveryLeaseAndNothingElse()
{
    // O2: every cluster:* entry, one per lease name (P3), other keys ignored.
    auto store = makeStore();
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("alpha"));
    StoreCluster b(store.get(), QStringLiteral("b"), QStringLiteral("bravo"));
    QVERIFY(start(a) && start(b));
    QTRY_VERIFY(a.isLeader() && b.isLeader());
    bool written = false;
    store->create(QStringLiteral("config:other"), {{QStringLiteral("x"), 1}},
                  [&](const StoreResult &) { written = true; });
    QTRY_VERIFY(written);

    LeaseObserver observer(store.get());
    QSignalSpy ready(&observer, &LeaseObserver::ready);
    observer.start();
    QVERIFY(ready.wait(5000));
    const QList<ObservedLease> leases = observer.leases();
    QCOMPARE(leases.size(), 2);
    QCOMPARE(leases.at(0).name, QStringLiteral("alpha"));
    QCOMPARE(leases.at(0).record.holder, QStringLiteral("a"));
    QCOMPARE(leases.at(1).name, QStringLiteral("bravo"));
    QCOMPARE(leases.at(1).record.holder, QStringLiteral("b"));
    QVERIFY(leases.at(0).valid && leases.at(0).record.acquireTime.isValid());
    // The first list sees no change itself; the history starts with what
    // the leases stored (O2): each one's first acquisition.
    const QList<LeaseFailover> stored = observer.history();
    QCOMPARE(stored.size(), 2);
    for (const LeaseFailover &row : stored) {
        QVERIFY(row.recorded);
        QCOMPARE(row.why, QStringLiteral("first-acquire"));
        QCOMPARE(row.to, row.lease == QLatin1String("alpha") ? QStringLiteral("a") : QStringLiteral("b"));
    }
    // Renewals arrive through the watch (F8 for observers too).
    QSignalSpy changed(&observer, &LeaseObserver::leaseChanged);
    QVERIFY(changed.wait(5000));
    stopAndWait(a);
    stopAndWait(b);
}

void TestLeaseObserver::aCleanHandoverIsOneHistoryRowWithTheGap()
{
    // O1, O2: a clean stop shows as released; when the successor takes the
    // lease, that same row names it, with the gap this observer measured: a
    // handover is one change, not a release and a first acquisition.
    auto store = makeStore();
    StoreCluster x(store.get(), QStringLiteral("x"), QStringLiteral("h"));
    QVERIFY(start(x));
    QTRY_VERIFY(x.isLeader());
    LeaseObserver observer(store.get());
    QSignalSpy ready(&observer, &LeaseObserver::ready);
    observer.start();
    QVERIFY(ready.wait(5000));
    StoreCluster y(store.get(), QStringLiteral("y"), QStringLiteral("h"));
    QVERIFY(start(y));
    QSignalSpy failovers(&observer, &LeaseObserver::failover);
    QSignalSpy handovers(&observer, &LeaseObserver::handedOver);
    const qint64 releasedTransitions = observer.lease(QStringLiteral("h"))->record.transitions;
    stopAndWait(x);
    QTRY_COMPARE(holderOf(observer, QStringLiteral("h")), QStringLiteral("y"));
    const QList<LeaseFailover> history = observer.history();
    // x's first acquisition, as stored, then the handover this observer saw.
    QCOMPARE(history.size(), 2);
    QVERIFY(history.at(0).recorded);
    QCOMPARE(history.at(0).to, QStringLiteral("x"));
    QCOMPARE(failovers.size(), 1); // the release, when seen
    QCOMPARE(failovers.at(0).at(0).value<LeaseFailover>().to, QString());
    QCOMPARE(handovers.size(), 1); // then its successor
    QCOMPARE(handovers.at(0).at(0).toInt(), 1);
    const LeaseFailover handover = history.at(1);
    QVERIFY(!handover.recorded);
    QCOMPARE(handover.from, QStringLiteral("x"));
    QCOMPARE(handover.to, QStringLiteral("y"));
    QCOMPARE(handover.why, QStringLiteral("released"));
    QVERIFY(handover.gapMs >= 0);
    QCOMPARE(handover.mono, failovers.at(0).at(0).value<LeaseFailover>().mono);
    QCOMPARE(handover.gapMs, observer.lease(QStringLiteral("h"))->holderSinceMono - handover.mono);
    QVERIFY(handover.transitions > releasedTransitions); // F7
    QCOMPARE(observer.lease(QStringLiteral("h"))->changesSeen, 2);
    stopAndWait(y);
}

void TestLeaseObserver::anUnrenewedLeaseExpiresByTheObserversClock()
{
    // F2: a holder that stopped renewing (here, one that never existed) is
    // judged expired leaseDuration after the observer saw its record; the
    // next holder's take-up is recorded as "expired", with the gap.
    auto store = makeStore();
    LeaseRecord ghost;
    ghost.holder = QStringLiteral("ghost");
    ghost.leaseDurationMs = 300;
    ghost.transitions = 4;
    const qint64 renewedMono = Clock::system().monotonicMs();
    ghost.acquireTime = ghost.renewTime = QDateTime::currentDateTimeUtc();
    writeRecord(*store, QStringLiteral("g"), ghost);
    LeaseObserver observer(store.get());
    QSignalSpy ready(&observer, &LeaseObserver::ready);
    QSignalSpy expired(&observer, &LeaseObserver::leaseExpired);
    observer.start();
    QVERIFY(ready.wait(5000));
    const qint64 seenAt = observer.lease(QStringLiteral("g"))->changedMono;
    QVERIFY(!observer.lease(QStringLiteral("g"))->expired);
    QVERIFY(expired.wait(5000));
    QCOMPARE(expired.at(0).at(0).toString(), QStringLiteral("g"));
    QVERIFY(observer.lease(QStringLiteral("g"))->expired);
    QVERIFY(observer.clock().monotonicMs() - seenAt >= 300);

    StoreCluster taker(store.get(), QStringLiteral("taker"), QStringLiteral("g"));
    QVERIFY(start(taker));
    QTRY_COMPARE_WITH_TIMEOUT(holderOf(observer, QStringLiteral("g")), QStringLiteral("taker"), 5000);
    const LeaseFailover change = observer.history().constLast();
    QCOMPARE(change.from, QStringLiteral("ghost"));
    QCOMPARE(change.why, QStringLiteral("expired"));
    // From the last renewal seen, not from the expiry: the whole lease the
    // ghost left unrenewed is time without a leader.
    // The record's own renewal time counts too: it was written a moment
    // before the observer saw it, so the gap may exceed the time since.
    QVERIFY2(change.gapMs >= change.mono - seenAt && change.gapMs <= change.mono - renewedMono + 1,
             qPrintable(QStringLiteral("gap %1 ms, %2 ms since seen, %3 ms since written")
                                .arg(change.gapMs)
                                .arg(change.mono - seenAt)
                                .arg(change.mono - renewedMono)));
    QVERIFY(change.gapMs >= 300);
    QVERIFY(!observer.lease(QStringLiteral("g"))->expired);
    stopAndWait(taker);
}

void TestLeaseObserver::aCrashSeenLateCountsFromTheRecordsLastRenewal()
{
    // O2: an observer (and a successor) started long after the holder
    // stopped renewing: the time without a leader runs from the renewal the
    // record says, not from when they first saw it.
    auto store = makeStore();
    LeaseRecord ghost;
    ghost.holder = QStringLiteral("ghost");
    ghost.leaseDurationMs = 300;
    ghost.transitions = 4;
    ghost.acquireTime = ghost.renewTime = QDateTime::currentDateTimeUtc().addSecs(-10);
    writeRecord(*store, QStringLiteral("late"), ghost);
    LeaseObserver observer(store.get());
    QSignalSpy ready(&observer, &LeaseObserver::ready);
    observer.start();
    QVERIFY(ready.wait(5000));
    StoreCluster taker(store.get(), QStringLiteral("taker"), QStringLiteral("late"));
    QVERIFY(start(taker));
    QTRY_COMPARE_WITH_TIMEOUT(holderOf(observer, QStringLiteral("late")), QStringLiteral("taker"), 5000);
    const LeaseFailover change = observer.history().constLast();
    QCOMPARE(change.from, QStringLiteral("ghost"));
    QCOMPARE(change.why, QStringLiteral("expired"));
    QVERIFY2(change.gapMs >= 10000, qPrintable(QString::number(change.gapMs)));
    stopAndWait(taker);
}

void TestLeaseObserver::anUnreadableEntryIsShownNotGuessed()
{
    // R1: a record with a wrong field is listed as unreadable, naming the field.
    auto store = makeStore();
    bool done = false;
    store->create(QStringLiteral("cluster:bad"), {{QStringLiteral("holderIdentity"), 5}},
                  [&](const StoreResult &) { done = true; });
    QTRY_VERIFY(done);
    LeaseObserver observer(store.get());
    QSignalSpy ready(&observer, &LeaseObserver::ready);
    observer.start();
    QVERIFY(ready.wait(5000));
    const auto bad = observer.lease(QStringLiteral("bad"));
    QVERIFY(bad.has_value());
    QVERIFY(!bad->valid);
    QVERIFY2(bad->error.contains(QStringLiteral("holderIdentity")), qPrintable(bad->error));
    QVERIFY(bad->record.holder.isEmpty());
}

void TestLeaseObserver::withoutAWatchTheObserverPolls()
{
    // B1: a store that cannot watch is listed again every poll interval.
    auto store = makeStore<UnwatchableStore>();
    LeaseObserver observer(store.get());
    observer.setPollInterval(50);
    QSignalSpy ready(&observer, &LeaseObserver::ready);
    observer.start();
    QVERIFY(ready.wait(5000));
    QVERIFY(observer.leases().isEmpty());
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("polled"));
    QVERIFY(start(a));
    QTRY_COMPARE_WITH_TIMEOUT(holderOf(observer, QStringLiteral("polled")), QStringLiteral("a"), 5000);
    // Appeared while observed: a first acquisition in the history.
    QCOMPARE(observer.history().size(), 1);
    QCOMPARE(observer.history().at(0).why, QStringLiteral("first-acquire"));
    stopAndWait(a);
    QTRY_COMPARE_WITH_TIMEOUT(holderOf(observer, QStringLiteral("polled")), QString(), 5000);
}

void TestLeaseObserver::historyExportsAsCsvAndJson()
{
    // O2: CSV (RFC 4180, quoted where needed) and JSON, one row per change.
    LeaseFailover first;
    first.lease = QStringLiteral("cron");
    first.from = QStringLiteral("web,1 \"old\"");
    first.to = QStringLiteral("web-2");
    first.why = QStringLiteral("expired");
    first.when = QDateTime(QDate(2026, 1, 2), QTime(3, 4, 5, 678), Qt::UTC);
    first.mono = 1234;
    first.gapMs = 56;
    first.transitions = 7;
    first.recorded = true;
    LeaseFailover second = first;
    second.from = QStringLiteral("web-2");
    second.to.clear();
    second.why = QStringLiteral("released");
    second.gapMs = -1;
    second.recorded = false;
    const QList<LeaseFailover> history {first, second};

    const QStringList lines = QString::fromUtf8(LeaseObserver::historyToCsv(history))
                                      .split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines.at(0), QStringLiteral("lease,from,to,why,time,mono,gapMs,transitions,recorded"));
    QCOMPARE(lines.at(1), QStringLiteral("cron,\"web,1 \"\"old\"\"\",web-2,expired,"
                                         "2026-01-02T03:04:05.678Z,1234,56,7,true"));
    QCOMPARE(lines.at(2), QStringLiteral("cron,web-2,,released,2026-01-02T03:04:05.678Z,1234,,7,false"));

    QJsonParseError error;
    const QJsonDocument json = QJsonDocument::fromJson(LeaseObserver::historyToJson(history), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(json.object().value(QStringLiteral("v")).toInt(), 1);
    const QJsonArray rows = json.object().value(QStringLiteral("history")).toArray();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows.at(0).toObject().value(QStringLiteral("from")).toString(), first.from);
    QCOMPARE(rows.at(0).toObject().value(QStringLiteral("gapMs")).toInt(), 56);
    QCOMPARE(rows.at(0).toObject().value(QStringLiteral("time")).toString(),
             QStringLiteral("2026-01-02T03:04:05.678Z"));
    QVERIFY(!rows.at(1).toObject().contains(QStringLiteral("gapMs")));
    QCOMPARE(rows.at(0).toObject().value(QStringLiteral("recorded")).toBool(), true);
    QCOMPARE(rows.at(1).toObject().value(QStringLiteral("recorded")).toBool(), false);
}

void TestLeaseObserver::theStoredHistoryIsThereBeforeReady()
{
    // O2: what the holders stored is in history() from the first ready(),
    // oldest first across leases, marked recorded; an unreadable history
    // is one warning, and its lease is shown all the same.
    auto store = makeStore();
    const QDateTime t0 = QDateTime::currentDateTimeUtc().addSecs(-3600);
    LeaseRecord cron;
    cron.holder = QStringLiteral("c");
    cron.leaseDurationMs = 60000;
    cron.transitions = 2;
    writeRecord(*store, QStringLiteral("cron"), cron);
    writeHistory(*store, QStringLiteral("cron"),
                 {change({}, QStringLiteral("a"), QStringLiteral("first-acquire"), 0, t0),
                  change(QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("expired"), 1, t0.addSecs(60)),
                  change(QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("released"), 2, t0.addSecs(180))});
    LeaseRecord mail = cron;
    mail.holder = QStringLiteral("m");
    mail.transitions = 0;
    writeRecord(*store, QStringLiteral("mail"), mail);
    writeHistory(*store, QStringLiteral("mail"),
                 {change({}, QStringLiteral("m"), QStringLiteral("first-acquire"), 0, t0.addSecs(120))});
    LeaseRecord odd = mail;
    writeRecord(*store, QStringLiteral("odd"), odd);
    bool done = false;
    store->create(leasehistory::registryKey(QStringLiteral("odd")), {{QStringLiteral("v"), 9}},
                  [&](const StoreResult &) { done = true; });
    QTRY_VERIFY(done);

    LeaseObserver observer(store.get());
    QList<LeaseFailover> atReady;
    connect(&observer, &LeaseObserver::ready, this, [&] { atReady = observer.history(); });
    QSignalSpy ready(&observer, &LeaseObserver::ready);
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("odd: ignoring its stored history: field \"v\" must be 1")));
    observer.start();
    QVERIFY(ready.wait(5000));
    QCOMPARE(observer.leases().size(), 3);
    QStringList rows;
    for (const LeaseFailover &row : atReady) {
        QVERIFY(row.recorded);
        rows << QStringLiteral("%1 %2>%3 %4 %5").arg(row.lease, row.from, row.to, row.why).arg(row.transitions);
    }
    QCOMPARE(rows, (QStringList {QStringLiteral("cron >a first-acquire 0"), QStringLiteral("cron a>b expired 1"),
                                 QStringLiteral("mail >m first-acquire 0"), QStringLiteral("cron b>c released 2")}));
    QCOMPARE(atReady.at(3).when, t0.addSecs(180));
    QCOMPARE(atReady.at(3).gapMs, 120);
    // A second list brings nothing new and says nothing more.
    QSignalSpy read(&observer, &LeaseObserver::historyRead);
    observer.setPollInterval(10);
    LeaseRecord other = mail;
    other.holder = QStringLiteral("x");
    writeRecord(*store, QStringLiteral("poke"), other);
    QTRY_VERIFY(observer.lease(QStringLiteral("poke")).has_value());
    QCOMPARE(observer.history().size(), 4 + 1); // poke's first acquisition, seen live
    QCOMPARE(read.size(), 0);
}

void TestLeaseObserver::aStoredChangeAlsoSeenLiveIsOneRow()
{
    // O2: a change seen live and later read from the stored history (same
    // lease, same transitions) is one row; one only stored is added, with
    // historyRead().
    auto store = makeStore<UnwatchableStore>();
    LeaseObserver observer(store.get());
    observer.setPollInterval(20);
    QSignalSpy ready(&observer, &LeaseObserver::ready);
    QSignalSpy read(&observer, &LeaseObserver::historyRead);
    observer.start();
    QVERIFY(ready.wait(5000));
    StoreCluster a(store.get(), QStringLiteral("a"), QStringLiteral("jobs"));
    QVERIFY(start(a));
    QTRY_COMPARE_WITH_TIMEOUT(holderOf(observer, QStringLiteral("jobs")), QStringLiteral("a"), 5000);
    QCOMPARE(observer.history().size(), 1);
    const qint64 term = observer.lease(QStringLiteral("jobs"))->record.transitions;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    // The same acquisition as stored, and a later one this observer has
    // not seen (between two polls, say).
    writeHistory(*store, QStringLiteral("jobs"),
                 {change({}, QStringLiteral("a"), QStringLiteral("first-acquire"), term, now),
                  change(QStringLiteral("a"), QStringLiteral("y"), QStringLiteral("expired"), term + 1, now.addSecs(1))});
    QVERIFY(read.wait(5000));
    const QList<LeaseFailover> history = observer.history();
    QCOMPARE(history.size(), 2);
    QVERIFY(!history.at(0).recorded);
    QCOMPARE(history.at(0).to, QStringLiteral("a"));
    QVERIFY(history.at(1).recorded);
    QCOMPARE(history.at(1).to, QStringLiteral("y"));
    stopAndWait(a);
}

void TestLeaseObserver::aChangeReadStoredBeforeItsRecordIsOneRow_data()
{
    QTest::addColumn<QString>("recordHolder");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("failovers");
    QTest::addColumn<int>("storedSeen");
    QTest::newRow("the record names the stored row's holder: that row, now seen")
            << QStringLiteral("b") << 2 << 0 << 1;
    // A tool that does not count its writes can show two holders at the
    // same transitions: a stored row only stands for the holder it names.
    QTest::newRow("the record names another holder: a row of its own") << QStringLiteral("c") << 3 << 1 << 0;
}

void TestLeaseObserver::aChangeReadStoredBeforeItsRecordIsOneRow()
{
    // O2: the other order. A list can read a change from the stored history
    // before the record that made it arrives (written between the list of
    // the leases and that of the histories, or a watch event that lags).
    QFETCH(QString, recordHolder);
    QFETCH(int, rows);
    QFETCH(int, failovers);
    QFETCH(int, storedSeen);
    auto store = makeStore<UnwatchableStore>();
    const LeaseRecord held = writeHeld(*store, QStringLiteral("cron"), QStringLiteral("a"));
    LeaseObserver observer(store.get());
    observer.setPollInterval(20);
    QSignalSpy ready(&observer, &LeaseObserver::ready);
    QSignalSpy read(&observer, &LeaseObserver::historyRead);
    QSignalSpy failoverSpy(&observer, &LeaseObserver::failover);
    QSignalSpy seenSpy(&observer, &LeaseObserver::storedChangeSeen);
    observer.start();
    QVERIFY(ready.wait(5000));
    const QDateTime now = QDateTime::currentDateTimeUtc();
    writeHistory(*store, QStringLiteral("cron"),
                 {change({}, QStringLiteral("a"), QStringLiteral("first-acquire"), 0, now.addSecs(-60)),
                  change(QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("expired"), 1, now)});
    QVERIFY(read.wait(5000));
    QCOMPARE(observer.history().size(), 2);
    LeaseRecord taken = held;
    taken.holder = recordHolder;
    taken.transitions = 1;
    updateRecord(*store, QStringLiteral("cron"), taken);
    QTRY_COMPARE_WITH_TIMEOUT(holderOf(observer, QStringLiteral("cron")), recordHolder, 5000);
    const QList<LeaseFailover> history = observer.history();
    QCOMPARE(history.size(), rows);
    QCOMPARE(failoverSpy.size(), failovers);
    // Told once either way: by failover() or, for the stored row, here.
    QCOMPARE(seenSpy.size(), storedSeen);
    if (storedSeen > 0) {
        QCOMPARE(seenSpy.at(0).at(0).toInt(), 1);
        QCOMPARE(seenSpy.at(0).at(1).value<LeaseFailover>().to, recordHolder);
    }
    QVERIFY(history.at(1).recorded);
    QCOMPARE(history.last().to, recordHolder);
}

void TestLeaseObserver::aHandoverWhoseSuccessorIsReadStoredFirstIsOneRow_data()
{
    QTest::addColumn<QString>("storedFrom");
    QTest::newRow("the successor names the holder it saw") << QStringLiteral("a");
    // A successor started after the release never saw the lease held.
    QTest::newRow("the successor saw no holder") << QString();
}

void TestLeaseObserver::aHandoverWhoseSuccessorIsReadStoredFirstIsOneRow()
{
    // O2: the release is seen live, and its successor's change is read from
    // the stored history before the successor's record arrives: the
    // release's row gets the successor, as when the record comes first.
    QFETCH(QString, storedFrom);
    auto store = makeStore<UnwatchableStore>();
    const LeaseRecord held = writeHeld(*store, QStringLiteral("cron"), QStringLiteral("a"));
    LeaseObserver observer(store.get());
    observer.setPollInterval(20);
    QSignalSpy ready(&observer, &LeaseObserver::ready);
    QSignalSpy failovers(&observer, &LeaseObserver::failover);
    QSignalSpy handovers(&observer, &LeaseObserver::handedOver);
    observer.start();
    QVERIFY(ready.wait(5000));
    LeaseRecord released = held;
    released.holder.clear();
    updateRecord(*store, QStringLiteral("cron"), released);
    QVERIFY(failovers.wait(5000));
    QCOMPARE(observer.history().size(), 1);
    QCOMPARE(observer.history().at(0).why, QStringLiteral("released"));

    writeHistory(*store, QStringLiteral("cron"),
                 {change(storedFrom, QStringLiteral("b"), QStringLiteral("released"), 1,
                         QDateTime::currentDateTimeUtc())});
    QVERIFY(handovers.wait(5000));
    QCOMPARE(handovers.at(0).at(0).toInt(), 0);
    LeaseRecord taken = held;
    taken.holder = QStringLiteral("b");
    taken.transitions = 1;
    updateRecord(*store, QStringLiteral("cron"), taken);
    QTRY_COMPARE_WITH_TIMEOUT(holderOf(observer, QStringLiteral("cron")), QStringLiteral("b"), 5000);

    const QList<LeaseFailover> history = observer.history();
    QCOMPARE(history.size(), 1);
    QCOMPARE(history.at(0).from, QStringLiteral("a"));
    QCOMPARE(history.at(0).to, QStringLiteral("b"));
    QCOMPARE(history.at(0).transitions, qint64(1));
    QCOMPARE(history.at(0).gapMs, qint64(80)); // the stored gap: 40 * (transitions + 1)
    QCOMPARE(failovers.size(), 1);
    QCOMPARE(handovers.size(), 1);
}

void TestLeaseObserver::aLongListIsTakenAFewHundredLeasesPerTurn()
{
    // O2, O4: a first list of thousands of leases with their stored
    // histories is applied a slice per event-loop turn, so that a window
    // showing it never freezes; ready() comes after the last slice, with
    // every lease and every stored change in place, the stored changes
    // told slice by slice. Counted in leases per turn, not timed.
    constexpr int leases = 4000;
    auto store = makeStore();
    const QDateTime t0 = QDateTime::currentDateTimeUtc().addSecs(-3600);
    int written = 0;
    for (int i = 0; i < leases; ++i) {
        const QString lease = QStringLiteral("lease-%1").arg(i, 4, 10, QLatin1Char('0'));
        LeaseRecord record;
        record.holder = QStringLiteral("node-%1").arg(i % 7);
        record.leaseDurationMs = 60000;
        record.transitions = 1;
        const auto counted = [&](const StoreResult &result) { written += result.ok() ? 1 : 0; };
        store->create(QStringLiteral("cluster:") + lease, leasecodec::encode(record), counted);
        store->create(leasehistory::registryKey(lease),
                      leasehistory::encode({change({}, QStringLiteral("node-x"), QStringLiteral("first-acquire"), 0,
                                                   t0.addSecs(i % 60)),
                                            change(QStringLiteral("node-x"), record.holder,
                                                   QStringLiteral("taken-over"), 1, t0.addSecs(60 + i % 60))}),
                      counted);
    }
    QTRY_COMPARE(written, 2 * leases);

    LeaseObserver observer(store.get());
    int thisTurn = 0;
    int mostInATurn = 0;
    int turnsWithLeases = 0;
    const auto endTurn = [&] {
        mostInATurn = std::max(mostInATurn, thisTurn);
        turnsWithLeases += thisTurn > 0 ? 1 : 0;
        thisTurn = 0;
    };
    QTimer turn;
    turn.setInterval(0);
    connect(&turn, &QTimer::timeout, this, endTurn);
    connect(&observer, &LeaseObserver::leaseChanged, this, [&] { ++thisTurn; });
    qsizetype toldStored = 0;
    connect(&observer, &LeaseObserver::storedHistoryAdded, this,
            [&](const QList<LeaseFailover> &changes) { toldStored += changes.size(); });
    qsizetype atReady = -1;
    qsizetype leasesAtReady = -1;
    connect(&observer, &LeaseObserver::ready, this, [&] {
        atReady = observer.history().size();
        leasesAtReady = observer.leases().size();
    });
    QSignalSpy ready(&observer, &LeaseObserver::ready);
    turn.start();
    observer.start();
    QVERIFY(ready.wait(30000));
    endTurn();
    QCOMPARE(leasesAtReady, leases);
    QCOMPARE(atReady, 2 * leases);
    QCOMPARE(toldStored, 2 * leases);
    // A slice is at most 250 leases, fewer once its few milliseconds are
    // up: a few may share a turn of the timer counting them, never the
    // whole list.
    QVERIFY2(mostInATurn <= 1000, qPrintable(QStringLiteral("%1 leases in one turn").arg(mostInATurn)));
    QVERIFY2(turnsWithLeases >= 4, qPrintable(QStringLiteral("%1 turns").arg(turnsWithLeases)));
    // Still oldest first across leases.
    const QList<LeaseFailover> history = observer.history();
    for (qsizetype row = 1; row < history.size(); ++row)
        QVERIFY(!(history.at(row).when < history.at(row - 1).when));
}

namespace {

/*! Writes \a count leases held by one node, each with a stored first acquisition. */
void writeHeldLeases(Store &store, int count)
{
    LeaseRecord record;
    record.holder = QStringLiteral("node");
    record.leaseDurationMs = 600000;
    record.transitions = 1;
    const QDateTime t0 = QDateTime::currentDateTimeUtc().addSecs(-60);
    for (int i = 0; i < count; ++i) {
        const QString lease = QStringLiteral("lease-%1").arg(i);
        writeRecord(store, lease, record);
        writeHistory(store, lease, { change({}, QStringLiteral("node"), QStringLiteral("first-acquire"), 0, t0) });
    }
}

/*!
 * An observer, not started yet, of \a count held leases (writeHeldLeases())
 * on a store of type \a S of its own, with its ready() and leaseRemoved()
 * counted.
 */
template<typename S = MemoryStore>
struct ObservedLeases
{
    explicit ObservedLeases(int count) { writeHeldLeases(*store, count); }

    std::unique_ptr<S> store = makeStore<S>();
    LeaseObserver observer { store.get() };
    QSignalSpy ready { &observer, &LeaseObserver::ready };
    QSignalSpy removed { &observer, &LeaseObserver::leaseRemoved };

    /*! Removes the leases \a names from the store, each at the version it has. */
    void removeBehindItsBack(const QStringList &names)
    {
        for (const QString &gone : names) {
            std::optional<StoreResult> removal;
            store->get(QStringLiteral("cluster:") + gone, [&](const StoreResult &entry) {
                QVERIFY(entry.ok());
                store->remove(entry.entry.key, entry.entry.version,
                              [&](const StoreResult &result) { removal = result; });
            });
            QTRY_VERIFY(removal.has_value());
            QVERIFY2(removal->ok(), qPrintable(removal->errorString));
        }
    }
};

} // namespace

void TestLeaseObserver::aLeaseGoneFromALaterListIsRemoved()
{
    // O2: without a watch, a lease removed from the store is known gone when
    // a list no longer has it; the others stay. More leases than one slice
    // holds, so the list that tells spans several turns.
    constexpr int leases = 700;
    ObservedLeases<UnwatchableStore> observed(leases);
    LeaseObserver &observer = observed.observer;
    observer.setPollInterval(20);
    observer.start();
    QVERIFY(observed.ready.wait(10000));
    QCOMPARE(observer.leases().size(), leases);
    QCOMPARE(observed.removed.size(), 0);

    observed.removeBehindItsBack({ QStringLiteral("lease-3"), QStringLiteral("lease-650") });
    if (QTest::currentTestFailed())
        return;
    QTRY_COMPARE_WITH_TIMEOUT(observed.removed.size(), 2, 10000);
    // One list may tell both, in no particular order.
    QStringList told { observed.removed.at(0).at(0).toString(), observed.removed.at(1).at(0).toString() };
    told.sort();
    QCOMPARE(told, (QStringList { QStringLiteral("lease-3"), QStringLiteral("lease-650") }));
    QCOMPARE(observer.leases().size(), leases - 2);
    QVERIFY(!observer.lease(QStringLiteral("lease-3")).has_value());
    QVERIFY(observer.lease(QStringLiteral("lease-4")).has_value());
}

void TestLeaseObserver::stoppingDuringAListEndsIt()
{
    // A slot that stops the observer while a list is being applied ends the
    // list there: nothing more is applied or told, and ready() never comes.
    ObservedLeases observed(600);
    int changed = 0;
    connect(&observed.observer, &LeaseObserver::leaseChanged, this, [&] {
        if (++changed == 10)
            observed.observer.stop();
    });
    observed.observer.start();
    QTRY_COMPARE_WITH_TIMEOUT(changed, 10, 30000);
    // Whatever was still to come would come within a few turns.
    QVERIFY(!observed.ready.wait(500));
    QCOMPARE(changed, 10);
    QCOMPARE(observed.observer.leases().size(), 10);
    QCOMPARE(observed.removed.size(), 0);
}

void TestLeaseObserver::stoppingWhenStoredChangesAreToldEndsTheList()
{
    // The stored changes of a slice are told before ready(); a slot of
    // theirs that stops the observer ends the list too: no lease is dropped
    // as gone, nothing is told after stop().
    ObservedLeases observed(600);
    int told = 0;
    connect(&observed.observer, &LeaseObserver::storedHistoryAdded, this, [&] {
        if (++told == 1)
            observed.observer.stop();
    });
    observed.observer.start();
    QTRY_COMPARE_WITH_TIMEOUT(told, 1, 30000);
    QVERIFY(!observed.ready.wait(500));
    QCOMPARE(told, 1);
    QCOMPARE(observed.removed.size(), 0);
    QVERIFY(!observed.observer.leases().isEmpty());
}

void TestLeaseObserver::stoppingWhenALeaseIsToldGoneEndsTheList()
{
    // Two leases one list finds gone, and a slot of the first removal that
    // stops the observer: the second is not told, nor anything after stop().
    ObservedLeases<UnwatchableStore> observed(20);
    LeaseObserver &observer = observed.observer;
    observer.setPollInterval(3600 * 1000); // lists come from the restart below only
    observer.start();
    QVERIFY(observed.ready.wait(10000));
    observed.removeBehindItsBack({ QStringLiteral("lease-3"), QStringLiteral("lease-15") });
    if (QTest::currentTestFailed())
        return;
    connect(&observer, &LeaseObserver::leaseRemoved, this, [&] { observer.stop(); });
    QSignalSpy historyRead(&observer, &LeaseObserver::historyRead);
    // Restarted, it keeps the leases it knows and lists at once.
    observer.stop();
    observer.start();
    // Both would be told from one loop, before the first tell returns here.
    QTRY_VERIFY_WITH_TIMEOUT(!observed.removed.isEmpty(), 10000);
    QCOMPARE(observed.removed.size(), 1);
    QCOMPARE(historyRead.size(), 0);
    QCOMPARE(observed.ready.size(), 1);
    QCOMPARE(observer.leases().size(), 19);
}

void TestLeaseObserver::restartingDuringAListTakesTheNextList()
{
    // A slot that stops and starts the observer again while a list is being
    // applied: the rest of that list is dropped, the next list is taken
    // whole, and no lease is ever told gone.
    constexpr int leases = 600;
    ObservedLeases observed(leases);
    int changed = 0;
    connect(&observed.observer, &LeaseObserver::leaseChanged, this, [&] {
        if (++changed == 10) {
            observed.observer.stop();
            observed.observer.start();
        }
    });
    observed.observer.start();
    QVERIFY(observed.ready.wait(30000));
    QCOMPARE(observed.ready.size(), 1);
    QCOMPARE(observed.observer.leases().size(), leases);
    QCOMPARE(observed.removed.size(), 0);
}

QTEST_GUILESS_MAIN(TestLeaseObserver)
#include "tst_leaseobserver.moc"
