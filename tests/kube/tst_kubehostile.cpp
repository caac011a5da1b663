// A hostile or wrong Kubernetes API server, as the user sees it (R1,
// R3): a redirect to another host, a reply larger than the limit, a reply
// that never ends (fast, or a byte now and then), and a server whose
// certificate another CA signed. For each, `baton status` exits with one
// clear error and prints no lease, and a `baton join` participant names the
// same error in its log and on each failed attempt, and never leads. The hostile server is a few
// lines of QTcpServer in this file; the wrong-CA server is the test Lease
// API server (leaseapiserver.h) over TLS.

#include "leaseapiserver.h"
#include "participantprocess.h"
#include "participants.h"
#include "testcertificates.h"
#include "testsecrets.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonObject>
#include <QPointer>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <csignal>

using namespace baton;

namespace {

enum class Hostility { Redirect, Oversized, Endless, Trickle };

QByteArray chunk(const QByteArray &data)
{
    return QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n";
}

/*! Answers every request with the same hostility, on plain HTTP. */
class HostileServer : public QObject
{
public:
    explicit HostileServer(Hostility hostility)
        : m_hostility(hostility)
    {
        connect(&m_server, &QTcpServer::pendingConnectionAvailable, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] { read(socket); });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        m_server.listen(QHostAddress::LocalHost);
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()); }
    int requests = 0;

private:
    void read(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        buffer.remove(0, end + 4); // GETs only: no body
        ++requests;
        const QByteArray json = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n";
        switch (m_hostility) {
        case Hostility::Redirect:
            socket->write("HTTP/1.1 307 Temporary Redirect\r\nLocation: http://203.0.113.9:6443"
                          "/apis/coordination.k8s.io/v1/leases\r\nContent-Length: 0\r\n\r\n");
            return;
        case Hostility::Oversized:
            socket->write(json + "Content-Length: 104857600\r\n\r\n{\"kind\":\"LeaseList\",\"items\":[");
            return;
        case Hostility::Endless:
        case Hostility::Trickle: {
            socket->write(json + "Transfer-Encoding: chunked\r\n\r\n" + chunk("{\"kind\":\"LeaseList\",\"items\":["));
            const bool fast = m_hostility == Hostility::Endless;
            const QByteArray filler = chunk(fast ? QByteArray(64 * 1024, ' ') : QByteArray(" "));
            auto *feeder = new QTimer(socket);
            connect(feeder, &QTimer::timeout, socket, [socket, filler] {
                if (socket->bytesToWrite() < 1024 * 1024)
                    socket->write(filler);
            });
            feeder->start(fast ? 1 : 50);
            return;
        }
        }
    }

    Hostility m_hostility;
    QTcpServer m_server;
    QHash<QTcpSocket *, QByteArray> m_buffers;
};

} // namespace

class TestKubeHostile : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void hostileServer_data();
    void hostileServer();
    void serverCertificateFromAnotherCa();
    void cleanup();

private:
    QString writeKubeconfig(const QString &name, const QString &server, const QString &ca);
    void statusFailsWith(const QString &kubeconfig, const QString &mention);
    void participantNeverLeads(const QString &kubeconfig, const QString &mention);

    QTemporaryDir m_folder;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
};

void TestKubeHostile::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
}

void TestKubeHostile::cleanup()
{
    for (const auto &p : m_participants) {
        if (QTest::currentTestFailed())
            qWarning("--- %s ---\n%s", qPrintable(p->label()), p->standardError().constData());
    }
    m_participants.clear();
}

QString TestKubeHostile::writeKubeconfig(const QString &name, const QString &server, const QString &ca)
{
    const QString path = m_folder.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    QString yaml = QStringLiteral("apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                                  "clusters:\n- name: test\n  cluster:\n    server: %1\n")
                           .arg(server);
    if (!ca.isEmpty())
        yaml += QStringLiteral("    certificate-authority: %1\n").arg(ca);
    yaml += QStringLiteral("contexts:\n- name: test\n  context:\n    cluster: test\n    user: me\n"
                           "    namespace: hostile\n"
                           "users:\n- name: me\n  user:\n    token: %1\n")
                    .arg(test::testSecret(QStringLiteral("kube-token-hostile")));
    file.write(yaml.toUtf8());
    return path;
}

void TestKubeHostile::statusFailsWith(const QString &kubeconfig, const QString &mention)
{
    QProcess status;
    test::keepOutput(&status, QStringLiteral("status"), test::ArtifactKind::Status);
    status.start(test::batonBinary(), {QStringLiteral("status"), QStringLiteral("--json"),
                                       QStringLiteral("--kubeconfig"), kubeconfig});
    QSignalSpy finished(&status, &QProcess::finished);
    // The status command's own request timeout is 5 s: the trickle ends there.
    QVERIFY2(finished.wait(20000), "baton status did not end");
    const QString error = QString::fromUtf8(status.readAllStandardError());
    QCOMPARE(status.exitCode(), 1);
    QVERIFY2(error.contains(mention), qPrintable(error));
    // R1: nothing believed; no lease printed.
    QVERIFY2(status.readAllStandardOutput().isEmpty(), "a lease was printed");
}

void TestKubeHostile::participantNeverLeads(const QString &kubeconfig, const QString &mention)
{
    const QString id = QStringLiteral("hostile-%1").arg(m_participants.size());
    const QString config = m_folder.filePath(id + QStringLiteral(".json"));
    QVERIFY(test::writeJsonFile(
            config, {{QStringLiteral("services"),
                      QJsonObject {{QStringLiteral("cluster"),
                                    QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/KubernetesClusterService")},
                                                 {QStringLiteral("config"), kubeconfig},
                                                 {QStringLiteral("instanceId"), id},
                                                 {QStringLiteral("timeout"), 1000},
                                                 {QStringLiteral("leaseDuration"), 2000},
                                                 {QStringLiteral("renewInterval"), 500}}}}}}));
    m_participants.push_back(test::startParticipant(id, config));
    ParticipantProcess &p = *m_participants.back();
    // Two failed attempts, each naming the error: not a one-off.
    const auto failedAttempts = [&] {
        int named = 0;
        for (const QJsonObject &e : p.events()) {
            if (e.value(QStringLiteral("event")).toString() == QStringLiteral("attempt")
                && e.value(QStringLiteral("outcome")).toString() == QStringLiteral("error")
                && e.value(QStringLiteral("error")).toString().contains(mention))
                ++named;
        }
        return named;
    };
    QTRY_VERIFY2_WITH_TIMEOUT(failedAttempts() >= 2, p.standardError().constData(), 15000);
    QVERIFY2(p.standardError().contains(mention.toUtf8()), p.standardError().constData());
    QVERIFY(p.isRunning());
    QVERIFY(!p.isLeading());
    for (const QJsonObject &e : p.events())
        QVERIFY2(e.value(QStringLiteral("event")).toString() != QStringLiteral("started-leading"), "it led");
    QSignalSpy finished(&p, &ParticipantProcess::finished);
    p.sendSignal(SIGTERM);
    QVERIFY(finished.wait(10000));
}

void TestKubeHostile::hostileServer_data()
{
    QTest::addColumn<int>("hostility");
    QTest::addColumn<QString>("mention");
    QTest::newRow("a redirect to another host is refused")
            << int(Hostility::Redirect) << "refused a redirect to http://203.0.113.9:6443";
    QTest::newRow("a reply announced larger than the limit is refused")
            << int(Hostility::Oversized) << "more than the limit";
    QTest::newRow("an endless reply is cut at the limit") << int(Hostility::Endless) << "larger than the limit";
    QTest::newRow("an endless reply a byte at a time ends at the timeout")
            << int(Hostility::Trickle) << "no answer within";
}

void TestKubeHostile::hostileServer()
{
    QFETCH(int, hostility);
    QFETCH(QString, mention);
    HostileServer server {Hostility(hostility)};
    const QString kubeconfig = writeKubeconfig(QStringLiteral("kubeconfig-%1").arg(hostility), server.url(), {});
    statusFailsWith(kubeconfig, mention);
    participantNeverLeads(kubeconfig, mention);
    QVERIFY(server.requests >= 3);
}

void TestKubeHostile::serverCertificateFromAnotherCa()
{
    // R3: the kubeconfig trusts another CA than the one that signed the
    // server's certificate: a TLS error, named, and nothing else sent.
    test::TestCertificates certificates;
    QString error;
    QVERIFY2(certificates.generate(m_folder.path(), &error), qPrintable(error));
    QString otherCa;
    QVERIFY2(certificates.generateOtherCa(&otherCa, &error), qPrintable(error));
    test::LeaseApiServer server;
    QVERIFY2(server.setTls(certificates.serverCertFile(), certificates.serverKeyFile(), {}, &error), qPrintable(error));
    QVERIFY2(server.listen(&error), qPrintable(error));
    const QString kubeconfig = writeKubeconfig(QStringLiteral("kubeconfig-other-ca"), server.url().toString(), otherCa);
    statusFailsWith(kubeconfig, QStringLiteral("TLS error"));
    participantNeverLeads(kubeconfig, QStringLiteral("TLS error"));
    // Positive control: the same server with its own CA is trusted (the
    // token is unknown to it, so the answer is a 401: TLS got through).
    const QString trusted = writeKubeconfig(QStringLiteral("kubeconfig-right-ca"), server.url().toString(),
                                            certificates.caFile());
    statusFailsWith(trusted, QStringLiteral("401"));
}

QTEST_GUILESS_MAIN(TestKubeHostile)
#include "tst_kubehostile.moc"
