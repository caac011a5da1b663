// The dashboard on an etcd connection (O4, O2, R2): a real `baton join`
// elects through the etcd fixture with authentication on, and the dashboard,
// opened on a connection whose password is a secret (as the keychain hands
// it over), shows the lease and its holder, then follows a release. The
// password shows in no log line. Waits are for conditions, never for time.

#include "connection.h"
#include "dashboardsession.h"
#include "etcdfixture.h"
#include "leasetablemodel.h"
#include "mainwindow.h"
#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <csignal>

using namespace baton;

namespace {

QStringList s_logLines;

void captureLog(QtMsgType, const QMessageLogContext &, const QString &message)
{
    s_logLines.append(message);
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

class TestDashboardEtcd : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void showsTheHolderElectedByARealParticipant();
    void cleanup();

private:
    test::EtcdFixture m_etcd {"BATON_ETCD_AUTH_DIR"};
    QTemporaryDir m_folder;
    std::unique_ptr<ParticipantProcess> m_participant;
};

void TestDashboardEtcd::initTestCase()
{
    if (!m_etcd.configured())
        QSKIP("no etcd fixture: run through ctest");
    QVERIFY2(!m_etcd.endpoints().isEmpty(), qPrintable(m_etcd.errorString()));
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
}

void TestDashboardEtcd::cleanup()
{
    qInstallMessageHandler(nullptr);
    // R2: what the capture took from the test output goes to the secrets scan.
    test::keepArtifact(test::ArtifactKind::CapturedLog, QStringLiteral("captured.log"),
                       s_logLines.join(QLatin1Char('\n')).toUtf8());
    s_logLines.clear();
    QLoggingCategory::setFilterRules(QStringLiteral("baton.*.debug=false"));
    if (m_participant && m_participant->isRunning()) {
        QSignalSpy finished(m_participant.get(), &ParticipantProcess::finished);
        m_participant->sendSignal(SIGKILL);
        finished.wait(5000);
    }
    m_participant.reset();
}

void TestDashboardEtcd::showsTheHolderElectedByARealParticipant()
{
    // A prefix of its own (the fixture's etcd is shared with other tests),
    // under auth/, the only keys the fixture's user may write.
    const QString prefix = QStringLiteral("auth/dashboard-%1/").arg(QUuid::createUuid().toString(QUuid::Id128));
    QJsonArray endpoints;
    for (const QString &endpoint : m_etcd.endpoints())
        endpoints.append(endpoint);
    const QJsonObject registry {{QStringLiteral("type"), QStringLiteral("Webda/EtcdStore")},
                                {QStringLiteral("endpoints"), endpoints},
                                {QStringLiteral("prefix"), prefix},
                                {QStringLiteral("username"), m_etcd.username()},
                                {QStringLiteral("password"), m_etcd.password()}};
    const QJsonObject config {
            {QStringLiteral("services"),
             QJsonObject {{QStringLiteral("Registry"), registry},
                          {QStringLiteral("cluster"),
                           QJsonObject {{QStringLiteral("type"), QStringLiteral("StoreClusterService")},
                                        {QStringLiteral("leaseName"), QStringLiteral("cron")},
                                        {QStringLiteral("instanceId"), QStringLiteral("etcd-p1")},
                                        // BATON_TEST_TIME_SCALE times a quiet machine's.
                                        {QStringLiteral("leaseDuration"), test::scaledMs(2000)},
                                        {QStringLiteral("renewInterval"), test::scaledMs(500)}}}}}};
    const QString path = m_folder.filePath(QStringLiteral("p1.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(config).toJson());
    file.close();
    m_participant = std::make_unique<ParticipantProcess>(
            QStringLiteral("etcd-p1"), test::batonBinary(),
            QStringList {QStringLiteral("join"), QStringLiteral("--config"), path, QStringLiteral("--events"),
                         QStringLiteral("json"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")});
    test::keepOutput(m_participant.get());
    m_participant->start();
    QTRY_VERIFY2_WITH_TIMEOUT(m_participant->isLeading(), m_participant->standardError().constData(), 15000);
    // R2: the /metrics of a participant that holds a password, for the secrets scan.
    QVERIFY(test::keepMetrics(*m_participant));

    // The connection as the dialog saves it, with the password as the
    // keychain hands it over: a secret, not a parameter.
    Connection connection;
    connection.name = QStringLiteral("etcd under test");
    connection.kind = ConnectionKind::Etcd;
    connection.parameters.insert(QStringLiteral("endpoints"), m_etcd.endpoints().join(QLatin1Char(',')));
    connection.parameters.insert(QStringLiteral("prefix"), prefix);
    connection.parameters.insert(QStringLiteral("username"), m_etcd.username());
    connection.parameters.insert(QStringLiteral("timeout"), QStringLiteral("3000"));
    connection.secrets.insert(QStringLiteral("password"), m_etcd.password());
    QVERIFY(Connection::isAvailable(ConnectionKind::Etcd));

    QLoggingCategory::setFilterRules(QStringLiteral("baton.*.debug=true"));
    s_logLines.clear();
    qInstallMessageHandler(&captureLog);
    DashboardSession session;
    QString error;
    QVERIFY2(session.open(connection, &error), qPrintable(error));
    QVERIFY(session.store());
    MainWindow window(&session, nullptr, nullptr);
    window.show();
    QTRY_COMPARE_WITH_TIMEOUT(holderCell(*window.leaseView(), QStringLiteral("cron")), QStringLiteral("etcd-p1"),
                              10000);
    // A Registry connection can join (the Kubernetes one cannot).
    auto *join = window.findChild<QPushButton *>(QStringLiteral("joinButton"));
    QVERIFY(join);
    QVERIFY(join->isEnabled());

    // F5: SIGTERM releases; the watch brings the empty holder.
    QSignalSpy finished(m_participant.get(), &ParticipantProcess::finished);
    m_participant->sendSignal(SIGTERM);
    QVERIFY(finished.wait(10000));
    QTRY_VERIFY_WITH_TIMEOUT(holderCell(*window.leaseView(), QStringLiteral("cron")) != QStringLiteral("etcd-p1"),
                             5000);
    session.close();
    qInstallMessageHandler(nullptr);
    // R2: the password went to the store only.
    const QString logs = s_logLines.join(QLatin1Char('\n'));
    QVERIFY2(!logs.contains(m_etcd.password()), "the etcd password shows in a log line");
}

QTEST_MAIN(TestDashboardEtcd)
#include "tst_dashboardetcd.moc"
