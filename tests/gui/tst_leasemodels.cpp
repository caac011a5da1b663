// The dashboard's models (O4, O2): the lease table with its freshness
// ratio, the name/holder filter and the sort, the failover history with its
// CSV and JSON export, the activity behind the timeline. Every model runs
// under QAbstractItemModelTester. Leases are written straight into a
// MemoryStore; the observer runs on a ManualClock, so ages are exact.

#include "manualclock.h"
#include "failoverhistorymodel.h"
#include "fleettimelinemodel.h"
#include "chartsupport.h"
#include "fleettimelinewidget.h"
#include "leaseactivity.h"
#include <batoninternal/leasecodec.h>
#include <batoninternal/leasehistory.h>
#include "leasefilterproxymodel.h"
#include <baton/leaseobserver.h>
#include <batoninternal/registrykey.h>
#include "leasescript.h"
#include "leasetablemodel.h"
#include "memorystore.h"
#include "timelinewidget.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QHelpEvent>
#include <QImage>
#include <QPainter>
#include <QFont>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>

using namespace baton;

namespace {

constexpr qint64 leaseMs = 10'000;

struct Fixture
{
    Fixture()
        : store(QStringLiteral("Registry"), QJsonObject(), nullptr)
        , observer(&store, &clock)
        , script(&store)
    {
        QString error;
        if (!store.init(&error))
            qFatal("%s", qPrintable(error));
    }

    /*! Stores \a changes as the history of \a lease, as its holders would have written it. */
    bool writeHistory(const QString &lease, const QList<HistoryEntry> &changes)
    {
        bool done = false;
        bool ok = false;
        store.create(leasehistory::registryKey(lease), leasehistory::encode(changes), [&](const StoreResult &result) {
            done = true;
            ok = result.ok();
        });
        return QTest::qWaitFor([&] { return done; }, 5000) && ok;
    }

    bool write(const QString &lease, const QString &holder)
    {
        bool done = false;
        bool ok = false;
        script.write(lease, holder, leaseMs, [&](bool success) {
            done = true;
            ok = success;
        });
        // A condition wait (what QTRY_ uses), never a fixed delay.
        return QTest::qWaitFor([&] { return done; }, 5000) && ok;
    }

    test::ManualClock clock;
    MemoryStore store;
    LeaseObserver observer;
    LeaseScript script;
};

QString cell(const QAbstractItemModel &model, int row, int column, int role = Qt::DisplayRole)
{
    return model.index(row, column).data(role).toString();
}

QStringList leaseColumn(const QAbstractItemModel &model)
{
    QStringList names;
    for (int row = 0; row < model.rowCount(); ++row)
        names.append(cell(model, row, LeaseTableModel::LeaseColumn));
    return names;
}

/*!
 * Counts the rows \a model names in dataChanged over the freshness column:
 * the rows a proxy sorted by it sorts again (it sorts every row of such a
 * range), and the largest range inserted at once.
 */
struct SortWork
{
    explicit SortWork(LeaseTableModel *model)
    {
        QObject::connect(model, &QAbstractItemModel::dataChanged, model,
                         [this](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                             if (topLeft.column() <= LeaseTableModel::FreshnessColumn
                                 && bottomRight.column() >= LeaseTableModel::FreshnessColumn)
                                 resorted += bottomRight.row() - topLeft.row() + 1;
                         });
        QObject::connect(model, &QAbstractItemModel::rowsInserted, model, [this](const QModelIndex &, int first, int last) {
            largestInsert = std::max(largestInsert, last - first + 1);
        });
    }
    int resorted = 0;
    int largestInsert = 0;
};

} // namespace

class TestLeaseModels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void tableShowsEveryLeaseAndFollowsChanges();
    void freshnessRatioAgesByTheObserversClock();
    void filterByNameAndHolder_data();
    void filterByNameAndHolder();
    void sortsEveryColumnByItsValue();
    void ownLeaseIsMarked();
    void heldSinceIsTheHoldersAcquireTimeNotWhenTheObserverConnected();
    void historyModelAndItsExportsParse();
    void theModelsStartWithTheStoredHistoryThenFollowLive();
    void activityRecordsSpansAndRenewals();
    void fleetTimelineHasALanePerLeaseWithItsHoldersAndGaps();
    void fleetTimelineHighlightsTheFilteredHoldersLanes_data();
    void fleetTimelineHighlightsTheFilteredHoldersLanes();
    void fleetTimelineSpansWhatIsKnownAndAClickSelects();
    void aCrashGapRunsFromTheLastRenewalSeenToTheTakeover_data();
    void aCrashGapRunsFromTheLastRenewalSeenToTheTakeover();
    void aStoredCrashGapRunsFromTheLastRenewalWritten();
    void theTimelineHatchesTheCrashGapNotTheBars();
    void theRowsSortedAgainPerTickAndRenewalDoNotGrowWithTheLeases_data();
    void theRowsSortedAgainPerTickAndRenewalDoNotGrowWithTheLeases();
    void theTickKeepsTheOrderByFreshnessAcrossLeaseDurations();
};

void TestLeaseModels::tableShowsEveryLeaseAndFollowsChanges()
{
    // O2, O4: every cluster:* lease, one row each, updated in place.
    Fixture f;
    QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("node-a")));
    QVERIFY(f.write(QStringLiteral("poller"), QStringLiteral("node-b")));
    f.observer.start();
    LeaseTableModel model(&f.observer);
    model.setUpdateInterval(0);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_COMPARE(model.rowCount(), 2);
    QCOMPARE(cell(model, model.rowOf(QStringLiteral("cron")), LeaseTableModel::HolderColumn),
             QStringLiteral("node-a"));

    QVERIFY(f.write(QStringLiteral("reports"), QStringLiteral("node-c")));
    QTRY_COMPARE(model.rowCount(), 3);
    QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("node-b")));
    QTRY_COMPARE(cell(model, model.rowOf(QStringLiteral("cron")), LeaseTableModel::HolderColumn),
                 QStringLiteral("node-b"));
    QCOMPARE(model.index(model.rowOf(QStringLiteral("cron")), LeaseTableModel::ChangesColumn).data().toInt(), 1);
    QCOMPARE(model.index(model.rowOf(QStringLiteral("cron")), LeaseTableModel::TransitionsColumn).data().toInt(), 1);

    // A lease removed from the store leaves the table.
    bool removed = false;
    f.store.remove(QStringLiteral("cluster:poller"), {}, [&](const StoreResult &r) { removed = r.ok(); });
    QTRY_VERIFY(removed);
    QTRY_COMPARE(model.rowCount(), 2);
    QCOMPARE(model.rowOf(QStringLiteral("poller")), -1);
    QCOMPARE(cell(model, model.rowOf(QStringLiteral("reports")), LeaseTableModel::HolderColumn),
             QStringLiteral("node-c"));
}

void TestLeaseModels::freshnessRatioAgesByTheObserversClock()
{
    // O4 with F2: time since the last change seen, against the lease duration.
    Fixture f;
    QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("node-a")));
    QVERIFY(f.write(QStringLiteral("free"), QString()));
    f.observer.start();
    LeaseTableModel model(&f.observer);
    model.setUpdateInterval(0);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_COMPARE(model.rowCount(), 2);
    const QModelIndex cron = model.index(model.rowOf(QStringLiteral("cron")), LeaseTableModel::FreshnessColumn);
    QCOMPARE(cron.data(LeaseTableModel::FreshnessRole).toDouble(), 0.0);
    QCOMPARE(cron.data(LeaseTableModel::LeaseDurationMsRole).toLongLong(), leaseMs);
    f.clock.advance(leaseMs / 2 + 1000);
    QCOMPARE(cron.data(LeaseTableModel::FreshnessRole).toDouble(), 0.6);
    QCOMPARE(cron.data(LeaseTableModel::SinceChangeMsRole).toLongLong(), leaseMs / 2 + 1000);
    // A free lease has no freshness to show.
    const QModelIndex free = model.index(model.rowOf(QStringLiteral("free")), LeaseTableModel::FreshnessColumn);
    QCOMPARE(free.data(LeaseTableModel::FreshnessRole).toDouble(), -1.0);
    QCOMPARE(free.siblingAtColumn(LeaseTableModel::StateColumn).data(LeaseTableModel::StateKeyRole).toString(),
             QStringLiteral("free"));
    // A renewal resets it.
    QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("node-a")));
    QTRY_COMPARE(cron.data(LeaseTableModel::FreshnessRole).toDouble(), 0.0);
}

void TestLeaseModels::filterByNameAndHolder_data()
{
    QTest::addColumn<QString>("filter");
    QTest::addColumn<QStringList>("shown");
    QTest::newRow("no filter shows every lease")
            << QString() << QStringList {QStringLiteral("billing-cron"), QStringLiteral("mail-poller"),
                                         QStringLiteral("reports")};
    QTest::newRow("a word matches the lease name") << QStringLiteral("poll") << QStringList {QStringLiteral("mail-poller")};
    QTest::newRow("a word matches the holder") << QStringLiteral("node-b")
                                               << QStringList {QStringLiteral("mail-poller"), QStringLiteral("reports")};
    QTest::newRow("holder: matches the holder only") << QStringLiteral("holder:CRON") << QStringList {};
    QTest::newRow("lease: matches the name only") << QStringLiteral("lease:cron")
                                                  << QStringList {QStringLiteral("billing-cron")};
    QTest::newRow("two words must both match") << QStringLiteral("holder:node-b rep")
                                               << QStringList {QStringLiteral("reports")};
}

void TestLeaseModels::filterByNameAndHolder()
{
    QFETCH(QString, filter);
    QFETCH(QStringList, shown);
    Fixture f;
    QVERIFY(f.write(QStringLiteral("billing-cron"), QStringLiteral("node-a")));
    QVERIFY(f.write(QStringLiteral("mail-poller"), QStringLiteral("node-b")));
    QVERIFY(f.write(QStringLiteral("reports"), QStringLiteral("node-b")));
    f.observer.start();
    LeaseTableModel model(&f.observer);
    model.setUpdateInterval(0);
    LeaseFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.sort(LeaseTableModel::LeaseColumn);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_COMPARE(model.rowCount(), 3);
    proxy.setFilterText(filter);
    QStringList names;
    for (int row = 0; row < proxy.rowCount(); ++row)
        names.append(cell(proxy, row, LeaseTableModel::LeaseColumn));
    QCOMPARE(names, shown);
}

void TestLeaseModels::sortsEveryColumnByItsValue()
{
    Fixture f;
    QVERIFY(f.write(QStringLiteral("a"), QStringLiteral("zulu")));
    QVERIFY(f.write(QStringLiteral("b"), QStringLiteral("alpha")));
    QVERIFY(f.write(QStringLiteral("c"), QStringLiteral("mike")));
    f.observer.start();
    LeaseTableModel model(&f.observer);
    model.setUpdateInterval(0);
    LeaseFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_COMPARE(model.rowCount(), 3);
    // Ten transitions on "c", two on "a": numbers sort as numbers, not text.
    for (int i = 0; i < 5; ++i) {
        QVERIFY(f.write(QStringLiteral("c"), QStringLiteral("x")));
        QVERIFY(f.write(QStringLiteral("c"), QStringLiteral("mike")));
    }
    QVERIFY(f.write(QStringLiteral("a"), QStringLiteral("x")));
    QVERIFY(f.write(QStringLiteral("a"), QStringLiteral("zulu")));
    QTRY_COMPARE(model.index(model.rowOf(QStringLiteral("c")), LeaseTableModel::TransitionsColumn).data().toInt(), 10);

    proxy.sort(LeaseTableModel::HolderColumn, Qt::AscendingOrder);
    QCOMPARE(cell(proxy, 0, LeaseTableModel::HolderColumn), QStringLiteral("alpha"));
    QCOMPARE(cell(proxy, 2, LeaseTableModel::HolderColumn), QStringLiteral("zulu"));
    proxy.sort(LeaseTableModel::TransitionsColumn, Qt::DescendingOrder);
    QCOMPARE(cell(proxy, 0, LeaseTableModel::LeaseColumn), QStringLiteral("c"));
    QCOMPARE(cell(proxy, 1, LeaseTableModel::LeaseColumn), QStringLiteral("a"));
    QCOMPARE(cell(proxy, 2, LeaseTableModel::LeaseColumn), QStringLiteral("b"));

    // The sort follows live changes (dynamic sort): "b" gets the most renewals' age.
    proxy.sort(LeaseTableModel::FreshnessColumn, Qt::DescendingOrder);
    f.clock.advance(3000);
    QVERIFY(f.write(QStringLiteral("a"), QStringLiteral("zulu")));
    QVERIFY(f.write(QStringLiteral("c"), QStringLiteral("mike")));
    QTRY_COMPARE(cell(proxy, 0, LeaseTableModel::LeaseColumn), QStringLiteral("b"));
}

void TestLeaseModels::ownLeaseIsMarked()
{
    // O4: the dashboard's own lease is marked in the table.
    Fixture f;
    QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("dashboard-1")));
    QVERIFY(f.write(QStringLiteral("other"), QStringLiteral("node-a")));
    f.observer.start();
    LeaseTableModel model(&f.observer);
    model.setUpdateInterval(0);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_COMPARE(model.rowCount(), 2);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setOwnInstanceId(QStringLiteral("dashboard-1"));
    QVERIFY(!changed.isEmpty());
    QVERIFY(model.index(model.rowOf(QStringLiteral("cron")), 0).data(LeaseTableModel::OwnLeaseRole).toBool());
    QVERIFY(!model.index(model.rowOf(QStringLiteral("other")), 0).data(LeaseTableModel::OwnLeaseRole).toBool());
    QVERIFY(model.index(model.rowOf(QStringLiteral("cron")), 0).data(Qt::FontRole).value<QFont>().bold());
}

void TestLeaseModels::heldSinceIsTheHoldersAcquireTimeNotWhenTheObserverConnected()
{
    // O4: a holder of an hour, seen by a dashboard that just connected,
    // shows an hour, from the record's acquireTime (the holder's clock).
    Fixture f;
    LeaseRecord record;
    record.holder = QStringLiteral("node-a");
    record.leaseDurationMs = leaseMs;
    record.acquireTime = f.clock.wallNow().addSecs(-3600);
    record.renewTime = f.clock.wallNow();
    bool created = false;
    f.store.create(registryLeasePrefix + QStringLiteral("cron"), leasecodec::encode(record),
                   [&](const StoreResult &result) { created = result.ok(); });
    QTRY_VERIFY(created);
    f.observer.start();
    LeaseTableModel model(&f.observer);
    model.setUpdateInterval(0);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_COMPARE(model.rowCount(), 1);
    const QString expected
            = QStringLiteral("%1 (%2)").arg(record.acquireTime.toLocalTime().toString(QStringLiteral("HH:mm:ss")),
                                            LeaseTableModel::formatDuration(3'600'000));
    QCOMPARE(cell(model, 0, LeaseTableModel::HeldSinceColumn), expected);
    // What this observer saw stays available, in the tooltip.
    QVERIFY(cell(model, 0, LeaseTableModel::HeldSinceColumn, Qt::ToolTipRole).contains(QStringLiteral("this observer")));
}

void TestLeaseModels::historyModelAndItsExportsParse()
{
    // O2: from, to, when, why, gap; exported as CSV and JSON that parse back.
    // O1: a clean handover is one row (released, from the old holder to the
    // new, with the gap), shown as a release to nobody until taken up.
    Fixture f;
    QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("node-a")));
    QVERIFY(f.write(QStringLiteral("other"), QStringLiteral("node-z")));
    f.observer.start();
    QSignalSpy ready(&f.observer, &LeaseObserver::ready);
    QVERIFY(ready.wait(5000));
    FailoverHistoryModel model(&f.observer);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy updated(&model, &QAbstractItemModel::dataChanged);
    QVERIFY(f.write(QStringLiteral("cron"), QString())); // released
    QTRY_COMPARE(model.rowCount(), 1);
    QCOMPARE(model.index(0, FailoverHistoryModel::ToColumn).data().toString(), FailoverHistoryModel::tr("(none)"));
    QCOMPARE(model.index(0, FailoverHistoryModel::GapColumn).data(FailoverHistoryModel::GapMsRole).toLongLong(), -1);
    f.clock.advance(1500);
    QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("node,b"))); // a comma needs quoting
    QVERIFY(f.write(QStringLiteral("other"), QStringLiteral("node-y"))); // taken over
    QTRY_COMPARE(model.rowCount(), 2);
    QCOMPARE(updated.size(), 1);
    QCOMPARE(model.index(0, FailoverHistoryModel::WhyColumn).data(FailoverHistoryModel::WhyKeyRole).toString(),
             QStringLiteral("released"));
    QCOMPARE(model.index(0, FailoverHistoryModel::FromColumn).data().toString(), QStringLiteral("node-a"));
    QCOMPARE(model.index(0, FailoverHistoryModel::ToColumn).data().toString(), QStringLiteral("node,b"));
    QCOMPARE(model.index(0, FailoverHistoryModel::GapColumn).data(FailoverHistoryModel::GapMsRole).toLongLong(), 1500);
    QCOMPARE(model.index(1, FailoverHistoryModel::WhyColumn).data(FailoverHistoryModel::WhyKeyRole).toString(),
             QStringLiteral("taken-over"));

    // A model made after the handover shows the same single row.
    FailoverHistoryModel later(&f.observer);
    later.setLease(QStringLiteral("cron"));
    QCOMPARE(later.rowCount(), 1);
    QCOMPARE(later.failoverAt(0).to, QStringLiteral("node,b"));

    model.setLease(QStringLiteral("cron"));
    QCOMPARE(model.rowCount(), 1);

    // CSV: a header and one record a row, RFC 4180 quoting.
    const QList<QByteArray> lines = model.toCsv().split('\n');
    QCOMPARE(lines.at(0).trimmed(), QByteArray("lease,from,to,why,time,mono,gapMs,transitions,recorded"));
    QCOMPARE(lines.size(), 3); // header, one row, the empty piece after the last CRLF
    QVERIFY(lines.at(1).startsWith("cron,node-a,\"node,b\",released,"));
    QVERIFY(lines.at(1).trimmed().endsWith(",1500,1,false"));

    // JSON: the history array with the same fields.
    model.setLease({});
    QJsonParseError error;
    const QJsonDocument json = QJsonDocument::fromJson(model.toJson(), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    const QJsonArray rows = json.object().value(QStringLiteral("history")).toArray();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows.at(0).toObject().value(QStringLiteral("to")).toString(), QStringLiteral("node,b"));
    QCOMPARE(rows.at(0).toObject().value(QStringLiteral("gapMs")).toInt(), 1500);
    QCOMPARE(rows.at(0).toObject().value(QStringLiteral("why")).toString(), QStringLiteral("released"));
}

void TestLeaseModels::theModelsStartWithTheStoredHistoryThenFollowLive()
{
    // O2, O4: models made before the observer starts (as the dashboard makes
    // them) show, from its first list, the changes the lease stores: the
    // history rows marked as recorded, and the timelines' spans from the
    // first recorded acquisition; then they follow what is seen live.
    Fixture f;
    const QString cron = QStringLiteral("cron");
    QVERIFY(f.write(cron, QStringLiteral("node-a")));
    QVERIFY(f.write(cron, QStringLiteral("node-b")));
    QVERIFY(f.write(cron, QStringLiteral("node-c"))); // transitions 2
    const QDateTime now = f.clock.wallNow();
    const qint64 t0 = f.clock.monotonicMs();
    QVERIFY(f.writeHistory(cron, {
        {QString(), QStringLiteral("node-a"), QStringLiteral("first-acquire"), now.addSecs(-60), -1, 0},
        {QStringLiteral("node-a"), QStringLiteral("node-b"), QStringLiteral("expired"), now.addSecs(-40), 3000, 1},
        {QStringLiteral("node-b"), QStringLiteral("node-c"), QStringLiteral("released"), now.addSecs(-20), 200, 2},
    }));
    FailoverHistoryModel history(&f.observer);
    QAbstractItemModelTester tester(&history, QAbstractItemModelTester::FailureReportingMode::QtTest);
    LeaseActivity activity(&f.observer);
    FleetTimelineModel fleet;
    fleet.setActivity(&activity);
    QSignalSpy ready(&f.observer, &LeaseObserver::ready);
    f.observer.start();
    QVERIFY(ready.wait(5000));

    QCOMPARE(history.rowCount(), 3);
    const QStringList whys {QStringLiteral("first-acquire"), QStringLiteral("expired"), QStringLiteral("released")};
    for (int row = 0; row < 3; ++row) {
        const QModelIndex why = history.index(row, FailoverHistoryModel::WhyColumn);
        QCOMPARE(why.data(FailoverHistoryModel::WhyKeyRole).toString(), whys.at(row));
        QVERIFY(why.data(FailoverHistoryModel::RecordedRole).toBool());
        QVERIFY(why.data(Qt::FontRole).value<QFont>().italic());
    }
    QCOMPARE(cell(history, 2, FailoverHistoryModel::FromColumn), QStringLiteral("node-b"));
    QCOMPARE(cell(history, 2, FailoverHistoryModel::ToColumn), QStringLiteral("node-c"));
    QCOMPARE(history.index(2, FailoverHistoryModel::GapColumn).data(FailoverHistoryModel::GapMsRole).toLongLong(), 200);
    QVERIFY(cell(history, 2, FailoverHistoryModel::WhenColumn, Qt::ToolTipRole).contains(QStringLiteral("node-c")));

    // The lane starts at the first recorded acquisition; the expiry and the
    // release show as stretches without a leader; the holder seen is one
    // span from its recorded acquisition.
    const QList<FleetSegment> lane = fleet.segments(cron);
    QCOMPARE(lane.size(), 5);
    QCOMPARE(lane.at(0).holder, QStringLiteral("node-a"));
    QCOMPARE(lane.at(0).startMono, t0 - 60'000);
    QCOMPARE(lane.at(0).endMono, t0 - 43'000);
    QVERIFY(lane.at(0).recorded);
    QVERIFY(lane.at(1).noLeader);
    QCOMPARE(lane.at(1).endMono, t0 - 40'000);
    QCOMPARE(lane.at(2).holder, QStringLiteral("node-b"));
    QCOMPARE(lane.at(2).endMono, t0 - 20'200);
    QVERIFY(lane.at(3).noLeader);
    QCOMPARE(lane.at(3).endMono, t0 - 20'000);
    QCOMPARE(lane.at(4).holder, QStringLiteral("node-c"));
    QCOMPARE(lane.at(4).startMono, t0 - 20'000);
    QCOMPARE(lane.at(4).endMono, -1);
    QVERIFY(!lane.at(4).recorded);
    QCOMPARE(fleet.knownSinceMono(), t0 - 60'000);
    QCOMPARE(activity.track(cron).spans.size(), 4);

    // Then live: a change seen is a row of its own, not recorded.
    f.clock.advance(1000);
    QVERIFY(f.write(cron, QStringLiteral("node-d")));
    QTRY_COMPARE(history.rowCount(), 4);
    QVERIFY(!history.index(3, 0).data(FailoverHistoryModel::RecordedRole).toBool());
    QCOMPARE(cell(history, 3, FailoverHistoryModel::ToColumn), QStringLiteral("node-d"));
    QTRY_COMPARE(fleet.segments(cron).size(), 6);
    QCOMPARE(fleet.segments(cron).at(4).endMono, t0 + 1000);
    QCOMPARE(fleet.knownSinceMono(), t0 - 60'000);
}

void TestLeaseModels::activityRecordsSpansAndRenewals()
{
    // O4: holders over time with the gaps, and renewals as seen from outside.
    Fixture f;
    QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("node-a")));
    f.observer.start();
    QSignalSpy ready(&f.observer, &LeaseObserver::ready);
    QVERIFY(ready.wait(5000));
    LeaseActivity activity(&f.observer);
    for (int i = 0; i < 4; ++i) {
        f.clock.advance(2000);
        QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("node-a")));
    }
    f.clock.advance(500);
    QVERIFY(f.write(QStringLiteral("cron"), QString()));
    f.clock.advance(700);
    QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("node-b")));
    QTRY_COMPARE(activity.track(QStringLiteral("cron")).spans.size(), 3);
    const LeaseTrack track = activity.track(QStringLiteral("cron"));
    QCOMPARE(track.spans.at(0).holder, QStringLiteral("node-a"));
    QCOMPARE(track.spans.at(1).holder, QString());
    QCOMPARE(track.spans.at(1).endMono - track.spans.at(1).startMono, 700);
    QCOMPARE(track.spans.at(2).endMono, -1);
    QCOMPARE(track.renewals.size(), 4);
    QCOMPARE(track.renewals.at(3).intervalMs, 2000);
    QCOMPARE(LeaseActivity::estimatedRenewInterval(track), 2000);
}

void TestLeaseModels::fleetTimelineHasALanePerLeaseWithItsHoldersAndGaps()
{
    // O4: the fleet at a glance: one lane per lease, by name, each the
    // holders' stretches and, hatched, the stretch without a leader.
    Fixture f;
    QVERIFY(f.write(QStringLiteral("other"), QStringLiteral("node-b")));
    QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("node-a")));
    f.observer.start();
    QSignalSpy ready(&f.observer, &LeaseObserver::ready);
    QVERIFY(ready.wait(5000));
    const qint64 t0 = f.clock.monotonicMs();
    LeaseActivity activity(&f.observer);
    FleetTimelineModel model;
    QSignalSpy lanes(&model, &FleetTimelineModel::lanesChanged);
    model.setActivity(&activity);
    QCOMPARE(model.leases(), (QStringList {QStringLiteral("cron"), QStringLiteral("other")}));
    QCOMPARE(model.knownSinceMono(), t0);

    f.clock.advance(1000);
    QVERIFY(f.write(QStringLiteral("cron"), QString())); // released
    const qint64 released = f.clock.monotonicMs();
    f.clock.advance(500);
    QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("node-c")));
    const qint64 taken = f.clock.monotonicMs();
    QTRY_COMPARE(model.segments(QStringLiteral("cron")).size(), 3);
    const QList<FleetSegment> cron = model.segments(QStringLiteral("cron"));
    QCOMPARE(cron.at(0).holder, QStringLiteral("node-a"));
    QCOMPARE(cron.at(0).startMono, t0);
    QCOMPARE(cron.at(0).endMono, released);
    QVERIFY(!cron.at(0).noLeader);
    QVERIFY(cron.at(1).noLeader);
    QCOMPARE(cron.at(1).startMono, released);
    QCOMPARE(cron.at(1).endMono, taken);
    QCOMPARE(cron.at(2).holder, QStringLiteral("node-c"));
    QCOMPARE(cron.at(2).endMono, -1); // still held
    QCOMPARE(model.segments(QStringLiteral("other")).size(), 1);

    // A lease that appears gets its lane in order; the first instant known stays.
    lanes.clear();
    QVERIFY(f.write(QStringLiteral("backup"), QStringLiteral("node-a")));
    QTRY_COMPARE(model.laneCount(), 3);
    QCOMPARE(lanes.size(), 1);
    QCOMPARE(model.laneOf(QStringLiteral("backup")), 0);
    QCOMPARE(model.laneOf(QStringLiteral("other")), 2);
    QCOMPARE(model.knownSinceMono(), t0);
}

void TestLeaseModels::fleetTimelineHighlightsTheFilteredHoldersLanes_data()
{
    QTest::addColumn<QString>("filter");
    QTest::addColumn<QStringList>("highlighted");
    QTest::newRow("no filter highlights nothing") << QString() << QStringList();
    QTest::newRow("a holder lights every lease it held, even one it lost")
            << QStringLiteral("holder:NODE-A") << QStringList {QStringLiteral("backup"), QStringLiteral("cron")};
    QTest::newRow("a plain word is matched against holders too")
            << QStringLiteral("node-b") << QStringList {QStringLiteral("other")};
    QTest::newRow("a lease: word highlights no holder") << QStringLiteral("lease:cron") << QStringList();
}

void TestLeaseModels::fleetTimelineHighlightsTheFilteredHoldersLanes()
{
    // O4: the holder filter highlights that holder's lanes: a node that
    // held three leases lights up three lanes, not one at a time.
    QFETCH(QString, filter);
    QFETCH(QStringList, highlighted);
    Fixture f;
    QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("node-a")));
    QVERIFY(f.write(QStringLiteral("backup"), QStringLiteral("node-a")));
    QVERIFY(f.write(QStringLiteral("other"), QStringLiteral("node-b")));
    f.observer.start();
    QSignalSpy ready(&f.observer, &LeaseObserver::ready);
    QVERIFY(ready.wait(5000));
    LeaseActivity activity(&f.observer);
    QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("node-c"))); // taken over from node-a
    QTRY_COMPARE(activity.track(QStringLiteral("cron")).spans.size(), 2);
    FleetTimelineModel model;
    model.setActivity(&activity);
    QSignalSpy changed(&model, &FleetTimelineModel::changed);
    model.setHolderFilter(LeaseFilterProxyModel::holderWordsIn(filter));
    QStringList lit;
    for (const QString &lease : model.leases())
        if (model.isHighlighted(lease))
            lit.append(lease);
    QCOMPARE(lit, highlighted);
    // A repaint is asked for only when the words changed.
    QCOMPARE(changed.isEmpty(), LeaseFilterProxyModel::holderWordsIn(filter).isEmpty());
}

void TestLeaseModels::fleetTimelineSpansWhatIsKnownAndAClickSelects()
{
    // O4: by default the span fits what this observer knows, from its first
    // sighting to now (no minutes of nothing before it connected); a click
    // on a lane selects that lease.
    Fixture f;
    QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("node-a")));
    QVERIFY(f.write(QStringLiteral("other"), QStringLiteral("node-b")));
    f.observer.start();
    QSignalSpy ready(&f.observer, &LeaseObserver::ready);
    QVERIFY(ready.wait(5000));
    const qint64 t0 = f.clock.monotonicMs();
    LeaseActivity activity(&f.observer);
    FleetTimelineWidget widget;
    widget.resize(640, 240);
    widget.setActivity(&activity);
    QVERIFY(widget.isFitted());
    for (int i = 0; i < 5; ++i) { // 40 s of renewals, each within the lease
        f.clock.advance(8000);
        QVERIFY(f.write(QStringLiteral("cron"), QStringLiteral("node-a")));
    }
    const qint64 known = f.clock.monotonicMs() - t0;
    const chart::TimeScale scale = widget.timeScale();
    QCOMPARE(scale.end, f.clock.monotonicMs());
    QVERIFY2(scale.start <= t0, qPrintable(QString::number(t0 - scale.start)));
    QVERIFY2(t0 - scale.start <= known / 10, qPrintable(QString::number(t0 - scale.start)));

    // Zooming makes the span the operator's; Home fits it again.
    QTest::keyClick(&widget, Qt::Key_Minus);
    QVERIFY(!widget.isFitted());
    QTest::keyClick(&widget, Qt::Key_Home);
    QVERIFY(widget.isFitted());

    QSignalSpy activated(&widget, &FleetTimelineWidget::leaseActivated);
    QPoint onOther;
    for (int y = 0; y < widget.height() && onOther.isNull(); ++y)
        if (widget.leaseAt(QPoint(widget.width() / 2, y)) == QLatin1String("other"))
            onOther = QPoint(widget.width() / 2, y + 2);
    QVERIFY(!onOther.isNull());
    QTest::mouseClick(&widget, Qt::LeftButton, {}, onOther);
    QCOMPARE(activated.size(), 1);
    QCOMPARE(activated.at(0).at(0).toString(), QStringLiteral("other"));
    QCOMPARE(widget.model()->selectedLease(), QStringLiteral("other"));
}

namespace {

/*!
 * Renews \a lease as \a holder every 2 s for 8 s, then \a successor takes
 * it \a silenceMs after the last renewal, the observer having judged the
 * expiry first if \a expirySeen; returns the last renewal's instant.
 */
qint64 crashAndTakeOver(Fixture &f, const QString &lease, qint64 silenceMs, bool expirySeen)
{
    for (int i = 0; i < 4; ++i) {
        f.clock.advance(2000);
        if (!f.write(lease, QStringLiteral("node-a")))
            return -1;
    }
    const qint64 lastRenewal = f.clock.monotonicMs();
    if (expirySeen) {
        // The expiry timer runs on the observer's clock: another lease's
        // write has it look again once the clock has passed the deadline.
        f.clock.advance(leaseMs + 1);
        QSignalSpy expired(&f.observer, &LeaseObserver::leaseExpired);
        if (!f.write(QStringLiteral("tick"), QStringLiteral("node-z")) || !QTest::qWaitFor([&] { return !expired.isEmpty(); }, 5000))
            return -1;
        f.clock.setMonotonicMs(lastRenewal + silenceMs);
    } else {
        f.clock.advance(silenceMs);
    }
    return f.write(lease, QStringLiteral("node-b")) ? lastRenewal : -1;
}

} // namespace

void TestLeaseModels::aCrashGapRunsFromTheLastRenewalSeenToTheTakeover_data()
{
    QTest::addColumn<bool>("expirySeen");
    QTest::newRow("the expiry seen before the takeover") << true;
    QTest::newRow("the takeover seen before the expiry") << false;
}

void TestLeaseModels::aCrashGapRunsFromTheLastRenewalSeenToTheTakeover()
{
    // O4, F2: a holder that stopped renewing held the lease until its last
    // renewal, not until its successor took it: the lane shows the time
    // without a leader from there to the takeover, the history's gap.
    QFETCH(bool, expirySeen);
    Fixture f;
    const QString cron = QStringLiteral("cron");
    QVERIFY(f.write(cron, QStringLiteral("node-a")));
    QSignalSpy ready(&f.observer, &LeaseObserver::ready);
    f.observer.start();
    QVERIFY(ready.wait(5000));
    LeaseActivity activity(&f.observer);
    FleetTimelineModel fleet;
    fleet.setActivity(&activity);
    FailoverHistoryModel history(&f.observer);
    QAbstractItemModelTester tester(&history, QAbstractItemModelTester::FailureReportingMode::QtTest);

    const qint64 lastRenewal = crashAndTakeOver(f, cron, 12'000, expirySeen);
    QVERIFY(lastRenewal > 0);
    const qint64 takeover = f.clock.monotonicMs();
    // The same gap as the history's row (the lease that ticked the expiry
    // timer has a row of its own).
    QTRY_COMPARE(cell(history, history.rowCount() - 1, FailoverHistoryModel::ToColumn), QStringLiteral("node-b"));
    const QModelIndex row = history.index(history.rowCount() - 1, 0);
    QCOMPARE(row.data(FailoverHistoryModel::WhyKeyRole).toString(), QStringLiteral("expired"));
    QCOMPARE(row.data(FailoverHistoryModel::GapMsRole).toLongLong(), takeover - lastRenewal);

    QTRY_COMPARE(fleet.segments(cron).size(), 3);
    const QList<FleetSegment> lane = fleet.segments(cron);
    QCOMPARE(lane.at(0).holder, QStringLiteral("node-a"));
    QCOMPARE(lane.at(0).endMono, lastRenewal);
    QVERIFY(lane.at(1).noLeader);
    QCOMPARE(lane.at(1).startMono, lastRenewal);
    QCOMPARE(lane.at(1).endMono, takeover);
    QCOMPARE(lane.at(1).stoppedHolder, QStringLiteral("node-a"));
    QCOMPARE(lane.at(2).holder, QStringLiteral("node-b"));
    QCOMPARE(lane.at(2).startMono, takeover);

    // A release is not a crash: its holder led until the release, and the
    // gap is the release's own.
    f.clock.advance(1000);
    QVERIFY(f.write(cron, QString()));
    const qint64 released = f.clock.monotonicMs();
    f.clock.advance(40);
    QVERIFY(f.write(cron, QStringLiteral("node-c")));
    QTRY_COMPARE(fleet.segments(cron).size(), 5);
    const QList<FleetSegment> after = fleet.segments(cron);
    QCOMPARE(after.at(2).endMono, released);
    QVERIFY(after.at(3).noLeader);
    QVERIFY(after.at(3).stoppedHolder.isEmpty());
    QCOMPARE(after.at(3).durationMs(f.clock.monotonicMs()), 40);
}

void TestLeaseModels::aStoredCrashGapRunsFromTheLastRenewalWritten()
{
    // O2, O4: a crash stored before the dashboard connected: the successor
    // wrote the gap from the last renewal it read, so the old holder's bar
    // ends there and the time without a leader runs to the takeover.
    Fixture f;
    const QString cron = QStringLiteral("cron");
    QVERIFY(f.write(cron, QStringLiteral("node-a")));
    QVERIFY(f.write(cron, QStringLiteral("node-b"))); // transitions 1
    const QDateTime now = f.clock.wallNow();
    const qint64 t0 = f.clock.monotonicMs();
    QVERIFY(f.writeHistory(cron, {
        {QString(), QStringLiteral("node-a"), QStringLiteral("first-acquire"), now.addSecs(-60), -1, 0},
        {QStringLiteral("node-a"), QStringLiteral("node-b"), QStringLiteral("expired"), now.addSecs(-30), 17'000, 1},
    }));
    LeaseActivity activity(&f.observer);
    FleetTimelineModel fleet;
    fleet.setActivity(&activity);
    QSignalSpy ready(&f.observer, &LeaseObserver::ready);
    f.observer.start();
    QVERIFY(ready.wait(5000));
    const QList<FleetSegment> lane = fleet.segments(cron);
    QCOMPARE(lane.size(), 3);
    QCOMPARE(lane.at(0).holder, QStringLiteral("node-a"));
    QCOMPARE(lane.at(0).endMono, t0 - 47'000);
    QVERIFY(lane.at(1).noLeader);
    QVERIFY(lane.at(1).recorded);
    QCOMPARE(lane.at(1).startMono, t0 - 47'000);
    QCOMPARE(lane.at(1).endMono, t0 - 30'000);
    QCOMPARE(lane.at(1).stoppedHolder, QStringLiteral("node-a"));
    QCOMPARE(lane.at(2).holder, QStringLiteral("node-b"));
}

void TestLeaseModels::theTimelineHatchesTheCrashGapNotTheBars()
{
    // O4: the lease timeline paints the time without a leader after a
    // crash hatched, from the last renewal, and no holder's bar over it.
    Fixture f;
    const QString cron = QStringLiteral("cron");
    QVERIFY(f.write(cron, QStringLiteral("node-a")));
    QSignalSpy ready(&f.observer, &LeaseObserver::ready);
    f.observer.start();
    QVERIFY(ready.wait(5000));
    const qint64 t0 = f.clock.monotonicMs();
    LeaseActivity activity(&f.observer);
    const qint64 lastRenewal = crashAndTakeOver(f, cron, 12'000, false);
    QVERIFY(lastRenewal > 0);
    const qint64 takeover = f.clock.monotonicMs();
    f.clock.advance(8000);
    QVERIFY(f.write(cron, QStringLiteral("node-b")));

    TimelineWidget widget;
    widget.resize(640, 200);
    widget.setActivity(&activity);
    widget.setLease(cron);
    QTRY_COMPARE(activity.track(cron).spans.size(), 2);
    QImage image(widget.size(), QImage::Format_RGB32);
    widget.render(&image);

    // The hatch's line colour, as the widget paints it on its base.
    QImage reference(16, 16, QImage::Format_RGB32);
    reference.fill(widget.palette().color(QPalette::Base));
    {
        QPainter painter(&reference);
        chart::fillNoLeader(&painter, reference.rect(), widget.palette());
    }
    QHash<QRgb, int> counts;
    for (int x = 0; x < 16; ++x)
        counts[reference.pixel(x, 8)]++;
    QCOMPARE(counts.size(), 2);
    const QRgb hatch = counts.begin().value() < std::next(counts.begin()).value() ? counts.begin().key()
                                                                                   : std::next(counts.begin()).key();
    auto hatchedPixels = [&](qint64 from, qint64 to) {
        const chart::TimeScale scale = widget.timeScale();
        int found = 0;
        for (int x = scale.xAt(from) + 3; x < scale.xAt(to) - 3; ++x)
            for (int y = scale.plot.top() + 4; y < scale.plot.top() + 40; ++y)
                found += image.pixel(x, y) == hatch ? 1 : 0;
        return found;
    };
    const qint64 third = (takeover - lastRenewal) / 3;
    QVERIFY2(hatchedPixels(lastRenewal, lastRenewal + third) > 10, "the gap's first third is not hatched");
    QVERIFY2(hatchedPixels(takeover - third, takeover) > 10, "the gap's last third is not hatched");
    QCOMPARE(hatchedPixels(t0 + 1000, lastRenewal), 0);
    QCOMPARE(hatchedPixels(takeover, f.clock.monotonicMs()), 0);

    // Hovering the gap says in words how long nobody led, and why.
    const chart::TimeScale scale = widget.timeScale();
    const QPoint inGap((scale.xAt(lastRenewal) + scale.xAt(takeover)) / 2, scale.plot.top() + 10);
    QHelpEvent help(QEvent::ToolTip, inGap, widget.mapToGlobal(inGap));
    QApplication::sendEvent(&widget, &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().startsWith(QStringLiteral("No leader for 12 s (node-a stopped renewing)")),
             qPrintable(QToolTip::text()));
    QToolTip::hideText();
}

void TestLeaseModels::theRowsSortedAgainPerTickAndRenewalDoNotGrowWithTheLeases_data()
{
    QTest::addColumn<int>("leases");
    QTest::newRow("100 leases") << 100;
    QTest::newRow("10,000 leases") << 10'000;
}

void TestLeaseModels::theRowsSortedAgainPerTickAndRenewalDoNotGrowWithTheLeases()
{
    // O4: the table sorted by freshness stays responsive with thousands of
    // leases: the once-a-second tick names no row when every lease has the
    // same duration (their order does not change as they age), a renewal
    // names its own row, and a long first list is inserted in batches.
    // Counted in rows, not timed: the same at 100 and 10,000 leases.
    QFETCH(int, leases);
    Fixture f;
    const auto name = [](int i) { return QStringLiteral("lease-%1").arg(i, 5, 10, QLatin1Char('0')); };
    int written = 0;
    for (int i = 0; i < leases; ++i)
        f.script.write(name(i), QStringLiteral("node-%1").arg(i % 17), leaseMs, [&](bool ok) { written += ok ? 1 : 0; });
    QTRY_COMPARE_WITH_TIMEOUT(written, leases, 60000);
    f.observer.start();
    LeaseTableModel model(&f.observer);
    model.setUpdateInterval(0);
    SortWork work(&model);
    LeaseFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.sort(LeaseTableModel::FreshnessColumn, Qt::DescendingOrder);
    QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), leases, 60000);
    QCOMPARE(proxy.rowCount(), leases);
    QVERIFY2(work.largestInsert <= LeaseTableModel::insertBatch, qPrintable(QString::number(work.largestInsert)));

    QSignalSpy ticks(&model, &LeaseTableModel::timeAdvanced);
    model.setTickInterval(10);
    f.clock.advance(2000);
    work.resorted = 0;
    QVERIFY(ticks.wait(5000));
    QVERIFY(ticks.wait(5000));
    QCOMPARE(work.resorted, 0);

    const QString renewed = name(leases / 2);
    QVERIFY(f.write(renewed, QStringLiteral("node-%1").arg((leases / 2) % 17)));
    QTRY_COMPARE(work.resorted, 1);
    // The freshest lease is last, the others unmoved around it.
    QTRY_COMPARE(cell(proxy, leases - 1, LeaseTableModel::LeaseColumn), renewed);
    ticks.clear();
    QVERIFY(ticks.wait(5000));
    QCOMPARE(work.resorted, 1);
}

void TestLeaseModels::theTickKeepsTheOrderByFreshnessAcrossLeaseDurations()
{
    // O4: leases of another duration than the most common one age at
    // another pace, so the tick names them (and only them) to be sorted
    // again: the order by freshness stays exact as they pass others.
    Fixture f;
    QSignalSpy ready(&f.observer, &LeaseObserver::ready);
    f.observer.start();
    QVERIFY(ready.wait(5000));
    LeaseTableModel model(&f.observer);
    model.setUpdateInterval(0);
    model.setTickInterval(10);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    SortWork work(&model);
    LeaseFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.sort(LeaseTableModel::FreshnessColumn, Qt::DescendingOrder);
    const auto writeSeen = [&f](const QString &lease, qint64 durationMs) {
        bool done = false;
        f.script.write(lease, QStringLiteral("node-a"), durationMs, [&done](bool) { done = true; });
        return QTest::qWaitFor([&] { return done && f.observer.lease(lease).has_value(); }, 5000);
    };
    QVERIFY(writeSeen(QStringLiteral("a"), leaseMs));
    QVERIFY(writeSeen(QStringLiteral("long"), 6 * leaseMs));
    f.clock.advance(1000);
    QVERIFY(writeSeen(QStringLiteral("b"), leaseMs));
    f.clock.advance(1000);
    QVERIFY(writeSeen(QStringLiteral("c"), leaseMs));
    // 2 s after a: a 0.2, b 0.1, long 0.033, c 0 of their leases.
    QTRY_COMPARE(leaseColumn(proxy), (QStringList {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("long"),
                                                   QStringLiteral("c")}));
    // 3 s after a: c (0.1) has passed long (0.05).
    f.clock.advance(1000);
    QTRY_COMPARE(leaseColumn(proxy), (QStringList {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"),
                                                   QStringLiteral("long")}));
    // Only long was named by the ticks.
    QSignalSpy ticks(&model, &LeaseTableModel::timeAdvanced);
    work.resorted = 0;
    QVERIFY(ticks.wait(5000));
    QCOMPARE(work.resorted, 1);
}

QTEST_MAIN(TestLeaseModels)
#include "tst_leasemodels.moc"
