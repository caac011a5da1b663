// The dashboard's Runs tab (S4, O4): the run records of a lease's scheduled
// work as RunLedger writes them, read from a real store (memory, and a file
// folder written by another store object, as `baton join` does), with the
// ticks nobody recorded as "missed" rows and the next tick; the model runs
// under QAbstractItemModelTester and judges what is due by a ManualClock.

#include "dashboardsession.h"
#include "filestore.h"
#include "leasescript.h"
#include "mainwindow.h"
#include "manualclock.h"
#include "memorystore.h"
#include "runhistorymodel.h"
#include "runstab.h"

#include <batoninternal/runledger.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>

using namespace baton;

namespace {

const QString kLease = QStringLiteral("nightly");
const QDateTime kT0(QDate(2026, 12, 1), QTime(3, 0), Qt::UTC);

QDateTime at(qint64 seconds)
{
    return kT0.addSecs(seconds);
}

RunRecord run(qint64 tickSeconds, const QString &outcome, const QString &schedule = QStringLiteral("every 10s"))
{
    RunRecord record;
    record.tick = TickSchedule::tickName(at(tickSeconds));
    record.instance = QStringLiteral("node-a");
    record.token = 3;
    record.start = at(tickSeconds).addMSecs(40);
    record.outcome = outcome;
    if (outcome != RunRecord::running)
        record.end = record.start.addSecs(4);
    record.schedule = schedule;
    return record;
}

/*! Ticks (seconds after kT0) and missed counts of \a rows, newest first: "30", "20-10 x2". */
QStringList shape(const QList<RunRow> &rows)
{
    QStringList out;
    for (const RunRow &row : rows) {
        if (!row.isMissed()) {
            out.append(QString::number(kT0.secsTo(QDateTime::fromString(row.record.tick, Qt::ISODate))));
            continue;
        }
        out.append(QStringLiteral("%1-%2 x%3%4")
                           .arg(kT0.secsTo(row.lastMissed))
                           .arg(kT0.secsTo(row.firstMissed))
                           .arg(row.missed)
                           .arg(row.missedMore ? QStringLiteral("+") : QString()));
    }
    return out;
}

bool claim(Store *store, const RunRecord &record)
{
    RunLedger ledger(store, kLease);
    std::optional<bool> ok;
    ledger.claim(record, [&ok](bool claimed, const RunRecord &, const QString &) { ok = claimed; });
    return QTest::qWaitFor([&ok] { return ok.has_value(); }, 10000) && *ok;
}

QString cell(const QAbstractItemModel &model, int row, int column)
{
    return model.index(row, column).data().toString();
}

} // namespace

class TestRunsModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void missedTicksAreOneRowPerStretch_data();
    void missedTicksAreOneRowPerStretch();
    void theRunsOfALeaseFollowTheStore_data();
    void theRunsOfALeaseFollowTheStore();
    void theNextTickAndTheLastSuccessAreSaid();
    void outcomesReadAsWords();
    void aLeaseWithoutRunsSaysWhatTheTabIsFor();
};

void TestRunsModel::missedTicksAreOneRowPerStretch_data()
{
    QTest::addColumn<QList<RunRecord>>("records");
    QTest::addColumn<qint64>("now"); // seconds after kT0
    QTest::addColumn<QStringList>("rows");
    const QString ok = RunRecord::succeeded;
    QTest::newRow("every tick recorded: no missed row")
            << QList<RunRecord> {run(0, ok), run(10, ok), run(20, ok)} << qint64(40) << QStringList {"20", "10", "0"};
    QTest::newRow("a stretch of two ticks between runs is one row of two")
            << QList<RunRecord> {run(0, ok), run(30, ok)} << qint64(40) << QStringList {"30", "20-10 x2", "0"};
    QTest::newRow("a tick due after the newest run is missed once due for longer than the grace")
            << QList<RunRecord> {run(0, ok)} << qint64(35) << QStringList {"0"};
    QTest::newRow("ticks due after the newest run past the grace are missed")
            << QList<RunRecord> {run(0, ok)} << qint64(51) << QStringList {"20-10 x2", "0"};
    QTest::newRow("skipped and interrupted ticks have records: not missed")
            << QList<RunRecord> {run(0, RunRecord::interrupted), run(10, RunRecord::skipped), run(20, ok)}
            << qint64(40) << QStringList {"20", "10", "0"};
    QTest::newRow("a cron schedule counts its ticks one by one")
            << QList<RunRecord> {run(0, ok, QStringLiteral("*/5 * * * *")), run(1800, ok, QStringLiteral("*/5 * * * *"))}
            << qint64(1810) << QStringList {"1800", "1500-300 x5", "0"};
    QTest::newRow("a long outage is counted up to a bound")
            << QList<RunRecord> {run(0, ok, QStringLiteral("* * * * *")), run(120000, ok, QStringLiteral("* * * * *"))}
            << qint64(120010) << QStringList {"120000", "119940-60 x1000+", "0"};
    QTest::newRow("on a fixed period any outage is counted")
            << QList<RunRecord> {run(0, ok), run(100000, ok)} << qint64(100010)
            << QStringList {"100000", "99990-10 x9999", "0"};
    QTest::newRow("records without their schedule: no gap can be told")
            << QList<RunRecord> {run(0, ok, QString()), run(30, ok, QString())} << qint64(100) << QStringList {"30", "0"};
    QTest::newRow("gaps only since the newest schedule's oldest record")
            << QList<RunRecord> {run(0, ok, QStringLiteral("every 5s")), run(30, ok), run(40, ok)} << qint64(45)
            << QStringList {"40", "30", "0"};
}

void TestRunsModel::missedTicksAreOneRowPerStretch()
{
    // S4, O4: the ticks of the schedule with no record, between the runs and since the last.
    QFETCH(QList<RunRecord>, records);
    QFETCH(qint64, now);
    QFETCH(QStringList, rows);
    QCOMPARE(shape(runrows::build(records, at(now))), rows);
}

void TestRunsModel::theRunsOfALeaseFollowTheStore_data()
{
    QTest::addColumn<bool>("files");
    QTest::newRow("on a memory store") << false;
    QTest::newRow("on a folder written by another store object, as baton join writes it") << true;
}

void TestRunsModel::theRunsOfALeaseFollowTheStore()
{
    // S4, O4: the runs show as they start and as they end, newest first.
    QFETCH(bool, files);
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    std::unique_ptr<Store> reader;
    std::unique_ptr<Store> writer;
    if (files) {
        const QJsonObject parameters {{QStringLiteral("folder"), folder.path()}};
        reader = std::make_unique<FileStore>(QStringLiteral("Registry"), parameters, nullptr);
        writer = std::make_unique<FileStore>(QStringLiteral("Registry"), parameters, nullptr);
    } else {
        reader = std::make_unique<MemoryStore>(QStringLiteral("Registry"), QJsonObject(), nullptr);
    }
    QString error;
    QVERIFY2(reader->init(&error) && (!writer || writer->init(&error)), qPrintable(error));
    Store *store = writer ? writer.get() : reader.get();
    QVERIFY(claim(store, run(0, QStringLiteral("failed: exit code 3"))));
    RunRecord rerun = run(20, RunRecord::succeeded);
    rerun.attempt = 2;
    QVERIFY(claim(store, rerun));
    // Another lease's runs, under a name that starts the same.
    RunLedger other(store, kLease + QStringLiteral("-2"));
    other.claim(run(10, RunRecord::succeeded), [](bool, const RunRecord &, const QString &) {});

    test::ManualClock clock(1'000'000, at(25));
    RunHistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy loaded(&model, &RunHistoryModel::loaded);
    model.setSource(reader.get(), kLease, &clock);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(model.rowCount(), 3); // 20, the missed 10, 0
    QCOMPARE(model.index(0, 0).data(RunHistoryModel::TickRole).toDateTime(), at(20));
    // A rerun says so, as `baton status --runs` does.
    QCOMPARE(cell(model, 0, RunHistoryModel::OutcomeColumn), QStringLiteral("succeeded (attempt 2)"));
    QCOMPARE(model.index(0, 0).data(RunHistoryModel::AttemptRole).toInt(), 2);
    QCOMPARE(cell(model, 0, RunHistoryModel::DurationColumn), QStringLiteral("4.0 s"));
    QCOMPARE(cell(model, 0, RunHistoryModel::InstanceColumn), QStringLiteral("node-a"));
    QCOMPARE(cell(model, 0, RunHistoryModel::StartColumn), at(20).addMSecs(40).toLocalTime().toString(QStringLiteral("HH:mm:ss")));
    QCOMPARE(model.index(1, 0).data(RunHistoryModel::OutcomeKeyRole).toString(), QStringLiteral("missed"));
    QCOMPARE(cell(model, 1, RunHistoryModel::OutcomeColumn), QStringLiteral("missed"));
    QCOMPARE(cell(model, 2, RunHistoryModel::OutcomeColumn), QStringLiteral("failed: exit code 3"));

    // A run starts: on top, running, its duration growing with the clock.
    const RunRecord started = run(30, RunRecord::running);
    clock.setMonotonicMs(1'000'000 + 7'000);
    QVERIFY(claim(store, started));
    QTRY_COMPARE(model.rowCount(), 4);
    QCOMPARE(cell(model, 0, RunHistoryModel::OutcomeColumn), QStringLiteral("running"));
    QCOMPARE(cell(model, 0, RunHistoryModel::DurationColumn), QStringLiteral("2.0 s so far"));
    clock.advance(5'000);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.refreshTime();
    QVERIFY(!changed.isEmpty());
    QCOMPARE(cell(model, 0, RunHistoryModel::DurationColumn), QStringLiteral("7.0 s so far"));
    // It ends: the same row says so.
    std::optional<RunRecord> earlier;
    RunLedger ledger(store, kLease);
    ledger.list([&](bool, const QList<RunRecord> &records, const QString &) { earlier = records.last(); });
    QTRY_VERIFY(earlier.has_value());
    RunRecord finished = *earlier;
    finished.outcome = RunRecord::interrupted;
    finished.end = finished.start.addSecs(9);
    std::optional<bool> replaced;
    ledger.replace(*earlier, finished, [&](bool ok, const RunRecord &, const QString &) { replaced = ok; });
    QTRY_VERIFY(replaced.has_value());
    QVERIFY(*replaced);
    QTRY_COMPARE(cell(model, 0, RunHistoryModel::OutcomeColumn), QStringLiteral("interrupted: leadership ended"));
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(cell(model, 0, RunHistoryModel::DurationColumn), QString()); // ended when noticed, not when it stopped

    // Time passes with no run: the ticks of 40 s, then 50 s, fall overdue, in one row on top.
    clock.setMonotonicMs(1'000'000 + 54'000); // at 79 s: 40 s is overdue, 50 s not yet
    model.refreshTime();
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(model.index(0, 0).data(RunHistoryModel::MissedCountRole).toInt(), 1);
    clock.advance(1'000);
    model.refreshTime();
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(model.index(0, 0).data(RunHistoryModel::MissedCountRole).toInt(), 2);
    QCOMPARE(model.index(0, 0).data(RunHistoryModel::TickRole).toDateTime(), at(40));

    // Another lease selected: its runs only.
    model.setSource(reader.get(), kLease + QStringLiteral("-2"), &clock);
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(model.rowCount(), 2); // its run, and the ticks overdue since
    QCOMPARE(model.index(1, 0).data(RunHistoryModel::TickRole).toDateTime(), at(10));
    QCOMPARE(model.index(0, 0).data(RunHistoryModel::MissedCountRole).toInt(), 4); // 20 s to 50 s
}

void TestRunsModel::theNextTickAndTheLastSuccessAreSaid()
{
    // O4: "the job has not succeeded for N ticks" is read at a glance.
    MemoryStore store(QStringLiteral("Registry"), QJsonObject(), nullptr);
    QString error;
    QVERIFY(store.init(&error));
    QVERIFY(claim(&store, run(0, RunRecord::succeeded)));
    QVERIFY(claim(&store, run(10, QStringLiteral("failed: signal 9"))));
    test::ManualClock clock(1'000'000, at(13));
    RunHistoryModel model;
    QSignalSpy loaded(&model, &RunHistoryModel::loaded);
    model.setSource(&store, kLease, &clock);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(model.nextTick(), at(20));
    QCOMPARE(model.lastSuccess(), at(4).addMSecs(40));
    const QString summary = model.summary();
    QVERIFY2(summary.contains(QStringLiteral("every 10s")), qPrintable(summary));
    QVERIFY2(summary.contains(at(20).toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("in 7.0 s")), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("Last success: 9.0 s ago")), qPrintable(summary));
}

void TestRunsModel::outcomesReadAsWords()
{
    QCOMPARE(RunHistoryModel::describeOutcome(RunRecord::skipped), QStringLiteral("skipped: previous run still going"));
    QCOMPARE(RunHistoryModel::describeOutcome(QStringLiteral("failed: signal 15")), QStringLiteral("failed: signal 15"));
    QCOMPARE(RunHistoryModel::describeOutcome(QStringLiteral("failed: exit code 2")), QStringLiteral("failed: exit code 2"));
    // An outcome a later version writes shows as written.
    QCOMPARE(RunHistoryModel::describeOutcome(QStringLiteral("cancelled")), QStringLiteral("cancelled"));
}

void TestRunsModel::aLeaseWithoutRunsSaysWhatTheTabIsFor()
{
    // O4: the Runs tab of the selected lease, beside its failover history.
    MemoryStore store(QStringLiteral("Registry"), QJsonObject(), nullptr);
    QString error;
    QVERIFY(store.init(&error));
    LeaseScript script(&store);
    bool written = false;
    script.write(QStringLiteral("plain"), QStringLiteral("node-a"), 15000, [&](bool ok) { written = ok; });
    script.write(kLease, QStringLiteral("node-a"), 15000);
    QTRY_VERIFY(written);
    QVERIFY(claim(&store, run(0, RunRecord::succeeded)));
    DashboardSession session;
    session.attach(&store, nullptr, QStringLiteral("memory"));
    MainWindow window(&session, nullptr, nullptr);
    window.show();
    auto *tab = window.findChild<RunsTab *>();
    QVERIFY(tab);
    window.detailTabs()->setCurrentWidget(tab);
    QCOMPARE(window.detailTabs()->tabText(window.detailTabs()->currentIndex()), QStringLiteral("Runs"));
    auto *empty = tab->findChild<QLabel *>(QStringLiteral("runsEmpty"));
    QVERIFY(empty);

    QTRY_VERIFY(window.leaseView()->model() && window.leaseView()->model()->rowCount() == 2);
    window.selectLease(QStringLiteral("plain"));
    QTRY_VERIFY(tab->model()->isLoaded());
    QVERIFY(empty->isVisible());
    QVERIFY(!tab->table()->isVisible());
    QVERIFY2(empty->text().contains(QStringLiteral("--schedule")), qPrintable(empty->text()));

    window.selectLease(kLease);
    // The run, and the ticks due since (by this host's clock) that nobody ran.
    QTRY_COMPARE(tab->model()->rowCount(), 2);
    QCOMPARE(tab->model()->index(1, 0).data(RunHistoryModel::TickRole).toDateTime(), at(0));
    QCOMPARE(tab->model()->index(0, 0).data(RunHistoryModel::OutcomeKeyRole).toString(), QStringLiteral("missed"));
    QTRY_VERIFY(tab->table()->isVisible());
    QVERIFY(!empty->isVisible());
}

QTEST_MAIN(TestRunsModel)
#include "tst_runsmodel.moc"
