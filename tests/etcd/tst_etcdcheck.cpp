// `baton check --config FILE` against real etcd servers (the etcd,
// etcd-auth and etcd-tls fixtures), run as the real program: a store join
// could use is OK and is left as it was; a wrong password, a user who may
// only read, a stopped endpoint and a CA that did not sign etcd's
// certificate are each CRITICAL, naming the step that failed and its fix.

#include "etcdfixture.h"
#include "participants.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using namespace baton::test;

namespace {

struct Check
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QByteArray firstLine() const { return out.left(out.indexOf('\n')); }
    QString all() const { return QString::fromUtf8(out + err); }
};

QString unique(const QString &what)
{
    return QStringLiteral("%1-%2").arg(what, QUuid::createUuid().toString(QUuid::Id128).left(12));
}

} // namespace

class TestEtcdCheck : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void aReachableEtcdIsOkAndLeftUnchanged();
    void aWrongPasswordIsCriticalNamingTheAuthentication();
    void aUserWhoMayOnlyReadIsCriticalNamingTheWritePermission();
    void aStoppedEndpointIsCriticalNamingTheConnection();
    void aStoppedEndpointWithCredentialsIsCriticalNamingTheConnection();
    void aCaThatDidNotSignEtcdsCertificateIsCriticalNamingTlsCa();

private:
    /*! A configuration of one election on the etcd store \a store (endpoints and the rest). */
    QString writeConfig(const QString &name, QJsonObject store);
    Check check(const QString &config);
    QString writeFile(const QString &name, const QByteArray &content);

    EtcdFixture m_etcd { "BATON_ETCD_DIR" };
    EtcdFixture m_authEtcd { "BATON_ETCD_AUTH_DIR" };
    EtcdFixture m_tlsEtcd { "BATON_ETCD_TLS_DIR" };
    QTemporaryDir m_dir;
};

void TestEtcdCheck::initTestCase()
{
    if (!m_etcd.configured() || !m_authEtcd.configured() || !m_tlsEtcd.configured())
        QSKIP("no etcd fixtures: run through ctest");
    QVERIFY2(!batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY2(!m_etcd.endpoints().isEmpty(), qPrintable(m_etcd.errorString()));
    QVERIFY2(!m_authEtcd.endpoints().isEmpty(), qPrintable(m_authEtcd.errorString()));
    QVERIFY2(!m_tlsEtcd.endpoints().isEmpty(), qPrintable(m_tlsEtcd.errorString()));
    QVERIFY(m_dir.isValid());
}

QString TestEtcdCheck::writeFile(const QString &name, const QByteArray &content)
{
    const QString path = m_dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size())
        return {};
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return path;
}

QString TestEtcdCheck::writeConfig(const QString &name, QJsonObject store)
{
    store.insert(QStringLiteral("type"), QStringLiteral("Webda/EtcdStore"));
    store.insert(QStringLiteral("timeout"), int(scaledMs(2000)));
    const QJsonObject config {
        { QStringLiteral("services"),
          QJsonObject {
              { QStringLiteral("Registry"), store },
              { QStringLiteral("cluster"),
                QJsonObject {
                    { QStringLiteral("type"), QStringLiteral("Webda/StoreClusterService") },
                    { QStringLiteral("leaseName"), QStringLiteral("checked") } } } } }
    };
    const QString path = m_dir.filePath(name + QStringLiteral(".json"));
    return writeJsonFile(path, config) ? path : QString();
}

Check TestEtcdCheck::check(const QString &config)
{
    QProcess process;
    process.start(batonBinary(), { QStringLiteral("check"), QStringLiteral("--config"), config });
    Check run;
    if (!process.waitForFinished(60000))
        return run;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return run;
}

// B1: reachable, readable and writable: OK (0); the probe of the write
// permission wrote nothing, so the lease key is still absent.
void TestEtcdCheck::aReachableEtcdIsOkAndLeftUnchanged()
{
    const QString prefix = unique(QStringLiteral("check")) + QLatin1Char('/');
    const QString config = writeConfig(
        QStringLiteral("ok"),
        { { QStringLiteral("endpoints"), QJsonArray::fromStringList(m_etcd.endpoints()) },
          { QStringLiteral("prefix"), prefix } });
    const Check run = check(config);
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QVERIFY2(run.firstLine().startsWith("OK - "), qPrintable(run.all()));
    QVERIFY2(run.firstLine().contains("lease key readable and writable"), qPrintable(run.all()));
    const QByteArray stored
        = m_etcd.etcdctl({ QStringLiteral("get"), QStringLiteral("--prefix"), prefix });
    QVERIFY2(!stored.isNull(), qPrintable(m_etcd.errorString()));
    QCOMPARE(stored, QByteArray(""));
}

// B1, R2: a wrong password is CRITICAL (2), as the authentication step, with
// the parameters to mend; the wrong password itself is never printed.
void TestEtcdCheck::aWrongPasswordIsCriticalNamingTheAuthentication()
{
    const QByteArray wrong = "not-" + m_authEtcd.password().toUtf8() + "-at-all";
    const QString passwordFile = writeFile(QStringLiteral("wrong-password"), wrong + '\n');
    QVERIFY(!passwordFile.isEmpty());
    const QString config = writeConfig(
        QStringLiteral("wrong-password"),
        { { QStringLiteral("endpoints"), QJsonArray::fromStringList(m_authEtcd.endpoints()) },
          { QStringLiteral("prefix"), QStringLiteral("auth/") + unique(QStringLiteral("check")) },
          { QStringLiteral("username"), m_authEtcd.username() },
          { QStringLiteral("passwordFile"), passwordFile } });
    const Check run = check(config);
    QVERIFY2(run.exitCode == 2, qPrintable(run.all()));
    QVERIFY2(run.firstLine().startsWith("CRITICAL - "), qPrintable(run.all()));
    QVERIFY2(run.firstLine().contains("authentication failed"), qPrintable(run.all()));
    QVERIFY2(run.out.contains(
                 "fix: check the store's \"username\" and the password in \"passwordFile\""),
             qPrintable(run.all()));
    QVERIFY2(!run.out.contains(wrong) && !run.err.contains(wrong), "the password was printed");
}

// B1: a user whose role may read the lease key but not write it: CRITICAL,
// told by the write step, though the read passed.
void TestEtcdCheck::aUserWhoMayOnlyReadIsCriticalNamingTheWritePermission()
{
    QFile rootCredentials(qEnvironmentVariable("BATON_ETCD_AUTH_DIR")
                          + QStringLiteral("/root-credentials"));
    QVERIFY(rootCredentials.open(QIODevice::ReadOnly));
    const QString root
        = QStringLiteral("--user=") + QString::fromUtf8(rootCredentials.readLine().trimmed());
    const QString reader = unique(QStringLiteral("reader"));
    const QString password = QUuid::createUuid().toString(QUuid::Id128);
    const QString prefix
        = QStringLiteral("auth/") + unique(QStringLiteral("check")) + QLatin1Char('/');
    for (const QStringList &command :
         { QStringList { QStringLiteral("user"), QStringLiteral("add"),
                         reader + QLatin1Char(':') + password },
           QStringList { QStringLiteral("role"), QStringLiteral("add"), reader },
           QStringList { QStringLiteral("role"), QStringLiteral("grant-permission"), reader,
                         QStringLiteral("--prefix=true"), QStringLiteral("read"), prefix },
           QStringList { QStringLiteral("user"), QStringLiteral("grant-role"), reader, reader } })
        QVERIFY2(!m_authEtcd.etcdctl(QStringList { root } + command).isNull(),
                 qPrintable(m_authEtcd.errorString()));
    const QString passwordFile
        = writeFile(QStringLiteral("reader-password"), password.toUtf8() + '\n');
    const QString config = writeConfig(
        QStringLiteral("read-only"),
        { { QStringLiteral("endpoints"), QJsonArray::fromStringList(m_authEtcd.endpoints()) },
          { QStringLiteral("prefix"), prefix },
          { QStringLiteral("username"), reader },
          { QStringLiteral("passwordFile"), passwordFile } });
    const Check run = check(config);
    QVERIFY2(run.exitCode == 2, qPrintable(run.all()));
    QVERIFY2(run.firstLine().startsWith("CRITICAL - "), qPrintable(run.all()));
    QVERIFY2(run.firstLine().contains("write permission failed"), qPrintable(run.all()));
    QVERIFY2(run.out.contains("ok: read cluster:checked"), qPrintable(run.all()));
    QVERIFY2(run.out.contains("fix: grant the user's role readwrite"), qPrintable(run.all()));
}

// B1: nothing listens at the endpoint: CRITICAL, as the connection step.
void TestEtcdCheck::aStoppedEndpointIsCriticalNamingTheConnection()
{
    // A port that was free a moment ago: nothing listens there.
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost));
    const quint16 port = server.serverPort();
    server.close();
    const QString config
        = writeConfig(QStringLiteral("stopped"),
                      { { QStringLiteral("endpoints"),
                          QJsonArray { QStringLiteral("http://127.0.0.1:%1").arg(port) } } });
    const Check run = check(config);
    QVERIFY2(run.exitCode == 2, qPrintable(run.all()));
    QVERIFY2(run.firstLine().startsWith("CRITICAL - "), qPrintable(run.all()));
    QVERIFY2(run.firstLine().contains("connection failed"), qPrintable(run.all()));
    QVERIFY2(run.firstLine().contains("connection refused"), qPrintable(run.all()));
    QVERIFY2(run.out.contains("fix: start etcd, or correct the ports of \"endpoints\""),
             qPrintable(run.all()));
}

// B1, B6: with credentials configured, the first request is the
// authentication; a refused connection there is still the connection step,
// told by the store's typed answer, though the message names the
// authentication it was trying.
void TestEtcdCheck::aStoppedEndpointWithCredentialsIsCriticalNamingTheConnection()
{
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost));
    const quint16 port = server.serverPort();
    server.close();
    const QString password = writeFile(QStringLiteral("stopped-password"), "s3cr3t-stopped");
    QVERIFY(!password.isEmpty());
    const QString config = writeConfig(
            QStringLiteral("stopped-with-credentials"),
            { { QStringLiteral("endpoints"), QJsonArray { QStringLiteral("http://127.0.0.1:%1").arg(port) } },
              { QStringLiteral("username"), QStringLiteral("baton") },
              { QStringLiteral("passwordFile"), password } });
    const Check run = check(config);
    QVERIFY2(run.exitCode == 2, qPrintable(run.all()));
    QVERIFY2(run.firstLine().contains("connection failed"), qPrintable(run.all()));
    QVERIFY2(!run.firstLine().contains("authentication failed"), qPrintable(run.all()));
    QVERIFY2(run.out.contains("fix: start etcd, or correct the ports of \"endpoints\""),
             qPrintable(run.all()));
    QVERIFY(!run.all().contains(QStringLiteral("s3cr3t-stopped")));
}

// B1, R3: a CA that did not sign etcd's certificate: CRITICAL, as the TLS
// step, naming tls.ca.
void TestEtcdCheck::aCaThatDidNotSignEtcdsCertificateIsCriticalNamingTlsCa()
{
    const QDir pki(qEnvironmentVariable("BATON_ETCD_TLS_DIR") + QStringLiteral("/pki"));
    const QString config = writeConfig(
        QStringLiteral("wrong-ca"),
        { { QStringLiteral("endpoints"), QJsonArray::fromStringList(m_tlsEtcd.endpoints()) },
          { QStringLiteral("tls"),
            QJsonObject {
                { QStringLiteral("ca"), pki.filePath(QStringLiteral("other-ca.crt")) },
                { QStringLiteral("cert"), pki.filePath(QStringLiteral("client.crt")) },
                { QStringLiteral("key"), pki.filePath(QStringLiteral("client.key")) } } } });
    const Check run = check(config);
    QVERIFY2(run.exitCode == 2, qPrintable(run.all()));
    QVERIFY2(run.firstLine().startsWith("CRITICAL - "), qPrintable(run.all()));
    QVERIFY2(run.firstLine().contains("TLS failed"), qPrintable(run.all()));
    QVERIFY2(run.firstLine().contains("other-ca.crt"), qPrintable(run.all()));
    QVERIFY2(run.out.contains("fix: name the CA that signed etcd's certificate in \"tls\""),
             qPrintable(run.all()));
}

QTEST_GUILESS_MAIN(TestEtcdCheck)
#include "tst_etcdcheck.moc"
