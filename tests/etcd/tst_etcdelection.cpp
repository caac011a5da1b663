// Real `baton join` processes electing on a real three-member etcd cluster
// (the etcd-cluster CTest fixture), read through their O5 event streams on
// the host's monotonic clock: one leader; a SIGKILLed leader replaced within
// the F6 bound; a SIGTERMed leader handing over through the watch (F8); a
// record overwritten with etcdctl makes the leader step down; a killed
// member does not stop the election; all of etcd lost: nobody leads past
// its deadline, and the election resumes when etcd is back (R4).

#include <baton/clock.h>
#include "etcdfixture.h"
#include "eventstream.h"
#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <csignal>

using namespace baton;
using namespace baton::test;

namespace {

// The lease and renewal of this run, BATON_TEST_TIME_SCALE times those of a
// quiet machine; every bound below is derived from them.
const qint64 leaseMs = scaledMs(2000);
const qint64 renewMs = scaledMs(500);
constexpr int waitMs = 20000;

} // namespace

class TestEtcdElection : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void oneLeaderCrashFailoverAndCleanHandover();
    void overwrittenRecordMakesTheLeaderStepDown();
    void killedMemberDoesNotStopTheElection();
    void lostStoreMeansNoLeaderThenTheElectionResumes();

private:
    void startParticipants(const QString &name, int count);
    ParticipantProcess *leader() const;
    int leaders() const;

    test::EtcdFixture m_etcd { "BATON_ETCD_CLUSTER_DIR" };
    QTemporaryDir m_folder;
    QString m_leaseName;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
};

void TestEtcdElection::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    if (!m_etcd.configured())
        QSKIP("no etcd fixture: run through ctest");
    QVERIFY2(m_etcd.endpoints().size() == 3, qPrintable(m_etcd.errorString()));
    QVERIFY(m_folder.isValid());
}

void TestEtcdElection::cleanup()
{
    for (auto &p : m_participants)
        p->sendSignal(SIGKILL);
    m_participants.clear();
}

void TestEtcdElection::startParticipants(const QString &name, int count)
{
    // A lease of its own per run: a rerun on the same cluster starts afresh.
    m_leaseName = name + QLatin1Char('-') + QUuid::createUuid().toString(QUuid::Id128).left(8);
    const QString leaseName = m_leaseName;
    for (int i = 1; i <= count; ++i) {
        const QString id = QStringLiteral("%1-p%2").arg(leaseName).arg(i);
        const QJsonObject config { { QStringLiteral("services"),
                QJsonObject {
                        { QStringLiteral("Registry"),
                          QJsonObject { { QStringLiteral("type"), QStringLiteral("Webda/EtcdStore") },
                                        { QStringLiteral("endpoints"),
                                          QJsonArray::fromStringList(m_etcd.endpoints()) },
                                        { QStringLiteral("timeout"), 1000 } } },
                        { QStringLiteral("cluster"),
                          QJsonObject { { QStringLiteral("type"), QStringLiteral("StoreClusterService") },
                                        { QStringLiteral("leaseName"), leaseName },
                                        { QStringLiteral("instanceId"), id },
                                        { QStringLiteral("leaseDuration"), leaseMs },
                                        { QStringLiteral("renewInterval"), renewMs } } } } } };
        const QString path = m_folder.filePath(id + QStringLiteral(".json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QJsonDocument(config).toJson());
        file.close();
        m_participants.push_back(std::make_unique<ParticipantProcess>(
                id, test::batonBinary(),
                QStringList { QStringLiteral("join"), QStringLiteral("--config"), path,
                              QStringLiteral("--events"), QStringLiteral("json") }));
        test::keepOutput(m_participants.back().get());
        m_participants.back()->start();
    }
}

ParticipantProcess *TestEtcdElection::leader() const
{
    for (const auto &p : m_participants)
        if (p->isLeading())
            return p.get();
    return nullptr;
}

int TestEtcdElection::leaders() const
{
    int count = 0;
    for (const auto &p : m_participants)
        count += p->isLeading() ? 1 : 0;
    return count;
}

void TestEtcdElection::oneLeaderCrashFailoverAndCleanHandover()
{
    startParticipants(QStringLiteral("e2e"), 3);
    // F1, B2: exactly one leader among three.
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, waitMs);
    ParticipantProcess *first = leader();
    QTRY_VERIFY_WITH_TIMEOUT(std::all_of(m_participants.begin(), m_participants.end(),
                                         [](const auto &p) {
                                             return p->isLeading()
                                                     || !lastEvent(*p, QStringLiteral("attempt")).isEmpty();
                                         }),
                             waitMs);
    QCOMPARE(leaders(), 1);

    // F6: SIGKILL; another takes over within leaseDuration + renewInterval.
    QSignalSpy died(first, &ParticipantProcess::finished);
    const qint64 killMono = Clock::system().monotonicMs();
    first->sendSignal(SIGKILL);
    QVERIFY(died.wait(10000));
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, waitMs);
    ParticipantProcess *second = leader();
    QVERIFY(second != first);
    const qint64 failoverMs
            = monoOf(lastEvent(*second, QStringLiteral("started-leading"))) - killMono;
    qInfo("etcd crash failover: %lld ms after SIGKILL (lease %lld ms, F6 bound %lld ms)",
          failoverMs, leaseMs, leaseMs + renewMs);
    QVERIFY2(failoverMs <= leaseMs + renewMs, qPrintable(QString::number(failoverMs)));

    // F5, F8: SIGTERM; the release reaches the follower through the watch.
    QSignalSpy secondExited(second, &ParticipantProcess::finished);
    second->sendSignal(SIGTERM);
    QVERIFY(secondExited.wait(10000));
    QCOMPARE(second->exitCode(), 0);
    const QJsonObject released = lastEvent(*second, QStringLiteral("released"));
    QVERIFY(released.value(QStringLiteral("released")).toBool());
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, waitMs);
    ParticipantProcess *third = leader();
    const qint64 handoverMs
            = monoOf(lastEvent(*third, QStringLiteral("started-leading"))) - monoOf(released);
    qInfo("etcd clean handover: %lld ms after the release (renewInterval %lld ms)", handoverMs,
          renewMs);
    // The follower may lead a moment before the old process stamps its
    // "released" (it saw the release first), never before that one stopped
    // leading.
    QVERIFY(monoOf(lastEvent(*third, QStringLiteral("started-leading")))
            >= monoOf(lastEvent(*second, QStringLiteral("stopped-leading"))));
    QVERIFY(handoverMs < leaseMs); // on the release, not on an expiry
}

void TestEtcdElection::overwrittenRecordMakesTheLeaderStepDown()
{
    startParticipants(QStringLiteral("overwritten"), 2);
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, waitMs);
    ParticipantProcess *current = leader();
    const qint64 before = Clock::system().monotonicMs();
    // B2, F3: someone else's write (an operator, a foreign client) wins; the
    // leader's next conditional write fails and it steps down, taken over.
    const QByteArray intruder = QJsonDocument(QJsonObject {
            { QStringLiteral("holderIdentity"), QStringLiteral("intruder") },
            { QStringLiteral("leaseDurationMs"), 60000 },
            { QStringLiteral("acquireTime"), QStringLiteral("2026-01-01T00:00:00.000Z") },
            { QStringLiteral("renewTime"), QStringLiteral("2026-01-01T00:00:00.000Z") },
            { QStringLiteral("leaseTransitions"), 1000 } }).toJson(QJsonDocument::Compact);
    QVERIFY2(!m_etcd.etcdctl({ QStringLiteral("put"), QStringLiteral("cluster:") + m_leaseName,
                               QString::fromUtf8(intruder) })
                      .isNull(),
             qPrintable(m_etcd.errorString()));
    QTRY_VERIFY_WITH_TIMEOUT(!lastEvent(*current, QStringLiteral("stopped-leading"), before).isEmpty(),
                             waitMs);
    QCOMPARE(lastEvent(*current, QStringLiteral("stopped-leading"), before)
                     .value(QStringLiteral("reason")).toString(),
             QStringLiteral("taken-over"));
    QCOMPARE(leaders(), 0); // the intruder holds it, for its 60 s
}

void TestEtcdElection::killedMemberDoesNotStopTheElection()
{
    startParticipants(QStringLiteral("member"), 2);
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, waitMs);
    // B1 (endpoints): the first endpoint, which every participant uses first, goes.
    QVERIFY2(m_etcd.run(QStringLiteral("kill-member"), { QStringLiteral("0") }),
             qPrintable(m_etcd.errorString()));
    const qint64 killMono = Clock::system().monotonicMs();
    // Renewals go on through the other members: a leader renews after the kill.
    QTRY_VERIFY_WITH_TIMEOUT(leaders() == 1 && [&] {
        const QJsonObject attempt = lastEvent(*leader(), QStringLiteral("attempt"), killMono + renewMs);
        return attempt.value(QStringLiteral("outcome")).toString() == QLatin1String("renewed")
                || attempt.value(QStringLiteral("outcome")).toString() == QLatin1String("acquired");
    }(), waitMs);
    QVERIFY2(m_etcd.run(QStringLiteral("start-member"), { QStringLiteral("0") }),
             qPrintable(m_etcd.errorString()));
}

void TestEtcdElection::lostStoreMeansNoLeaderThenTheElectionResumes()
{
    startParticipants(QStringLiteral("lost"), 2);
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, waitMs);
    ParticipantProcess *former = leader();
    // R4: etcd gone; the leader stops by its F4 deadline, and nobody leads.
    QVERIFY2(m_etcd.run(QStringLiteral("kill-all")), qPrintable(m_etcd.errorString()));
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 0, waitMs);
    const QJsonObject stopped = lastEvent(*former, QStringLiteral("stopped-leading"));
    QVERIFY(!stopped.isEmpty());
    const qint64 validUntil = qint64(stopped.value(QStringLiteral("validUntilMono")).toDouble());
    // F4: its authority ended (L + R) / 2 after the start of its last
    // successful attempt. That attempt is read from the stream once the
    // leader stopped: one read before the kill would miss a renewal that
    // came between the read and the kill.
    const QJsonObject lastWin = lastSuccessfulAttempt(former->events(), monoOf(stopped));
    QVERIFY(!lastWin.isEmpty());
    const qint64 deadline = attemptStartOf(lastWin) + (leaseMs + renewMs) / 2;
    QVERIFY2(validUntil <= deadline,
             qPrintable(QStringLiteral("authority until %1, %2 ms past the F4 deadline of the "
                                       "attempt that started at %3")
                                .arg(validUntil)
                                .arg(validUntil - deadline)
                                .arg(attemptStartOf(lastWin))));
    QCOMPARE(leaders(), 0);

    // R4: etcd back; the same processes elect a leader, no restart.
    QVERIFY2(m_etcd.run(QStringLiteral("start-all")), qPrintable(m_etcd.errorString()));
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, waitMs);
    for (const auto &p : m_participants)
        QVERIFY(p->isRunning());
}

QTEST_GUILESS_MAIN(TestEtcdElection)
#include "tst_etcdelection.moc"
