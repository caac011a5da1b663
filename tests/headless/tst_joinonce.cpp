// `baton join --once` and `--try`, end to end with real processes on one
// FileStore folder (O3): the cron-style job of docs/howto/systemd.md, where a
// timer starts `baton join --exec JOB --once --try 0` on every node at the
// same moment and the job must run on exactly one of them.

#include "eventstream.h"
#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace baton;
using namespace baton::test;

namespace {

constexpr qint64 leaseMs = 2000;
constexpr qint64 renewMs = 500;

// The exit statuses docs/reference/exit-codes.md promises.
constexpr int notLeading = 4;
constexpr int leadershipLost = 5;

int countEvents(const ParticipantProcess &p, const QString &name)
{
    const QList<QJsonObject> events = p.events();
    return int(std::count_if(events.begin(), events.end(), [&](const QJsonObject &e) {
        return e.value(QStringLiteral("event")).toString() == name;
    }));
}

} // namespace

class TestJoinOnce : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void threeNodesStartedTogetherRunTheJobExactlyOnce();
    void theJobsExitStatusBecomesBatons_data();
    void theJobsExitStatusBecomesBatons();
    void aJobWhoseLeadershipEndsIsStoppedAndBatonExitsFive();
    void tryGivesUpWhileAnotherInstanceLeads_data();
    void tryGivesUpWhileAnotherInstanceLeads();
    void tryLeadsWhenTheLeaseIsReleasedInTime();
    void badOnceAndTryOptionsAreRefused_data();
    void badOnceAndTryOptionsAreRefused();

private:
    QString writeConfig(const QString &id, const QString &lease);
    ParticipantProcess *start(const QString &id, const QString &lease, const QStringList &extra);
    bool finishes(ParticipantProcess *p);
    QStringList jobLines() const;

    QTemporaryDir m_folder;
    QString m_jobLog;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
};

void TestJoinOnce::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
}

void TestJoinOnce::cleanup()
{
    for (const auto &p : m_participants) {
        p->sendSignal(SIGCONT);
        p->sendSignal(SIGKILL);
    }
    m_participants.clear();
    QFile::remove(m_jobLog);
}

QString TestJoinOnce::writeConfig(const QString &id, const QString &lease)
{
    const ParticipantConfig config {fileRegistry(m_folder.filePath(QStringLiteral("registry"))),
                                    lease, id, leaseMs, renewMs};
    return config.writeTo(m_folder.filePath(id + QStringLiteral(".json")));
}

ParticipantProcess *TestJoinOnce::start(const QString &id, const QString &lease, const QStringList &extra)
{
    m_participants.push_back(std::make_unique<ParticipantProcess>(
            id, test::batonBinary(),
            QStringList {QStringLiteral("join"), QStringLiteral("--config"), writeConfig(id, lease),
                         QStringLiteral("--events"), QStringLiteral("json")}
                    + extra));
    test::keepOutput(m_participants.back().get());
    m_participants.back()->start();
    return m_participants.back().get();
}

bool TestJoinOnce::finishes(ParticipantProcess *p)
{
    if (!p->isRunning())
        return true;
    QSignalSpy finished(p, &ParticipantProcess::finished);
    return finished.wait(20000);
}

QStringList TestJoinOnce::jobLines() const
{
    QFile file(m_jobLog);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

void TestJoinOnce::threeNodesStartedTogetherRunTheJobExactlyOnce()
{
    // O3: what a systemd timer firing on three nodes at the same second
    // does. The job is as short as a job can be, so that a node starting a
    // little later than the others would find the lease free again if the
    // runner released it at once: --once holds it a lease duration.
    m_jobLog = m_folder.filePath(QStringLiteral("nightly.log"));
    const QStringList job {QStringLiteral("--exec"),
                           QStringLiteral("echo \"ran on $BATON_INSTANCE\" >> '%1'").arg(m_jobLog),
                           QStringLiteral("--once"), QStringLiteral("--try"), QStringLiteral("0")};
    for (const QString &id : {QStringLiteral("node-a"), QStringLiteral("node-b"), QStringLiteral("node-c")})
        start(id, QStringLiteral("nightly-report"), job);
    for (const auto &p : m_participants)
        QVERIFY2(finishes(p.get()), qPrintable(p->label() + QStringLiteral(" did not exit")));

    const QStringList lines = jobLines();
    QCOMPARE(lines.size(), 1);
    int ran = 0;
    for (const auto &p : m_participants) {
        QCOMPARE(p->exitStatus(), QProcess::NormalExit);
        if (lines.constFirst() == QStringLiteral("ran on ") + p->label()) {
            ++ran;
            QCOMPARE(p->exitCode(), 0); // the job's status
            QVERIFY(lastEvent(*p, QStringLiteral("released")).value(QStringLiteral("released")).toBool());
        } else {
            QCOMPARE(p->exitCode(), notLeading);
            QCOMPARE(countEvents(*p, QStringLiteral("exec-started")), 0);
        }
    }
    QCOMPARE(ran, 1);
}

void TestJoinOnce::theJobsExitStatusBecomesBatons_data()
{
    QTest::addColumn<QString>("job");
    QTest::addColumn<int>("expected");
    QTest::newRow("a job that succeeds makes baton exit 0") << QStringLiteral("true") << 0;
    QTest::newRow("a job that exits 7 makes baton exit 7") << QStringLiteral("exit 7") << 7;
    QTest::newRow("a job killed by SIGKILL makes baton exit 137 as a shell would")
            << QStringLiteral("kill -9 $$") << 128 + SIGKILL;
}

void TestJoinOnce::theJobsExitStatusBecomesBatons()
{
    // O3: --once hands the job's status to whoever started baton.
    QFETCH(QString, job);
    QFETCH(int, expected);
    ParticipantProcess *p = start(QStringLiteral("solo"), QStringLiteral("billing-cron"),
                                  {QStringLiteral("--exec"), job, QStringLiteral("--once")});
    QVERIFY(finishes(p));
    QCOMPARE(p->exitStatus(), QProcess::NormalExit);
    QCOMPARE(p->exitCode(), expected);
    QCOMPARE(countEvents(*p, QStringLiteral("exec-started")), 1); // never restarted
    // Released at the end, and not before a lease duration from the
    // acquisition: a node whose timer fired a little later finds it held.
    const QJsonObject released = lastEvent(*p, QStringLiteral("released"));
    QVERIFY(released.value(QStringLiteral("released")).toBool());
    QVERIFY(monoOf(released) >= monoOf(lastEvent(*p, QStringLiteral("started-leading"))) + leaseMs);
    // A job that ends is how a run ends: nothing to warn an operator of.
    if (expected == 0)
        QVERIFY2(!p->standardError().contains(" warning: "), p->standardError().constData());
}

void TestJoinOnce::aJobWhoseLeadershipEndsIsStoppedAndBatonExitsFive()
{
    // F4 and O3: the runner is frozen past its lease, another instance takes
    // the lease; on resuming, the runner steps down at its deadline, stops
    // the job and exits 5 rather than run it again or claim success.
    const QStringList job {QStringLiteral("--exec"), QStringLiteral("sleep 600"), QStringLiteral("--once"),
                           QStringLiteral("--grace"), QStringLiteral("200")};
    ParticipantProcess *runner = start(QStringLiteral("runner"), QStringLiteral("long-job"), job);
    QTRY_VERIFY_WITH_TIMEOUT(countEvents(*runner, QStringLiteral("exec-started")) == 1, 20000);
    runner->sendSignal(SIGSTOP);
    ParticipantProcess *other = start(QStringLiteral("other"), QStringLiteral("long-job"), {});
    QTRY_VERIFY_WITH_TIMEOUT(other->isLeading(), 20000);
    runner->sendSignal(SIGCONT);
    QVERIFY(finishes(runner));
    QCOMPARE(runner->exitCode(), leadershipLost);
    QCOMPARE(lastEvent(*runner, QStringLiteral("stopped-leading")).value(QStringLiteral("reason")).toString(),
             QStringLiteral("deadline"));
    QCOMPARE(lastEvent(*runner, QStringLiteral("exec-stopped")).value(QStringLiteral("reason")).toString(),
             QStringLiteral("stopped"));
    QCOMPARE(countEvents(*runner, QStringLiteral("exec-started")), 1);
}

void TestJoinOnce::tryGivesUpWhileAnotherInstanceLeads_data()
{
    QTest::addColumn<QString>("duration");
    QTest::newRow("try 0 gives up at the first attempt") << QStringLiteral("0");
    QTest::newRow("try 1s gives up when the second has passed") << QStringLiteral("1s");
}

void TestJoinOnce::tryGivesUpWhileAnotherInstanceLeads()
{
    // O3: --try, with a holder that keeps the lease.
    QFETCH(QString, duration);
    ParticipantProcess *holder = start(QStringLiteral("holder"), QStringLiteral("held"), {});
    QTRY_VERIFY_WITH_TIMEOUT(holder->isLeading(), 20000);
    ParticipantProcess *late = start(QStringLiteral("late"), QStringLiteral("held"),
                                     {QStringLiteral("--exec"), QStringLiteral("sleep 600"),
                                      QStringLiteral("--once"), QStringLiteral("--try"), duration});
    QVERIFY(finishes(late));
    QCOMPARE(late->exitStatus(), QProcess::NormalExit);
    QCOMPARE(late->exitCode(), notLeading);
    QCOMPARE(countEvents(*late, QStringLiteral("started-leading")), 0);
    QVERIFY(late->standardError().contains("--try"));
    QVERIFY(holder->isRunning() && holder->isLeading());
}

void TestJoinOnce::tryLeadsWhenTheLeaseIsReleasedInTime()
{
    // F5/F8: a clean release within the --try window hands the lease over.
    ParticipantProcess *holder = start(QStringLiteral("holder"), QStringLiteral("handover"), {});
    QTRY_VERIFY_WITH_TIMEOUT(holder->isLeading(), 20000);
    ParticipantProcess *waiting = start(QStringLiteral("waiting"), QStringLiteral("handover"),
                                        {QStringLiteral("--try"), QStringLiteral("60s")});
    QTRY_VERIFY_WITH_TIMEOUT(countEvents(*waiting, QStringLiteral("attempt")) >= 1, 20000);
    holder->sendSignal(SIGTERM);
    QTRY_VERIFY_WITH_TIMEOUT(waiting->isLeading(), 20000);
    QVERIFY(waiting->isRunning());
}

void TestJoinOnce::badOnceAndTryOptionsAreRefused_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("once without a command is refused")
            << QStringList {QStringLiteral("--once")} << QStringLiteral("--once only means something with --exec");
    QTest::newRow("once with on-exit is refused")
            << QStringList {QStringLiteral("--exec"), QStringLiteral("true"), QStringLiteral("--once"),
                            QStringLiteral("--on-exit"), QStringLiteral("restart")}
            << QStringLiteral("--once and --on-exit exclude each other");
    QTest::newRow("a try duration without a unit is refused")
            << QStringList {QStringLiteral("--try"), QStringLiteral("30")}
            << QStringLiteral("--try \"30\": a number other than 0 needs a unit (ms, s, m or h)");
    QTest::newRow("a negative try duration is refused")
            << QStringList {QStringLiteral("--try"), QStringLiteral("-1s")}
            << QStringLiteral("--try \"-1s\": a duration cannot be negative");
    QTest::newRow("a try duration with an unknown unit names the unit")
            << QStringList {QStringLiteral("--try"), QStringLiteral("5min")}
            << QStringLiteral("--try \"5min\": unknown unit \"min\" (ms, s, m or h)");
    QTest::newRow("a grace in words is refused with the forms it takes")
            << QStringList {QStringLiteral("--exec"), QStringLiteral("true"), QStringLiteral("--grace"),
                            QStringLiteral("soon")}
            << QStringLiteral("--grace \"soon\": not a duration");
    QTest::newRow("a negative grace is refused")
            << QStringList {QStringLiteral("--exec"), QStringLiteral("true"), QStringLiteral("--grace"),
                            QStringLiteral("-5")}
            << QStringLiteral("--grace \"-5\": a duration cannot be negative");
}

void TestJoinOnce::badOnceAndTryOptionsAreRefused()
{
    // R1: one clear error naming the option, exit 2, nothing started.
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    QProcess baton;
    baton.start(test::batonBinary(), QStringList {QStringLiteral("join"), QStringLiteral("--config"),
                                                  writeConfig(QStringLiteral("bad"), QStringLiteral("bad"))}
                                             + arguments);
    QVERIFY(baton.waitForFinished(20000));
    QCOMPARE(baton.exitCode(), 2);
    const QString error = QString::fromUtf8(baton.readAllStandardError());
    QVERIFY2(error.contains(message), qPrintable(error));
    // The units once: "needs a unit (ms, s, m or h); it takes a number with
    // a unit ms, s, m or h (...)" said them twice in one line.
    QVERIFY2(error.count(QStringLiteral("ms, s, m or h")) <= 1, qPrintable(error));
}

QTEST_GUILESS_MAIN(TestJoinOnce)
#include "tst_joinonce.moc"
