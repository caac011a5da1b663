// etcd over TLS with client certificates, on a real etcd started by the
// etcd-tls fixture (etcd-fixture.sh ... tls: --cert-file --key-file
// --client-cert-auth --trusted-ca-file, a PKI made with openssl at every
// start). The EtcdStore connects with the right files, `baton join` leads
// and `baton status` shows it, through a configuration's `tls` block (B1,
// R3). Each wrong file gives one clear error that names it, and no key
// material reaches the output (R2).

#include "artifacts.h"
#include "etcdfixture.h"
#include "etcdstore.h"
#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <csignal>
#include <memory>

using namespace baton;
using namespace baton::test;

class TestEtcdTls : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void theStoreConnectsWithAClientCertificate();
    void joinLeadsAndStatusShowsIt();
    void aWrongFileIsOneClearErrorNamingIt_data();
    void aWrongFileIsOneClearErrorNamingIt();

private:
    QString pki(const QString &name) const { return m_pki.filePath(name); }
    QJsonObject tls(const QString &ca, const QString &cert, const QString &key) const;
    QString writeConfig(const QString &name, const QJsonObject &tls, const QString &instance);
    /*! Runs `baton status --config CONFIG`; its exit code, and its output in \a out and \a err. */
    int status(const QString &config, QByteArray *out, QByteArray *err);

    EtcdFixture m_etcd { "BATON_ETCD_TLS_DIR" };
    QDir m_pki;
    QTemporaryDir m_folder;
    QString m_prefix;
};

void TestEtcdTls::initTestCase()
{
    if (!m_etcd.configured())
        QSKIP("no etcd-tls fixture: run through ctest");
    QVERIFY2(!batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY2(!m_etcd.endpoints().isEmpty(), qPrintable(m_etcd.errorString()));
    QVERIFY(m_etcd.endpoints().first().startsWith(QLatin1String("https://")));
    m_pki = QDir(qEnvironmentVariable("BATON_ETCD_TLS_DIR") + QStringLiteral("/pki"));
    QVERIFY(QFile::exists(pki(QStringLiteral("client.crt"))));
    QVERIFY(m_folder.isValid());
    m_prefix = QStringLiteral("tls/%1/").arg(QUuid::createUuid().toString(QUuid::WithoutBraces));
}

QJsonObject TestEtcdTls::tls(const QString &ca, const QString &cert, const QString &key) const
{
    QJsonObject object;
    if (!ca.isEmpty())
        object.insert(QStringLiteral("ca"), pki(ca));
    if (!cert.isEmpty())
        object.insert(QStringLiteral("cert"), pki(cert));
    if (!key.isEmpty())
        object.insert(QStringLiteral("key"), pki(key));
    return object;
}

QString TestEtcdTls::writeConfig(const QString &name, const QJsonObject &tls,
                                 const QString &instance)
{
    const QJsonObject config {
        { QStringLiteral("services"),
          QJsonObject {
                  { QStringLiteral("Registry"),
                    QJsonObject { { QStringLiteral("type"), QStringLiteral("Webda/EtcdStore") },
                                  { QStringLiteral("endpoints"),
                                    QJsonArray::fromStringList(m_etcd.endpoints()) },
                                  { QStringLiteral("prefix"), m_prefix },
                                  { QStringLiteral("timeout"), 2000 },
                                  { QStringLiteral("tls"), tls } } },
                  { QStringLiteral("cluster"),
                    QJsonObject { { QStringLiteral("type"), QStringLiteral("StoreClusterService") },
                                  { QStringLiteral("leaseName"), QStringLiteral("tls") },
                                  { QStringLiteral("instanceId"), instance },
                                  { QStringLiteral("leaseDuration"), 3000 },
                                  { QStringLiteral("renewInterval"), 1000 } } } } }
    };
    const QString path = m_folder.filePath(name + QStringLiteral(".json"));
    return writeJsonFile(path, config) ? path : QString();
}

int TestEtcdTls::status(const QString &config, QByteArray *out, QByteArray *err)
{
    QProcess baton;
    baton.start(batonBinary(), { QStringLiteral("status"), QStringLiteral("--config"), config });
    if (!baton.waitForFinished(30000))
        return -1;
    *out = baton.readAllStandardOutput();
    *err = baton.readAllStandardError();
    const QString label = QFileInfo(config).baseName();
    keepArtifact(ArtifactKind::Events, label + QStringLiteral(".status.out"), *out);
    keepArtifact(ArtifactKind::ParticipantLog, label + QStringLiteral(".status.log"), *err);
    return baton.exitStatus() == QProcess::NormalExit ? baton.exitCode() : -1;
}

// B1, R3: the right CA, certificate and key: the store writes and reads.
void TestEtcdTls::theStoreConnectsWithAClientCertificate()
{
    QJsonObject parameters { { QStringLiteral("endpoints"),
                               QJsonArray::fromStringList(m_etcd.endpoints()) },
                             { QStringLiteral("prefix"), m_prefix },
                             { QStringLiteral("tls"),
                               tls(QStringLiteral("ca.crt"), QStringLiteral("client.crt"),
                                   QStringLiteral("client.key")) } };
    EtcdStore store(QStringLiteral("Registry"), parameters, nullptr);
    QString error;
    QVERIFY2(store.init(&error), qPrintable(error));
    std::optional<StoreResult> created;
    store.create(QStringLiteral("store:tls"), QJsonObject { { QStringLiteral("n"), 1 } },
                 [&created](const StoreResult &r) { created = r; });
    QTRY_VERIFY_WITH_TIMEOUT(created.has_value(), 10000);
    QVERIFY2(created->ok(), qPrintable(created->errorString));
    std::optional<StoreResult> got;
    store.get(QStringLiteral("store:tls"), [&got](const StoreResult &r) { got = r; });
    QTRY_VERIFY_WITH_TIMEOUT(got.has_value(), 10000);
    QVERIFY2(got->ok(), qPrintable(got->errorString));
    QCOMPARE(got->entry.version, created->entry.version);
}

// F1, O3 over TLS: `baton join` takes the lease, `baton status` shows it.
void TestEtcdTls::joinLeadsAndStatusShowsIt()
{
    const QJsonObject good = tls(QStringLiteral("ca.crt"), QStringLiteral("client.crt"),
                                 QStringLiteral("client.key"));
    const QString config = writeConfig(QStringLiteral("good"), good, QStringLiteral("tls-leader"));
    QVERIFY(!config.isEmpty());
    ParticipantProcess leader(QStringLiteral("tls-leader"), batonBinary(),
                              { QStringLiteral("join"), QStringLiteral("--config"), config,
                                QStringLiteral("--events"), QStringLiteral("json") });
    keepOutput(&leader);
    leader.start();
    QTRY_VERIFY_WITH_TIMEOUT(leader.isLeading(), 20000);

    QByteArray out, err;
    QCOMPARE(status(config, &out, &err), 0);
    QVERIFY2(out.contains("tls-leader"), out.constData());

    leader.sendSignal(SIGTERM);
    QTRY_VERIFY_WITH_TIMEOUT(!leader.isRunning(), 20000);
    QCOMPARE(leader.exitCode(), 0);
}

void TestEtcdTls::aWrongFileIsOneClearErrorNamingIt_data()
{
    QTest::addColumn<QString>("ca");
    QTest::addColumn<QString>("cert");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QStringList>("mustName");

    QTest::newRow("a CA that did not sign etcd's certificate names the CA file")
            << "other-ca.crt" << "client.crt" << "client.key"
            << QStringList { QStringLiteral("other-ca.crt"),
                             QStringLiteral("the server's certificate is not trusted: name the CA "
                                            "that signed it in tls.ca") };
    QTest::newRow("no client certificate says tls.cert and tls.key are missing")
            << "ca.crt" << "" << ""
            << QStringList { QStringLiteral("no client certificate (tls.cert, tls.key)") };
    QTest::newRow("a client certificate file that does not exist names it")
            << "ca.crt" << "nowhere.crt" << "client.key"
            << QStringList { QStringLiteral("nowhere.crt") };
    QTest::newRow("an expired client certificate names the certificate file")
            << "ca.crt" << "expired.crt" << "expired.key"
            << QStringList { QStringLiteral("expired.crt"), QStringLiteral("expired on") };
    QTest::newRow("a key that does not match the certificate names the key file")
            << "ca.crt" << "client.crt" << "other.key"
            << QStringList { QStringLiteral("other.key"), QStringLiteral("client.crt") };
}

// R1, R3, R2: `baton status` with one wrong file in its tls block fails with
// one error line that names the file, and shows nothing of any key.
void TestEtcdTls::aWrongFileIsOneClearErrorNamingIt()
{
    QFETCH(QString, ca);
    QFETCH(QString, cert);
    QFETCH(QString, key);
    QFETCH(QStringList, mustName);
    const QString config = writeConfig(QString::fromLatin1(QTest::currentDataTag())
                                               .section(QLatin1Char(' '), 1, 3)
                                               .replace(QLatin1Char(' '), QLatin1Char('-')),
                                       tls(ca, cert, key), QStringLiteral("tls-status"));
    QVERIFY(!config.isEmpty());
    QByteArray out, err;
    const int code = status(config, &out, &err);
    QVERIFY2(code > 0, qPrintable(QStringLiteral("exit code %1").arg(code)));
    const QList<QByteArray> errorLines = [&] {
        QList<QByteArray> lines;
        for (const QByteArray &line : err.split('\n'))
            if (line.startsWith("baton status:"))
                lines.append(line);
        return lines;
    }();
    QCOMPARE(errorLines.size(), 1);
    for (const QString &part : mustName)
        QVERIFY2(errorLines.first().contains(part.toUtf8()),
                 qPrintable(QStringLiteral("\"%1\" not in: %2").arg(part, QString::fromUtf8(err))));
    // R2: no key material, whatever went wrong.
    for (const QString &keyFile : { QStringLiteral("client.key"), QStringLiteral("other.key"),
                                    QStringLiteral("expired.key") }) {
        QFile file(pki(keyFile));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().split('\n');
        for (const QByteArray &line : lines) {
            if (line.isEmpty() || line.startsWith("-----"))
                continue;
            QVERIFY2(!err.contains(line) && !out.contains(line), "key material in the output");
        }
    }
    QVERIFY(!err.contains("PRIVATE KEY"));
}

QTEST_GUILESS_MAIN(TestEtcdTls)
#include "tst_etcdtls.moc"
