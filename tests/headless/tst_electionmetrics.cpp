// /metrics and /healthz as computed from the event stream (SPEC O3, O5):
// the exposition is checked line by line by a strict reader of the
// Prometheus text format, not by comparing strings; health goes bad on the
// F4 deadline and on a store unreachable for longer than the lease.

#include "clock.h"
#include "electionmetrics.h"
#include "eventrecord.h"
#include "memorystore.h"
#include "storecluster.h"
#include "testsupport.h"

#include <baton/clusterservice.h>

#include <QSignalSpy>
#include <QTest>

#include <cmath>

using namespace baton;
using baton::test::StoreCluster;

namespace {

QJsonObject attempt(const Clock &clock, const QString &lease, const QString &outcome, qint64 latencyMs)
{
    QJsonObject e = eventrecord::make(clock, lease, QStringLiteral("me"), QStringLiteral("attempt"));
    e.insert(QStringLiteral("outcome"), outcome);
    e.insert(QStringLiteral("latencyMs"), double(latencyMs));
    return e;
}

QJsonObject record(const Clock &clock, const QString &lease, const QString &name)
{
    return eventrecord::make(clock, lease, QStringLiteral("me"), name);
}

using Labels = QMap<QString, QString>;

} // namespace

class TestElectionMetrics : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void theExpositionParsesAndCountsEveryRecord();
    void labelValuesAreEscaped();
    void theParserRefusesWhatPrometheusWould_data();
    void theParserRefusesWhatPrometheusWould();
    void healthGoesBadWhenTheStoreIsGoneLongerThanTheLease();
    void healthGoesBadPastTheDeadlineOfALeaderThatStillThinksItLeads();
};

void TestElectionMetrics::theExpositionParsesAndCountsEveryRecord()
{
    ManualClock clock;
    ElectionMetrics metrics(&clock);
    metrics.record(attempt(clock, QStringLiteral("cron"), QStringLiteral("acquired"), 3));
    metrics.record(record(clock, QStringLiteral("cron"), QStringLiteral("leader-changed")));
    metrics.record(record(clock, QStringLiteral("cron"), QStringLiteral("started-leading")));
    clock.advance(100);
    metrics.record(attempt(clock, QStringLiteral("cron"), QStringLiteral("renewed"), 40));
    metrics.record(attempt(clock, QStringLiteral("other"), QStringLiteral("held"), 2000));
    metrics.record(attempt(clock, QStringLiteral("other"), QStringLiteral("error"), 20000));
    clock.advance(250);
    const test::PrometheusScrape scrape = test::parsePrometheus(metrics.render());
    QVERIFY2(scrape.ok(), qPrintable(scrape.error));

    const Labels cron {{QStringLiteral("lease"), QStringLiteral("cron")}};
    const Labels other {{QStringLiteral("lease"), QStringLiteral("other")}};
    QCOMPARE(scrape.types.value(QStringLiteral("baton_is_leader")), QStringLiteral("gauge"));
    QCOMPARE(scrape.types.value(QStringLiteral("baton_attempt_latency_seconds")), QStringLiteral("histogram"));
    QCOMPARE(scrape.value(QStringLiteral("baton_is_leader"), cron), 1.0); // from the events: no service here
    QCOMPARE(scrape.value(QStringLiteral("baton_leader_transitions_total"), cron), 1.0);
    QCOMPARE(scrape.value(QStringLiteral("baton_attempts_total"),
                          {{QStringLiteral("lease"), QStringLiteral("cron")}, {QStringLiteral("outcome"), QStringLiteral("renewed")}}),
             1.0);
    // Every outcome is there from the start, so rates work from the first scrape.
    QCOMPARE(scrape.value(QStringLiteral("baton_attempts_total"),
                          {{QStringLiteral("lease"), QStringLiteral("cron")}, {QStringLiteral("outcome"), QStringLiteral("conflict")}}),
             0.0);
    QCOMPARE(scrape.value(QStringLiteral("baton_attempt_latency_seconds_count"), cron), 2.0);
    QCOMPARE(scrape.value(QStringLiteral("baton_attempt_latency_seconds_sum"), cron), 0.043);
    QCOMPARE(scrape.value(QStringLiteral("baton_attempt_latency_seconds_bucket"),
                          {{QStringLiteral("lease"), QStringLiteral("cron")}, {QStringLiteral("le"), QStringLiteral("0.005")}}),
             1.0);
    QCOMPARE(scrape.value(QStringLiteral("baton_attempt_latency_seconds_bucket"),
                          {{QStringLiteral("lease"), QStringLiteral("other")}, {QStringLiteral("le"), QStringLiteral("10")}}),
             1.0);
    QCOMPARE(scrape.value(QStringLiteral("baton_attempt_latency_seconds_bucket"),
                          {{QStringLiteral("lease"), QStringLiteral("other")}, {QStringLiteral("le"), QStringLiteral("+Inf")}}),
             2.0);
    QCOMPARE(scrape.value(QStringLiteral("baton_last_attempt_latency_seconds"), cron), 0.04);
    QCOMPARE(scrape.value(QStringLiteral("baton_seconds_since_last_renewal"), cron), 0.25);
    // A follower never renewed: no value rather than a made-up one.
    QVERIFY(std::isnan(scrape.value(QStringLiteral("baton_seconds_since_last_renewal"), other)));
}

void TestElectionMetrics::labelValuesAreEscaped()
{
    ManualClock clock;
    ElectionMetrics metrics(&clock);
    const QString odd = QStringLiteral("a \"quoted\" \\ lease\nname");
    metrics.record(attempt(clock, odd, QStringLiteral("held"), 1));
    const test::PrometheusScrape scrape = test::parsePrometheus(metrics.render());
    QVERIFY2(scrape.ok(), qPrintable(scrape.error));
    QCOMPARE(scrape.value(QStringLiteral("baton_attempts_total"),
                          {{QStringLiteral("lease"), odd}, {QStringLiteral("outcome"), QStringLiteral("held")}}),
             1.0);
}

void TestElectionMetrics::theParserRefusesWhatPrometheusWould_data()
{
    // The reader the other tests trust must itself refuse bad expositions.
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("a sample without a TYPE") << QByteArray("x 1\n");
    QTest::newRow("an unterminated label") << QByteArray("# TYPE x gauge\nx{a=\"b} 1\n");
    QTest::newRow("a bad escape") << QByteArray("# TYPE x gauge\nx{a=\"\\t\"} 1\n");
    QTest::newRow("a value that is no number") << QByteArray("# TYPE x gauge\nx one\n");
    QTest::newRow("families interleaved")
            << QByteArray("# TYPE x gauge\n# TYPE y gauge\nx 1\ny 1\nx{a=\"b\"} 2\n");
    QTest::newRow("a counter not ending in _total") << QByteArray("# TYPE x counter\nx 1\n");
    QTest::newRow("a histogram without +Inf")
            << QByteArray("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n");
    QTest::newRow("decreasing buckets")
            << QByteArray("# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"2\"} 1\n"
                          "h_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 2\n");
    QTest::newRow("+Inf is not _count")
            << QByteArray("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 3\n");
    QTest::newRow("no final line feed") << QByteArray("# TYPE x gauge\nx 1");
}

void TestElectionMetrics::theParserRefusesWhatPrometheusWould()
{
    QFETCH(QByteArray, text);
    QVERIFY(!test::parsePrometheus(text).ok());
}

void TestElectionMetrics::healthGoesBadWhenTheStoreIsGoneLongerThanTheLease()
{
    // O3 /healthz: attempts that all fail for longer than the lease mean
    // the store is gone; one answer from the store makes it healthy again.
    ManualClock clock;
    auto store = std::make_unique<MemoryStore>(QStringLiteral("Registry"), QJsonObject(), nullptr);
    StoreCluster cluster(store.get(), QStringLiteral("me"), QStringLiteral("m"), {}, &clock);
    QString error;
    QVERIFY(cluster.validate(&error));
    ElectionMetrics metrics(&clock);
    metrics.follow(&cluster); // lease duration 600 ms
    metrics.record(attempt(clock, QStringLiteral("m"), QStringLiteral("held"), 1));
    QVERIFY(metrics.health().healthy);
    clock.advance(100);
    metrics.record(attempt(clock, QStringLiteral("m"), QStringLiteral("error"), 50)); // failing since +50
    clock.advance(500);
    metrics.record(attempt(clock, QStringLiteral("m"), QStringLiteral("error"), 1));
    QVERIFY(metrics.health().healthy); // 550 ms of failures: within the lease
    clock.advance(51);
    const ElectionMetrics::Health bad = metrics.health();
    QVERIFY(!bad.healthy);
    QVERIFY2(bad.reasons.join(QLatin1Char(' ')).contains(QStringLiteral("unreachable")), qPrintable(bad.reasons.join(QLatin1Char(' '))));
    metrics.record(attempt(clock, QStringLiteral("m"), QStringLiteral("conflict"), 1));
    QVERIFY(metrics.health().healthy);
}

void TestElectionMetrics::healthGoesBadPastTheDeadlineOfALeaderThatStillThinksItLeads()
{
    // F4, O3: the events say "leading", but the deadline has passed (a
    // frozen process, a stuck loop): isLeader() says no, and so does /healthz.
    ManualClock clock;
    auto store = std::make_unique<MemoryStore>(QStringLiteral("Registry"), QJsonObject(), nullptr);
    QString error;
    QVERIFY(store->init(&error));
    StoreCluster cluster(store.get(), QStringLiteral("me"), QStringLiteral("m"), {}, &clock);
    QVERIFY(cluster.validate(&error));
    ElectionMetrics metrics(&clock);
    metrics.follow(&cluster);
    QSignalSpy leading(&cluster, &ClusterService::leadershipChanged);
    QVERIFY(cluster.init(&error));
    QVERIFY(leading.wait(5000));
    QVERIFY(metrics.health().healthy);
    QVERIFY(test::parsePrometheus(metrics.render()).value(QStringLiteral("baton_is_leader")) == 1.0);
    clock.advance(351); // past (600 + 100) / 2 with no event-loop turn in between
    const ElectionMetrics::Health bad = metrics.health();
    QVERIFY(!bad.healthy);
    QVERIFY2(bad.reasons.constFirst().contains(QStringLiteral("deadline")), qPrintable(bad.reasons.constFirst()));
    QVERIFY(test::parsePrometheus(metrics.render()).value(QStringLiteral("baton_is_leader")) == 0.0);
    QSignalSpy stopped(&cluster, &Service::stopped);
    cluster.stop();
    QVERIFY(stopped.wait(5000));
}

QTEST_GUILESS_MAIN(TestElectionMetrics)
#include "tst_electionmetrics.moc"
