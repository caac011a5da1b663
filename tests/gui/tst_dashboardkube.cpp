// The dashboard on a Kubernetes connection (O4, O2, R2), against the
// test Lease API server (tests/kube/leaseapiserver.h) over TLS: the
// connection's bearer token (a keychain secret) replaces the kubeconfig's,
// which the server refuses; the table shows a Lease and its holder and
// follows a change through the watch; an empty namespace shows every
// namespace; joining stays off. Waits are for conditions, never for time.

#include "artifacts.h"
#include "connection.h"
#include "dashboardparticipant.h"
#include "dashboardsession.h"
#include "leaseapiserver.h"
#include "leasetablemodel.h"
#include "mainwindow.h"
#include "runhistorymodel.h"
#include "runstab.h"
#include "candidatemodel.h"
#include "candidatestab.h"
#include "handoverdialog.h"
#include "testcertificates.h"
#include "testsecrets.h"

#include <QDateTime>
#include <batoninternal/candidatebook.h>
#include <batoninternal/observercandidatebook.h>
#include <batoninternal/observerrunledger.h>
#include <batoninternal/runledger.h>
#include <baton/leaseobserver.h>

#include <QFile>
#include <QJsonObject>
#include <QLabel>
#include <QLoggingCategory>
#include <QMessageBox>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace baton;

namespace {

const QString observerToken = test::testSecret(QStringLiteral("dashboard-kube-token"));
const QString staleToken = test::testSecret(QStringLiteral("dashboard-stale-token"));
const QString runsWriterToken = test::testSecret(QStringLiteral("dashboard-runs-token"));
const QString steeringToken = test::testSecret(QStringLiteral("dashboard-steering-token"));

QStringList s_logLines;

void captureLog(QtMsgType, const QMessageLogContext &, const QString &message)
{
    s_logLines.append(message);
}

QJsonObject leaseObject(const QString &holder)
{
    const QString now = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzz000Z"));
    return {{QStringLiteral("apiVersion"), QStringLiteral("coordination.k8s.io/v1")},
            {QStringLiteral("kind"), QStringLiteral("Lease")},
            {QStringLiteral("spec"),
             QJsonObject {{QStringLiteral("holderIdentity"), holder},
                          {QStringLiteral("leaseDurationSeconds"), 30},
                          {QStringLiteral("acquireTime"), now},
                          {QStringLiteral("renewTime"), now},
                          {QStringLiteral("leaseTransitions"), 0}}}};
}

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

} // namespace

class TestDashboardKube : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void showsALeaseAndItsHolderWithTheConnectionsToken();
    void emptyNamespaceShowsEveryNamespace();
    void theCandidatesOfALeaseAreItsConfigMapsAndAreSteeredThroughThem();
    void cleanup();

private:
    Connection connection(const QString &ns, const QString &token = observerToken) const;

    QTemporaryDir m_folder;
    test::TestCertificates m_certificates;
    test::LeaseApiServer m_server;
    QString m_kubeconfig;
};

void TestDashboardKube::initTestCase()
{
    QVERIFY(m_folder.isValid());
    QString error;
    QVERIFY2(m_certificates.generate(m_folder.path(), &error), qPrintable(error));
    QVERIFY2(m_server.setTls(m_certificates.serverCertFile(), m_certificates.serverKeyFile(), {}, &error),
             qPrintable(error));
    QVERIFY2(m_server.listen(&error), qPrintable(error));
    // The observer ClusterRole (B5): get, list, watch. The kubeconfig's own
    // token is unknown to the server, so only the connection's token opens it.
    m_server.addToken(observerToken, QStringLiteral("system:serviceaccount:baton-system:dashboard"),
                      {QStringLiteral("get"), QStringLiteral("list"), QStringLiteral("watch")});
    m_kubeconfig = m_folder.filePath(QStringLiteral("kubeconfig"));
    QFile file(m_kubeconfig);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(QStringLiteral("apiVersion: v1\nkind: Config\ncurrent-context: dash\n"
                              "clusters:\n- name: test\n  cluster:\n    server: %1\n"
                              "    certificate-authority: %2\n"
                              "contexts:\n- name: dash\n  context:\n    cluster: test\n    user: stale\n"
                              "    namespace: default\n"
                              "users:\n- name: stale\n  user:\n    token: %3\n")
                       .arg(m_server.url().toString(), m_certificates.caFile(), staleToken)
                       .toUtf8());
    file.close();
    m_server.putRaw(QStringLiteral("ks"), QStringLiteral("jobs"), leaseObject(QStringLiteral("node-a")));
    m_server.putRaw(QStringLiteral("other"), QStringLiteral("cron"), leaseObject(QStringLiteral("node-z")));
    // A kubelet's heartbeat: a Lease, but no election.
    m_server.putRaw(QStringLiteral("kube-node-lease"), QStringLiteral("worker-1"),
                    leaseObject(QStringLiteral("worker-1")));
}

void TestDashboardKube::cleanup()
{
    qInstallMessageHandler(nullptr);
    // R2: what the capture took from the test output goes to the secrets scan.
    test::keepArtifact(test::ArtifactKind::CapturedLog, QStringLiteral("captured.log"),
                       s_logLines.join(QLatin1Char('\n')).toUtf8());
    s_logLines.clear();
    QLoggingCategory::setFilterRules(QStringLiteral("baton.*.debug=false"));
}

Connection TestDashboardKube::connection(const QString &ns, const QString &token) const
{
    Connection c;
    c.name = QStringLiteral("test cluster");
    c.kind = ConnectionKind::Kubernetes;
    c.parameters.insert(QStringLiteral("config"), m_kubeconfig);
    c.parameters.insert(QStringLiteral("context"), QStringLiteral("dash"));
    if (!ns.isEmpty())
        c.parameters.insert(QStringLiteral("namespace"), ns);
    // As the keychain hands it over when the connection opens.
    c.secrets.insert(QStringLiteral("token"), token);
    return c;
}

void TestDashboardKube::showsALeaseAndItsHolderWithTheConnectionsToken()
{
    QVERIFY(Connection::isAvailable(ConnectionKind::Kubernetes));
    QLoggingCategory::setFilterRules(QStringLiteral("baton.*.debug=true"));
    s_logLines.clear();
    qInstallMessageHandler(&captureLog);

    DashboardSession session;
    QString error;
    QVERIFY2(session.open(connection(QStringLiteral("ks")), &error), qPrintable(error));
    QVERIFY(!session.store());
    MainWindow window(&session, nullptr, nullptr);
    window.show();
    // One namespace: the Lease by its name, with its holder.
    QTRY_COMPARE_WITH_TIMEOUT(holderCell(*window.leaseView(), QStringLiteral("jobs")), QStringLiteral("node-a"),
                              5000);
    QCOMPARE(holderCell(*window.leaseView(), QStringLiteral("cron")), QStringLiteral("<no row>"));

    // A new holder arrives through the watch.
    m_server.putRaw(QStringLiteral("ks"), QStringLiteral("jobs"), leaseObject(QStringLiteral("node-b")));
    QTRY_COMPARE_WITH_TIMEOUT(holderCell(*window.leaseView(), QStringLiteral("jobs")), QStringLiteral("node-b"),
                              5000);

    // Observing only: no election to join on a Kubernetes connection, and
    // the button says why.
    QVERIFY(!session.participant()->canJoin());
    QString refused;
    QVERIFY(!session.participant()->join({QStringLiteral("jobs"), QStringLiteral("me"), 15000, 5000}, &refused));
    auto *join = window.findChild<QPushButton *>(QStringLiteral("joinButton"));
    QVERIFY(join);
    QVERIFY(!join->isEnabled());
    QVERIFY(!join->toolTip().isEmpty());

    // S4: the Runs tab reads the runs of a Kubernetes Lease from their
    // ConfigMaps. The shipped observer ClusterRole lists no ConfigMaps (it
    // is cluster-wide): the tab says so in the server's words.
    window.selectLease(QStringLiteral("jobs"));
    auto *runs = window.findChild<RunsTab *>();
    QVERIFY(runs);
    window.detailTabs()->setCurrentWidget(runs);
    auto *runsEmpty = runs->findChild<QLabel *>(QStringLiteral("runsEmpty"));
    QVERIFY(runsEmpty);
    QTRY_VERIFY2_WITH_TIMEOUT(runsEmpty->isVisible() && runsEmpty->text().contains(QStringLiteral("403")),
                              qPrintable(runsEmpty->text()), 10000);
    QVERIFY2(runsEmpty->text().contains(QStringLiteral("configmaps")), qPrintable(runsEmpty->text()));
    QVERIFY(!runs->table()->isVisible());

    // Granted `list` on configmaps, it shows a run that a participant wrote
    // as `baton join --schedule` writes it, within one poll.
    m_server.setVerbs(QStringLiteral("system:serviceaccount:baton-system:dashboard"),
                      {QStringLiteral("get"), QStringLiteral("list"), QStringLiteral("watch"),
                       QStringLiteral("configmaps/list")});
    m_server.addToken(runsWriterToken, QStringLiteral("system:serviceaccount:ks:participant"),
                      {QStringLiteral("list"), QStringLiteral("watch"), QStringLiteral("configmaps/list"),
                       QStringLiteral("configmaps/create")});
    LeaseSourceOptions participant;
    participant.kind = LeaseSourceOptions::Kind::Kubernetes;
    participant.kubeconfigPath = m_kubeconfig;
    participant.namespaceName = QStringLiteral("ks");
    participant.token = runsWriterToken;
    QString writerError;
    LeaseObserver *writer = LeaseObserver::open(participant, this, &writerError);
    QVERIFY2(writer, qPrintable(writerError));
    RunLedger *ledger = openRunLedger(writer, QStringLiteral("jobs"), writer, &writerError);
    QVERIFY2(ledger, qPrintable(writerError));
    RunRecord record;
    // The schedule's latest tick: with an older one, the ticks since would
    // show first, as missed.
    const QDateTime nowUtc = QDateTime::currentDateTimeUtc();
    QDateTime latestTick(nowUtc.date(), QTime(3, 0), Qt::UTC);
    if (latestTick > nowUtc)
        latestTick = latestTick.addDays(-1);
    record.tick = latestTick.toString(Qt::ISODate);
    record.instance = QStringLiteral("node-a");
    record.token = 7;
    record.start = latestTick;
    record.end = record.start.addSecs(42);
    record.outcome = RunRecord::succeeded;
    record.schedule = QStringLiteral("0 3 * * *");
    bool claimed = false;
    ledger->claim(record, [&claimed](bool ok, const RunRecord &, const QString &) { claimed = ok; });
    QTRY_VERIFY(claimed);
    QTRY_VERIFY_WITH_TIMEOUT(runs->table()->isVisible(), 3 * RunHistoryModel::pollIntervalMs);
    QCOMPARE(runs->table()->model()->data(runs->table()->model()->index(0, RunHistoryModel::InstanceColumn))
                     .toString(),
             QStringLiteral("node-a"));
    delete writer;

    // B5: the connection's token was the one sent; nothing but reading.
    const QString user = QStringLiteral("system:serviceaccount:baton-system:dashboard");
    QVERIFY(m_server.count(user, QStringLiteral("list")) >= 1);
    QCOMPARE(m_server.count(user, QStringLiteral("update")), 0);
    session.close();
    qInstallMessageHandler(nullptr);
    // R2: the token shows in no log line.
    QVERIFY2(!s_logLines.join(QLatin1Char('\n')).contains(observerToken), "the bearer token shows in a log line");
}

void TestDashboardKube::emptyNamespaceShowsEveryNamespace()
{
    DashboardSession session;
    QString error;
    QVERIFY2(session.open(connection({}), &error), qPrintable(error));
    MainWindow window(&session, nullptr, nullptr);
    window.show();
    QTRY_COMPARE_WITH_TIMEOUT(holderCell(*window.leaseView(), QStringLiteral("other/cron")),
                              QStringLiteral("node-z"), 5000);
    QVERIFY(holderCell(*window.leaseView(), QStringLiteral("ks/jobs")).startsWith(QStringLiteral("node-")));
    // O2: the nodes' heartbeats (kube-node-lease) are left out of every
    // namespace, and shown when that namespace is asked for by name.
    QCOMPARE(window.leaseView()->model()->rowCount(), 2);
    DashboardSession heartbeats;
    QVERIFY2(heartbeats.open(connection(QStringLiteral("kube-node-lease")), &error), qPrintable(error));
    MainWindow heartbeatWindow(&heartbeats, nullptr, nullptr);
    heartbeatWindow.show();
    QTRY_COMPARE_WITH_TIMEOUT(holderCell(*heartbeatWindow.leaseView(), QStringLiteral("worker-1")),
                              QStringLiteral("worker-1"), 5000);
}

void TestDashboardKube::theCandidatesOfALeaseAreItsConfigMapsAndAreSteeredThroughThem()
{
    // H4: on a Kubernetes connection the Candidates tab reads the
    // candidates' ConfigMaps beside the Lease, a drain is an update of one
    // of them, and a handover the request in the Lease. An operator who
    // steers has more than the observer ClusterRole: update on leases and
    // configmaps.
    const QString operatorUser = QStringLiteral("system:serviceaccount:baton-system:operator");
    m_server.addToken(steeringToken, operatorUser,
                      {QStringLiteral("get"), QStringLiteral("list"), QStringLiteral("watch"), QStringLiteral("update"),
                       QStringLiteral("configmaps/list"), QStringLiteral("configmaps/get"),
                       QStringLiteral("configmaps/create"), QStringLiteral("configmaps/update")});
    m_server.putRaw(QStringLiteral("ks"), QStringLiteral("steered"), leaseObject(QStringLiteral("node-a")));
    DashboardSession session;
    QString error;
    QVERIFY2(session.open(connection(QStringLiteral("ks"), steeringToken), &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(session.observer()->lease(QStringLiteral("steered")).has_value(), 5000);
    CandidateBook *book = openCandidateBook(session.observer(), QStringLiteral("steered"), this, &error);
    QVERIFY2(book, qPrintable(error));
    for (const QString &instance : {QStringLiteral("node-a"), QStringLiteral("node-b")}) {
        CandidateRecord record;
        record.instance = instance;
        record.incarnation = instance + QStringLiteral("-1");
        record.heartbeat = QDateTime::currentDateTimeUtc();
        record.heartbeatIntervalMs = 30000;
        bool created = false;
        book->create(record, [&created](bool ok, const CandidateRecord &, const QString &) { created = ok; });
        QTRY_VERIFY(created);
    }

    MainWindow window(&session, nullptr, nullptr);
    window.show();
    auto *tab = window.findChild<CandidatesTab *>();
    QVERIFY(tab);
    window.detailTabs()->setCurrentWidget(tab);
    QTRY_VERIFY_WITH_TIMEOUT(window.leaseView()->model() && window.leaseView()->model()->rowCount() > 0, 5000);
    window.selectLease(QStringLiteral("steered"));
    QTRY_COMPARE_WITH_TIMEOUT(tab->model()->rowCount(), 2, 3 * CandidateModel::pollIntervalMs);
    QCOMPARE(tab->model()->rowAt(0).state, CandidateModel::State::Leading);

    tab->selectCandidate(QStringLiteral("node-b"));
    tab->askDrain(true);
    QVERIFY(tab->confirmation());
    tab->confirmation()->findChild<QPushButton *>(QStringLiteral("confirmButton"))->click();
    QTRY_COMPARE_WITH_TIMEOUT(tab->lastMessage(), QStringLiteral("node-b is drained for steered."), 5000);
    std::optional<CandidateRecord> stored;
    book->read(QStringLiteral("node-b"), [&stored](bool, const std::optional<CandidateRecord> &record, const QString &) {
        stored = record.value_or(CandidateRecord());
    });
    QTRY_VERIFY(stored.has_value());
    QVERIFY(stored->drained);
    QVERIFY2(stored->drainedBy.endsWith(QStringLiteral("(dashboard)")), qPrintable(stored->drainedBy));

    tab->askHandover(QStringLiteral("node-b"));
    QVERIFY(tab->handoverDialog());
    QCOMPARE(tab->handoverDialog()->chosen(), QStringLiteral("node-b"));
    tab->handoverDialog()->findChild<QPushButton *>(QStringLiteral("handoverAccept"))->click();
    QTRY_COMPARE_WITH_TIMEOUT(
            m_server.lease(QStringLiteral("ks"), QStringLiteral("steered"))
                    .value(QStringLiteral("spec")).toObject().value(QStringLiteral("preferredHolder")).toString(),
            QStringLiteral("node-b"), 5000);
    QCOMPARE(m_server.lease(QStringLiteral("ks"), QStringLiteral("steered"))
                     .value(QStringLiteral("spec")).toObject().value(QStringLiteral("holderIdentity")).toString(),
             QStringLiteral("node-a"));
    QVERIFY(m_server.count(operatorUser, QStringLiteral("configmaps/update")) >= 1);
    delete book;

    // The observer ClusterRole (and a list of configmaps) reads the
    // candidates but may not steer: each act says so in the server's
    // words, and nothing is written.
    const QString observerUser = QStringLiteral("system:serviceaccount:baton-system:dashboard");
    m_server.setVerbs(observerUser, {QStringLiteral("get"), QStringLiteral("list"), QStringLiteral("watch"),
                                     QStringLiteral("configmaps/list")});
    DashboardSession observing;
    QVERIFY2(observing.open(connection(QStringLiteral("ks")), &error), qPrintable(error));
    MainWindow observerWindow(&observing, nullptr, nullptr);
    observerWindow.show();
    auto *observerTab = observerWindow.findChild<CandidatesTab *>();
    QVERIFY(observerTab);
    observerWindow.detailTabs()->setCurrentWidget(observerTab);
    QTRY_VERIFY_WITH_TIMEOUT(observerWindow.leaseView()->model() && observerWindow.leaseView()->model()->rowCount() > 0,
                             5000);
    observerWindow.selectLease(QStringLiteral("steered"));
    QTRY_COMPARE_WITH_TIMEOUT(observerTab->model()->rowCount(), 2, 3 * CandidateModel::pollIntervalMs);
    observerTab->selectCandidate(QStringLiteral("node-a"));
    observerTab->askDrain(true);
    observerTab->confirmation()->findChild<QPushButton *>(QStringLiteral("confirmButton"))->click();
    QTRY_VERIFY_WITH_TIMEOUT(!observerTab->lastMessage().isEmpty(), 5000);
    QVERIFY2(observerTab->lastMessage().startsWith(QStringLiteral("Cannot read the record of node-a for steered: "))
                     && observerTab->lastMessage().contains(QStringLiteral("403")),
             qPrintable(observerTab->lastMessage()));
    QCOMPARE(m_server.count(observerUser, QStringLiteral("configmaps/update")), 0);
    QCOMPARE(m_server.count(observerUser, QStringLiteral("update")), 0);
}

QTEST_MAIN(TestDashboardKube)
#include "tst_dashboardkube.moc"
