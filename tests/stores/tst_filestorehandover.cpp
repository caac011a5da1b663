// H1 with real processes: three `baton join` on one FileStore folder (or,
// built as tst_etcdhandover, on the test etcd), and `baton handover` run
// beside them as an operator runs it. The facts come from the
// participants' own event streams, on the host's monotonic clock.

#include <baton/clock.h>
#include "etcdfixture.h"
#include "eventstream.h"
#include "leasefolder.h"
#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QUuid>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace baton;
using namespace baton::test;

namespace {

const qint64 leaseMs = scaledMs(2000);
const qint64 renewMs = scaledMs(500);

} // namespace

class TestFileStoreHandover : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void theNamedSuccessorLeadsNextAndTheThirdNeverDoes();
    void aSuccessorThatIsGoneCostsAtMostTheReservation();
    void aHandoverOfAFreeLeaseIsRefusedAndWritesNothing();
    void cleanup();

private:
    QJsonObject registry() const;
    void startThree();
    ParticipantProcess *leader() const;
    ParticipantProcess *follower(const ParticipantProcess *except) const;
    int leaders() const;
    BatonRun handOver(const QString &to);

#ifdef BATON_HANDOVER_ON_ETCD
    test::EtcdFixture m_etcd {"BATON_ETCD_DIR"};
#endif
    std::unique_ptr<QTemporaryDir> m_folder;
    /*! A lease of its own per test: a rerun on the same etcd starts afresh. */
    QString m_lease;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
    QString m_config;
};

void TestFileStoreHandover::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
#ifdef BATON_HANDOVER_ON_ETCD
    if (!m_etcd.configured())
        QSKIP("no etcd fixture: run through ctest");
    QVERIFY2(!m_etcd.endpoints().isEmpty(), qPrintable(m_etcd.errorString()));
#endif
}

QJsonObject TestFileStoreHandover::registry() const
{
#ifdef BATON_HANDOVER_ON_ETCD
    return QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/EtcdStore")},
                        {QStringLiteral("endpoints"), QJsonArray::fromStringList(m_etcd.endpoints())},
                        {QStringLiteral("timeout"), 1000}};
#else
    return fileRegistry(m_folder->filePath(QStringLiteral("registry")));
#endif
}

void TestFileStoreHandover::init()
{
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
    m_lease = QStringLiteral("handover-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
}

void TestFileStoreHandover::startThree()
{
    for (const QString &id : {QStringLiteral("p1"), QStringLiteral("p2"), QStringLiteral("p3")}) {
        const ParticipantConfig config {registry(), m_lease, id, leaseMs, renewMs};
        const QString path = config.writeTo(m_folder->filePath(id + QStringLiteral(".json")));
        QVERIFY(!path.isEmpty());
        m_config = path;
        m_participants.push_back(std::make_unique<ParticipantProcess>(
                id, test::batonBinary(),
                QStringList {QStringLiteral("join"), QStringLiteral("--config"), path,
                             QStringLiteral("--events"), QStringLiteral("json")}));
        test::keepOutput(m_participants.back().get());
        m_participants.back()->start();
    }
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);
    // Every follower has read the lease before anything is asked.
    QTRY_VERIFY_WITH_TIMEOUT(
            std::all_of(m_participants.begin(), m_participants.end(),
                        [](const auto &p) {
                            return p->isLeading() || !firstEvent(*p, QStringLiteral("attempt")).isEmpty();
                        }),
            20000);
}

int TestFileStoreHandover::leaders() const
{
    return int(std::count_if(m_participants.begin(), m_participants.end(),
                             [](const auto &p) { return p->isLeading(); }));
}

ParticipantProcess *TestFileStoreHandover::leader() const
{
    for (const auto &p : m_participants)
        if (p->isLeading())
            return p.get();
    return nullptr;
}

ParticipantProcess *TestFileStoreHandover::follower(const ParticipantProcess *except) const
{
    for (const auto &p : m_participants)
        if (!p->isLeading() && p.get() != except)
            return p.get();
    return nullptr;
}

BatonRun TestFileStoreHandover::handOver(const QString &to)
{
    return runBaton({QStringLiteral("handover"), m_lease, QStringLiteral("--to"), to,
                     QStringLiteral("--config"), m_config});
}

void TestFileStoreHandover::theNamedSuccessorLeadsNextAndTheThirdNeverDoes()
{
    // H1: the leader stops its work, then leaves the lease to the successor
    // alone; no other instance leads in between, the third never leads.
    startThree();
    ParticipantProcess *first = leader();
    ParticipantProcess *successor = follower(first);
    ParticipantProcess *third = follower(successor);
    QVERIFY(first && successor && third && third != first);
    const qint64 asked = Clock::system().monotonicMs();
    const BatonRun run = handOver(successor->label());
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QTRY_VERIFY_WITH_TIMEOUT(successor->isLeading(), 20000);
    QCOMPARE(leaders(), 1);

    const QJsonObject requested = lastEvent(*first, QStringLiteral("handover-requested"), asked);
    QCOMPARE(requested.value(QStringLiteral("to")).toString(), successor->label());
    QVERIFY(requested.value(QStringLiteral("by")).toString().contains(QLatin1Char('@')));
    const QJsonObject stopped = lastEvent(*first, QStringLiteral("stopped-leading"), asked);
    QCOMPARE(stopped.value(QStringLiteral("reason")).toString(), QStringLiteral("handed-over"));
    const QJsonObject handed = lastEvent(*first, QStringLiteral("handed-over"), asked);
    QVERIFY(handed.value(QStringLiteral("handedOver")).toBool());
    const QJsonObject took = lastEvent(*successor, QStringLiteral("started-leading"), asked);
    // Nobody led between the step-down and the successor's start.
    QVERIFY(monoOf(took) >= monoOf(stopped));
    QVERIFY(firstEvent(*third, QStringLiteral("started-leading"), asked).isEmpty());
    // The successor took it at once, not after an expiry.
    qInfo("handover: %lld ms from the step-down to the successor's start (lease %lld ms)",
          monoOf(took) - monoOf(stopped), leaseMs);
    QVERIFY(monoOf(took) - monoOf(stopped) < leaseMs);
    // The third stays a follower for a whole lease and more.
    QTest::qWait(int(leaseMs + renewMs)); // an interval to observe, not a synchronisation
    QVERIFY(firstEvent(*third, QStringLiteral("started-leading"), asked).isEmpty());
    QVERIFY(successor->isLeading());
}

void TestFileStoreHandover::aSuccessorThatIsGoneCostsAtMostTheReservation()
{
    // H1: the successor killed before it could take the lease: another takes
    // it within one lease duration (the reservation) plus a renewal.
    startThree();
    ParticipantProcess *first = leader();
    ParticipantProcess *successor = follower(first);
    QVERIFY(first && successor);
    QSignalSpy died(successor, &ParticipantProcess::finished);
    successor->sendSignal(SIGKILL);
    QVERIFY(died.wait(10000));
    const qint64 asked = Clock::system().monotonicMs();
    const BatonRun run = handOver(successor->label());
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QTRY_VERIFY_WITH_TIMEOUT(!lastEvent(*first, QStringLiteral("handed-over"), asked).isEmpty(), 20000);
    const qint64 handedAt = monoOf(lastEvent(*first, QStringLiteral("handed-over"), asked));
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);
    ParticipantProcess *next = leader();
    QVERIFY(next != successor);
    const qint64 gapMs = monoOf(lastEvent(*next, QStringLiteral("started-leading"), asked)) - handedAt;
    qInfo("gone successor: %lld ms without a leader (lease %lld ms)", gapMs, leaseMs);
    QVERIFY2(gapMs <= leaseMs + renewMs, qPrintable(QStringLiteral("%1 ms").arg(gapMs)));
}

void TestFileStoreHandover::aHandoverOfAFreeLeaseIsRefusedAndWritesNothing()
{
#ifdef BATON_HANDOVER_ON_ETCD
    QSKIP("the free lease is written as a file Registry keeps it");
#endif
    const ParticipantConfig config {fileRegistry(m_folder->filePath(QStringLiteral("registry"))),
                                    m_lease, QStringLiteral("p1"), leaseMs, renewMs};
    m_config = config.writeTo(m_folder->filePath(QStringLiteral("p1.json")));
    QVERIFY(!m_config.isEmpty());
    QVERIFY(!writeLeaseFolder(m_folder->filePath(QStringLiteral("registry")),
                              {LeaseEntry {m_lease, QString()}})
                     .isEmpty());
    const BatonRun run = handOver(QStringLiteral("p2"));
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QStringLiteral("nobody holds the lease")), qPrintable(run.err));
    const BatonRun usage = runBaton({QStringLiteral("handover"), m_lease,
                                     QStringLiteral("--config"), m_config});
    QCOMPARE(usage.exitCode, 2);
    QVERIFY2(usage.err.contains(QStringLiteral("--to")), qPrintable(usage.err));
}

void TestFileStoreHandover::cleanup()
{
    if (QTest::currentTestFailed()) {
        for (const auto &p : m_participants)
            qWarning("--- %s (%d events) ---\n%s", qPrintable(p->label()), int(p->events().size()),
                     p->standardError().constData());
    }
    m_participants.clear();
}

QTEST_GUILESS_MAIN(TestFileStoreHandover)
#include "tst_filestorehandover.moc"
