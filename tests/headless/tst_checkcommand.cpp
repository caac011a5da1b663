// `baton check --config FILE` on a file Registry, run as the real program:
// the verdict of a monitoring plugin (exit status and first line), and the
// refusals of join given as join gives them. The etcd cases are in
// tests/etcd/tst_etcdcheck.cpp.

#include "participants.h"
#include "testsupport.h"

#include <QDir>
#include <QJsonObject>
#include <QJsonValue>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace baton::test;

namespace {

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QByteArray firstLine() const { return out.left(out.indexOf('\n')); }
};

Run runBaton(const QStringList &arguments)
{
    QProcess process;
    process.start(batonBinary(), arguments);
    Run run;
    if (!process.waitForFinished(30000))
        return run;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return run;
}

} // namespace

class TestCheckCommand : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void aWritableFileRegistryIsOk();
    void aConfigurationJoinRefusesIsCriticalWithJoinsOwnMessage_data();
    void aConfigurationJoinRefusesIsCriticalWithJoinsOwnMessage();
    void aMissingFolderThatJoinWouldCreateIsAWarning();
    void aBadCommandLineOfCheckItselfIsUnknown();

private:
    QString writeConfig(const QString &name, const QJsonObject &cluster, const QString &folder);
    QTemporaryDir m_dir;
};

void TestCheckCommand::initTestCase()
{
    QVERIFY2(!batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_dir.isValid());
}

QString TestCheckCommand::writeConfig(const QString &name, const QJsonObject &cluster,
                                      const QString &folder)
{
    const QJsonObject config {
        { QStringLiteral("services"),
          QJsonObject {
              { QStringLiteral("Registry"),
                QJsonObject { { QStringLiteral("type"), QStringLiteral("Webda/FileStore") },
                              { QStringLiteral("folder"), folder } } },
              { QStringLiteral("cluster"), cluster } } }
    };
    const QString path = m_dir.filePath(name + QStringLiteral(".json"));
    return writeJsonFile(path, config) ? path : QString();
}

static QJsonObject cluster(const QString &lease)
{
    return { { QStringLiteral("type"), QStringLiteral("Webda/StoreClusterService") },
             { QStringLiteral("leaseName"), lease } };
}

// The check of the configuration (P1 refusals, as join's) and of its store:
// a folder this user can write is OK, with the exit status 0.
void TestCheckCommand::aWritableFileRegistryIsOk()
{
    const QString folder = m_dir.filePath(QStringLiteral("registry"));
    QVERIFY(QDir().mkpath(folder));
    const QString config
        = writeConfig(QStringLiteral("good"), cluster(QStringLiteral("cron")), folder);
    const Run run = runBaton({ QStringLiteral("check"), QStringLiteral("--config"), config });
    QVERIFY2(run.exitCode == 0, run.out + run.err);
    QVERIFY2(run.firstLine().startsWith("OK - "), run.out);
    QVERIFY2(run.firstLine().contains(folder.toUtf8()), run.out);
    QVERIFY2(run.out.contains("may create and remove files there"), run.out);
    // Nothing was left behind by the probe's file.
    QCOMPARE(QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList());
}

void TestCheckCommand::aConfigurationJoinRefusesIsCriticalWithJoinsOwnMessage_data()
{
    QTest::addColumn<QString>("parameter");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("named");
    // Refused as the file is read: the same line, position included.
    QTest::newRow("a misspelt parameter")
        << "leaseDuraton" << QJsonValue(3000) << "\"leaseDuraton\"";
    // Refused only when join starts the election's service.
    QTest::newRow("a history longer than allowed")
        << "historyLength" << QJsonValue(5000) << "\"historyLength\"";
    QTest::newRow("a store that is not configured")
        << "store" << QJsonValue(QStringLiteral("Nope")) << "\"Nope\"";
}

// P1: what join refuses, check calls CRITICAL (2), with join's own words
// (a refusal when join starts carries the file's name, not the position).
void TestCheckCommand::aConfigurationJoinRefusesIsCriticalWithJoinsOwnMessage()
{
    QFETCH(QString, parameter);
    QFETCH(QJsonValue, value);
    QFETCH(QString, named);
    const QString folder = m_dir.filePath(QStringLiteral("registry"));
    QVERIFY(QDir().mkpath(folder));
    QJsonObject refused = cluster(QStringLiteral("cron"));
    refused.insert(parameter, value);
    const QString config = writeConfig(parameter, refused, folder);
    const Run check = runBaton({ QStringLiteral("check"), QStringLiteral("--config"), config });
    QVERIFY2(check.exitCode == 2, check.out + check.err);
    QVERIFY2(check.firstLine().startsWith("CRITICAL - "), check.out);
    QVERIFY2(check.firstLine().contains(named.toUtf8()), check.out);
    const Run join = runBaton({ QStringLiteral("join"), QStringLiteral("--config"), config });
    QCOMPARE(join.exitCode, 2);
    QByteArray joinLine = join.err.trimmed();
    joinLine = joinLine.mid(joinLine.lastIndexOf('\n') + 1);
    QVERIFY2(joinLine.startsWith("baton join: "), join.err);
    // What follows "FILE:LINE:COLUMN: " (or "FILE: ") is the same.
    const auto reason = [](const QByteArray &line, const char *head) {
        const QByteArray rest = line.mid(qsizetype(strlen(head)));
        return rest.mid(rest.indexOf(": ") + 2);
    };
    QCOMPARE(reason(check.firstLine(), "CRITICAL - "), reason(joinLine, "baton join: "));
    QVERIFY(!QFileInfo::exists(QDir(folder).filePath(QStringLiteral("cluster:cron.json"))));
}

// A folder join creates when it starts is no failure, but it is said.
void TestCheckCommand::aMissingFolderThatJoinWouldCreateIsAWarning()
{
    const QString folder = m_dir.filePath(QStringLiteral("not-yet/registry"));
    const QString config
        = writeConfig(QStringLiteral("later"), cluster(QStringLiteral("cron")), folder);
    const Run run = runBaton({ QStringLiteral("check"), QStringLiteral("--config"), config });
    QVERIFY2(run.exitCode == 1, run.out + run.err);
    QVERIFY2(run.firstLine().startsWith("WARNING - "), run.out);
    QVERIFY2(run.out.contains("does not exist yet; join will create it"), run.out);
    QVERIFY(!QFileInfo::exists(folder)); // looking creates nothing
}

// The plugins' convention: check's own command line wrong is UNKNOWN (3).
void TestCheckCommand::aBadCommandLineOfCheckItselfIsUnknown()
{
    for (const QStringList &arguments :
         { QStringList { QStringLiteral("check") },
           QStringList { QStringLiteral("check"), QStringLiteral("--no-such-option") } }) {
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.remove(QStringLiteral("BATON_CONFIG"));
        process.setProcessEnvironment(environment);
        process.start(batonBinary(), arguments);
        QVERIFY(process.waitForFinished(30000));
        const QByteArray out = process.readAllStandardOutput();
        QVERIFY2(process.exitCode() == 3, out);
        QVERIFY2(out.startsWith("UNKNOWN - "), out);
    }
}

QTEST_GUILESS_MAIN(TestCheckCommand)
#include "tst_checkcommand.moc"
