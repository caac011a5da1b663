// The run records of scheduled work (S1, S2, S4) through the public Store
// API, on the memory store, the file store (two store objects on one
// folder, as two processes have) and a real etcd (two clients), and as
// ConfigMaps on the test Lease API server (two API clients): one claim
// of a tick wins, an interrupted run is taken over once, records are
// trimmed by count and size and a running one is never trimmed.

#include "etcdfixture.h"
#include "etcdstore.h"
#include "filestore.h"
#include "kubeapiclient.h"
#include "kubernetesleaseprotocol.h"
#include "kuberunrecords.h"
#include "leaseapiserver.h"
#include "memorystore.h"

#include <batoninternal/runledger.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <memory>
#include <optional>

using namespace baton;

namespace {

const QString kLease = QStringLiteral("nightly");

struct Outcome
{
    bool ok = false;
    RunRecord record;
    QString error;
};

Outcome await(const std::function<void(RunLedger::Done)> &request)
{
    std::optional<Outcome> outcome;
    request([&outcome](bool ok, const RunRecord &record, const QString &error) {
        outcome = Outcome {ok, record, error};
    });
    if (!QTest::qWaitFor([&outcome] { return outcome.has_value(); }, 10000))
        return Outcome {false, {}, QStringLiteral("no answer")};
    return *outcome;
}

QList<RunRecord> listed(RunLedger &ledger)
{
    std::optional<QList<RunRecord>> records;
    ledger.list([&records](bool ok, const QList<RunRecord> &found, const QString &) {
        records = ok ? found : QList<RunRecord>();
    });
    (void)QTest::qWaitFor([&records] { return records.has_value(); }, 10000);
    return records.value_or(QList<RunRecord>());
}

RunRecord started(const QString &tick, const QString &instance, qint64 token)
{
    RunRecord record;
    record.tick = tick;
    record.instance = instance;
    record.token = token;
    record.start = QDateTime::currentDateTimeUtc();
    record.outcome = RunRecord::running;
    return record;
}

} // namespace

class TestRunLedger : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();

    void stores_data();
    void aTickIsClaimedByOneInstanceOnly_data() { stores_data(); }
    void aTickIsClaimedByOneInstanceOnly();
    void aRunIsSettledWithItsOutcomeAndEnd_data() { stores_data(); }
    void aRunIsSettledWithItsOutcomeAndEnd();
    void anInterruptedRunIsTakenOverOnce_data() { stores_data(); }
    void anInterruptedRunIsTakenOverOnce();
    void recordsAreTrimmedByCountAndSizeButNotWhileRunning_data() { stores_data(); }
    void recordsAreTrimmedByCountAndSizeButNotWhileRunning();
    void recordsOfOtherLeasesAreNotListed_data() { stores_data(); }
    void recordsOfOtherLeasesAreNotListed();
    void theScheduleOfARunIsKeptWithIt_data() { stores_data(); }
    void theScheduleOfARunIsKeptWithIt();

private:
    /*! Two stores on the same data, as two instances have. */
    bool openStores();
    /*! A ledger of \a lease on the first store (or API client), or on the second. */
    std::unique_ptr<RunLedger> ledger(bool second, const QString &lease = kLease);

    QTemporaryDir m_folder;
    std::unique_ptr<Store> m_first;
    std::unique_ptr<Store> m_second;
    Store *m_secondStore = nullptr;
    std::unique_ptr<test::LeaseApiServer> m_server;
    std::unique_ptr<KubernetesLeaseProtocol> m_kubeFirst;
    std::unique_ptr<KubernetesLeaseProtocol> m_kubeSecond;
};

void TestRunLedger::stores_data()
{
    QTest::addColumn<QString>("store");
    QTest::newRow("on a memory store") << "memory";
    QTest::newRow("on a file store") << "file";
    QTest::newRow("on etcd") << "etcd";
    QTest::newRow("on the Lease API server") << "kubernetes";
}

void TestRunLedger::init()
{
    m_first.reset();
    m_second.reset();
    m_secondStore = nullptr;
    m_kubeFirst.reset();
    m_kubeSecond.reset();
    m_server.reset();
}

std::unique_ptr<RunLedger> TestRunLedger::ledger(bool second, const QString &lease)
{
    if (m_server) {
        KubeApiClient *api = (second ? m_kubeSecond : m_kubeFirst)->api();
        return std::make_unique<RunLedger>(std::make_unique<KubeRunRecords>(api, QStringLiteral("jobs"), lease),
                                           lease);
    }
    return std::make_unique<RunLedger>(second ? m_secondStore : m_first.get(), lease);
}

void TestRunLedger::cleanup()
{
    init();
}

bool TestRunLedger::openStores()
{
    const QString kind = QTest::currentDataTag() ? QString::fromLatin1(QTest::currentDataTag()) : QString();
    QString error;
    if (kind.endsWith(QLatin1String("Lease API server"))) {
        m_server = std::make_unique<test::LeaseApiServer>();
        if (!m_server->listen(&error))
            qFatal("%s", qPrintable(error));
        m_server->addToken(QStringLiteral("runledger-test-token"), QStringLiteral("runs"),
                           {QStringLiteral("configmaps/list"), QStringLiteral("configmaps/create"),
                            QStringLiteral("configmaps/update"), QStringLiteral("configmaps/delete")});
        KubeClientConfig config;
        config.server = m_server->url();
        config.token = QStringLiteral("runledger-test-token");
        config.namespaceName = QStringLiteral("jobs");
        config.source = QStringLiteral("the test");
        m_kubeFirst = std::make_unique<KubernetesLeaseProtocol>(config, false, 5000);
        m_kubeSecond = std::make_unique<KubernetesLeaseProtocol>(config, false, 5000);
        if (!m_kubeFirst->setUp(&error) || !m_kubeSecond->setUp(&error))
            qFatal("%s", qPrintable(error));
        return true;
    }
    if (kind.endsWith(QLatin1String("memory store")) || kind.isEmpty()) {
        m_first = std::make_unique<MemoryStore>(QStringLiteral("Registry"), QJsonObject(), nullptr);
        m_secondStore = m_first.get();
    } else if (kind.endsWith(QLatin1String("file store"))) {
        const QString folder = m_folder.filePath(QString::fromLatin1(QTest::currentTestFunction()));
        const QJsonObject parameters {{QStringLiteral("folder"), folder}};
        m_first = std::make_unique<FileStore>(QStringLiteral("Registry"), parameters, nullptr);
        m_second = std::make_unique<FileStore>(QStringLiteral("Registry"), parameters, nullptr);
    } else {
        test::EtcdFixture etcd("BATON_ETCD_DIR");
        if (!etcd.configured())
            return false;
        const QJsonObject parameters {
                {QStringLiteral("endpoints"), QJsonArray::fromStringList(etcd.endpoints())},
                {QStringLiteral("prefix"), QStringLiteral("/runledger-%1/")
                                                   .arg(QUuid::createUuid().toString(QUuid::Id128))}};
        m_first = std::make_unique<EtcdStore>(QStringLiteral("Registry"), parameters, nullptr);
        m_second = std::make_unique<EtcdStore>(QStringLiteral("Registry"), parameters, nullptr);
    }
    if (!m_first->init(&error) || (m_second && !m_second->init(&error)))
        qFatal("%s", qPrintable(error));
    if (m_second)
        m_secondStore = m_second.get();
    return true;
}

#define OPEN_STORES()                                                                              \
    if (!openStores())                                                                             \
        QSKIP("no etcd fixture: run through ctest");

void TestRunLedger::aTickIsClaimedByOneInstanceOnly()
{
    // S1: of two leaders that both reach a tick (a failover at that moment), one runs it.
    OPEN_STORES();
    const auto a = ledger(false);
    const auto b = ledger(true);
    const QString tick = QStringLiteral("2026-12-01T03:00:00Z");
    const Outcome first = await([&](auto done) { a->claim(started(tick, QStringLiteral("a"), 4), done); });
    QVERIFY2(first.ok, qPrintable(first.error));
    const Outcome second = await([&](auto done) { b->claim(started(tick, QStringLiteral("b"), 5), done); });
    QVERIFY(!second.ok);
    QVERIFY2(second.error.isEmpty(), qPrintable(second.error)); // lost, not failed
    const QList<RunRecord> records = listed(*b);
    QCOMPARE(records.size(), 1);
    QCOMPARE(records.first().instance, QStringLiteral("a"));
    QCOMPARE(records.first().token, 4);
    QVERIFY(records.first().isRunning());
}

void TestRunLedger::aRunIsSettledWithItsOutcomeAndEnd()
{
    // S4: tick, instance, token, start, end and outcome are kept.
    OPEN_STORES();
    const auto runs = ledger(false);
    const QString tick = QStringLiteral("2026-12-01T03:00:00Z");
    const Outcome claimed = await([&](auto done) { runs->claim(started(tick, QStringLiteral("a"), 9), done); });
    QVERIFY2(claimed.ok, qPrintable(claimed.error));
    RunRecord finished = claimed.record;
    finished.outcome = QStringLiteral("failed: exit code 3");
    finished.end = QDateTime::currentDateTimeUtc();
    const Outcome settled = await([&](auto done) { runs->replace(claimed.record, finished, done); });
    QVERIFY2(settled.ok, qPrintable(settled.error));
    // Settling again from the claim's version fails: it is no longer that version.
    const Outcome again = await([&](auto done) { runs->replace(claimed.record, finished, done); });
    QVERIFY(!again.ok);

    const QList<RunRecord> records = listed(*runs);
    QCOMPARE(records.size(), 1);
    QCOMPARE(records.first().tick, tick);
    QCOMPARE(records.first().token, 9);
    QCOMPARE(records.first().outcome, QStringLiteral("failed: exit code 3"));
    QVERIFY(records.first().start.isValid());
    QVERIFY(records.first().end >= records.first().start);
}

void TestRunLedger::anInterruptedRunIsTakenOverOnce()
{
    // S2: two new leaders that read the same interrupted run: one reruns it.
    OPEN_STORES();
    const auto old = ledger(false);
    const auto b = ledger(false);
    const auto c = ledger(true);
    const QString tick = QStringLiteral("2026-12-01T03:00:00Z");
    QVERIFY(await([&](auto done) { old->claim(started(tick, QStringLiteral("a"), 1), done); }).ok);
    const RunRecord seen = listed(*b).value(0);
    QVERIFY(seen.isRunning());
    RunRecord byB = started(tick, QStringLiteral("b"), 2);
    byB.attempt = seen.attempt + 1;
    RunRecord byC = started(tick, QStringLiteral("c"), 3);
    byC.attempt = seen.attempt + 1;
    const Outcome tookB = await([&](auto done) { b->replace(seen, byB, done); });
    const Outcome tookC = await([&](auto done) { c->replace(seen, byC, done); });
    QVERIFY(tookB.ok);
    QVERIFY(!tookC.ok);
    const RunRecord now = listed(*c).value(0);
    QCOMPARE(now.instance, QStringLiteral("b"));
    QCOMPARE(now.attempt, 2);
}

void TestRunLedger::recordsAreTrimmedByCountAndSizeButNotWhileRunning()
{
    // S4: bounded by count and by size; the oldest finished ones go first.
    OPEN_STORES();
    const auto runs = ledger(false);
    for (int i = 0; i < 6; ++i) {
        RunRecord record = started(QStringLiteral("2026-12-01T03:0%1:00Z").arg(i), QStringLiteral("a"), 1);
        // The oldest still runs (its leader is gone, nobody settled it yet): kept.
        if (i > 0) {
            record.outcome = RunRecord::succeeded;
            record.end = record.start;
        }
        QVERIFY(await([&](auto done) { runs->claim(record, done); }).ok);
    }
    runs->trim(3, RunLedger::defaultKeepBytes);
    QTRY_COMPARE(listed(*runs).size(), 4);
    QList<RunRecord> records = listed(*runs);
    QCOMPARE(records.first().tick, QStringLiteral("2026-12-01T03:00:00Z"));
    QCOMPARE(records.at(1).tick, QStringLiteral("2026-12-01T03:03:00Z"));

    // By size: room for about two records.
    const qint64 oneRecord = QJsonDocument(records.last().toJson()).toJson(QJsonDocument::Compact).size();
    runs->trim(100, oneRecord * 2 + oneRecord / 2);
    QTRY_COMPARE(listed(*runs).size(), 3);
    records = listed(*runs);
    QCOMPARE(records.at(1).tick, QStringLiteral("2026-12-01T03:04:00Z"));
    QCOMPARE(records.at(2).tick, QStringLiteral("2026-12-01T03:05:00Z"));
}

void TestRunLedger::recordsOfOtherLeasesAreNotListed()
{
    OPEN_STORES();
    const auto nightly = ledger(false);
    // A lease whose name starts with the other's.
    const auto longer = ledger(false, kLease + QStringLiteral("ly"));
    QVERIFY(await([&](auto done) { nightly->claim(started(QStringLiteral("2026-12-01T03:00:00Z"), QStringLiteral("a"), 1), done); }).ok);
    QVERIFY(await([&](auto done) { longer->claim(started(QStringLiteral("2026-12-01T04:00:00Z"), QStringLiteral("a"), 1), done); }).ok);
    QCOMPARE(listed(*nightly).size(), 1);
    QCOMPARE(listed(*longer).size(), 1);
}

void TestRunLedger::theScheduleOfARunIsKeptWithIt()
{
    // S4: a reader that knows the schedule can tell the next tick and the
    // ticks nobody recorded (the dashboard's Runs tab).
    OPEN_STORES();
    const std::unique_ptr<RunLedger> writer = ledger(false);
    const std::unique_ptr<RunLedger> reader = ledger(true);
    RunRecord record = started(QStringLiteral("2026-12-01T02:00:00Z"), QStringLiteral("a"), 7);
    record.schedule = QStringLiteral("0 3 * * * Europe/Paris");
    record.attempt = 2;
    const Outcome claimed = await([&](auto done) { writer->claim(record, done); });
    QVERIFY2(claimed.ok, qPrintable(claimed.error));
    RunRecord finished = claimed.record;
    finished.outcome = RunRecord::succeeded;
    finished.end = finished.start.addSecs(12);
    QVERIFY(await([&](auto done) { writer->replace(claimed.record, finished, done); }).ok);
    // A record written before the schedule was kept has none, and reads as such.
    QVERIFY(await([&](auto done) {
                writer->claim(started(QStringLiteral("2026-11-30T02:00:00Z"), QStringLiteral("b"), 6), done);
            }).ok);

    const QList<RunRecord> records = listed(*reader);
    QCOMPARE(records.size(), 2);
    QCOMPARE(records.at(0).schedule, QString());
    QVERIFY(!records.at(0).toJson().contains(QStringLiteral("schedule")));
    const RunRecord &read = records.at(1);
    QCOMPARE(read.schedule, QStringLiteral("0 3 * * * Europe/Paris"));
    QCOMPARE(read.tick, record.tick);
    QCOMPARE(read.instance, QStringLiteral("a"));
    QCOMPARE(read.token, 7);
    QCOMPARE(read.attempt, 2);
    QCOMPARE(read.outcome, RunRecord::succeeded);
    QCOMPARE(read.start, record.start.toUTC());
    QCOMPARE(read.end, finished.end.toUTC());
}

QTEST_GUILESS_MAIN(TestRunLedger)
#include "tst_runledger.moc"
