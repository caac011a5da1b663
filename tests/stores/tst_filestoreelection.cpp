// Three real `baton join` processes on one FileStore folder, as an operator
// runs them: exactly one leads; SIGKILL, and SIGSTOP of the leader alone,
// move the lease within the F6 bound; SIGTERM hands it over cleanly (F5); a
// record removed under a leader keeps the fencing token rising (F7). All the facts come from the
// processes' own event streams (O5), on the host's monotonic clock.

#include <baton/clock.h>
#include "eventstream.h"
#include "filestore.h"
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

// The lease and renewal of this run, BATON_TEST_TIME_SCALE times those of a
// quiet machine; every bound below is derived from them.
const qint64 leaseMs = scaledMs(2000);
const qint64 renewMs = scaledMs(500);

} // namespace

class TestFileStoreElection : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void oneLeaderCrashFailoverAndCleanHandover();
    void tokenKeepsRisingWhenTheRecordIsRemoved();
    void frozenLeaderDelaysNoTakeover();
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
    const ParticipantConfig config {fileRegistry(m_folder.filePath(QStringLiteral("registry"))),
                                    QStringLiteral("e2e"), instanceId, leaseMs, renewMs};
    return config.writeTo(m_folder.filePath(name));
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

    // F1, F4: authority never overlapped. Each started-leading comes after
    // the previous holder's authority ended: the validUntilMono of its
    // stopped-leading, or, for the killed leader that could not say, the F4
    // deadline of its last successful attempt (not the deadline it had when
    // it began leading, long past by then).
    qint64 previousEnd = 0;
    for (ParticipantProcess *p : {&first, &second, &third}) {
        const qint64 start = monoOf(firstEvent(*p, QStringLiteral("started-leading")));
        QVERIFY2(start >= previousEnd,
                 qPrintable(QStringLiteral("%1 began leading at %2, %3 ms before the previous "
                                           "authority ended")
                                    .arg(p->label())
                                    .arg(start)
                                    .arg(previousEnd - start)));
        const QJsonObject end = lastEvent(*p, QStringLiteral("stopped-leading"),
                                          monoOf(lastEvent(*p, QStringLiteral("started-leading"))));
        if (!end.isEmpty()) {
            previousEnd = qint64(end.value(QStringLiteral("validUntilMono")).toDouble());
            continue;
        }
        const QJsonObject lastWin = lastSuccessfulAttempt(p->events());
        QVERIFY2(!lastWin.isEmpty(), qPrintable(p->label() + QStringLiteral(" led without a won attempt")));
        previousEnd = attemptStartOf(lastWin) + (leaseMs + renewMs) / 2;
    }
}

void TestFileStoreElection::tokenKeepsRisingWhenTheRecordIsRemoved()
{
    // F7: the record removed under a running leader (by hand, through the
    // store) and taken again: the new term's token is above the old one.
    const QString config = writeConfig(QStringLiteral("solo.json"), QStringLiteral("solo"));
    QVERIFY(!config.isEmpty());
    m_participants.push_back(std::make_unique<ParticipantProcess>(
            QStringLiteral("solo"), test::batonBinary(),
            QStringList {QStringLiteral("join"), QStringLiteral("--config"), config,
                         QStringLiteral("--events"), QStringLiteral("json")}));
    ParticipantProcess &solo = *m_participants.back();
    test::keepOutput(&solo);
    solo.start();
    QTRY_VERIFY_WITH_TIMEOUT(solo.isLeading(), 20000);
    const qint64 firstToken = firstEvent(solo, QStringLiteral("started-leading"))
                                      .value(QStringLiteral("token"))
                                      .toInteger();

    const QJsonObject parameters {
            {QStringLiteral("folder"), m_folder.filePath(QStringLiteral("registry"))}};
    FileStore store(QStringLiteral("Registry"), parameters, nullptr);
    QString error;
    QVERIFY2(store.init(&error), qPrintable(error));
    bool removed = false;
    const qint64 removedMono = Clock::system().monotonicMs();
    store.remove(QStringLiteral("cluster:e2e"), QString(),
                 [&](const StoreResult &result) { removed = result.ok(); });
    QTRY_VERIFY(removed);

    // It notices at its next renewal at the latest, stops, and takes the
    // lease again.
    QTRY_VERIFY_WITH_TIMEOUT(
            !firstEvent(solo, QStringLiteral("started-leading"), removedMono).isEmpty(), 20000);
    const qint64 nextToken = firstEvent(solo, QStringLiteral("started-leading"), removedMono)
                                     .value(QStringLiteral("token"))
                                     .toInteger();
    QVERIFY2(nextToken > firstToken,
             qPrintable(QStringLiteral("token %1 after %2").arg(nextToken).arg(firstToken)));
}

void TestFileStoreElection::frozenLeaderDelaysNoTakeover()
{
    // F6: SIGSTOP of the leader's baton alone, longer than the lease: nobody
    // waits on the frozen process (the file store takes no lock), so another
    // takes over within leaseDuration + renewInterval of its last renewal.
    // F4: resumed, it has stopped leading before the next one began.
    for (const QString &id : {QStringLiteral("f1"), QStringLiteral("f2"), QStringLiteral("f3")}) {
        const QString config = writeConfig(id + QStringLiteral(".json"), id);
        QVERIFY(!config.isEmpty());
        m_participants.push_back(std::make_unique<ParticipantProcess>(
                id, test::batonBinary(),
                QStringList {QStringLiteral("join"), QStringLiteral("--config"), config,
                             QStringLiteral("--events"), QStringLiteral("json")}));
        test::keepOutput(m_participants.back().get());
        m_participants.back()->start();
    }
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);
    ParticipantProcess &frozen = **std::find_if(m_participants.begin(), m_participants.end(),
                                                [](const auto &p) { return p->isLeading(); });
    QTRY_VERIFY_WITH_TIMEOUT(
            std::all_of(m_participants.begin(), m_participants.end(),
                        [](const auto &p) {
                            return p->isLeading()
                                    || !firstEvent(*p, QStringLiteral("attempt")).isEmpty();
                        }),
            20000);

    // Its last renewal came before this instant, so the bound holds from here.
    const qint64 freezeMono = Clock::system().monotonicMs();
    frozen.sendSignal(SIGSTOP);
    ParticipantProcess *next = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT(
            std::any_of(m_participants.begin(), m_participants.end(),
                        [&](const auto &p) {
                            if (p.get() == &frozen || !p->isLeading())
                                return false;
                            next = p.get();
                            return true;
                        }),
            20000);
    const QJsonObject took = firstEvent(*next, QStringLiteral("started-leading"), freezeMono);
    const qint64 takeoverMs = monoOf(took) - freezeMono;
    qInfo("takeover from a frozen leader: %lld ms after SIGSTOP (F6 bound %lld ms)", takeoverMs,
          leaseMs + renewMs);
    frozen.sendSignal(SIGCONT);
    QVERIFY2(takeoverMs <= leaseMs + renewMs,
             qPrintable(QStringLiteral("takeover %1 ms after the freeze").arg(takeoverMs)));

    QTRY_VERIFY_WITH_TIMEOUT(!frozen.isLeading(), 20000);
    const QJsonObject stopped = lastEvent(frozen, QStringLiteral("stopped-leading"));
    QVERIFY(!stopped.isEmpty());
    QVERIFY2(qint64(stopped.value(QStringLiteral("validUntilMono")).toDouble()) <= monoOf(took),
             "the frozen leader's authority overlaps the next one's");
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
