// Three real `baton join` processes on one FileStore folder, as an operator
// runs them: exactly one leads; SIGKILL moves the lease within the F6 bound;
// SIGTERM hands it over cleanly (F5). All the facts come from the
// processes' own event streams (O5), on the host's monotonic clock.

#include "clock.h"
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

} // namespace

class TestFileStoreElection : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void oneLeaderCrashFailoverAndCleanHandover();
    void badConfigurationExitsWithAClearError_data();
    void badConfigurationExitsWithAClearError();
    void cleanup();

private:
    QString writeConfig(const QString &name, const QString &instanceId);
    int leaders() const;

    QTemporaryDir m_folder;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
};

void TestFileStoreElection::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
}

QString TestFileStoreElection::writeConfig(const QString &name, const QString &instanceId)
{
    const QJsonObject config {
            {QStringLiteral("services"),
             QJsonObject {{QStringLiteral("Registry"),
                           QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/FileStore")},
                                        {QStringLiteral("folder"),
                                         m_folder.filePath(QStringLiteral("registry"))}}},
                          {QStringLiteral("cluster"),
                           QJsonObject {{QStringLiteral("type"), QStringLiteral("StoreClusterService")},
                                        {QStringLiteral("leaseName"), QStringLiteral("e2e")},
                                        {QStringLiteral("instanceId"), instanceId},
                                        {QStringLiteral("leaseDuration"), leaseMs},
                                        {QStringLiteral("renewInterval"), renewMs}}}}}};
    const QString path = m_folder.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(QJsonDocument(config).toJson());
    return path;
}

int TestFileStoreElection::leaders() const
{
    int count = 0;
    for (const auto &p : m_participants)
        count += p->isLeading() ? 1 : 0;
    return count;
}

void TestFileStoreElection::oneLeaderCrashFailoverAndCleanHandover()
{
    for (const QString &id : {QStringLiteral("p1"), QStringLiteral("p2"), QStringLiteral("p3")}) {
        const QString config = writeConfig(id + QStringLiteral(".json"), id);
        QVERIFY(!config.isEmpty());
        m_participants.push_back(std::make_unique<ParticipantProcess>(
                id, test::batonBinary(),
                QStringList {QStringLiteral("join"), QStringLiteral("--config"), config,
                             QStringLiteral("--events"), QStringLiteral("json")}));
        test::keepOutput(m_participants.back().get());
        m_participants.back()->start();
    }

    // F1: exactly one leader, and it stays the only one while all run.
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);
    auto leaderIt = std::find_if(m_participants.begin(), m_participants.end(),
                                 [](const auto &p) { return p->isLeading(); });
    ParticipantProcess &first = **leaderIt;
    // Every follower has seen the leader (a renewal of its lease) before the crash.
    QTRY_VERIFY_WITH_TIMEOUT(
            std::all_of(m_participants.begin(), m_participants.end(),
                        [](const auto &p) {
                            return p->isLeading() || !firstEvent(*p, QStringLiteral("attempt")).isEmpty();
                        }),
            20000);
    QCOMPARE(leaders(), 1);

    // F6: SIGKILL; the lease is taken within leaseDuration + renewInterval of
    // the last renewal the dead leader made.
    QVERIFY(!lastEvent(first, QStringLiteral("attempt")).isEmpty());
    QSignalSpy died(&first, &ParticipantProcess::finished);
    // The dead leader's last write came before this instant, so the F6
    // bound holds from here as well as from that write.
    const qint64 killMono = Clock::system().monotonicMs();
    first.sendSignal(SIGKILL);
    QVERIFY(died.wait(10000));
    const qint64 lastRenewalMono = monoOf(lastEvent(first, QStringLiteral("attempt")));
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);
    leaderIt = std::find_if(m_participants.begin(), m_participants.end(),
                            [](const auto &p) { return p->isLeading(); });
    ParticipantProcess &second = **leaderIt;
    QVERIFY(&second != &first);
    const QJsonObject took = lastEvent(second, QStringLiteral("started-leading"));
    const qint64 failoverMs = monoOf(took) - killMono;
    qInfo("crash failover: %lld ms after SIGKILL (lease %lld ms, F6 bound %lld ms)", failoverMs,
          leaseMs, leaseMs + renewMs);
    QVERIFY2(failoverMs <= leaseMs + renewMs,
             qPrintable(QStringLiteral("takeover %1 ms after the kill").arg(failoverMs)));
    // Never before the dead leader's own deadline (F4): its authority had
    // ended when the next one began.
    QVERIFY(monoOf(took) - lastRenewalMono >= (leaseMs + renewMs) / 2);

    // F7: the new leader's token is higher.
    QVERIFY(took.value(QStringLiteral("token")).toInteger()
            > firstEvent(first, QStringLiteral("started-leading")).value(QStringLiteral("token")).toInteger());

    // F5: SIGTERM; the leader stops leading, releases, exits 0; the last
    // participant takes over after the release, not after an expiry.
    QSignalSpy secondExited(&second, &ParticipantProcess::finished);
    const qint64 beforeTerm = monoOf(lastEvent(second, QStringLiteral("attempt")));
    second.sendSignal(SIGTERM);
    QVERIFY(secondExited.wait(10000));
    QCOMPARE(second.exitStatus(), QProcess::NormalExit);
    QCOMPARE(second.exitCode(), 0);
    const QJsonObject stopped = lastEvent(second, QStringLiteral("stopped-leading"));
    QCOMPARE(stopped.value(QStringLiteral("reason")).toString(), QStringLiteral("stopping"));
    const QJsonObject released = lastEvent(second, QStringLiteral("released"));
    QVERIFY(released.value(QStringLiteral("released")).toBool());
    QVERIFY(monoOf(released) >= monoOf(stopped));

    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);
    ParticipantProcess &third = **std::find_if(m_participants.begin(), m_participants.end(),
                                               [](const auto &p) { return p->isLeading(); });
    const qint64 handoverMs = monoOf(lastEvent(third, QStringLiteral("started-leading")))
            - monoOf(released);
    qInfo("clean handover: %lld ms after the release (renewInterval %lld ms)", handoverMs, renewMs);
    // The follower may lead a moment before the old process stamps its
    // "released" (it saw the release first), never before that one stopped
    // leading.
    QVERIFY(monoOf(lastEvent(third, QStringLiteral("started-leading"))) >= monoOf(stopped));
    // Taken on the release, not on an expiry of the lease (F5, F2).
    QVERIFY(monoOf(lastEvent(third, QStringLiteral("started-leading"))) - beforeTerm < leaseMs);

    QSignalSpy thirdExited(&third, &ParticipantProcess::finished);
    third.sendSignal(SIGTERM);
    QVERIFY(thirdExited.wait(10000));
    QCOMPARE(third.exitCode(), 0);

    // Authority never overlapped: each started-leading comes after the
    // previous holder's authority ended (stopped-leading or its last deadline).
    qint64 previousEnd = 0;
    for (ParticipantProcess *p : {&first, &second, &third}) {
        const qint64 start = monoOf(firstEvent(*p, QStringLiteral("started-leading")));
        QVERIFY2(start >= previousEnd, "two authority intervals overlap");
        const QJsonObject end = lastEvent(*p, QStringLiteral("stopped-leading"));
        previousEnd = end.isEmpty()
                ? qint64(lastEvent(*p, QStringLiteral("started-leading"))
                                 .value(QStringLiteral("validUntilMono"))
                                 .toDouble())
                : qint64(end.value(QStringLiteral("validUntilMono")).toDouble());
    }
}

void TestFileStoreElection::cleanup()
{
    // A failed test shows what each participant said, for the diagnosis.
    if (QTest::currentTestFailed()) {
        for (const auto &p : m_participants)
            qWarning("--- %s (%d events) ---\n%s", qPrintable(p->label()), int(p->events().size()),
                     p->standardError().constData());
    }
    m_participants.clear();
}

void TestFileStoreElection::badConfigurationExitsWithAClearError_data()
{
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<QStringList>("mustMention");
    QTest::newRow("malformed JSON") << QByteArray("{\"services\": {\n  \"c\": {\"type\": }\n}}")
                                    << QStringList {QStringLiteral(":2:"), QStringLiteral("malformed JSON")};
    QTest::newRow("an unknown type") << QByteArray(R"({"services": {"c": {"type": "Nope"}}})")
                                     << QStringList {QStringLiteral("\"c\""), QStringLiteral("Nope")};
    QTest::newRow("renewInterval not lower than leaseDuration")
            << QByteArray(R"({"services": {"c": {"type": "StoreClusterService", "leaseDuration": 1000, "renewInterval": 1000}}})")
            << QStringList {QStringLiteral("\"c\""), QStringLiteral("renewInterval"), QStringLiteral("lower")};
    QTest::newRow("a negative duration")
            << QByteArray(R"({"services": {"c": {"type": "StoreClusterService", "leaseDuration": -1}}})")
            << QStringList {QStringLiteral("\"c\""), QStringLiteral("leaseDuration"), QStringLiteral("-1")};
    // Two jobs with these typos would share the lease "leader" and one would never run.
    QTest::newRow("typos in parameter names")
            << QByteArray(R"({"services": {"c": {"type": "StoreClusterService", "leaseNme": "x", "leaseDuraton": 5000, "foldr": 1}}})")
            << QStringList {QStringLiteral("\"c\""), QStringLiteral(R"(parameter "leaseNme" = "x": unknown parameter, did you mean "leaseName"?)"),
                            QStringLiteral(R"(did you mean "leaseDuration"?)"), QStringLiteral(R"(parameter "foldr" = 1)")};
    QTest::newRow("a duration with an unknown unit")
            << QByteArray(R"({"services": {"c": {"type": "StoreClusterService", "leaseDuration": "15x"}}})")
            << QStringList {QStringLiteral(R"(parameter "leaseDuration" = "15x": unknown unit "x")")};
}

void TestFileStoreElection::badConfigurationExitsWithAClearError()
{
    // P1, R1: one clear error, a non-zero exit, and nothing joined.
    QFETCH(QByteArray, config);
    QFETCH(QStringList, mustMention);
    const QString path = m_folder.filePath(QStringLiteral("bad.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(config);
    file.close();
    QProcess baton;
    baton.setEnvironment(QProcess::systemEnvironment()
                         << QStringLiteral("BATON_DATA_DIR=") + m_folder.filePath(QStringLiteral("data")));
    baton.start(test::batonBinary(), {QStringLiteral("join"), QStringLiteral("--config"), path,
                                      QStringLiteral("--events"), QStringLiteral("json")});
    QVERIFY(baton.waitForFinished(20000));
    QCOMPARE(baton.exitCode(), 2);
    QVERIFY(baton.readAllStandardOutput().isEmpty());
    const QString error = QString::fromUtf8(baton.readAllStandardError());
    QVERIFY2(error.contains(path), qPrintable(error));
    for (const QString &part : mustMention)
        QVERIFY2(error.contains(part), qPrintable(QStringLiteral("\"%1\" not in: %2").arg(part, error)));
}

QTEST_GUILESS_MAIN(TestFileStoreElection)
#include "tst_filestoreelection.moc"
