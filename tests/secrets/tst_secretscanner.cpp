// The secrets scan can fail (R2): each form a leak would take, planted
// in otherwise ordinary output, is found and named, with its line; near
// misses are not; and the secrets_scan program fails on a planted secret
// (naming file and line, never the value) and on a folder missing a kind of
// output. The encoded forms here are written by hand or by Qt's own
// encoders, not by the scanner's code.

#include "secretscanner.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace baton::test;

class TestSecretScanner : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void findsEachForm_data();
    void findsEachForm();
    void nearMissesAreNotHits();
    void everySecretIsLookedFor();
    void scanProgramFailsOnAPlantedSecret();
    void scanProgramFailsOnAMissingKind();
    void scanProgramPassesACleanFolder();

private:
    int runScan(const QStringList &arguments, QByteArray *output);
    static void write(const QString &path, const QByteArray &content);

    QList<TestSecret> m_secrets;
};

void TestSecretScanner::initTestCase()
{
    QString error;
    m_secrets = testSecrets(&error);
    QVERIFY2(!m_secrets.isEmpty(), qPrintable(error));
}

void TestSecretScanner::findsEachForm_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("secret");
    QTest::addColumn<int>("line");

    const QByteArray kube = testSecret(QStringLiteral("kube-token-watch")).toUtf8();
    const QByteArray wirePassword = testSecret(QStringLiteral("etcdwire-password")).toUtf8();
    const QString keychain = QStringLiteral("keychain-password");
    QTest::newRow("a token as it is, in a log line")
            << QByteArray("ts=1 level=info msg=\"sending\" authorization=\"Bearer " + kube + "\"\n")
            << "kube-token-watch" << 1;
    QTest::newRow("a password URL-encoded, on the third line")
            << QByteArray("a\nb\nGET /v3?password=baton-test-secret-keychain-p%C3%A4ssword%2F7f1c%22q HTTP/1.1\n")
            << keychain << 3;
    QTest::newRow("a password URL-encoded with lower-case hex")
            << QByteArray("password=baton-test-secret-keychain-p%c3%a4ssword%2f7f1c%22q\n") << keychain << 1;
    QTest::newRow("a password JSON-escaped as Qt writes it")
            << QByteArray("{\"password\":\"baton-test-secret-keychain-p\xc3\xa4ssword/7f1c\\\"q\"}\n") << keychain << 1;
    QTest::newRow("a password JSON-escaped with \\u and \\/")
            << QByteArray("{\"password\":\"baton-test-secret-keychain-p\\u00e4ssword\\/7f1c\\\"q\"}\n") << keychain << 1;
    QTest::newRow("a password in an HTTP Basic authorization")
            << QByteArray("Authorization: Basic " + QByteArray("alice:" + wirePassword).toBase64() + "\n")
            << "etcdwire-password" << 1;
    for (int pad = 0; pad < 3; ++pad) {
        // The token inside a longer encoded document, at each alignment.
        const QByteArray document = QByteArray(pad, 'x') + "{\"token\":\"" + kube + "\"}";
        QTest::addRow("a token inside base64, %d bytes in", pad)
                << QByteArray("data: " + document.toBase64() + "\n") << "kube-token-watch" << 1;
    }
    QTest::newRow("a password inside base64url")
            << QByteArray("state=" + ("~~>" + testSecret(keychain).toUtf8()).toBase64(QByteArray::Base64UrlEncoding) + "\n")
            << keychain << 1;
    QTest::newRow("a secret the scan was not told of, by the marker")
            << QByteArray("token=baton-test-secret-issued-later-42\n") << "marker" << 1;
}

void TestSecretScanner::findsEachForm()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, secret);
    QFETCH(int, line);
    const SecretScanner scanner(m_secrets);
    const QList<SecretHit> hits = scanner.scan(QStringLiteral("planted"), content);
    QStringList found;
    for (const SecretHit &hit : hits)
        found.append(QStringLiteral("%1@%2 (%3)").arg(hit.secret).arg(hit.line).arg(hit.encoding));
    QVERIFY2(std::any_of(hits.cbegin(), hits.cend(),
                         [&](const SecretHit &hit) { return hit.secret == secret && hit.line == line; }),
             qPrintable(found.join(QStringLiteral(", "))));
}

void TestSecretScanner::nearMissesAreNotHits()
{
    const SecretScanner scanner(m_secrets);
    const QByteArray content = "password=<redacted> baton-test-secre token=tok-3f9a1c2e\n"
                               "secret: baton-test-Secret-kube\nbaton_is_leader 1\n";
    const QList<SecretHit> hits = scanner.scan(QStringLiteral("clean"), content);
    QVERIFY2(hits.isEmpty(), qPrintable(hits.isEmpty() ? QString() : hits.first().secret));
}

void TestSecretScanner::everySecretIsLookedFor()
{
    // Each secret of the file has its own forms: a name dropped from the
    // scanner would leave that secret unsearched.
    const SecretScanner scanner(m_secrets);
    for (const TestSecret &secret : std::as_const(m_secrets)) {
        const QList<SecretHit> hits = scanner.scan(QStringLiteral("one"), "x " + secret.value.toUtf8() + " y\n");
        QVERIFY2(std::any_of(hits.cbegin(), hits.cend(), [&](const SecretHit &h) { return h.secret == secret.name; }),
                 qPrintable(secret.name));
    }
}

int TestSecretScanner::runScan(const QStringList &arguments, QByteArray *output)
{
    QProcess scan;
    scan.setProcessChannelMode(QProcess::MergedChannels);
    scan.start(qEnvironmentVariable("BATON_SECRETS_SCAN"), arguments);
    if (!scan.waitForFinished(30000))
        return -1;
    *output = scan.readAll();
    return scan.exitStatus() == QProcess::NormalExit ? scan.exitCode() : -1;
}

void TestSecretScanner::write(const QString &path, const QByteArray &content)
{
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(content), content.size());
}

void TestSecretScanner::scanProgramFailsOnAPlantedSecret()
{
    QVERIFY2(QFile::exists(qEnvironmentVariable("BATON_SECRETS_SCAN")), "run through ctest (BATON_SECRETS_SCAN)");
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QByteArray token = testSecret(QStringLiteral("kube-token-admin")).toUtf8();
    write(root.filePath(QStringLiteral("events/t/p1.events")), "{\"event\":\"attempt\"}\n");
    write(root.filePath(QStringLiteral("metrics/t/port-1_metrics")),
          "# TYPE baton_is_leader gauge\nbaton_token{value=\"" + token + "\"} 1\n");
    QByteArray output;
    QCOMPARE(runScan({root.path(), QStringLiteral("--require"), QStringLiteral("events")}, &output), 1);
    QVERIFY2(output.contains("metrics/t/port-1_metrics:2: secret kube-token-admin (plain)"), output.constData());
    QVERIFY2(!output.contains(token), "the scan must not print the secret it found");
}

void TestSecretScanner::scanProgramFailsOnAMissingKind()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    write(root.filePath(QStringLiteral("events/t/p1.events")), "{\"event\":\"attempt\"}\n");
    QByteArray output;
    QCOMPARE(runScan({root.path(), QStringLiteral("--require"), QStringLiteral("events"),
                      QStringLiteral("--require"), QStringLiteral("settings")},
                     &output),
             1);
    QVERIFY2(output.contains("FAIL: no settings file"), output.constData());
    QVERIFY2(!output.contains("FAIL: no events file"), output.constData());
}

void TestSecretScanner::scanProgramPassesACleanFolder()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    write(root.filePath(QStringLiteral("events/t/p1.events")), "{\"event\":\"attempt\"}\n");
    write(root.filePath(QStringLiteral("extra.log")), "nothing here\n");
    QByteArray output;
    QCOMPARE(runScan({root.path(), QStringLiteral("--require"), QStringLiteral("events"),
                      root.filePath(QStringLiteral("extra.log")), root.filePath(QStringLiteral("absent.log"))},
                     &output),
             0);
    QVERIFY2(output.contains("no secret found"), output.constData());
}

QTEST_GUILESS_MAIN(TestSecretScanner)
#include "tst_secretscanner.moc"
