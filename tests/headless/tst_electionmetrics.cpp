// /metrics, /readyz and /leader as computed from the event stream and the
// service (O3, O5): the exposition is checked line by line by a strict
// reader of the Prometheus text format, not by comparing strings; readiness
// goes bad on a store silent for longer than the lease, leadership on the F4
// deadline; the transitions are the lease record's (F7), as `baton status`
// shows them.

#include "manualclock.h"
#include "electionmetrics.h"
#include <batoninternal/eventrecord.h>
#include "memorystore.h"
#include "storecluster.h"
#include "testsupport.h"

#include <baton/clusterservice.h>

#include <QSignalSpy>
#include <QTest>

#include <algorithm>
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

/*! The labels of the series of lease \a lease, plus \a label = \a value when given. */
Labels onLease(const QString &lease, const char *label = nullptr, const QString &value = {})
{
    Labels labels {{QStringLiteral("lease"), lease}};
    if (label)
        labels.insert(QString::fromLatin1(label), value);
    return labels;
}

/*!
 * O3: what a scrape of \a metrics would read now in the series \a name
 * whose labels include \a labels, through the strict reader of the text
 * format. NaN, which equals no expected value, when the series is absent or
 * the reader refuses the exposition (then its reason is logged).
 */
double scraped(const ElectionMetrics &metrics, const char *name, const Labels &labels = {})
{
    const test::PrometheusScrape scrape = test::parsePrometheus(metrics.render());
    if (!scrape.ok()) {
        qWarning("the exposition does not parse: %s", qPrintable(scrape.error));
        return qQNaN();
    }
    return scrape.value(QString::fromLatin1(name), labels);
}

} // namespace

class TestElectionMetrics : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void theExpositionParsesAndCountsEveryRecord();
    void labelValuesAreEscaped();
    void theParserRefusesWhatPrometheusWould_data();
    void theParserRefusesWhatPrometheusWould();
    void readinessGoesBadWhenTheStoreIsSilentLongerThanTheLease();
    void leadershipEndsAtTheDeadlineOfALeaderThatStillThinksItLeads();
    void transitionsAreTheLeaseRecordsCount();
    void everySeriesIsThereBeforeTheFirstEvent();
    void outputDroppedForSlowReadersIsCountedAsItIsNow();
    void scheduledRunsAreCountedByOutcomeWithTheLastSuccess();
    void handoversAreCounted();
    void candidatesPriorityAndDrainAreGauges();
};

void TestElectionMetrics::theExpositionParsesAndCountsEveryRecord()
{
    test::ManualClock clock;
    ElectionMetrics metrics(&clock);
    metrics.record(attempt(clock, QStringLiteral("cron"), QStringLiteral("acquired"), 3));
    QJsonObject changed = record(clock, QStringLiteral("cron"), QStringLiteral("leader-changed"));
    changed.insert(QStringLiteral("to"), QStringLiteral("me"));
    metrics.record(changed);
    metrics.record(record(clock, QStringLiteral("cron"), QStringLiteral("started-leading")));
    clock.advance(100);
    metrics.record(attempt(clock, QStringLiteral("cron"), QStringLiteral("renewed"), 40));
    metrics.record(attempt(clock, QStringLiteral("other"), QStringLiteral("held"), 2000));
    metrics.record(attempt(clock, QStringLiteral("other"), QStringLiteral("error"), 20000));
    clock.advance(250);
    const test::PrometheusScrape scrape = test::parsePrometheus(metrics.render());
    QVERIFY2(scrape.ok(), qPrintable(scrape.error));
    QCOMPARE(scrape.types.value(QStringLiteral("baton_is_leader")), QStringLiteral("gauge"));
    QCOMPARE(scrape.types.value(QStringLiteral("baton_attempt_latency_seconds")), QStringLiteral("histogram"));

    const QString cron = QStringLiteral("cron");
    const QString other = QStringLiteral("other");
    QCOMPARE(scraped(metrics, "baton_is_leader", onLease(cron)), 1.0); // from the events: no service here
    // `identity`, never `instance`: Prometheus owns that label (O3).
    QCOMPARE(scraped(metrics, "baton_is_leader", onLease(cron, "identity", QStringLiteral("me"))), 1.0);
    QCOMPARE(scraped(metrics, "baton_leader_info", onLease(cron, "holder", QStringLiteral("me"))), 1.0);
    QCOMPARE(scraped(metrics, "baton_attempts_total", onLease(cron, "outcome", QStringLiteral("renewed"))), 1.0);
    // Every outcome is there from the start, so rates work from the first scrape.
    QCOMPARE(scraped(metrics, "baton_attempts_total", onLease(cron, "outcome", QStringLiteral("conflict"))), 0.0);
    QCOMPARE(scraped(metrics, "baton_attempt_latency_seconds_count", onLease(cron)), 2.0);
    QCOMPARE(scraped(metrics, "baton_attempt_latency_seconds_sum", onLease(cron)), 0.043);
    QCOMPARE(scraped(metrics, "baton_attempt_latency_seconds_bucket", onLease(cron, "le", QStringLiteral("0.005"))), 1.0);
    QCOMPARE(scraped(metrics, "baton_attempt_latency_seconds_bucket", onLease(other, "le", QStringLiteral("10"))), 1.0);
    QCOMPARE(scraped(metrics, "baton_attempt_latency_seconds_bucket", onLease(other, "le", QStringLiteral("+Inf"))), 2.0);
    QCOMPARE(scraped(metrics, "baton_last_attempt_latency_seconds", onLease(cron)), 0.04);
    // A timestamp, as Prometheus's conventions ask, not a "time since":
    // the wall clock of the renewal's record (ManualClock starts 2026-01-01).
    QCOMPARE(scraped(metrics, "baton_last_renewal_timestamp_seconds", onLease(cron)),
             double(QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC).toSecsSinceEpoch()) + 0.1);
    // A follower never renewed: 0, the convention for "never".
    QCOMPARE(scraped(metrics, "baton_last_renewal_timestamp_seconds", onLease(other)), 0.0);
}

void TestElectionMetrics::labelValuesAreEscaped()
{
    test::ManualClock clock;
    ElectionMetrics metrics(&clock);
    const QString odd = QStringLiteral("a \"quoted\" \\ lease\nname");
    metrics.record(attempt(clock, odd, QStringLiteral("held"), 1));
    QCOMPARE(scraped(metrics, "baton_attempts_total", onLease(odd, "outcome", QStringLiteral("held"))), 1.0);
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

void TestElectionMetrics::readinessGoesBadWhenTheStoreIsSilentLongerThanTheLease()
{
    // O3 /readyz: not ready before the store first answered, nor when it
    // has not answered for longer than the lease; any answer (a conflict
    // too) makes it ready again, a request given up unanswered does not.
    test::ManualClock clock;
    auto store = std::make_unique<MemoryStore>(QStringLiteral("Registry"), QJsonObject(), nullptr);
    StoreCluster cluster(store.get(), QStringLiteral("me"), QStringLiteral("m"), {}, &clock);
    QString error;
    QVERIFY(cluster.validate(&error));
    ElectionMetrics metrics(&clock);
    metrics.follow(&cluster); // lease duration 600 ms
    const ElectionMetrics::Readiness before = metrics.readiness();
    QVERIFY(!before.ready);
    QVERIFY2(before.reasons.join(QLatin1Char(' ')).contains(QStringLiteral("not answered yet")),
             qPrintable(before.reasons.join(QLatin1Char(' '))));
    QCOMPARE(scraped(metrics, "baton_ready"), 0.0);
    metrics.record(attempt(clock, QStringLiteral("m"), QStringLiteral("held"), 1));
    QVERIFY(metrics.readiness().ready);
    QCOMPARE(scraped(metrics, "baton_ready"), 1.0);
    clock.advance(100);
    metrics.record(attempt(clock, QStringLiteral("m"), QStringLiteral("error"), 50));
    clock.advance(500);
    metrics.record(attempt(clock, QStringLiteral("m"), QStringLiteral("error"), 1));
    QVERIFY(metrics.readiness().ready); // 600 ms since the answer: within the lease
    clock.advance(1);
    const ElectionMetrics::Readiness bad = metrics.readiness();
    QVERIFY(!bad.ready);
    QVERIFY2(bad.reasons.join(QLatin1Char(' ')).contains(QStringLiteral("longer than the lease")),
             qPrintable(bad.reasons.join(QLatin1Char(' '))));
    QCOMPARE(scraped(metrics, "baton_ready"), 0.0);
    // A request given up when the watch showed the lease released: the
    // store did not answer it.
    metrics.record(attempt(clock, QStringLiteral("m"), QStringLiteral("abandoned"), 1));
    QVERIFY(!metrics.readiness().ready);
    metrics.record(attempt(clock, QStringLiteral("m"), QStringLiteral("conflict"), 1));
    QVERIFY(metrics.readiness().ready);
}

void TestElectionMetrics::leadershipEndsAtTheDeadlineOfALeaderThatStillThinksItLeads()
{
    // F4, O3 /leader: the events say "leading", but the deadline has passed
    // (a frozen process, a stuck loop): isLeader() says no, and so do
    // /leader and baton_is_leader. Before it, /leader gives the fencing
    // token and what is left until the deadline.
    test::ManualClock clock;
    auto store = std::make_unique<MemoryStore>(QStringLiteral("Registry"), QJsonObject(), nullptr);
    QString error;
    QVERIFY(store->init(&error));
    StoreCluster cluster(store.get(), QStringLiteral("me"), QStringLiteral("m"), {}, &clock);
    QVERIFY(cluster.validate(&error));
    ElectionMetrics metrics(&clock);
    metrics.follow(&cluster);
    QVERIFY(!metrics.leadership(QStringLiteral("m")).leading);
    QSignalSpy leading(&cluster, &ClusterService::leadershipChanged);
    QVERIFY(cluster.init(&error));
    QVERIFY(leading.wait(5000));
    ElectionMetrics::Leadership now = metrics.leadership(QStringLiteral("m"));
    QVERIFY(now.leading);
    QCOMPARE(now.holder, QStringLiteral("me"));
    QCOMPARE(now.fencingToken, cluster.fencingToken());
    QCOMPARE(now.validForMs, 350); // (600 + 100) / 2 from the attempt's start: no time passed
    QCOMPARE(scraped(metrics, "baton_is_leader"), 1.0);
    clock.advance(349);
    QCOMPARE(metrics.leadership(QStringLiteral("m")).validForMs, 1);
    clock.advance(1); // at the deadline with no event-loop turn in between
    now = metrics.leadership(QStringLiteral("m"));
    QVERIFY(!now.leading);
    QCOMPARE(now.validForMs, 0);
    QCOMPARE(now.fencingToken, -1);
    QCOMPARE(scraped(metrics, "baton_is_leader"), 0.0);
    QSignalSpy stopped(&cluster, &Service::stopped);
    cluster.stop();
    QVERIFY(stopped.wait(5000));
}

void TestElectionMetrics::transitionsAreTheLeaseRecordsCount()
{
    // F7, O3: the first acquisition of a new lease is term 0 in the record
    // (what `baton status` shows); a count of leader-changed events said 1.
    // A second instance, following, reports the same number.
    auto store = test::makeStore();
    QString error;
    StoreCluster first(store.get(), QStringLiteral("first"), QStringLiteral("m"));
    StoreCluster second(store.get(), QStringLiteral("second"), QStringLiteral("m"));
    ElectionMetrics metrics;
    ElectionMetrics followerMetrics;
    QVERIFY(first.validate(&error) && second.validate(&error));
    metrics.follow(&first);
    followerMetrics.follow(&second);
    QSignalSpy leading(&first, &ClusterService::leadershipChanged);
    QVERIFY(first.init(&error));
    QVERIFY(leading.wait(5000));
    QVERIFY(second.init(&error));
    QTRY_COMPARE_WITH_TIMEOUT(second.currentHolder(), QStringLiteral("first"), 5000);
    QCOMPARE(scraped(metrics, "baton_leader_transitions_total"), 0.0);
    QCOMPARE(scraped(followerMetrics, "baton_leader_transitions_total"), 0.0);
    // A clean handover (F5): the record counts one more term, both say 1.
    QSignalSpy firstStopped(&first, &Service::stopped);
    first.stop();
    QVERIFY(firstStopped.wait(5000));
    QTRY_VERIFY_WITH_TIMEOUT(second.isLeader(), 5000);
    QCOMPARE(scraped(followerMetrics, "baton_leader_transitions_total"), 1.0);
    QCOMPARE(scraped(followerMetrics, "baton_leader_transitions_total"),
             double(second.fencingToken()));
    QSignalSpy secondStopped(&second, &Service::stopped);
    second.stop();
    QVERIFY(secondStopped.wait(5000));
}

void TestElectionMetrics::handoversAreCounted()
{
    // H4: each steering act is in the metrics; a handover that could not be
    // written is asked but not made.
    test::ManualClock clock;
    ElectionMetrics metrics(&clock);
    const QString cron = QStringLiteral("cron");
    metrics.record(record(clock, cron, QStringLiteral("handover-requested")));
    QJsonObject handed = record(clock, cron, QStringLiteral("handed-over"));
    handed.insert(QStringLiteral("handedOver"), true);
    metrics.record(handed);
    metrics.record(record(clock, cron, QStringLiteral("handover-requested")));
    handed.insert(QStringLiteral("handedOver"), false);
    metrics.record(handed);
    metrics.record(record(clock, cron, QStringLiteral("reserved-for")));
    QCOMPARE(scraped(metrics, "baton_handover_requests_total", onLease(cron)), 2.0);
    QCOMPARE(scraped(metrics, "baton_handovers_total", onLease(cron)), 1.0);
    QCOMPARE(scraped(metrics, "baton_lease_reservations_seen_total", onLease(cron)), 1.0);
}

void TestElectionMetrics::everySeriesIsThereBeforeTheFirstEvent()
{
    // O3: a series that appears only with its first event breaks rate()
    // and absent-based alerts; with a service followed and --exec given,
    // every family has its sample from the first scrape.
    test::ManualClock clock;
    auto store = std::make_unique<MemoryStore>(QStringLiteral("Registry"), QJsonObject(), nullptr);
    StoreCluster cluster(store.get(), QStringLiteral("me"), QStringLiteral("m"), {}, &clock);
    QString error;
    QVERIFY(cluster.validate(&error));
    ElectionMetrics metrics(&clock);
    metrics.follow(&cluster);
    metrics.followExec(QStringLiteral("m"));
    const Labels m = onLease(QStringLiteral("m"));
    QCOMPARE(scraped(metrics, "baton_exec_running", m), 0.0);
    QCOMPARE(scraped(metrics, "baton_exec_starts_total", m), 0.0);
    QCOMPARE(scraped(metrics, "baton_is_leader", m), 0.0);
    QCOMPARE(scraped(metrics, "baton_leader_transitions_total", m), 0.0);
    QCOMPARE(scraped(metrics, "baton_last_renewal_timestamp_seconds", m), 0.0);
    QCOMPARE(scraped(metrics, "baton_lease_duration_seconds", m), 0.6);
    QCOMPARE(scraped(metrics, "baton_renew_interval_seconds", m), 0.1);
    QCOMPARE(scraped(metrics, "baton_ready", m), 0.0);
    // Every family has a sample of the lease; a latency not measured yet is NaN.
    const test::PrometheusScrape scrape = test::parsePrometheus(metrics.render());
    QVERIFY2(scrape.ok(), qPrintable(scrape.error));
    QVERIFY(std::isnan(scrape.value(QStringLiteral("baton_last_attempt_latency_seconds"), m)));
    for (const QString &family : scrape.types.keys()) {
        const bool sampled = std::any_of(scrape.samples.cbegin(), scrape.samples.cend(), [&](const test::PrometheusSample &s) {
            return s.name.startsWith(family) && s.labels.value(QStringLiteral("lease")) == QStringLiteral("m");
        });
        QVERIFY2(sampled, qPrintable(family));
    }
}

// R6: the records and log lines dropped for readers that did not keep up,
// read at each scrape from the queues' counters.
void TestElectionMetrics::outputDroppedForSlowReadersIsCountedAsItIsNow()
{
    test::ManualClock clock;
    ElectionMetrics metrics(&clock);
    quint64 records = 0;
    quint64 lines = 0;
    metrics.countDrops([&records] { return records; }, [&lines] { return lines; });
    test::PrometheusScrape scrape = test::parsePrometheus(metrics.render());
    QVERIFY2(scrape.ok(), qPrintable(scrape.error));
    QCOMPARE(scrape.types.value(QStringLiteral("baton_events_dropped_total")), QStringLiteral("counter"));
    QCOMPARE(scrape.types.value(QStringLiteral("baton_log_lines_dropped_total")), QStringLiteral("counter"));
    QCOMPARE(scrape.value(QStringLiteral("baton_events_dropped_total")), 0.0);
    records = 12;
    lines = 3;
    scrape = test::parsePrometheus(metrics.render());
    QVERIFY2(scrape.ok(), qPrintable(scrape.error));
    QCOMPARE(scrape.value(QStringLiteral("baton_events_dropped_total")), 12.0);
    QCOMPARE(scrape.value(QStringLiteral("baton_log_lines_dropped_total")), 3.0);
}

void TestElectionMetrics::scheduledRunsAreCountedByOutcomeWithTheLastSuccess()
{
    // S4: runs by outcome (failed whatever its code), the last success's
    // time per lease, and the interval the alert rule compares it with.
    test::ManualClock clock;
    ElectionMetrics metrics(&clock);
    const QString lease = QStringLiteral("nightly");
    metrics.followSchedule(lease, 600);
    // Every outcome is there before the first run, so rates work at once.
    QCOMPARE(scraped(metrics, "baton_schedule_runs_total", onLease(lease, "outcome", QStringLiteral("failed"))), 0.0);
    QCOMPARE(scraped(metrics, "baton_schedule_interval_seconds", onLease(lease)), 600.0);
    const auto finished = [&](const QString &outcome) {
        QJsonObject event = record(clock, lease, QStringLiteral("run-finished"));
        event.insert(QStringLiteral("outcome"), outcome);
        return event;
    };
    metrics.record(finished(QStringLiteral("succeeded")));
    clock.advance(1000);
    metrics.record(finished(QStringLiteral("failed: exit code 3")));
    metrics.record(finished(QStringLiteral("failed: signal 9")));
    metrics.record(finished(QStringLiteral("interrupted: leadership ended")));
    metrics.record(record(clock, lease, QStringLiteral("run-skipped")));
    QCOMPARE(scraped(metrics, "baton_schedule_runs_total", onLease(lease, "outcome", QStringLiteral("succeeded"))), 1.0);
    QCOMPARE(scraped(metrics, "baton_schedule_runs_total", onLease(lease, "outcome", QStringLiteral("failed"))), 2.0);
    QCOMPARE(scraped(metrics, "baton_schedule_runs_total", onLease(lease, "outcome", QStringLiteral("interrupted"))), 1.0);
    QCOMPARE(scraped(metrics, "baton_schedule_runs_total", onLease(lease, "outcome", QStringLiteral("skipped"))), 1.0);
    // The success's own time, not the failures' after it.
    QCOMPARE(scraped(metrics, "baton_schedule_last_success_timestamp_seconds", onLease(lease)),
             double(QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC).toSecsSinceEpoch()));
}

QTEST_GUILESS_MAIN(TestElectionMetrics)
#include "tst_electionmetrics.moc"

void TestElectionMetrics::candidatesPriorityAndDrainAreGauges()
{
    // H2, H3 (H4: seen in the metrics): the live candidates, this
    // instance's priority and drain, from its roster's events; absent for a
    // lease without candidate records.
    test::ManualClock clock;
    ElectionMetrics metrics(&clock);
    const QString cron = QStringLiteral("cron");
    const QString local = QStringLiteral("local");
    metrics.record(attempt(clock, local, QStringLiteral("acquired"), 1));
    QJsonObject candidates = record(clock, cron, QStringLiteral("candidates"));
    candidates.insert(QStringLiteral("live"), 3);
    candidates.insert(QStringLiteral("priority"), -5);
    candidates.insert(QStringLiteral("drained"), false);
    metrics.record(candidates);
    QCOMPARE(scraped(metrics, "baton_candidates", onLease(cron)), 3.0);
    QCOMPARE(scraped(metrics, "baton_priority", onLease(cron)), -5.0);
    QCOMPARE(scraped(metrics, "baton_drained", onLease(cron)), 0.0);
    QJsonObject drained = record(clock, cron, QStringLiteral("candidate-drained"));
    drained.insert(QStringLiteral("drained"), true);
    metrics.record(drained);
    QCOMPARE(scraped(metrics, "baton_drained", onLease(cron)), 1.0);
    const test::PrometheusScrape scrape = test::parsePrometheus(metrics.render());
    QVERIFY2(scrape.ok(), qPrintable(scrape.error));
    QCOMPARE(scrape.types.value(QStringLiteral("baton_candidates")), QStringLiteral("gauge"));
    QVERIFY(!metrics.render().contains("baton_candidates{lease=\"local\"}"));
    // A process of local elections only has none of the three families.
    ElectionMetrics alone(&clock);
    alone.record(attempt(clock, local, QStringLiteral("acquired"), 1));
    QVERIFY(!alone.render().contains("baton_candidates"));
}
