// The command line as an operator meets it (P1): usage per command, a
// suggestion for a mistyped command, --help that runs nothing, BATON_CONFIG,
// and log lines in ISO 8601 UTC.

#include "etcdfixture.h"
#include "leasefolder.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <tuple>

#include <csignal>
#include <sys/types.h>

namespace {

using Run = baton::test::BatonRun;
using baton::test::runBaton;

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
    void unknownOptionSuggestsTheNearestOne_data();
    void unknownOptionSuggestsTheNearestOne();
    void langBeforeACommandNeedsNoDisplay_data();
    void langBeforeACommandNeedsNoDisplay();
    void aRefusedServiceIsPrintedOnce();
    void aFailedAttemptNamesTheStoreOnce();
    void aStoreThatStaysGoneIsWarnedOfOnce();
    void batonConfigStandsForConfig();
    void badConfigurationFromBatonConfigExitsTwo();
    void joinPrintsEveryClustersMistakesEachOnItsLine();
    void logLinesAreUtcWithZ();
    void explainSaysWhichHostsTheElectionReaches_data();
    void explainSaysWhichHostsTheElectionReaches();
    void theDefaultRegistryIsWarnedOfAtStartAndInStatus();
    void statusCheckSaysWhetherEveryLeaseHasALiveHolder_data();
    void statusCheckSaysWhetherEveryLeaseHasALiveHolder();
    void statusCheckCannotJudgeIsUnknown_data();
    void statusCheckCannotJudgeIsUnknown();
    void statusNeverCreatesAFolder();
    void statusReadsAReadOnlyFolder();
    void statusOutputFormats();
    void statusTableShowsTheRenewalAgainstTheLease();
    void statusWideAddsTheRecordsTimesAndTheSource();
    void statusWatchPrintsEachChangeOnce();
    void statusReachesAnEtcdThatNeedsAPassword();
    void demoRemovesItsFolderWhenInterrupted_data();
    void demoRemovesItsFolderWhenInterrupted();
    void demoNamesNoCommandOnTheFolderItRemoves();
    void statusBadInputExitsTwo_data();
    void statusBadInputExitsTwo();

private:
    QString writeConfig(const QString &name, const QByteArray &json);
    /*! A folder of lease entries as a FileStore keeps them: {name: {holder, renewed ms ago}}. */
    QString writeRegistry(const QString &name, const QList<std::tuple<QString, QString, qint64>> &leases);
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
    QTest::newRow("check --help shows the usage of check") << QStringLiteral("check");
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

void TestCommandLine::unknownOptionSuggestsTheNearestOne_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("a letter missing from --config")
            << QStringList {QStringLiteral("join"), QStringLiteral("--confg"), QStringLiteral("x.json")}
            << QStringLiteral("baton join: unknown option --confg, did you mean --config?\n");
    QTest::newRow("a letter missing from --watch of status")
            << QStringList {QStringLiteral("status"), QStringLiteral("--wtch")}
            << QStringLiteral("baton status: unknown option --wtch, did you mean --watch?\n");
    QTest::newRow("a word that is no option at all")
            << QStringList {QStringLiteral("join"), QStringLiteral("--frobnicate")}
            << QStringLiteral("baton join: unknown option --frobnicate (baton join --help lists the "
                              "options)\n");
}

void TestCommandLine::unknownOptionSuggestsTheNearestOne()
{
    // P1: a misspelt option is named with the one it most likely meant.
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const Run run = runBaton(arguments);
    QCOMPARE(run.exitCode, 2);
    QCOMPARE(run.err, message);
    QVERIFY(run.out.isEmpty());
}

void TestCommandLine::langBeforeACommandNeedsNoDisplay_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("printed");
    QTest::newRow("--lang fr --help") << QStringList {QStringLiteral("--lang"), QStringLiteral("fr"),
                                                      QStringLiteral("--help")}
                                      << QStringLiteral("join --config FILE");
    QTest::newRow("--lang fr status --help")
            << QStringList {QStringLiteral("--lang"), QStringLiteral("fr"), QStringLiteral("status"),
                            QStringLiteral("--help")}
            << QStringLiteral("--check");
    QTest::newRow("--lang=de status --help")
            << QStringList {QStringLiteral("--lang=de"), QStringLiteral("status"), QStringLiteral("--help")}
            << QStringLiteral("--check");
}

void TestCommandLine::langBeforeACommandNeedsNoDisplay()
{
    // O4: only the dashboard needs a display; --lang before a command once
    // opened it, and a server without one aborted (exit 134).
    QFETCH(QStringList, arguments);
    QFETCH(QString, printed);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
        environment.remove(QString::fromLatin1(name));
    QProcess baton;
    baton.setProcessEnvironment(environment);
    baton.start(baton::test::batonBinary(), arguments);
    QVERIFY(baton.waitForFinished(30000));
    const QString out = QString::fromUtf8(baton.readAllStandardOutput());
    const QString err = QString::fromUtf8(baton.readAllStandardError());
    QCOMPARE(baton.exitStatus(), QProcess::NormalExit);
    QVERIFY2(baton.exitCode() == 0, qPrintable(err));
    QVERIFY2(out.contains(printed), qPrintable(out));
    QCOMPARE(err, QStringLiteral("baton: --lang sets the language of the dashboard only; the "
                                 "commands write English\n"));
}

void TestCommandLine::aRefusedServiceIsPrintedOnce()
{
    // P1: the library logged the refusal of a service and join printed it
    // again: two lines for one mistake.
    const QString path = writeConfig(
            QStringLiteral("nokubeconfig.json"),
            R"({"services": {"cluster": {"type": "KubernetesClusterService", "config": "/nonexistent/kubeconfig"}}})");
    const Run run = runBaton({QStringLiteral("join"), QStringLiteral("--config"), path});
    QCOMPARE(run.exitCode, 2);
    QCOMPARE(run.err.count(QStringLiteral("/nonexistent/kubeconfig does not exist")), 1);
    QCOMPARE(run.err.count(QLatin1Char('\n')), 1);
}

void TestCommandLine::aFailedAttemptNamesTheStoreOnce()
{
    // P1: "attempt failed: cluster:x in Registry (Webda/EtcdStore):
    // Webda/EtcdStore "Registry": ..." named the store twice in one line.
    QTcpServer closed;
    QVERIFY(closed.listen(QHostAddress::LocalHost));
    const quint16 port = closed.serverPort();
    closed.close(); // nothing listens there now: every request is refused
    const QString path = writeConfig(
            QStringLiteral("closedetcd.json"),
            QStringLiteral(R"({"services": {"Registry": {"type": "EtcdStore", "endpoints": ["http://127.0.0.1:%1"]},)"
                           R"( "cluster": {"type": "StoreClusterService", "leaseName": "x"}}})")
                    .arg(port)
                    .toUtf8());
    QProcess baton;
    baton.setProcessChannelMode(QProcess::SeparateChannels);
    baton.start(baton::test::batonBinary(), {QStringLiteral("join"), QStringLiteral("--config"), path});
    QByteArray err;
    QTRY_VERIFY_WITH_TIMEOUT((err += baton.readAllStandardError()).contains("attempt failed"), 20000);
    baton.kill();
    baton.waitForFinished();
    QString line;
    for (const QString &l : QString::fromUtf8(err).split(QLatin1Char('\n')))
        if (l.contains(QStringLiteral("attempt failed")))
            line = l;
    QVERIFY2(line.contains(QStringLiteral(R"(Webda/EtcdStore "Registry", key "cluster:x": )")), qPrintable(line));
    QVERIFY2(line.count(QStringLiteral("Registry")) == 1, qPrintable(line));
}

void TestCommandLine::aStoreThatStaysGoneIsWarnedOfOnce()
{
    // Every attempt failed the same way and each was a warning: one line
    // per renewInterval per election, with nothing new in it. The events
    // still carry each attempt; the log tells the first.
    QTcpServer closed;
    QVERIFY(closed.listen(QHostAddress::LocalHost));
    const quint16 port = closed.serverPort();
    closed.close();
    const QString path = writeConfig(
            QStringLiteral("gonetcd.json"),
            QStringLiteral(R"({"services": {"Registry": {"type": "EtcdStore", "endpoints": ["http://127.0.0.1:%1"]},)"
                           R"( "cluster": {"type": "StoreClusterService", "leaseName": "x",)"
                           R"( "leaseDuration": "2s", "renewInterval": "200ms"}}})")
                    .arg(port)
                    .toUtf8());
    QProcess baton;
    baton.setProcessChannelMode(QProcess::SeparateChannels);
    baton.start(baton::test::batonBinary(),
                {QStringLiteral("join"), QStringLiteral("--config"), path, QStringLiteral("--events"),
                 QStringLiteral("json")});
    QByteArray out;
    QByteArray err;
    const auto failedAttempts = [&out] {
        int failed = 0;
        for (const QByteArray &line : out.split('\n')) {
            const QJsonObject event = QJsonDocument::fromJson(line).object();
            if (event.value(QStringLiteral("event")) == QLatin1String("attempt")
                && !event.value(QStringLiteral("error")).toString().isEmpty())
                ++failed;
        }
        return failed;
    };
    QTRY_VERIFY_WITH_TIMEOUT(((out += baton.readAllStandardOutput()), failedAttempts() >= 5), 30000);
    baton.kill();
    baton.waitForFinished();
    err += baton.readAllStandardError();
    QVERIFY2(QString::fromUtf8(err).count(QStringLiteral("attempt failed")) == 1, err.constData());
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

void TestCommandLine::joinPrintsEveryClustersMistakesEachOnItsLine()
{
    // P1: the first mistake hid the others, and all carried the service's
    // position: three mistakes in two cluster services, three lines.
    const QString path = writeConfig(QStringLiteral("values.json"),
                                     "{\"services\": {\n"
                                     "  \"a\": {\"type\": \"StoreClusterService\",\n"
                                     "    \"leaseDuration\": \"15x\", \"leaseName\": \"\"},\n"
                                     "  \"b\": {\"type\": \"StoreClusterService\", \"renewInterval\": 0}\n"
                                     "}}\n");
    const Run run = runBaton({QStringLiteral("join"), QStringLiteral("--explain"), QStringLiteral("--config"), path});
    QCOMPARE(run.exitCode, 2);
    const QString file = QFileInfo(path).filePath();
    QCOMPARE(run.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts),
             (QStringList {
                     QStringLiteral(R"(baton join: %1:3:5: service "a" (Webda/StoreClusterService): parameter "leaseDuration" = "15x": unknown unit "x" (ms, s, m or h))").arg(file),
                     QStringLiteral(R"(baton join: %1:3:29: service "a" (Webda/StoreClusterService): parameter "leaseName" = "": it must be a non-empty string)").arg(file),
                     QStringLiteral(R"(baton join: %1:4:40: service "b" (Webda/StoreClusterService): parameter "renewInterval" = 0: it must be a duration from 1ms to 24h)").arg(file)}));
}

void TestCommandLine::explainSaysWhichHostsTheElectionReaches_data()
{
    QTest::addColumn<QString>("registry");
    QTest::addColumn<QString>("scope");
    const QString data = m_folder.filePath(QStringLiteral("scope-data"));
    const QString folder = m_folder.filePath(QStringLiteral("scope-registry"));
    QTest::newRow("no Registry: the default one, of this host only")
            << QString()
            << QStringLiteral("scope: this host only: the default file Registry at %1/registry (no "
                              "Registry in the configuration)")
                       .arg(data);
    QTest::newRow("a file Registry: this host only")
            << QStringLiteral(R"("Registry": {"type": "Webda/FileStore", "folder": "%1"},)").arg(folder)
            << QStringLiteral("scope: this host only: file Registry at %1\n").arg(folder);
    QTest::newRow("an etcd Registry: every host that uses it")
            << QStringLiteral("\"Registry\": {\"type\": \"Webda/EtcdStore\", \"endpoints\": [\"http://127.0.0.1:1\"]},")
            << QStringLiteral("scope: every host that uses Registry (Webda/EtcdStore)\n");
}

void TestCommandLine::explainSaysWhichHostsTheElectionReaches()
{
    // R8: the same configuration on three servers without a shared store
    // elects three leaders; --explain says so before anything runs.
    QFETCH(QString, registry);
    QFETCH(QString, scope);
    const QString path = writeConfig(
            QStringLiteral("scope.json"),
            QStringLiteral(R"({"services": {%1 "cluster": {"type": "StoreClusterService", "leaseName": "nightly-report"}}})")
                    .arg(registry)
                    .toUtf8());
    const QString data = m_folder.filePath(QStringLiteral("scope-data"));
    const Run run = runBaton({QStringLiteral("join"), QStringLiteral("--config"), path, QStringLiteral("--explain")},
                             {QStringLiteral("BATON_DATA_DIR=") + data});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains(scope), qPrintable(run.out + run.err));
    QVERIFY(!QFile::exists(data)); // --explain creates nothing, the default Registry included
}

void TestCommandLine::theDefaultRegistryIsWarnedOfAtStartAndInStatus()
{
    // R8: at start, at warning level, and in `baton status`, which reads the
    // Registry the participant made.
    const QString path = writeConfig(
            QStringLiteral("default-scope.json"),
            R"({"services": {"cluster": {"type": "StoreClusterService", "leaseName": "nightly-report"}}})");
    const QString data = m_folder.filePath(QStringLiteral("default-scope-data"));
    QProcess baton;
    baton.setEnvironment(QProcess::systemEnvironment() << QStringLiteral("BATON_DATA_DIR=") + data);
    baton.start(baton::test::batonBinary(), {QStringLiteral("join"), QStringLiteral("--config"), path});
    QByteArray err;
    QTRY_VERIFY_WITH_TIMEOUT((err += baton.readAllStandardError()).contains("scope:"), 20000);
    baton.terminate();
    QVERIFY(baton.waitForFinished(20000));
    const QString registry = data + QStringLiteral("/registry");
    const QString log = QString::fromUtf8(err);
    QVERIFY2(log.contains(QStringLiteral("baton.config warning: no Registry in the configuration: the "
                                         "elections are of this host only, in the default file "
                                         "Registry at %1")
                                  .arg(registry)),
             qPrintable(log));
    QVERIFY2(log.contains(QStringLiteral("baton join: cluster: scope: this host only: the default file "
                                         "Registry at %1")
                                  .arg(registry)),
             qPrintable(log));

    const Run status = runBaton({QStringLiteral("status"), QStringLiteral("--config"), path},
                                {QStringLiteral("BATON_DATA_DIR=") + data});
    QCOMPARE(status.exitCode, 0);
    QVERIFY2(status.err.contains(QStringLiteral("baton status: warning: this host only: the default file "
                                                "Registry at %1")
                                         .arg(registry)),
             qPrintable(status.err));
    QVERIFY2(status.out.startsWith(QStringLiteral("LEASE")), qPrintable(status.out));
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

QString TestCommandLine::writeRegistry(const QString &name,
                                       const QList<std::tuple<QString, QString, qint64>> &leases)
{
    QList<baton::test::LeaseEntry> entries;
    for (const auto &[lease, holder, renewedAgoMs] : leases)
        entries.append({lease, holder, renewedAgoMs, 60000});
    return baton::test::writeLeaseFolder(m_folder.filePath(name), entries);
}

void TestCommandLine::statusCheckSaysWhetherEveryLeaseHasALiveHolder_data()
{
    QTest::addColumn<QStringList>("leases");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QStringList>("lines");
    QTest::newRow("the held lease alone is OK")
            << QStringList {QStringLiteral("billing")} << 0
            << QStringList {QStringLiteral("OK - lease \"billing\" held by web-1")};
    QTest::newRow("a free lease is CRITICAL")
            << QStringList {QStringLiteral("reports")} << 2
            << QStringList {QStringLiteral("CRITICAL - lease \"reports\": no holder")};
    QTest::newRow("a lease not renewed within its duration is CRITICAL")
            << QStringList {QStringLiteral("billing"), QStringLiteral("stale")} << 2
            << QStringList {QStringLiteral("CRITICAL - lease \"stale\": the lease of web-2 expired (not renewed for ")};
    QTest::newRow("a lease that does not exist is CRITICAL")
            << QStringList {QStringLiteral("nosuch")} << 2
            << QStringList {QStringLiteral("CRITICAL - lease \"nosuch\" not found (leases: billing, late, reports, stale)")};
    QTest::newRow("a lease renewed more than half its duration ago is a WARNING")
            << QStringList {QStringLiteral("billing"), QStringLiteral("late")} << 1
            << QStringList {QStringLiteral("WARNING - lease \"late\": web-3 renewed late: 40")};
    QTest::newRow("several problems are counted, then told the worst first")
            << QStringList {QStringLiteral("late"), QStringLiteral("reports"), QStringLiteral("billing"),
                            QStringLiteral("stale")}
            << 2
            << QStringList {QStringLiteral("CRITICAL - 2 leases without a live holder, 1 lease renewed late"),
                            QStringLiteral("lease \"reports\": no holder"),
                            QStringLiteral("lease \"stale\": the lease of web-2 expired (not renewed for "),
                            QStringLiteral("lease \"late\": web-3 renewed late: 40")};
    QTest::newRow("all leases, with no lease named, are judged together")
            << QStringList() << 2
            << QStringList {QStringLiteral("CRITICAL - 2 leases without a live holder, 1 lease renewed late")};
}

void TestCommandLine::statusCheckSaysWhetherEveryLeaseHasALiveHolder()
{
    // O3: `status --check` as a monitoring plugin (Nagios, Icinga) tells
    // it, as `baton check` does: the exit status, a first line that is the
    // verdict, then one line per problem, on stdout.
    QFETCH(QStringList, leases);
    QFETCH(int, exitCode);
    QFETCH(QStringList, lines);
    const QString folder = writeRegistry(
            QStringLiteral("check-registry"),
            {{QStringLiteral("billing"), QStringLiteral("web-1"), 1000},
             {QStringLiteral("reports"), QString(), 1000},
             {QStringLiteral("stale"), QStringLiteral("web-2"), 120000},
             {QStringLiteral("late"), QStringLiteral("web-3"), 40000}});
    QVERIFY(!folder.isEmpty());
    QStringList arguments {QStringLiteral("status"), QStringLiteral("--check"),
                           QStringLiteral("--store"), QStringLiteral("file://") + folder};
    arguments += leases;
    const Run run = runBaton(arguments);
    QCOMPARE(run.exitCode, exitCode);
    const QStringList out = run.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY2(out.size() >= lines.size(), qPrintable(run.out));
    for (qsizetype i = 0; i < lines.size(); ++i)
        QVERIFY2(out.at(i).startsWith(lines.at(i)), qPrintable(run.out));
    QVERIFY2(run.err.isEmpty(), qPrintable(run.err));
}

void TestCommandLine::statusCheckCannotJudgeIsUnknown_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("firstLine");
    QTest::newRow("--check with --watch")
            << QStringList {QStringLiteral("-w")}
            << QStringLiteral("UNKNOWN - baton status: --check looks once and --watch follows: use one of them");
    QTest::newRow("--check with an output format")
            << QStringList {QStringLiteral("-o"), QStringLiteral("json")}
            << QStringLiteral("UNKNOWN - baton status: --check prints a verdict, not the leases: -o, --json, "
                              "--no-headers and --history do not go with it");
    QTest::newRow("an unknown option")
            << QStringList {QStringLiteral("--bogus")}
            << QStringLiteral("UNKNOWN - baton status: bad command line (baton status --help)");
    QTest::newRow("a folder that does not exist")
            << QStringList {QStringLiteral("--store"), QStringLiteral("file:///nonexistent/baton-registry")}
            << QStringLiteral("UNKNOWN - --store: service \"Registry\" (Webda/FileStore): parameter \"folder\" = "
                              "\"/nonexistent/baton-registry\": the folder does not exist (an observer never "
                              "creates it)");
}

void TestCommandLine::statusCheckCannotJudgeIsUnknown()
{
    // O3: what keeps --check from judging, a bad command line or a store
    // it cannot read, is the monitoring plugins' UNKNOWN, exit 3, never
    // the 2 that a monitor reads as CRITICAL.
    QFETCH(QStringList, arguments);
    QFETCH(QString, firstLine);
    const QString folder = writeRegistry(QStringLiteral("unknown-registry"),
                                         {{QStringLiteral("billing"), QStringLiteral("web-1"), 1000}});
    const Run run = runBaton(QStringList {QStringLiteral("status"), QStringLiteral("--check")}
                             + (arguments.contains(QStringLiteral("--store"))
                                        ? QStringList()
                                        : QStringList {QStringLiteral("--store"), QStringLiteral("file://") + folder})
                             + arguments);
    QCOMPARE(run.exitCode, 3);
    QCOMPARE(run.firstLine(), firstLine);
}

void TestCommandLine::statusNeverCreatesAFolder()
{
    // R2, O3: looking writes nothing; a missing folder is named, and --check says UNKNOWN.
    const QString missing = m_folder.filePath(QStringLiteral("typo"));
    const Run run = runBaton({QStringLiteral("status"), QStringLiteral("--store"),
                              QStringLiteral("file://") + missing});
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.err, QStringLiteral("baton status: --store: service \"Registry\" (Webda/FileStore): "
                                     "parameter \"folder\" = \"%1\": the folder does not exist (an "
                                     "observer never creates it)\n")
                              .arg(missing));
    QVERIFY(!QFile::exists(missing));
    const Run checked = runBaton({QStringLiteral("status"), QStringLiteral("--check"),
                                  QStringLiteral("--store"), QStringLiteral("file://") + missing});
    QCOMPARE(checked.exitCode, 3);
    QVERIFY2(checked.firstLine().startsWith(QStringLiteral("UNKNOWN - ")), qPrintable(checked.out));

    // The default Registry too: BATON_DATA_DIR/registry is not made by a look.
    const QString data = m_folder.filePath(QStringLiteral("status-data"));
    const QString config = writeConfig(
            QStringLiteral("default-registry.json"),
            R"({"services": {"cluster": {"type": "StoreClusterService"}}})");
    const Run byDefault = runBaton({QStringLiteral("status"), QStringLiteral("--config"), config},
                                   {QStringLiteral("BATON_DATA_DIR=") + data});
    QCOMPARE(byDefault.exitCode, 1);
    QVERIFY2(byDefault.err.contains(data + QStringLiteral("/registry")), qPrintable(byDefault.err));
    QVERIFY(!QFile::exists(data));
}

void TestCommandLine::statusReadsAReadOnlyFolder()
{
    // O3: an operator may look at a folder they cannot write.
    const QString folder = writeRegistry(QStringLiteral("read-only-registry"),
                                         {{QStringLiteral("billing"), QStringLiteral("web-1"), 1000}});
    QVERIFY(QFile::setPermissions(folder, QFileDevice::ReadOwner | QFileDevice::ExeOwner));
    const Run run = runBaton({QStringLiteral("status"), QStringLiteral("--check"),
                              QStringLiteral("--store"), QStringLiteral("file://") + folder});
    QVERIFY(QFile::setPermissions(folder, QFileDevice::ReadOwner | QFileDevice::WriteOwner
                                          | QFileDevice::ExeOwner));
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains(QStringLiteral("web-1")), qPrintable(run.out + run.err));
    // Nothing was written beside the one entry: no lock file, no sequence file.
    QCOMPARE(QDir(folder).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot).size(), 1);
}

void TestCommandLine::statusOutputFormats()
{
    // O3: -o name for scripts and completion, -o json one document, --no-headers.
    const QString folder = writeRegistry(QStringLiteral("formats-registry"),
                                         {{QStringLiteral("alpha"), QStringLiteral("web-1"), 1000},
                                          {QStringLiteral("beta"), QStringLiteral("web-2"), 1000}});
    const QString url = QStringLiteral("file://") + folder;
    const Run names = runBaton({QStringLiteral("status"), QStringLiteral("-o"), QStringLiteral("name"),
                                QStringLiteral("--store"), url});
    QCOMPARE(names.exitCode, 0);
    QCOMPARE(names.out, QStringLiteral("alpha\nbeta\n"));
    const Run document = runBaton({QStringLiteral("status"), QStringLiteral("beta"), QStringLiteral("-o"),
                                   QStringLiteral("json"), QStringLiteral("--store"), url});
    QCOMPARE(document.exitCode, 0);
    const QJsonArray records =
            QJsonDocument::fromJson(document.out.toUtf8()).object().value(QStringLiteral("items")).toArray();
    QCOMPARE(records.size(), 1);
    QCOMPARE(records.at(0).toObject().value(QStringLiteral("holder")).toString(), QStringLiteral("web-2"));
    const Run bare = runBaton({QStringLiteral("status"), QStringLiteral("--no-headers"),
                               QStringLiteral("--store"), url});
    QCOMPARE(bare.exitCode, 0);
    const QStringList lines = bare.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 2);
    QVERIFY2(lines.at(0).startsWith(QStringLiteral("alpha")), qPrintable(bare.out));
}

void TestCommandLine::statusTableShowsTheRenewalAgainstTheLease()
{
    // O3: while held, the time since the last renewal against the lease's
    // duration; for a free lease nothing (a release's 1 s is no duration).
    const QString folder = writeRegistry(QStringLiteral("columns-registry"),
                                         {{QStringLiteral("held"), QStringLiteral("web-1"), 2000},
                                          {QStringLiteral("released"), QString(), 2000}});
    const Run run = runBaton({QStringLiteral("status"), QStringLiteral("--store"),
                              QStringLiteral("file://") + folder});
    QCOMPARE(run.exitCode, 0);
    const QStringList lines = run.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QVERIFY2(lines.at(0).contains(QStringLiteral("  RENEWED/LEASE  ")), qPrintable(run.out));
    static const QRegularExpression held(QStringLiteral("^held +web-1 +\\S+ +2(\\.\\d)?s/1m +1  held$"));
    QVERIFY2(held.match(lines.at(1)).hasMatch(), qPrintable(lines.at(1)));
    static const QRegularExpression released(QStringLiteral("^released +\\(none\\) +\\S+ +- +1  free$"));
    QVERIFY2(released.match(lines.at(2)).hasMatch(), qPrintable(lines.at(2)));
}

void TestCommandLine::statusWideAddsTheRecordsTimesAndTheSource()
{
    // O3: -o wide, as kubectl's: the renewal time, the lease duration, the
    // time since this observer saw the record change (its own clock, F2)
    // and the source, between the counts and the state.
    const QString folder = writeRegistry(QStringLiteral("wide-registry"),
                                         {{QStringLiteral("held"), QStringLiteral("web-1"), 2000},
                                          {QStringLiteral("released"), QString(), 2000}});
    const Run run = runBaton({QStringLiteral("status"), QStringLiteral("-o"), QStringLiteral("wide"),
                              QStringLiteral("--store"), QStringLiteral("file://") + folder});
    QCOMPARE(run.exitCode, 0);
    const QStringList lines = run.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    static const QRegularExpression header(QStringLiteral(
            "^LEASE +HOLDER +SINCE +RENEWED/LEASE +TRANS  RENEW-TIME +DURATION +OBSERVED +SOURCE +STATE$"));
    QVERIFY2(header.match(lines.at(0)).hasMatch(), qPrintable(lines.at(0)));
    static const QRegularExpression held(QStringLiteral(
            "^held +web-1 +\\S+ +2(\\.\\d)?s/1m +1  \\d{4}-\\d\\d-\\d\\dT\\S+Z +1m +\\S+ +cluster:\\* +held$"));
    QVERIFY2(held.match(lines.at(1)).hasMatch(), qPrintable(lines.at(1)));
    // A free lease has no duration to show (a release writes a token 1 s).
    static const QRegularExpression released(QStringLiteral(
            "^released +\\(none\\) +\\S+ +- +1  \\S+ +- +\\S+ +cluster:\\* +free$"));
    QVERIFY2(released.match(lines.at(2)).hasMatch(), qPrintable(lines.at(2)));
}

void TestCommandLine::statusWatchPrintsEachChangeOnce()
{
    // O3: as `kubectl get -w`: the table once, then the row of the lease
    // that changed, in the same columns, once; what the watch saw comes on
    // stderr when it ends, not as a log line while it runs.
    const QString folder = writeRegistry(QStringLiteral("watch-registry"),
                                         {{QStringLiteral("billing"), QStringLiteral("web-1"), 0}});
    QProcess status;
    status.start(baton::test::batonBinary(), {QStringLiteral("status"), QStringLiteral("-w"),
                                              QStringLiteral("--store"), QStringLiteral("file://") + folder});
    QByteArray out;
    QTRY_VERIFY_WITH_TIMEOUT((out += status.readAllStandardOutput()).contains("web-1"), 20000);
    writeRegistry(QStringLiteral("watch-registry"), {{QStringLiteral("billing"), QStringLiteral("web-2-longer"), 0}});
    QTRY_VERIFY_WITH_TIMEOUT((out += status.readAllStandardOutput()).contains("web-2-longer"), 20000);
    QVERIFY2(!status.readAllStandardError().contains("web-2"), "a change told on stderr while watching");
    status.terminate();
    QVERIFY(status.waitForFinished(20000));
    out += status.readAllStandardOutput();
    const QStringList lines = QString::fromUtf8(out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QVERIFY2(lines.at(0).startsWith(QStringLiteral("LEASE ")), qPrintable(lines.at(0)));
    static const QRegularExpression first(QStringLiteral("^billing +web-1 +\\S+ +\\S+ +1  held$"));
    QVERIFY2(first.match(lines.at(1)).hasMatch(), qPrintable(lines.at(1)));
    // A holder wider than the column widens it for the rows that follow:
    // the columns before it stay where the header put them.
    static const QRegularExpression second(QStringLiteral("^billing  web-2-longer  \\S+ +\\S+ +1  held$"));
    QVERIFY2(second.match(lines.at(2)).hasMatch(), qPrintable(lines.at(2)));
    QCOMPARE(lines.at(2).indexOf(QStringLiteral("web-2")), lines.at(0).indexOf(QStringLiteral("HOLDER")));
    const QString err = QString::fromUtf8(status.readAllStandardError());
    QVERIFY2(err.startsWith(QStringLiteral("baton status: 1 failover(s) seen\nbaton status: ")), qPrintable(err));
    QVERIFY2(err.contains(QStringLiteral("  billing: web-1 -> web-2-longer (")), qPrintable(err));
}

void TestCommandLine::statusReachesAnEtcdThatNeedsAPassword()
{
    // B1, R2: what a URL cannot carry comes as etcdctl's flags, or BATON_*.
    baton::test::EtcdFixture etcd("BATON_ETCD_AUTH_DIR");
    if (!etcd.configured())
        QSKIP("no etcd fixture: run through ctest");
    const QStringList endpoints = etcd.endpoints();
    QVERIFY2(!endpoints.isEmpty(), qPrintable(etcd.errorString()));
    const QString passwordPath = m_folder.filePath(QStringLiteral("etcd-password"));
    {
        QFile file(passwordPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        file.write(etcd.password().toUtf8() + '\n');
    }
    // The fixture's user may read and write under auth/ only.
    const QStringList store {QStringLiteral("status"), QStringLiteral("--store"),
                             endpoints.join(QLatin1Char(',')), QStringLiteral("--prefix"),
                             QStringLiteral("auth/")};

    const Run refused = runBaton(store);
    QCOMPARE(refused.exitCode, 1); // etcd asks for a user
    const Run flags = runBaton(store + QStringList {QStringLiteral("--user"), etcd.username(),
                                                    QStringLiteral("--password-file"), passwordPath});
    QVERIFY2(flags.exitCode == 0, qPrintable(flags.err));
    const Run environment = runBaton(store, {QStringLiteral("BATON_USER=") + etcd.username(),
                                             QStringLiteral("BATON_PASSWORD_FILE=") + passwordPath});
    QVERIFY2(environment.exitCode == 0, qPrintable(environment.err));
    for (const Run &run : {refused, flags, environment})
        QVERIFY(!(run.out + run.err).contains(etcd.password()));
}

void TestCommandLine::demoRemovesItsFolderWhenInterrupted_data()
{
    QTest::addColumn<int>("signalNumber");
    QTest::newRow("SIGTERM removes the folder") << int(SIGTERM);
    QTest::newRow("SIGINT removes the folder") << int(SIGINT);
}

void TestCommandLine::demoRemovesItsFolderWhenInterrupted()
{
    // R2: what the demo writes is its user's alone, and goes when it is stopped.
    QFETCH(int, signalNumber);
    QProcess demo;
    demo.start(baton::test::batonBinary(), {QStringLiteral("demo")});
    QByteArray out;
    static const QRegularExpression folderLine(QStringLiteral("on a file Registry in (\\S+)\n"));
    QRegularExpressionMatch match;
    QTRY_VERIFY_WITH_TIMEOUT((match = folderLine.match(QString::fromUtf8(out += demo.readAllStandardOutput())))
                                     .hasMatch(),
                             20000);
    const QString folder = match.captured(1);
    QVERIFY(QFile::exists(folder));
    QCOMPARE(baton::test::fileMode(folder), 0700);
    for (const QString &name : {QStringLiteral("alpha.json"), QStringLiteral("bravo.json"),
                                QStringLiteral("charlie.json")})
        QCOMPARE(baton::test::fileMode(folder + QLatin1Char('/') + name), 0600);
    QVERIFY(::kill(pid_t(demo.processId()), signalNumber) == 0);
    QVERIFY(demo.waitForFinished(30000));
    QCOMPARE(demo.exitCode(), 128 + signalNumber);
    QVERIFY2(!QFile::exists(folder), qPrintable(folder));
}

void TestCommandLine::demoNamesNoCommandOnTheFolderItRemoves()
{
    // R2: the demo's folder goes when it ends, so nothing it prints at the end
    // may invite its reader to type a command on that folder.
    QProcess demo;
    demo.start(baton::test::batonBinary(), {QStringLiteral("demo")});
    QVERIFY(demo.waitForFinished(90000));
    QCOMPARE(demo.exitCode(), 0);
    const QString out = QString::fromUtf8(demo.readAllStandardOutput());
    static const QRegularExpression folderLine(QStringLiteral("on a file Registry in (\\S+)\n"));
    const QRegularExpressionMatch match = folderLine.match(out);
    QVERIFY2(match.hasMatch(), qPrintable(out));
    const QString folder = match.captured(1);
    QVERIFY2(!QFile::exists(folder), qPrintable(folder));
    const QStringList lines = out.split(QLatin1Char('\n'));
    for (const QString &line : lines)
        QVERIFY2(!(line.trimmed().startsWith(QLatin1String("$ ")) && line.contains(folder)), qPrintable(line));
    QVERIFY2(!out.contains(QUrl::fromLocalFile(folder).toString()), qPrintable(out));
}

void TestCommandLine::statusBadInputExitsTwo_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("an unknown -o format")
            << QStringList {QStringLiteral("-o"), QStringLiteral("xml")}
            << QStringLiteral("baton status: -o takes table, wide, jsonl, json, yaml or name, not \"xml\"\n");
    QTest::newRow("a user name for a file store")
            << QStringList {QStringLiteral("--user"), QStringLiteral("ops")}
            << QStringLiteral("baton status: --prefix, --cacert, --cert, --key, --user and "
                              "--password-file are for an etcd store (--store http://host:port)\n");
    QTest::newRow("--watch with -o name")
            << QStringList {QStringLiteral("-w"), QStringLiteral("-o"), QStringLiteral("name")}
            << QStringLiteral("baton status: --watch prints rows or records as the leases change: use -o "
                              "table, wide or jsonl\n");
    QTest::newRow("--history with -o name")
            << QStringList {QStringLiteral("--history"), QStringLiteral("-o"), QStringLiteral("name")}
            << QStringLiteral("baton status: -o name lists leases, --history their holder changes: "
                              "use one of them\n");
    QTest::newRow("an export to a file that is neither CSV nor JSON")
            << QStringList {QStringLiteral("--history=changes.txt")}
            << QStringLiteral("baton status: --history changes.txt: the file name must end in .csv "
                              "or .json\n");
}

void TestCommandLine::statusBadInputExitsTwo()
{
    // P1: one line naming what is wrong, exit 2.
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const Run run = runBaton(QStringList {QStringLiteral("status"), QStringLiteral("--store"),
                                          QStringLiteral("file://") + m_folder.path()}
                             + arguments);
    QCOMPARE(run.exitCode, 2);
    QCOMPARE(run.err, message);
}

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
