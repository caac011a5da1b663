// The dashboard's Candidates tab (H4): the candidate records of a lease as
// CandidateBook keeps them in a real store, each with what it does now
// (leading, live, standing by, drained, gone), and the operator's steering
// through it: drain and undrain (a read-change-write of the candidate's
// record), hand over to a candidate (a request in the lease record). Each
// act asks first in plain words; cancelled, it writes nothing. The model
// runs under QAbstractItemModelTester; the records' times are judged by a
// ManualClock.

#include "candidatemodel.h"
#include "candidatestab.h"
#include "candidatesteering.h"
#include "dashboardsession.h"
#include "handoverdialog.h"
#include "leasescript.h"
#include "mainwindow.h"
#include "manualclock.h"
#include "memorystore.h"

#include <baton/leaseobserver.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QListWidget>
#include <QMenu>
#include <QTimer>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include <memory>
#include <optional>

using namespace baton;

namespace {

const QString kLease = QStringLiteral("cron");
const QDateTime kT0(QDate(2026, 12, 1), QTime(9, 0), Qt::UTC);
constexpr qint64 kHeartbeatMs = 15000;

CandidateRecord candidate(const QString &instance, int priority, qint64 heartbeatSecondsAgo, bool drained = false,
                          bool left = false)
{
    CandidateRecord record;
    record.instance = instance;
    record.incarnation = instance + QStringLiteral("-1");
    record.priority = priority;
    record.drained = drained;
    if (drained) {
        record.drainedBy = QStringLiteral("ops");
        record.drainedAt = kT0.addSecs(-600);
    }
    record.heartbeat = kT0.addSecs(-heartbeatSecondsAgo);
    record.heartbeatIntervalMs = kHeartbeatMs;
    record.left = left;
    return record;
}

bool create(Store *store, const CandidateRecord &record)
{
    CandidateBook book(store, kLease);
    std::optional<bool> ok;
    book.create(record, [&ok](bool created, const CandidateRecord &, const QString &) { ok = created; });
    return QTest::qWaitFor([&ok] { return ok.has_value(); }, 10000) && *ok;
}

std::optional<CandidateRecord> read(Store *store, const QString &instance)
{
    CandidateBook book(store, kLease);
    std::optional<CandidateRecord> out;
    bool answered = false;
    book.read(instance, [&](bool ok, const std::optional<CandidateRecord> &record, const QString &) {
        answered = true;
        if (ok)
            out = record;
    });
    if (!QTest::qWaitFor([&answered] { return answered; }, 10000))
        return std::nullopt;
    return out;
}

QStringList column(const QAbstractItemModel &model, int column)
{
    QStringList out;
    for (int row = 0; row < model.rowCount(); ++row)
        out.append(model.index(row, column).data().toString());
    return out;
}

/*!
 * A memory store with the lease cron held by web-1 and five candidates:
 * web-1 (the leader), web-2 (priority 10), web-3 (priority 5, drained),
 * web-4 (priority 20, silent for 50 s: gone), web-5 (left).
 */
struct World
{
    test::ManualClock clock {1'000'000, kT0};
    MemoryStore store {QStringLiteral("Registry"), QJsonObject(), nullptr};
    LeaseScript script {&store, &clock};
    DashboardSession session;

    bool start()
    {
        QString error;
        if (!store.init(&error))
            return false;
        std::optional<bool> written;
        script.write(kLease, QStringLiteral("web-1"), kHeartbeatMs, [&written](bool ok) { written = ok; });
        if (!QTest::qWaitFor([&written] { return written.has_value(); }, 10000) || !*written)
            return false;
        CandidateRecord labelled = candidate(QStringLiteral("web-2"), 10, 5);
        labelled.labels = {{QStringLiteral("zone"), QStringLiteral("b")}, {QStringLiteral("version"), QStringLiteral("1.5")}};
        for (const CandidateRecord &record :
             {candidate(QStringLiteral("web-1"), 0, 2), labelled,
              candidate(QStringLiteral("web-3"), 5, 1, true), candidate(QStringLiteral("web-4"), 20, 50),
              candidate(QStringLiteral("web-5"), 0, 3, false, true)})
            if (!create(&store, record))
                return false;
        session.attach(&store, &clock, QStringLiteral("memory"));
        return QTest::qWaitFor([this] { return session.observer()->isReady(); }, 10000);
    }
};

/*! The Candidates tab of \a window, showing the five candidates of cron; null when it does not. */
CandidatesTab *showCandidates(MainWindow &window)
{
    window.show();
    auto *tab = window.findChild<CandidatesTab *>();
    if (!tab || !QTest::qWaitFor([&window] { return window.leaseView()->model() && window.leaseView()->model()->rowCount() == 1; }, 10000))
        return nullptr;
    window.detailTabs()->setCurrentWidget(tab);
    window.selectLease(kLease);
    if (!QTest::qWaitFor([tab] { return tab->model()->rowCount() == 5; }, 10000))
        return nullptr;
    return tab;
}

} // namespace

class TestCandidatesModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void statesFollowTheRecordsAndTheHolder_data();
    void statesFollowTheRecordsAndTheHolder();
    void theCandidatesOfALeaseShowInOrderAndFollowTheStore();
    void drainThenUndrainWritesTheCandidateRecord();
    void aDrainOfAnInstanceWithoutARecordCreatesOneThatHasLeft();
    void aDrainOverAStandbyStartRecordsWhoDrained();
    void aHandoverRequestReachesTheLeaseRecord();
    void aCancelledConfirmationWritesNothing();
    void aLeaseNobodyHoldsCannotBeHandedOverAndSaysWhy();
};

void TestCandidatesModel::statesFollowTheRecordsAndTheHolder_data()
{
    QTest::addColumn<QList<CandidateRecord>>("records");
    QTest::addColumn<QString>("holder");
    QTest::addColumn<QStringList>("expected"); // instance:state, in the order shown

    QTest::newRow("H4: the leader first, then by priority, the gone last")
            << QList<CandidateRecord> {candidate(QStringLiteral("b"), 1, 1), candidate(QStringLiteral("a"), 1, 1),
                                       candidate(QStringLiteral("c"), 9, 1), candidate(QStringLiteral("z"), 0, 1),
                                       candidate(QStringLiteral("g"), 50, 46)}
            << QStringLiteral("z")
            << QStringList {QStringLiteral("z:Leading"), QStringLiteral("c:Live"), QStringLiteral("a:Live"),
                            QStringLiteral("b:Live"), QStringLiteral("g:Gone")};
    QTest::newRow("H4: a heartbeat 3 intervals old is still live, a left record is gone")
            << QList<CandidateRecord> {candidate(QStringLiteral("a"), 0, 45),
                                       candidate(QStringLiteral("b"), 0, 1, false, true)}
            << QString() << QStringList {QStringLiteral("a:Live"), QStringLiteral("b:Gone")};
    QTest::newRow("H3: drained beside a live candidate stands by; the drained leader leads")
            << QList<CandidateRecord> {candidate(QStringLiteral("a"), 0, 1, true), candidate(QStringLiteral("b"), 0, 1),
                                       candidate(QStringLiteral("c"), 0, 1, true)}
            << QStringLiteral("c")
            << QStringList {QStringLiteral("c:Leading"), QStringLiteral("a:StandingBy"), QStringLiteral("b:Live")};
    QTest::newRow("H3: drained with nobody else live is drained, and still takes the lease")
            << QList<CandidateRecord> {candidate(QStringLiteral("a"), 0, 1, true), candidate(QStringLiteral("b"), 0, 60)}
            << QString() << QStringList {QStringLiteral("a:Drained"), QStringLiteral("b:Gone")};
    CandidateRecord announced = candidate(QStringLiteral("d"), 0, 1, true);
    announced.heartbeatIntervalMs = 0; // drained before it ever started
    announced.left = true;
    QTest::newRow("H3: drained before it started: gone")
            << QList<CandidateRecord> {announced} << QString() << QStringList {QStringLiteral("d:Gone")};
}

void TestCandidatesModel::statesFollowTheRecordsAndTheHolder()
{
    QFETCH(QList<CandidateRecord>, records);
    QFETCH(QString, holder);
    QFETCH(QStringList, expected);
    QStringList shown;
    const QMetaEnum states = QMetaEnum::fromType<CandidateModel::State>();
    for (const CandidateModel::Row &row : CandidateModel::arrange(records, holder, kT0))
        shown.append(row.record.instance + QLatin1Char(':') + QString::fromLatin1(states.valueToKey(int(row.state))));
    QCOMPARE(shown, expected);
}

void TestCandidatesModel::theCandidatesOfALeaseShowInOrderAndFollowTheStore()
{
    // H4: the operator sees who stands for a lease and what each does now.
    World world;
    QVERIFY(world.start());
    CandidateModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy loaded(&model, &CandidateModel::loaded);
    model.setSource(world.session.observer(), kLease);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(model.holder(), QStringLiteral("web-1"));
    QCOMPARE(column(model, CandidateModel::InstanceColumn),
             (QStringList {QStringLiteral("web-1"), QStringLiteral("web-2"), QStringLiteral("web-3"),
                           QStringLiteral("web-4"), QStringLiteral("web-5")}));
    QCOMPARE(column(model, CandidateModel::StateColumn),
             (QStringList {QStringLiteral("leading"), QStringLiteral("live"), QStringLiteral("standing by"),
                           QStringLiteral("gone"), QStringLiteral("gone")}));
    QCOMPARE(column(model, CandidateModel::PriorityColumn),
             (QStringList {QStringLiteral("0"), QStringLiteral("10"), QStringLiteral("5"), QStringLiteral("20"),
                           QStringLiteral("0")}));
    const QString web2Beat = kT0.addSecs(-5).toLocalTime().toString(QStringLiteral("HH:mm:ss"));
    QCOMPARE(model.index(1, CandidateModel::HeartbeatColumn).data().toString(),
             QStringLiteral("%1 (5.0 s ago)").arg(web2Beat));
    QVERIFY(model.index(2, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("Drained by ops")));
    QCOMPARE(column(model, CandidateModel::LabelsColumn),
             (QStringList {QString(), QStringLiteral("version=1.5,zone=b"), QString(), QString(), QString()}));
    QVERIFY(model.index(1, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("Labels: version=1.5,zone=b")));
    QCOMPARE(model.successors().size(), 2); // web-2 and web-3: not the leader, not gone

    // Time passes: web-2's heartbeat falls 3 intervals behind, and it is gone.
    world.clock.advance(41'000);
    model.refreshTime();
    QCOMPARE(model.index(model.rowOf(QStringLiteral("web-2")), CandidateModel::StateColumn).data().toString(),
             QStringLiteral("gone"));
    QCOMPARE(model.index(model.rowOf(QStringLiteral("web-2")), CandidateModel::HeartbeatColumn).data().toString(),
             QStringLiteral("%1 (46 s ago)").arg(web2Beat));

    // Its next heartbeat shows through the watch, with no list asked.
    std::optional<CandidateRecord> web2 = read(&world.store, QStringLiteral("web-2"));
    QVERIFY(web2);
    CandidateRecord beat = *web2;
    beat.heartbeat = world.clock.wallNow();
    CandidateBook book(&world.store, kLease);
    book.replace(*web2, beat, [](bool, const CandidateRecord &, const QString &) {});
    QTRY_COMPARE(model.index(model.rowOf(QStringLiteral("web-2")), CandidateModel::StateColumn).data().toString(),
                 QStringLiteral("live"));
    QCOMPARE(model.rowOf(QStringLiteral("web-2")), 1);

    // Another lease: its candidates only (none).
    model.setSource(world.session.observer(), kLease + QStringLiteral("-2"));
    QVERIFY(loaded.wait(10000));
    QCOMPARE(model.rowCount(), 0);
}

void TestCandidatesModel::drainThenUndrainWritesTheCandidateRecord()
{
    // H3, H4: the dashboard drains a candidate as `baton drain` does, saying first what follows.
    World world;
    QVERIFY(world.start());
    MainWindow window(&world.session, nullptr, nullptr);
    CandidatesTab *tab = showCandidates(window);
    QVERIFY(tab);
    tab->selectCandidate(QStringLiteral("web-1"));
    tab->askDrain(true);
    QMessageBox *box = tab->confirmation();
    QVERIFY(box);
    QCOMPARE(box->text(), QStringLiteral("web-1 hands over cron within one heartbeat (15 s) and takes no lease while "
                                         "another candidate is live."));
    auto *confirm = box->findChild<QPushButton *>(QStringLiteral("confirmButton"));
    QVERIFY(confirm);
    QCOMPARE(confirm->text(), QStringLiteral("Drain web-1"));
    const std::optional<CandidateRecord> before = read(&world.store, QStringLiteral("web-1"));
    QVERIFY(before);
    confirm->click();
    QTRY_VERIFY(read(&world.store, QStringLiteral("web-1")).value_or(CandidateRecord()).drained);
    std::optional<CandidateRecord> after = read(&world.store, QStringLiteral("web-1"));
    QVERIFY2(after->drainedBy.endsWith(QStringLiteral("(dashboard)")), qPrintable(after->drainedBy));
    QCOMPARE(after->drainedAt, world.clock.wallNow());
    // Nothing else of the candidate's record changes: its heartbeat is its own.
    QCOMPARE(after->heartbeat, before->heartbeat);
    QCOMPARE(after->priority, before->priority);
    QCOMPARE(after->incarnation, before->incarnation);
    QVERIFY(!after->left);
    QTRY_COMPARE(tab->lastMessage(), QStringLiteral("web-1 is drained for cron."));
    QTRY_VERIFY(tab->model()->index(tab->model()->rowOf(QStringLiteral("web-1")), 0).data(CandidateModel::DrainedRole).toBool());

    tab->selectCandidate(QStringLiteral("web-1"));
    tab->askDrain(false);
    box = tab->confirmation();
    QVERIFY(box);
    QVERIFY2(box->text().startsWith(QStringLiteral("web-1 stands for cron again within one heartbeat (15 s)")),
             qPrintable(box->text()));
    box->findChild<QPushButton *>(QStringLiteral("confirmButton"))->click();
    QTRY_VERIFY(!read(&world.store, QStringLiteral("web-1")).value_or(CandidateRecord()).drained);
    after = read(&world.store, QStringLiteral("web-1"));
    QVERIFY(after->drainedBy.isEmpty());
    QVERIFY(!after->drainedAt.isValid());
    QTRY_COMPARE(tab->lastMessage(), QStringLiteral("web-1 is no longer drained for cron."));
}

void TestCandidatesModel::aDrainOfAnInstanceWithoutARecordCreatesOneThatHasLeft()
{
    // H3: an instance drained before it starts comes up drained; undraining one unknown writes nothing.
    World world;
    QVERIFY(world.start());
    CandidateSteering steering(world.session.observer());
    std::optional<bool> ok;
    QString message;
    steering.setDrained(kLease, QStringLiteral("web-9"), true, QStringLiteral("tester"), [&](bool done, const QString &text) {
        ok = done;
        message = text;
    });
    QTRY_VERIFY(ok.has_value());
    QVERIFY2(*ok, qPrintable(message));
    const std::optional<CandidateRecord> created = read(&world.store, QStringLiteral("web-9"));
    QVERIFY(created);
    QVERIFY(created->drained);
    QVERIFY(created->left);
    QCOMPARE(created->heartbeatIntervalMs, qint64(0));
    QCOMPARE(created->drainedBy, QStringLiteral("tester"));

    ok.reset();
    steering.setDrained(kLease, QStringLiteral("web-8"), false, QStringLiteral("tester"), [&](bool done, const QString &text) {
        ok = done;
        message = text;
    });
    QTRY_VERIFY(ok.has_value());
    QVERIFY(*ok);
    QCOMPARE(message, QStringLiteral("web-8 has no record for cron: it is not drained."));
    QVERIFY(!read(&world.store, QStringLiteral("web-8")));
}

void TestCandidatesModel::aDrainOverAStandbyStartRecordsWhoDrained()
{
    // H3: an instance started with --standby is drained by "standby"; the
    // operator's drain takes the mark over (as `baton drain` does), and a
    // second drain writes nothing.
    World world;
    QVERIFY(world.start());
    CandidateRecord standby = candidate(QStringLiteral("web-6"), 0, 1, true);
    standby.drainedBy = QStringLiteral("standby");
    QVERIFY(create(&world.store, standby));
    CandidateSteering steering(world.session.observer());
    const auto drain = [&steering](QString *message) {
        std::optional<bool> ok;
        steering.setDrained(kLease, QStringLiteral("web-6"), true, QStringLiteral("tester"),
                            [&](bool done, const QString &text) {
                                ok = done;
                                *message = text;
                            });
        return QTest::qWaitFor([&ok] { return ok.has_value(); }, 10000) && *ok;
    };
    QString message;
    QVERIFY2(drain(&message), qPrintable(message));
    QCOMPARE(message, QStringLiteral("web-6 is drained for cron."));
    const std::optional<CandidateRecord> marked = read(&world.store, QStringLiteral("web-6"));
    QVERIFY(marked);
    QCOMPARE(marked->drainedBy, QStringLiteral("tester"));
    QVERIFY2(drain(&message), qPrintable(message));
    QCOMPARE(message, QStringLiteral("web-6 was drained for cron already."));
    QCOMPARE(read(&world.store, QStringLiteral("web-6")).value_or(CandidateRecord()).version, marked->version);
}

void TestCandidatesModel::aHandoverRequestReachesTheLeaseRecord()
{
    // H1, H4: "Hand over to…" lists the live candidates and asks the holder through the lease record.
    World world;
    QVERIFY(world.start());
    MainWindow window(&world.session, nullptr, nullptr);
    CandidatesTab *tab = showCandidates(window);
    QVERIFY(tab);
    QVERIFY(tab->findChild<QPushButton *>(QStringLiteral("handOverButton"))->isEnabled());
    // From the lease table's context menu.
    QStringList menuTexts;
    QTimer::singleShot(0, this, [&menuTexts] {
        const QList<QWidget *> windows = QApplication::topLevelWidgets();
        for (QWidget *w : windows) {
            auto *menu = qobject_cast<QMenu *>(w);
            if (!menu || !menu->isVisible())
                continue;
            const QList<QAction *> actions = menu->actions();
            for (QAction *action : actions)
                menuTexts.append(action->text());
            if (!actions.isEmpty())
                actions.first()->trigger();
            menu->close();
        }
    });
    const QModelIndex cron = window.leaseView()->model()->index(0, 0);
    Q_EMIT window.leaseView()->customContextMenuRequested(window.leaseView()->visualRect(cron).center());
    QCOMPARE(menuTexts, QStringList {QStringLiteral("Hand over cron to…")});
    HandoverDialog *dialog = tab->handoverDialog();
    QVERIFY(dialog);
    QStringList offered;
    for (int row = 0; row < dialog->list()->count(); ++row)
        offered.append(dialog->list()->item(row)->data(Qt::UserRole).toString());
    // Neither the leader nor the gone: the live ones by priority, then whoever asks first.
    QCOMPARE(offered, (QStringList {QStringLiteral("web-2"), QStringLiteral("web-3"), QStringLiteral("*")}));
    dialog->choose(QStringLiteral("web-2"));
    QCOMPARE(dialog->consequence(),
             QStringLiteral("web-1 stops its work for cron and hands the lease to web-2, which leads next; nobody else "
                            "leads in between. Should web-2 not take it, the lease stays free for at most 15 s."));
    dialog->findChild<QPushButton *>(QStringLiteral("handoverAccept"))->click();
    QTRY_COMPARE(world.session.observer()->lease(kLease).value_or(ObservedLease()).record.successor,
                 QStringLiteral("web-2"));
    const LeaseRecord record = world.session.observer()->lease(kLease)->record;
    QCOMPARE(record.holder, QStringLiteral("web-1")); // the holder hands over itself
    QVERIFY2(record.handoverRequestedBy.endsWith(QStringLiteral("(dashboard)")), qPrintable(record.handoverRequestedBy));
    QTRY_VERIFY(!tab->lastMessage().isEmpty());
}

void TestCandidatesModel::aCancelledConfirmationWritesNothing()
{
    // H4: a question answered "Cancel" leaves the records as they were.
    World world;
    QVERIFY(world.start());
    MainWindow window(&world.session, nullptr, nullptr);
    CandidatesTab *tab = showCandidates(window);
    QVERIFY(tab);
    const QString web2Version = read(&world.store, QStringLiteral("web-2")).value_or(CandidateRecord()).version;
    const QString leaseVersion = world.session.observer()->lease(kLease)->version;

    tab->selectCandidate(QStringLiteral("web-2"));
    tab->askDrain(true);
    QVERIFY(tab->confirmation());
    QVERIFY(tab->confirmation()->findChild<QPushButton *>(QStringLiteral("confirmButton")));
    tab->confirmation()->button(QMessageBox::Cancel)->click();
    QTRY_VERIFY(!tab->confirmation());

    tab->askHandover(QStringLiteral("web-2"));
    QVERIFY(tab->handoverDialog());
    QCOMPARE(tab->handoverDialog()->chosen(), QStringLiteral("web-2"));
    // Picking a drained candidate says it will not keep the lease.
    tab->handoverDialog()->choose(QStringLiteral("web-3"));
    QVERIFY2(tab->handoverDialog()->consequence().endsWith(
                     QStringLiteral("web-3 is drained: once it leads, it hands the lease on to another live candidate "
                                    "within one heartbeat.")),
             qPrintable(tab->handoverDialog()->consequence()));
    tab->handoverDialog()->reject();

    // An act confirmed after them is written: the cancelled ones would have been by then.
    tab->selectCandidate(QStringLiteral("web-3"));
    tab->askDrain(false);
    tab->confirmation()->findChild<QPushButton *>(QStringLiteral("confirmButton"))->click();
    QTRY_VERIFY(!read(&world.store, QStringLiteral("web-3")).value_or(CandidateRecord()).drained);
    QCOMPARE(read(&world.store, QStringLiteral("web-2")).value_or(CandidateRecord()).version, web2Version);
    QCOMPARE(world.session.observer()->lease(kLease)->version, leaseVersion);
    QVERIFY(world.session.observer()->lease(kLease)->record.successor.isEmpty());
}

void TestCandidatesModel::aLeaseNobodyHoldsCannotBeHandedOverAndSaysWhy()
{
    World world;
    QVERIFY(world.start());
    std::optional<bool> released;
    world.script.write(kLease, QString(), kHeartbeatMs, [&released](bool ok) { released = ok; });
    QTRY_VERIFY(released.has_value());
    MainWindow window(&world.session, nullptr, nullptr);
    CandidatesTab *tab = showCandidates(window);
    QVERIFY(tab);
    QTRY_VERIFY(tab->model()->holder().isEmpty());
    QVERIFY(!tab->findChild<QPushButton *>(QStringLiteral("handOverButton"))->isEnabled());
    tab->askHandover();
    QVERIFY(!tab->handoverDialog());
    QCOMPARE(tab->lastMessage(), QStringLiteral("Nobody leads cron now: there is nothing to hand over."));
}

QTEST_MAIN(TestCandidatesModel)
#include "tst_candidatesmodel.moc"
