// The command line as an operator meets it (P1): usage per command, a
// suggestion for a mistyped command, --help that runs nothing, BATON_CONFIG,
// and log lines in ISO 8601 UTC.

#include "testsupport.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

Run runBaton(const QStringList &arguments, const QStringList &environment = {})
{
    QProcess baton;
    baton.setEnvironment(QProcess::systemEnvironment() + environment);
    baton.start(baton::test::batonBinary(), arguments);
    Run run;
    if (!baton.waitForFinished(30000)) {
        baton.kill();
        baton.waitForFinished();
        return run;
    }
    run.exitCode = baton.exitStatus() == QProcess::NormalExit ? baton.exitCode() : -1;
    run.out = QString::fromUtf8(baton.readAllStandardOutput());
    run.err = QString::fromUtf8(baton.readAllStandardError());
    return run;
}

} // namespace

class TestCommandLine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void helpNamesTheCommandAndRunsNothing_data();
    void helpNamesTheCommandAndRunsNothing();
    void unknownCommandSuggestsTheNearestOne_data();
    void unknownCommandSuggestsTheNearestOne();
    void batonConfigStandsForConfig();
    void badConfigurationFromBatonConfigExitsTwo();
    void logLinesAreUtcWithZ();

private:
    QString writeConfig(const QString &name, const QByteArray &json);
    QTemporaryDir m_folder;
};

void TestCommandLine::initTestCase()
{
    QVERIFY(m_folder.isValid());
}

QString TestCommandLine::writeConfig(const QString &name, const QByteArray &json)
{
    const QString path = m_folder.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    file.write(json);
    return path;
}

void TestCommandLine::helpNamesTheCommandAndRunsNothing_data()
{
    QTest::addColumn<QString>("command");
    QTest::newRow("join --help shows the usage of join") << QStringLiteral("join");
    QTest::newRow("status --help shows the usage of status") << QStringLiteral("status");
    QTest::newRow("demo --help shows the usage of demo and runs no demo") << QStringLiteral("demo");
}

void TestCommandLine::helpNamesTheCommandAndRunsNothing()
{
    // P1: the usage names the command as it is typed, never the binary's path.
    QFETCH(QString, command);
    const QString data = m_folder.filePath(QStringLiteral("help-data"));
    const Run run = runBaton({command, QStringLiteral("--help")},
                             {QStringLiteral("BATON_DATA_DIR=") + data});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.startsWith(QStringLiteral("Usage: baton %1 [options]\n").arg(command)),
             qPrintable(run.out));
    QVERIFY2(run.err.isEmpty(), qPrintable(run.err));
    QVERIFY(!QFile::exists(data)); // nothing ran, nothing was created
}

void TestCommandLine::unknownCommandSuggestsTheNearestOne_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("message");
    QTest::newRow("a letter missing from status")
            << QStringLiteral("statu")
            << QStringLiteral("baton: unknown command \"statu\", did you mean \"status\"? (baton help "
                              "lists the commands)\n");
    QTest::newRow("two letters swapped in join")
            << QStringLiteral("jion")
            << QStringLiteral("baton: unknown command \"jion\", did you mean \"join\"? (baton help "
                              "lists the commands)\n");
    QTest::newRow("a word that is no command at all")
            << QStringLiteral("elect")
            << QStringLiteral("baton: unknown command \"elect\" (baton help lists the commands)\n");
}

void TestCommandLine::unknownCommandSuggestsTheNearestOne()
{
    // P1: one line naming what is wrong, exit 2, not the whole usage.
    QFETCH(QString, command);
    QFETCH(QString, message);
    const Run run = runBaton({command});
    QCOMPARE(run.exitCode, 2);
    QCOMPARE(run.err, message);
    QVERIFY(run.out.isEmpty());
}

void TestCommandLine::batonConfigStandsForConfig()
{
    // P1: BATON_CONFIG is the configuration when --config is not given.
    const QString path = writeConfig(
            QStringLiteral("env.json"),
            R"({"services": {"cluster": {"type": "StoreClusterService", "leaseName": "from-env", "leaseDuration": "6s", "renewInterval": "2s"}}})");
    QVERIFY(!path.isEmpty());
    const Run run = runBaton({QStringLiteral("join"), QStringLiteral("--explain")},
                             {QStringLiteral("BATON_CONFIG=") + path,
                              QStringLiteral("BATON_DATA_DIR=") + m_folder.filePath(QStringLiteral("env-data"))});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.startsWith(QStringLiteral("cluster (lease \"from-env\"): lease 6000 ms, renewal "
                                               "every 2000 ms\n")),
             qPrintable(run.out + run.err));
}

void TestCommandLine::badConfigurationFromBatonConfigExitsTwo()
{
    // P1, F4: the issue's example, which joined the lease "leader" before.
    const QString path = writeConfig(
            QStringLiteral("typos.json"),
            R"({"services": {"cluster": {"type": "StoreClusterService", "leaseNme": "x", "leaseDuraton": 5000, "foldr": 1}}})");
    const Run run = runBaton({QStringLiteral("join"), QStringLiteral("--explain")},
                             {QStringLiteral("BATON_CONFIG=") + path});
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(run.err.contains(QStringLiteral(R"(parameter "leaseNme" = "x": unknown parameter, did you mean "leaseName"?)")),
             qPrintable(run.err));
}

void TestCommandLine::logLinesAreUtcWithZ()
{
    // O3: a log line says when in UTC, as `baton status` does.
    const QString path = writeConfig(
            QStringLiteral("log.json"),
            R"({"services": {"cluster": {"type": "StoreClusterService", "leaseName": "logged"}}})");
    QProcess baton;
    baton.setEnvironment(QProcess::systemEnvironment()
                         << QStringLiteral("BATON_DATA_DIR=") + m_folder.filePath(QStringLiteral("log-data"))
                         << QStringLiteral("TZ=America/New_York"));
    baton.start(baton::test::batonBinary(), {QStringLiteral("join"), QStringLiteral("--config"), path});
    QByteArray err;
    QTRY_VERIFY_WITH_TIMEOUT((err += baton.readAllStandardError()).contains("joins the election"),
                             20000);
    baton.terminate();
    QVERIFY(baton.waitForFinished(20000));
    const QString line = QString::fromUtf8(err).split(QLatin1Char('\n')).filter(
            QStringLiteral("joins the election")).value(0);
    static const QRegularExpression utc(QStringLiteral(
            "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z baton\\.election info: "));
    QVERIFY2(utc.match(line).hasMatch(), qPrintable(line));
}

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
