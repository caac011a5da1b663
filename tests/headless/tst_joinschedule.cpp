// `baton join --schedule SPEC --exec CMD` end to end, with real processes on
// one FileStore folder, and (as tst_joinschedule_etcd, with
// BATON_JOINSCHEDULE_STORE=etcd) on the etcd the CTest fixture started.
// The command's own log is the judge: each line is one run, named by the
// BATON_TICK it was given.

#include "etcdfixture.h"
#include "eventstream.h"
#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <batoninternal/tickschedule.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <csignal>

using namespace baton;
using namespace baton::test;

namespace {

constexpr qint64 leaseMs = 2000;
constexpr qint64 renewMs = 500;

QList<QJsonObject> eventsNamed(const ParticipantProcess &p, const QString &name)
{
    QList<QJsonObject> found;
    for (const QJsonObject &e : p.events())
        if (e.value(QStringLiteral("event")).toString() == name)
            found.append(e);
    return found;
}

} // namespace

class TestJoinSchedule : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void eachTickRunsOnceAcrossAKilledLeader();
    void anInterruptedRunIsRerunOrNotByPolicy_data();
    void anInterruptedRunIsRerunOrNotByPolicy();
    void aTickDuringARunIsSkippedAndRecorded();
    void aTickDuringARunWaitsForItWhenQueued();
    void aMissedTickWithinTheCatchUpWindowRunsOnce();
    void badScheduleOptionsAreRefused_data();
    void badScheduleOptionsAreRefused();

private:
    ParticipantProcess *start(const QString &id, const QStringList &extra);
    ParticipantProcess *leader(const ParticipantProcess *except = nullptr) const;
    QStringList logLines() const;
    /*! `baton status --runs LEASE -o json` of the test's lease. */
    QJsonObject runsDocument() const;

    QTemporaryDir m_folder;
    QString m_log;
    QJsonObject m_registry;
    QString m_lease;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
};

void TestJoinSchedule::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
    if (qEnvironmentVariable("BATON_JOINSCHEDULE_STORE") == QLatin1String("etcd")) {
        EtcdFixture etcd("BATON_ETCD_DIR");
        QVERIFY2(etcd.configured() && !etcd.endpoints().isEmpty(),
                 qPrintable(QStringLiteral("no etcd from the fixture: %1").arg(etcd.errorString())));
        m_registry = QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/EtcdStore")},
                                  {QStringLiteral("endpoints"), QJsonArray::fromStringList(etcd.endpoints())}};
    } else {
        m_registry = fileRegistry(m_folder.filePath(QStringLiteral("registry")));
    }
}

void TestJoinSchedule::cleanup()
{
    for (const auto &p : m_participants) {
        p->sendSignal(SIGCONT);
        p->sendSignal(SIGKILL);
    }
    m_participants.clear();
}

ParticipantProcess *TestJoinSchedule::start(const QString &id, const QStringList &extra)
{
    const ParticipantConfig config {m_registry, m_lease, id, leaseMs, renewMs};
    const QString path = config.writeTo(m_folder.filePath(id + QStringLiteral(".json")));
    m_participants.push_back(std::make_unique<ParticipantProcess>(
            id, test::batonBinary(),
            QStringList {QStringLiteral("join"), QStringLiteral("--config"), path, QStringLiteral("--events"),
                         QStringLiteral("json")}
                    + extra));
    test::keepOutput(m_participants.back().get());
    m_participants.back()->start();
    return m_participants.back().get();
}

ParticipantProcess *TestJoinSchedule::leader(const ParticipantProcess *except) const
{
    for (const auto &p : m_participants)
        if (p.get() != except && p->isRunning() && p->isLeading())
            return p.get();
    return nullptr;
}

QStringList TestJoinSchedule::logLines() const
{
    QFile file(m_log);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

void TestJoinSchedule::eachTickRunsOnceAcrossAKilledLeader()
{
    // S1, S2: three nodes, a tick every two seconds, the leader killed.
    m_lease = QStringLiteral("ticks-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    m_log = m_folder.filePath(m_lease + QStringLiteral(".log"));
    const QStringList job {QStringLiteral("--schedule"), QStringLiteral("every 2s"), QStringLiteral("--exec"),
                           QStringLiteral("echo \"$BATON_TICK $BATON_INSTANCE $BATON_FENCING_TOKEN\" >> '%1'")
                                   .arg(m_log)};
    for (const QString &id : {QStringLiteral("s1"), QStringLiteral("s2"), QStringLiteral("s3")})
        start(id, job);
    QTRY_VERIFY_WITH_TIMEOUT(logLines().size() >= 2, 20000);
    ParticipantProcess *first = leader();
    QVERIFY(first);
    const int before = int(logLines().size());

    QSignalSpy died(first, &ParticipantProcess::finished);
    first->sendSignal(SIGKILL);
    QVERIFY(died.wait(10000));
    // Two runs of the new leader that ended well: their lines are in the log.
    const auto succeeded = [this, first] {
        const ParticipantProcess *now = leader(first);
        if (!now)
            return 0;
        int count = 0;
        for (const QJsonObject &e : eventsNamed(*now, QStringLiteral("run-finished")))
            count += e.value(QStringLiteral("outcome")).toString() == QLatin1String("succeeded");
        return count;
    };
    QTRY_VERIFY_WITH_TIMEOUT(succeeded() >= 2, 30000);

    const QStringList lines = logLines();
    QVERIFY(lines.size() >= before + 2);
    QSet<QString> ticks;
    QSet<QString> instances;
    for (const QString &line : lines) {
        const QStringList words = line.split(QLatin1Char(' '));
        QCOMPARE(words.size(), 3);
        QVERIFY2(!ticks.contains(words.at(0)), qPrintable(QStringLiteral("tick run twice: ") + line));
        ticks.insert(words.at(0));
        instances.insert(words.at(1));
        // The tick's name is its instant in UTC, on the period's grid.
        const QDateTime tick = QDateTime::fromString(words.at(0), Qt::ISODate);
        QVERIFY2(tick.isValid() && tick.time().second() % 2 == 0, qPrintable(line));
    }
    QCOMPARE(instances.size(), 2);
    // The new leader's runs carry its own, higher fencing token.
    QVERIFY(lines.last().split(QLatin1Char(' ')).at(2).toLongLong()
            > lines.first().split(QLatin1Char(' ')).at(2).toLongLong());

    // S4: `baton status --runs` shows a record for every run the log shows,
    // with the instance and the token the command was given.
    const QJsonObject listed = runsDocument();
    QCOMPARE(listed.value(QStringLiteral("kind")).toString(), QStringLiteral("RunList"));
    QHash<QString, QJsonObject> records;
    for (const QJsonValue &item : listed.value(QStringLiteral("items")).toArray())
        records.insert(item[QStringLiteral("tick")].toString(), item.toObject());
    for (const QString &line : lines) {
        const QStringList words = line.split(QLatin1Char(' '));
        QVERIFY2(records.contains(words.at(0)), qPrintable(QStringLiteral("no record of ") + line));
        const QJsonObject record = records.value(words.at(0));
        QCOMPARE(record.value(QStringLiteral("lease")).toString(), m_lease);
        QCOMPARE(record.value(QStringLiteral("token")).toString(), words.at(2));
        // The schedule goes with each record: a reader can tell the next tick and the missed ones.
        QCOMPARE(record.value(QStringLiteral("schedule")).toString(), QStringLiteral("every 2s"));
        if (record.value(QStringLiteral("outcome")).toString() == QLatin1String("succeeded")) {
            QCOMPARE(record.value(QStringLiteral("instance")).toString(), words.at(1));
            QVERIFY(!record.value(QStringLiteral("end")).toString().isEmpty());
        }
    }
}

QJsonObject TestJoinSchedule::runsDocument() const
{
    QProcess status;
    status.start(test::batonBinary(), {QStringLiteral("status"), QStringLiteral("--config"),
                                       m_folder.filePath(QStringLiteral("s2.json")), QStringLiteral("--runs"),
                                       m_lease, QStringLiteral("-o"), QStringLiteral("json")});
    if (!status.waitForFinished(20000) || status.exitCode() != 0) {
        qWarning("%s", status.readAllStandardError().constData());
        return {};
    }
    return QJsonDocument::fromJson(status.readAllStandardOutput()).object();
}

void TestJoinSchedule::anInterruptedRunIsRerunOrNotByPolicy_data()
{
    QTest::addColumn<QString>("policy");
    QTest::addColumn<bool>("rerun");
    QTest::newRow("by default, not rerun") << QString() << false;
    QTest::newRow("skip: not rerun") << "skip" << false;
    QTest::newRow("rerun: the next leader runs it again") << "rerun" << true;
}

void TestJoinSchedule::anInterruptedRunIsRerunOrNotByPolicy()
{
    // S2: the leader is killed while the run of a tick is going; the guard
    // kills the command; the next leader finds the run record "running".
    QFETCH(QString, policy);
    QFETCH(bool, rerun);
    m_lease = QStringLiteral("rerun-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    m_log = m_folder.filePath(m_lease + QStringLiteral(".log"));
    // Long runs: every later tick finds one going and is skipped.
    QStringList job {QStringLiteral("--schedule"), QStringLiteral("every 2s"), QStringLiteral("--exec"),
                     QStringLiteral("echo \"$BATON_TICK $BATON_INSTANCE\" >> '%1'; sleep 60").arg(m_log)};
    if (!policy.isEmpty())
        job << QStringLiteral("--on-interrupted") << policy;
    for (const QString &id : {QStringLiteral("r1"), QStringLiteral("r2")})
        start(id, job);
    QTRY_VERIFY_WITH_TIMEOUT(logLines().size() == 1, 20000);
    ParticipantProcess *first = leader();
    QVERIFY(first);
    const QString tick = logLines().first().split(QLatin1Char(' ')).first();

    first->sendSignal(SIGKILL);
    QTRY_VERIFY_WITH_TIMEOUT(leader(first), 20000);
    ParticipantProcess *second = leader(first);
    if (rerun) {
        QTRY_COMPARE_WITH_TIMEOUT(logLines().size(), 2, 20000);
        QCOMPARE(logLines().at(1), tick + QLatin1Char(' ') + second->label());
        // The command may write before its event reaches the test.
        QTRY_VERIFY_WITH_TIMEOUT(!lastEvent(*second, QStringLiteral("run-started")).isEmpty(), 10000);
        const QJsonObject started = lastEvent(*second, QStringLiteral("run-started"));
        QCOMPARE(started.value(QStringLiteral("tick")).toString(), tick);
        QCOMPARE(started.value(QStringLiteral("attempt")).toInt(), 2);
    } else {
        // Marked interrupted by the new leader, then its own ticks run.
        QTRY_VERIFY_WITH_TIMEOUT(!lastEvent(*second, QStringLiteral("run-finished")).isEmpty(), 20000);
        const QJsonObject finished = firstEvent(*second, QStringLiteral("run-finished"));
        QCOMPARE(finished.value(QStringLiteral("tick")).toString(), tick);
        QCOMPARE(finished.value(QStringLiteral("outcome")).toString(), QStringLiteral("interrupted: leadership ended"));
        QTRY_COMPARE_WITH_TIMEOUT(logLines().size(), 2, 20000);
        QVERIFY(logLines().at(1).split(QLatin1Char(' ')).first() > tick); // a later tick, not this one
    }
}

void TestJoinSchedule::aTickDuringARunIsSkippedAndRecorded()
{
    // S3: a run longer than the period; the default is to skip the tick.
    m_lease = QStringLiteral("overlap-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    m_log = m_folder.filePath(m_lease + QStringLiteral(".log"));
    ParticipantProcess *only = start(QStringLiteral("o1"),
                                     {QStringLiteral("--schedule"), QStringLiteral("every 1s"), QStringLiteral("--exec"),
                                      QStringLiteral("echo \"$BATON_TICK\" >> '%1'; sleep 2.5").arg(m_log)});
    QTRY_VERIFY_WITH_TIMEOUT(eventsNamed(*only, QStringLiteral("run-finished")).size() >= 2, 30000);
    const QList<QJsonObject> skipped = eventsNamed(*only, QStringLiteral("run-skipped"));
    QVERIFY(skipped.size() >= 2);
    QCOMPARE(skipped.first().value(QStringLiteral("reason")).toString(), QStringLiteral("previous run still going"));
    // Never two runs at once: each run started after the one before finished.
    QSet<QString> ran;
    for (const QString &line : logLines())
        ran.insert(line);
    for (const QJsonObject &skip : skipped)
        QVERIFY(!ran.contains(skip.value(QStringLiteral("tick")).toString()));
}

void TestJoinSchedule::aTickDuringARunWaitsForItWhenQueued()
{
    // S3, --overlap queue: the tick that came during a run starts when it
    // ends, late, and never beside it.
    m_lease = QStringLiteral("queue-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    m_log = m_folder.filePath(m_lease + QStringLiteral(".log"));
    ParticipantProcess *only = start(QStringLiteral("q1"),
                                     {QStringLiteral("--schedule"), QStringLiteral("every 1s"), QStringLiteral("--overlap"),
                                      QStringLiteral("queue"), QStringLiteral("--exec"),
                                      QStringLiteral("echo \"$BATON_TICK\" >> '%1'; sleep 2.5").arg(m_log)});
    QTRY_VERIFY_WITH_TIMEOUT(eventsNamed(*only, QStringLiteral("run-started")).size() >= 3, 30000);
    const QList<QJsonObject> started = eventsNamed(*only, QStringLiteral("run-started"));
    const QList<QJsonObject> finished = eventsNamed(*only, QStringLiteral("run-finished"));
    bool startedLate = false;
    for (qsizetype i = 1; i < started.size(); ++i) {
        // Each run after the first started once the one before had finished.
        QVERIFY(finished.size() >= i);
        QVERIFY(started.at(i).value(QStringLiteral("mono")).toDouble() >= finished.at(i - 1).value(QStringLiteral("mono")).toDouble());
        const QDateTime tick = QDateTime::fromString(started.at(i).value(QStringLiteral("tick")).toString(), Qt::ISODate);
        const QDateTime at = QDateTime::fromString(started.at(i).value(QStringLiteral("ts")).toString(), Qt::ISODateWithMs);
        // Its tick came while the run before was going: it waited for it.
        const QDateTime previousEnd = QDateTime::fromString(finished.at(i - 1).value(QStringLiteral("ts")).toString(),
                                                            Qt::ISODateWithMs);
        startedLate = startedLate || (tick < previousEnd && at >= previousEnd);
    }
    QVERIFY(startedLate);
}

void TestJoinSchedule::aMissedTickWithinTheCatchUpWindowRunsOnce()
{
    // S2: the tick at the top of this hour was started by nobody; a leader
    // with --catch-up 2h runs it once when it begins to lead.
    m_lease = QStringLiteral("catchup-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    m_log = m_folder.filePath(m_lease + QStringLiteral(".log"));
    const QStringList job {QStringLiteral("--schedule"), QStringLiteral("every 1h"), QStringLiteral("--catch-up"),
                           QStringLiteral("2h"), QStringLiteral("--exec"),
                           QStringLiteral("echo \"$BATON_TICK $BATON_INSTANCE\" >> '%1'").arg(m_log)};
    const QDateTime now = QDateTime::currentDateTimeUtc();
    ParticipantProcess *first = start(QStringLiteral("c1"), job);
    QTRY_VERIFY_WITH_TIMEOUT(eventsNamed(*first, QStringLiteral("run-finished")).size() == 1, 20000);
    QCOMPARE(logLines().size(), 1);
    const QDateTime hour(now.date(), QTime(now.time().hour(), 0), Qt::UTC);
    QCOMPARE(logLines().first(), TickSchedule::tickName(hour) + QStringLiteral(" c1"));
}

void TestJoinSchedule::badScheduleOptionsAreRefused_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    const QStringList exec {QStringLiteral("--exec"), QStringLiteral("true")};
    QTest::newRow("a field out of range") << (QStringList {QStringLiteral("--schedule"), QStringLiteral("0 25 * * *")} + exec)
                                          << "--schedule hour \"25\": 25 is out of range 0-23";
    QTest::newRow("an unknown time zone")
            << (QStringList {QStringLiteral("--schedule"), QStringLiteral("0 3 * * * Mars/Olympus")} + exec)
            << "time zone \"Mars/Olympus\" is not known";
    QTest::newRow("no command") << QStringList {QStringLiteral("--schedule"), QStringLiteral("every 10m")}
                                << "--schedule needs --exec";
    QTest::newRow("with --once") << (QStringList {QStringLiteral("--schedule"), QStringLiteral("every 10m"), QStringLiteral("--once")} + exec)
                                 << "--schedule excludes --once";
    QTest::newRow("a policy without a schedule")
            << (QStringList {QStringLiteral("--overlap"), QStringLiteral("queue")} + exec)
            << "--overlap only means something with --schedule";
    QTest::newRow("an unknown policy")
            << (QStringList {QStringLiteral("--schedule"), QStringLiteral("every 10m"), QStringLiteral("--on-interrupted"), QStringLiteral("retry")} + exec)
            << "--on-interrupted takes \"skip\" or \"rerun\", not \"retry\"";
    QTest::newRow("a bad catch-up")
            << (QStringList {QStringLiteral("--schedule"), QStringLiteral("every 10m"), QStringLiteral("--catch-up"), QStringLiteral("soon")} + exec)
            << "--catch-up";
}

void TestJoinSchedule::badScheduleOptionsAreRefused()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    m_lease = QStringLiteral("refused");
    const ParticipantConfig config {m_registry, m_lease, QStringLiteral("x"), leaseMs, renewMs};
    const QString path = config.writeTo(m_folder.filePath(QStringLiteral("refused.json")));
    QProcess baton;
    baton.start(test::batonBinary(), QStringList {QStringLiteral("join"), QStringLiteral("--config"), path} + arguments);
    QVERIFY(baton.waitForFinished(20000));
    QCOMPARE(baton.exitCode(), 2);
    const QString error = QString::fromUtf8(baton.readAllStandardError());
    QVERIFY2(error.contains(message), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestJoinSchedule)
#include "tst_joinschedule.moc"
