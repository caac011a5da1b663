// The dashboard against real participants and a real store (O4, O2):
// two `baton join` processes on a FileStore folder, the leader stopped with
// SIGTERM (F5), and the table's holder cell follows; the history shows the
// change and the operator is alerted. Joining and stepping down from the
// dashboard's own buttons changes the record in the store. Waits are for
// conditions (QTRY_*) and signals, never for time.

#include "connectiondialog.h"
#include "connectionprobe.h"
#include "connectionrepository.h"
#include "dashboardparticipant.h"
#include "dashboardsession.h"
#include "failoverhistorymodel.h"
#include "fleettimelinemodel.h"
#include "leaseactivity.h"
#include <batoninternal/leasecodec.h>
#include "leasefilterproxymodel.h"
#include <baton/leaseobserver.h>
#include <batoninternal/registrykey.h>
#include "leasetablemodel.h"
#include "mainwindow.h"
#include "filestore.h"
#include "memorystore.h"
#include "participantprocess.h"
#include "participants.h"
#include "secretstore.h"
#include "testsupport.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <csignal>

#include <sys/stat.h>

using namespace baton;

namespace {

// BATON_TEST_TIME_SCALE times a quiet machine's lease and renewal.
const qint64 leaseMs = test::scaledMs(2000);
const qint64 renewMs = test::scaledMs(500);

QString holderCell(const QTableView &view, const QString &lease)
{
    const QAbstractItemModel *model = view.model();
    if (!model)
        return QStringLiteral("<no model>");
    for (int row = 0; row < model->rowCount(); ++row)
        if (model->index(row, LeaseTableModel::LeaseColumn).data().toString() == lease)
            return model->index(row, LeaseTableModel::HolderColumn).data().toString();
    return QStringLiteral("<no row>");
}

QString storedHolder(Store &store, const QString &lease)
{
    QString holder = QStringLiteral("<pending>");
    bool done = false;
    store.get(registryLeasePrefix + lease, [&](const StoreResult &result) {
        LeaseRecord record;
        QString error;
        if (!result.ok())
            holder = QStringLiteral("<absent>");
        else if (leasecodec::decode(result.entry.document, &record, &error))
            holder = record.holder;
        done = true;
    });
    // A condition wait (what QTRY_ uses), never a fixed delay.
    return QTest::qWaitFor([&] { return done; }, 5000) ? holder : QStringLiteral("<timeout>");
}

} // namespace

class TestDashboard : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void tableFollowsAFailoverOfRealParticipants();
    void aCleanHandoverIsOneHistoryRow();
    void aDashboardOpenedAfterTheFailoversShowsThemAtOnce();
    void joinAndStepDownChangeTheLease();
    void joinPanelProposesTheSelectedLeasesTimings();
    void firstStartOpensThisHostsRegistry();
    void testConnectionSaysWhatItFoundWithoutSaving_data();
    void testConnectionSaysWhatItFoundWithoutSaving();
    void filterBoxFiltersTheTable();
    void historyExportWritesParsableFiles();
    void cleanup();

private:
    QString writeConfig(const QString &instanceId);
    /*! Starts `baton join` as \a instanceId on the participants' Registry, its events as JSON. */
    ParticipantProcess *join(const QString &instanceId);
    /*! The file Registry the participants of writeConfig() share. */
    Connection participantsRegistry() const;

    QTemporaryDir m_folder;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
};

Connection TestDashboard::participantsRegistry() const
{
    Connection connection;
    connection.name = QStringLiteral("test registry");
    connection.kind = ConnectionKind::FileRegistry;
    connection.parameters.insert(QStringLiteral("folder"), m_folder.filePath(QStringLiteral("registry")));
    return connection;
}

void TestDashboard::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
}

void TestDashboard::cleanup()
{
    for (auto &p : m_participants) {
        if (p->isRunning()) {
            QSignalSpy finished(p.get(), &ParticipantProcess::finished);
            p->sendSignal(SIGKILL);
            finished.wait(5000);
        }
    }
    m_participants.clear();
    // The leases keep their history (O2): each test starts from an empty Registry.
    QDir(m_folder.filePath(QStringLiteral("registry"))).removeRecursively();
}

QString TestDashboard::writeConfig(const QString &instanceId)
{
    const QJsonObject config {
            {QStringLiteral("services"),
             QJsonObject {{QStringLiteral("Registry"),
                           QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/FileStore")},
                                        {QStringLiteral("folder"), m_folder.filePath(QStringLiteral("registry"))}}},
                          {QStringLiteral("cluster"),
                           QJsonObject {{QStringLiteral("type"), QStringLiteral("StoreClusterService")},
                                        {QStringLiteral("leaseName"), QStringLiteral("cron")},
                                        {QStringLiteral("instanceId"), instanceId},
                                        {QStringLiteral("leaseDuration"), leaseMs},
                                        {QStringLiteral("renewInterval"), renewMs}}}}}};
    const QString path = m_folder.filePath(instanceId + QStringLiteral(".json"));
    return test::writeJsonFile(path, config) ? path : QString();
}

ParticipantProcess *TestDashboard::join(const QString &instanceId)
{
    const QString config = writeConfig(instanceId);
    if (config.isEmpty())
        return nullptr;
    m_participants.push_back(std::make_unique<ParticipantProcess>(
            instanceId, test::batonBinary(),
            QStringList {QStringLiteral("join"), QStringLiteral("--config"), config, QStringLiteral("--events"),
                         QStringLiteral("json")}));
    test::keepOutput(m_participants.back().get());
    m_participants.back()->start();
    return m_participants.back().get();
}

void TestDashboard::tableFollowsAFailoverOfRealParticipants()
{
    // O4: the dashboard opens a file Registry connection and shows the
    // holder; F5: SIGTERM releases, the follower takes over, and the table,
    // the history (O2) and an alert follow.
    for (const QString &id : {QStringLiteral("p1"), QStringLiteral("p2")})
        QVERIFY(join(id));
    auto leader = [this]() -> ParticipantProcess * {
        for (auto &p : m_participants)
            if (p->isLeading())
                return p.get();
        return nullptr;
    };
    QTRY_VERIFY_WITH_TIMEOUT(leader() != nullptr, 20000);

    const Connection connection = participantsRegistry();
    DashboardSession session;
    session.setAlertInterval(0);
    QString error;
    QVERIFY2(session.open(connection, &error), qPrintable(error));
    MainWindow window(&session, nullptr, nullptr);
    window.show();
    QAbstractItemModelTester tableTester(session.filterModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester historyTester(session.historyModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);

    ParticipantProcess *first = leader();
    QTRY_COMPARE_WITH_TIMEOUT(holderCell(*window.leaseView(), QStringLiteral("cron")), first->instanceId(), 10000);
    window.selectLease(QStringLiteral("cron"));
    QCOMPARE(window.selectedLease(), QStringLiteral("cron"));

    QSignalSpy alerts(&session, &DashboardSession::alert);
    QSignalSpy stopped(first, &ParticipantProcess::finished);
    first->sendSignal(SIGTERM);
    QVERIFY(stopped.wait(10000));
    const QString second = first == m_participants.at(0).get() ? m_participants.at(1)->instanceId()
                                                               : m_participants.at(0)->instanceId();
    QTRY_COMPARE_WITH_TIMEOUT(holderCell(*window.leaseView(), QStringLiteral("cron")), second, 10000);

    // The history of the selected lease ends with the new holder.
    FailoverHistoryModel *history = session.historyModel();
    QTRY_VERIFY_WITH_TIMEOUT(history->rowCount() >= 1, 5000);
    const LeaseFailover last = history->failoverAt(history->rowCount() - 1);
    QCOMPARE(last.to, second);
    // The operator hears of it (a desktop notification, or the status bar).
    QTRY_VERIFY_WITH_TIMEOUT(!alerts.isEmpty(), 5000);
    QVERIFY2(alerts.last().at(1).toString().contains(second), qPrintable(alerts.last().at(1).toString()));
}

void TestDashboard::aCleanHandoverIsOneHistoryRow()
{
    // O1, O2: a release, then its successor, is one change: one history
    // row (from the old holder to the new, released, the time without a
    // leader) and one alert that names it the same way, never a "first
    // acquire" from nobody. The successor starts only once the release is
    // seen, so that this observer sees both writes.
    ParticipantProcess *first = join(QStringLiteral("h1"));
    QTRY_VERIFY_WITH_TIMEOUT(first->isLeading(), 20000);

    const Connection connection = participantsRegistry();
    DashboardSession session;
    session.setAlertInterval(0);
    QString error;
    QVERIFY2(session.open(connection, &error), qPrintable(error));
    MainWindow window(&session, nullptr, nullptr);
    QAbstractItemModelTester historyTester(session.historyModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_COMPARE_WITH_TIMEOUT(holderCell(*window.leaseView(), QStringLiteral("cron")), first->instanceId(), 10000);

    QSignalSpy alerts(&session, &DashboardSession::alert);
    QSignalSpy stopped(first, &ParticipantProcess::finished);
    first->sendSignal(SIGTERM); // F5: a clean stop releases
    QVERIFY(stopped.wait(10000));
    FailoverHistoryModel *history = session.historyModel();
    // The history starts with the first acquisition the lease stores (O2).
    QTRY_COMPARE_WITH_TIMEOUT(history->rowCount(), 2, 5000);
    QVERIFY(history->failoverAt(0).recorded);
    QCOMPARE(history->failoverAt(1).to, QString());

    ParticipantProcess *second = join(QStringLiteral("h2"));
    QTRY_COMPARE_WITH_TIMEOUT(holderCell(*window.leaseView(), QStringLiteral("cron")), second->instanceId(), 20000);
    QCOMPARE(history->rowCount(), 2);
    const LeaseFailover handover = history->failoverAt(1);
    QCOMPARE(handover.from, first->instanceId());
    QCOMPARE(handover.to, second->instanceId());
    QCOMPARE(handover.why, QStringLiteral("released"));
    QVERIFY(handover.gapMs > 0);
    QCOMPARE(history->index(1, FailoverHistoryModel::WhyColumn).data().toString(),
             FailoverHistoryModel::describeWhy(QStringLiteral("released")));

    QTRY_VERIFY_WITH_TIMEOUT(!alerts.isEmpty(), 5000);
    const QString said = alerts.last().at(1).toString();
    QVERIFY2(said.contains(QStringLiteral("%1 → %2").arg(first->instanceId(), second->instanceId())), qPrintable(said));
    QVERIFY2(said.contains(FailoverHistoryModel::describeWhy(QStringLiteral("released"))), qPrintable(said));
    QVERIFY2(!said.contains(FailoverHistoryModel::describeWhy(QStringLiteral("first-acquire"))), qPrintable(said));
}

void TestDashboard::aDashboardOpenedAfterTheFailoversShowsThemAtOnce()
{
    // O2, O4: three participants; the leader is killed twice and hands over
    // once, all before the dashboard connects. From the history model's
    // first update it shows the four changes the lease stores, in order with
    // their reasons, and the fleet timeline's lane has each holder's span.
    auto leader = [this]() -> ParticipantProcess * {
        for (auto &p : m_participants)
            if (p->isRunning() && p->isLeading())
                return p.get();
        return nullptr;
    };
    auto stop = [](ParticipantProcess *p, int signal) {
        QSignalSpy finished(p, &ParticipantProcess::finished);
        p->sendSignal(signal);
        return finished.wait(10000);
    };
    for (const QString &id : {QStringLiteral("f1"), QStringLiteral("f2"), QStringLiteral("f3")})
        join(id);
    QTRY_VERIFY_WITH_TIMEOUT(leader() != nullptr, 20000);
    QStringList holders {leader()->instanceId()};
    for (int kill = 0; kill < 2; ++kill) {
        ParticipantProcess *dead = leader();
        QVERIFY(stop(dead, SIGKILL)); // expires: the next leader takes it after the lease
        QTRY_VERIFY_WITH_TIMEOUT(leader() != nullptr, 20000);
        holders.append(leader()->instanceId());
        if (kill == 0)
            join(QStringLiteral("f4")); // someone to hand over to in the end
    }
    // The successor names who released only if it saw that one hold (O5):
    // hand over once the follower has seen the current leader take it.
    ParticipantProcess *last = leader();
    auto sawLeader = [&](const ParticipantProcess *p) {
        const QList<QJsonObject> events = p->events();
        for (const QJsonObject &event : events)
            if (event.value(QStringLiteral("event")).toString() == QLatin1String("leader-changed")
                && event.value(QStringLiteral("to")).toString() == last->instanceId())
                return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(std::all_of(m_participants.begin(), m_participants.end(),
                                         [&](const auto &p) { return !p->isRunning() || p.get() == last || sawLeader(p.get()); }),
                             20000);
    QVERIFY(stop(last, SIGTERM)); // F5: releases
    QTRY_VERIFY_WITH_TIMEOUT(leader() != nullptr, 20000);
    holders.append(leader()->instanceId());

    const Connection connection = participantsRegistry();
    DashboardSession session;
    QString error;
    QVERIFY2(session.open(connection, &error), qPrintable(error));
    FleetTimelineModel fleet;
    fleet.setActivity(session.activity());
    FailoverHistoryModel *history = session.historyModel();
    QAbstractItemModelTester historyTester(history, QAbstractItemModelTester::FailureReportingMode::QtTest);
    // What the first update shows: no row may come later, one at a time.
    QList<LeaseFailover> firstShown;
    auto firstUpdate = [&] {
        if (firstShown.isEmpty())
            firstShown = history->failovers();
    };
    connect(history, &QAbstractItemModel::modelReset, this, firstUpdate);
    connect(history, &QAbstractItemModel::rowsInserted, this, firstUpdate);
    QTRY_VERIFY_WITH_TIMEOUT(!firstShown.isEmpty(), 10000);

    QCOMPARE(firstShown.size(), 4);
    const QStringList whys {QStringLiteral("first-acquire"), QStringLiteral("expired"), QStringLiteral("expired"),
                            QStringLiteral("released")};
    for (int row = 0; row < 4; ++row) {
        const LeaseFailover &change = firstShown.at(row);
        QCOMPARE(change.why, whys.at(row));
        QCOMPARE(change.to, holders.at(row));
        QCOMPARE(change.from, row == 0 ? QString() : holders.at(row - 1));
        QVERIFY(change.recorded);
    }
    QVERIFY(firstShown.at(3).gapMs >= 0); // the clean handover's time without a leader

    // The fleet timeline's lane: each holder's span, in turn, from the first
    // recorded acquisition; the last is the holder seen, still held.
    QStringList spans;
    const QList<FleetSegment> lane = fleet.segments(QStringLiteral("cron"));
    for (const FleetSegment &segment : lane)
        if (!segment.noLeader)
            spans.append(segment.holder);
    QCOMPARE(spans, holders);
    QCOMPARE(lane.last().endMono, -1);
    QCOMPARE(fleet.knownSinceMono(), lane.first().startMono);
    QVERIFY(lane.first().recorded);
}

void TestDashboard::joinAndStepDownChangeTheLease()
{
    // O4: join an election from the dashboard, then step down (F5: release).
    MemoryStore store(QStringLiteral("Registry"), QJsonObject(), nullptr);
    QString error;
    QVERIFY(store.init(&error));
    DashboardSession session;
    session.attach(&store, nullptr, QStringLiteral("memory"));
    MainWindow window(&session, nullptr, nullptr);
    window.show();

    auto *leaseName = window.findChild<QLineEdit *>(QStringLiteral("leaseNameEdit"));
    auto *instanceId = window.findChild<QLineEdit *>(QStringLiteral("instanceIdEdit"));
    auto *leaseSpin = window.findChild<QDoubleSpinBox *>(QStringLiteral("leaseDurationSpin"));
    auto *renewSpin = window.findChild<QDoubleSpinBox *>(QStringLiteral("renewIntervalSpin"));
    auto *join = window.findChild<QPushButton *>(QStringLiteral("joinButton"));
    auto *stepDown = window.findChild<QPushButton *>(QStringLiteral("stepDownButton"));
    QVERIFY(leaseName && instanceId && leaseSpin && renewSpin && join && stepDown);
    QVERIFY(join->isEnabled());
    QVERIFY(!stepDown->isEnabled());

    leaseName->setText(QStringLiteral("reports"));
    instanceId->setText(QStringLiteral("dashboard-under-test"));
    leaseSpin->setValue(2.0);
    renewSpin->setValue(0.5);
    QTest::mouseClick(join, Qt::LeftButton);
    QVERIFY(session.participant()->isJoined());
    QTRY_COMPARE_WITH_TIMEOUT(storedHolder(store, QStringLiteral("reports")), QStringLiteral("dashboard-under-test"), 10000);
    // The dashboard's own lease is marked in the table.
    QTRY_COMPARE_WITH_TIMEOUT(holderCell(*window.leaseView(), QStringLiteral("reports")),
                              QStringLiteral("dashboard-under-test"), 5000);
    LeaseTableModel *model = session.leaseModel();
    QVERIFY(model->index(model->rowOf(QStringLiteral("reports")), 0).data(LeaseTableModel::OwnLeaseRole).toBool());
    QTRY_VERIFY(stepDown->isEnabled());

    QTest::mouseClick(stepDown, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(storedHolder(store, QStringLiteral("reports")), QString(), 10000);
    QTRY_VERIFY(!session.participant()->isJoined());
    QTRY_VERIFY(join->isEnabled());
}

void TestDashboard::joinPanelProposesTheSelectedLeasesTimings()
{
    // O4: joining a lease proposes the timings its holders use (its
    // record's lease duration), not the defaults: a participant with another
    // lease duration would judge expiry differently from the others (F2).
    MemoryStore store(QStringLiteral("Registry"), QJsonObject(), nullptr);
    QString error;
    QVERIFY(store.init(&error));
    LeaseRecord record;
    record.holder = QStringLiteral("node-a");
    record.leaseDurationMs = 6000;
    bool created = false;
    store.create(registryLeasePrefix + QStringLiteral("billing"), leasecodec::encode(record),
                 [&](const StoreResult &result) { created = result.ok(); });
    QTRY_VERIFY(created);
    DashboardSession session;
    session.attach(&store, nullptr, QStringLiteral("memory"));
    MainWindow window(&session, nullptr, nullptr);
    window.show();
    auto *leaseName = window.findChild<QLineEdit *>(QStringLiteral("leaseNameEdit"));
    auto *leaseSpin = window.findChild<QDoubleSpinBox *>(QStringLiteral("leaseDurationSpin"));
    auto *renewSpin = window.findChild<QDoubleSpinBox *>(QStringLiteral("renewIntervalSpin"));
    QVERIFY(leaseName && leaseSpin && renewSpin);
    QTRY_COMPARE(window.leaseView()->model()->rowCount(), 1);
    window.leaseView()->setCurrentIndex(window.leaseView()->model()->index(0, 0));
    QCOMPARE(leaseName->text(), QStringLiteral("billing"));
    QCOMPARE(leaseSpin->value(), 6.0);
    QCOMPARE(renewSpin->value(), 2.0);
}

void TestDashboard::firstStartOpensThisHostsRegistry()
{
    // O4: on a first start (no saved connection), the Registry folder that
    // `baton join` uses on this host without a configured Registry is
    // proposed and opened, so its elections show at once.
    QTemporaryDir data;
    QVERIFY(data.isValid());
    qputenv("BATON_DATA_DIR", data.path().toUtf8());
    const QString folder = Connection::thisHostRegistryFolder();
    QCOMPARE(folder, QDir(data.path()).filePath(QStringLiteral("registry")));
    {
        FileStore store(QStringLiteral("Registry"), {{QStringLiteral("folder"), folder}}, nullptr);
        QString error;
        QVERIFY2(store.init(&error), qPrintable(error));
        LeaseRecord record;
        record.holder = QStringLiteral("node-a");
        record.leaseDurationMs = 60000;
        bool created = false;
        store.create(registryLeasePrefix + QStringLiteral("nightly"), leasecodec::encode(record),
                     [&](const StoreResult &result) { created = result.ok(); });
        QTRY_VERIFY(created);
    }
    QSettings settings(QDir(data.path()).filePath(QStringLiteral("dashboard.ini")), QSettings::IniFormat);
    SecretStore secrets;
    ConnectionRepository repository(&settings, &secrets);
    DashboardSession session;
    MainWindow window(&session, &repository, &settings);
    window.show();
    window.openLastConnection();
    QTRY_COMPARE_WITH_TIMEOUT(holderCell(*window.leaseView(), QStringLiteral("nightly")), QStringLiteral("node-a"),
                              5000);
    const QList<Connection> saved = repository.connections();
    QCOMPARE(saved.size(), 1);
    QCOMPARE(saved.first().parameters.value(QStringLiteral("folder")).toString(), folder);
    QCOMPARE(repository.lastConnectionId(), saved.first().id);
    qunsetenv("BATON_DATA_DIR");
}

void TestDashboard::testConnectionSaysWhatItFoundWithoutSaving_data()
{
    QTest::addColumn<int>("leases"); // -1: the folder does not exist
    QTest::addColumn<bool>("ok");
    QTest::newRow("a file Registry with three leases is reported with its count") << 3 << true;
    QTest::newRow("a missing folder is reported as missing, and not created") << -1 << false;
}

void TestDashboard::testConnectionSaysWhatItFoundWithoutSaving()
{
    // O4: Test connection reads the store once and says what it found or
    // why it failed; nothing is saved, and a missing folder is not created.
    QFETCH(int, leases);
    QFETCH(bool, ok);
    QTemporaryDir data;
    QVERIFY(data.isValid());
    const QString folder = QDir(data.path()).filePath(QStringLiteral("registry"));
    if (leases >= 0) {
        FileStore store(QStringLiteral("Registry"), {{QStringLiteral("folder"), folder}}, nullptr);
        QString error;
        QVERIFY2(store.init(&error), qPrintable(error));
        for (int i = 0; i < leases; ++i) {
            LeaseRecord record;
            record.holder = QStringLiteral("node-%1").arg(i);
            record.leaseDurationMs = 60000;
            bool created = false;
            store.create(registryLeasePrefix + QStringLiteral("lease-%1").arg(i), leasecodec::encode(record),
                         [&](const StoreResult &result) { created = result.ok(); });
            QTRY_VERIFY(created);
        }
    }
    QSettings settings(QDir(data.path()).filePath(QStringLiteral("dashboard.ini")), QSettings::IniFormat);
    SecretStore secrets;
    ConnectionRepository repository(&settings, &secrets);
    ConnectionDialog dialog(&repository);
    auto *kind = dialog.findChild<QComboBox *>(QStringLiteral("connectionKind"));
    auto *folderField = dialog.findChild<QLineEdit *>(QStringLiteral("field_file_folder"));
    auto *test = dialog.findChild<QPushButton *>(QStringLiteral("testConnection"));
    auto *status = dialog.findChild<QLabel *>(QStringLiteral("connectionStatus"));
    QVERIFY(kind && folderField && test && status);
    kind->setCurrentIndex(kind->findData(int(ConnectionKind::FileRegistry)));
    folderField->setText(folder);
    QVERIFY(test->isEnabled());
    test->click();
    QVERIFY(!test->isEnabled()); // one test at a time
    QTRY_VERIFY_WITH_TIMEOUT(test->isEnabled(), 5000);
    if (ok) {
        QCOMPARE(status->text(), ConnectionProbe::tr("Connected: %n lease(s) found.", nullptr, leases));
    } else {
        // The error names the folder and what is wrong with it (R1).
        QVERIFY2(status->text().contains(folder), qPrintable(status->text()));
        QVERIFY2(status->text().contains(QStringLiteral("does not exist")), qPrintable(status->text()));
        QVERIFY(!QFileInfo::exists(folder));
    }
    QVERIFY(repository.connections().isEmpty());
}

void TestDashboard::filterBoxFiltersTheTable()
{
    // O4: the filter box narrows the table by lease name and by holder.
    MemoryStore store(QStringLiteral("Registry"), QJsonObject(), nullptr);
    QString error;
    QVERIFY(store.init(&error));
    for (const auto &[lease, holder] : {std::pair {"alpha", "node-1"}, std::pair {"beta", "node-2"},
                                        std::pair {"gamma", "node-2"}}) {
        LeaseRecord record;
        record.holder = QString::fromLatin1(holder);
        record.leaseDurationMs = 60000;
        bool done = false;
        store.create(registryLeasePrefix + QString::fromLatin1(lease), leasecodec::encode(record),
                     [&](const StoreResult &) { done = true; });
        QTRY_VERIFY(done);
    }
    DashboardSession session;
    session.attach(&store, nullptr, QStringLiteral("memory"));
    MainWindow window(&session, nullptr, nullptr);
    window.show();
    QAbstractItemModel *view = window.leaseView()->model();
    QTRY_COMPARE(view->rowCount(), 3);
    QTest::keyClicks(window.filterEdit(), QStringLiteral("holder:node-2"));
    QCOMPARE(view->rowCount(), 2);
    window.filterEdit()->clear();
    QTest::keyClicks(window.filterEdit(), QStringLiteral("alp"));
    QCOMPARE(view->rowCount(), 1);
    QCOMPARE(view->index(0, LeaseTableModel::LeaseColumn).data().toString(), QStringLiteral("alpha"));
    window.filterEdit()->clear();
    QCOMPARE(view->rowCount(), 3);
    // Sorting by clicking a header: by holder, descending.
    window.leaseView()->sortByColumn(LeaseTableModel::HolderColumn, Qt::DescendingOrder);
    QCOMPARE(view->index(0, LeaseTableModel::HolderColumn).data().toString(), QStringLiteral("node-2"));
    QCOMPARE(view->index(2, LeaseTableModel::HolderColumn).data().toString(), QStringLiteral("node-1"));
}

void TestDashboard::historyExportWritesParsableFiles()
{
    // O2: the history the window shows, exported as CSV and JSON, parses.
    MemoryStore store(QStringLiteral("Registry"), QJsonObject(), nullptr);
    QString error;
    QVERIFY(store.init(&error));
    DashboardSession session;
    session.attach(&store, nullptr, QStringLiteral("memory"));
    MainWindow window(&session, nullptr, nullptr);
    QSignalSpy ready(session.observer(), &LeaseObserver::ready);
    QVERIFY(ready.wait(5000));
    QString version;
    for (const char *holder : {"node-1", "node-2"}) {
        LeaseRecord record;
        record.holder = QString::fromLatin1(holder);
        record.leaseDurationMs = 60000;
        bool done = false;
        auto finish = [&](const StoreResult &r) {
            version = r.entry.version;
            done = true;
        };
        if (version.isEmpty())
            store.create(QStringLiteral("cluster:cron"), leasecodec::encode(record), finish);
        else
            store.update(QStringLiteral("cluster:cron"), leasecodec::encode(record), version, finish);
        QTRY_VERIFY(done);
    }
    QTRY_COMPARE(session.historyModel()->rowCount(), 2);
    const QString csvPath = m_folder.filePath(QStringLiteral("history.csv"));
    const QString jsonPath = m_folder.filePath(QStringLiteral("history.json"));
    // R2: exported owner-only even under the most permissive umask.
    const mode_t umaskBefore = ::umask(0);
    const bool csvWritten = window.exportHistory(csvPath, false, &error);
    const bool jsonWritten = csvWritten && window.exportHistory(jsonPath, true, &error);
    ::umask(umaskBefore);
    QVERIFY2(csvWritten && jsonWritten, qPrintable(error));
    BATON_COMPARE_MODE(csvPath, 0600);
    BATON_COMPARE_MODE(jsonPath, 0600);
    test::keepArtifactFile(test::ArtifactKind::Export, csvPath);
    test::keepArtifactFile(test::ArtifactKind::Export, jsonPath);

    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines.at(0).trimmed().split(',').size(), 9);
    QVERIFY(lines.at(2).startsWith("cron,node-1,node-2,taken-over,"));
    QFile json(jsonPath);
    QVERIFY(json.open(QIODevice::ReadOnly));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json.readAll(), &parseError);
    QCOMPARE(parseError.error, QJsonParseError::NoError);
    const QJsonArray rows = doc.object().value(QStringLiteral("history")).toArray();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows.at(1).toObject().value(QStringLiteral("from")).toString(), QStringLiteral("node-1"));
    QCOMPARE(rows.at(1).toObject().value(QStringLiteral("why")).toString(), QStringLiteral("taken-over"));
}

QTEST_MAIN(TestDashboard)
#include "tst_dashboard.moc"
