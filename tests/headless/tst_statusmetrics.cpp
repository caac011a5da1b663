// What an operator's tooling sees, from real processes on one FileStore
// folder: `baton status` (table, --json, --watch --history) against a known
// election (O2, O5), `/metrics` scraped through a failover and read by a
// strict reader of the Prometheus text format, its transitions the same number
// as `baton status` shows (F7), `/leader` 200 only on the leader, and, with the
// store gone for longer than the lease, `/readyz` 503 while `/livez` and
// `/healthz` stay 200 (liveness never depends on the store), all 200 when it
// is back (O3, R4).
// Everything runs under umask 0: the exports and the store's folder and files
// come out owner-only all the same (R2).

#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <batoninternal/durationtext.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <csignal>

#include <sys/stat.h>

using namespace baton;

namespace {

// The lease and renewal of this run, BATON_TEST_TIME_SCALE times those of a
// quiet machine; every bound below is derived from them.
const qint64 leaseMs = test::scaledMs(2000);
const qint64 renewMs = test::scaledMs(500);

struct HttpAnswer
{
    int status = 0;
    QByteArray body;
};

} // namespace

class TestStatusMetrics : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void statusMetricsAndHealthThroughAFailover();
    void cleanup();

private:
    QString writeConfig(const QString &instanceId);
    HttpAnswer get(quint16 port, const QString &path);
    static quint16 portOf(const ParticipantProcess &p);
    QProcess *runStatus(const QStringList &extra);

    QTemporaryDir m_folder;
    QNetworkAccessManager m_network;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
};

void TestStatusMetrics::cleanup()
{
    if (QTest::currentTestFailed())
        for (const auto &p : m_participants)
            qWarning("--- %s ---\n%s", qPrintable(p->label()), p->standardError().constData());
    m_participants.clear();
}

void TestStatusMetrics::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
    // R2: the most permissive umask, inherited by every `baton` started
    // here: whatever they create must be owner-only on its own.
    ::umask(0);
}

QString TestStatusMetrics::writeConfig(const QString &instanceId)
{
    const test::ParticipantConfig config {test::fileRegistry(m_folder.filePath(QStringLiteral("registry"))),
                                          QStringLiteral("watched"), instanceId, leaseMs, renewMs};
    return config.writeTo(m_folder.filePath(instanceId + QStringLiteral(".json")));
}

HttpAnswer TestStatusMetrics::get(quint16 port, const QString &path)
{
    QNetworkReply *reply = m_network.get(QNetworkRequest(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(path))));
    QSignalSpy done(reply, &QNetworkReply::finished);
    if (!reply->isFinished() && !done.wait(5000))
        return {};
    HttpAnswer answer {reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll()};
    test::keepArtifact(test::ArtifactKind::Metrics, QStringLiteral("port-%1%2").arg(port).arg(path), answer.body);
    reply->deleteLater();
    return answer;
}

quint16 TestStatusMetrics::portOf(const ParticipantProcess &p)
{
    static const QRegularExpression re(QStringLiteral("serving /metrics[^\\n]* on http://127\\.0\\.0\\.1:(\\d+)"));
    const QRegularExpressionMatch m = re.match(QString::fromUtf8(p.standardError()));
    return m.hasMatch() ? quint16(m.captured(1).toUInt()) : 0;
}

QProcess *TestStatusMetrics::runStatus(const QStringList &extra)
{
    auto *status = new QProcess(this);
    test::keepOutput(status, QStringLiteral("status"), test::ArtifactKind::Status);
    status->start(test::batonBinary(), QStringList {QStringLiteral("status"), QStringLiteral("--config"),
                                                    m_folder.filePath(QStringLiteral("a.json"))}
                                               + extra);
    return status;
}

void TestStatusMetrics::statusMetricsAndHealthThroughAFailover()
{
    auto &participants = m_participants;
    for (const QString &id : {QStringLiteral("a"), QStringLiteral("b")}) {
        participants.push_back(std::make_unique<ParticipantProcess>(
                id, test::batonBinary(),
                QStringList {QStringLiteral("join"), QStringLiteral("--config"), writeConfig(id),
                             QStringLiteral("--events"), QStringLiteral("json"),
                             QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")}));
        test::keepOutput(participants.back().get());
        participants.back()->start();
    }
    ParticipantProcess &a = *participants.at(0);
    ParticipantProcess &b = *participants.at(1);
    QTRY_VERIFY_WITH_TIMEOUT(portOf(a) != 0 && portOf(b) != 0, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(a.isLeading() != b.isLeading(), 20000);
    ParticipantProcess &leader = a.isLeading() ? a : b;
    ParticipantProcess &follower = a.isLeading() ? b : a;
    QTRY_VERIFY_WITH_TIMEOUT(!follower.events().isEmpty(), 10000);

    // O2: the table, one line for the lease, naming the known holder.
    QProcess *table = runStatus({});
    QVERIFY(table->waitForFinished(10000));
    QCOMPARE(table->exitCode(), 0);
    const QStringList rows = QString::fromUtf8(table->readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 2);
    QVERIFY2(rows.at(0).startsWith(QStringLiteral("LEASE")), qPrintable(rows.at(0)));
    const QStringList cells = rows.at(1).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QCOMPARE(cells.at(0), QStringLiteral("watched"));
    QCOMPARE(cells.at(1), leader.instanceId());
    QVERIFY2(rows.at(1).contains(QLatin1Char('/') + durationtext::format(leaseMs) + QLatin1Char(' ')), qPrintable(rows.at(1)));
    QVERIFY2(rows.at(1).contains(QStringLiteral("held")), qPrintable(rows.at(1)));

    // The same store named by URL, with no configuration file (O2).
    auto *byUrl = new QProcess(this);
    test::keepOutput(byUrl, QStringLiteral("status-by-url"), test::ArtifactKind::Status);
    byUrl->start(test::batonBinary(),
                 {QStringLiteral("status"), QStringLiteral("--store"),
                  QUrl::fromLocalFile(m_folder.filePath(QStringLiteral("registry"))).toString(),
                  QStringLiteral("--json")});
    QVERIFY(byUrl->waitForFinished(10000));
    QCOMPARE(byUrl->exitCode(), 0);
    const QJsonObject byUrlLease = test::parseEventLine(byUrl->readAllStandardOutput().split('\n').at(0));
    QCOMPARE(byUrlLease.value(QStringLiteral("lease")).toString(), QStringLiteral("watched"));
    QCOMPARE(byUrlLease.value(QStringLiteral("holder")).toString(), leader.instanceId());

    // O5: --json, a `lease` record a line, with the common fields.
    QProcess *json = runStatus({QStringLiteral("--json")});
    QVERIFY(json->waitForFinished(10000));
    QCOMPARE(json->exitCode(), 0);
    const QList<QByteArray> lines = json->readAllStandardOutput().split('\n');
    QCOMPARE(lines.size(), 2); // one record, then the empty rest after the last line feed
    const QJsonObject lease = test::parseEventLine(lines.at(0));
    for (const char *field : {"v", "ts", "mono", "lease", "instance", "event", "holder", "acquireTime",
                              "renewTime", "leaseDurationMs", "transitions", "sinceChangeMs", "expired"})
        QVERIFY2(lease.contains(QLatin1String(field)), field);
    QCOMPARE(lease.value(QStringLiteral("v")).toInt(), 1);
    QCOMPARE(lease.value(QStringLiteral("event")).toString(), QStringLiteral("lease"));
    QCOMPARE(lease.value(QStringLiteral("holder")).toString(), leader.instanceId());
    QCOMPARE(lease.value(QStringLiteral("leaseDurationMs")).toInt(), int(leaseMs));
    QVERIFY(QDateTime::fromString(lease.value(QStringLiteral("ts")).toString(), Qt::ISODateWithMs).isValid());

    // Watchers that keep the history, in both formats.
    const QString csvPath = m_folder.filePath(QStringLiteral("history.csv"));
    const QString jsonPath = m_folder.filePath(QStringLiteral("history.json"));
    QProcess *watchCsv = runStatus({QStringLiteral("--watch"), QStringLiteral("--history"), csvPath});
    QProcess *watchJson = runStatus({QStringLiteral("--watch"), QStringLiteral("--json"),
                                     QStringLiteral("--history"), jsonPath});
    QTRY_VERIFY_WITH_TIMEOUT(watchCsv->bytesAvailable() > 0 && watchJson->bytesAvailable() > 0, 10000);

    // O3 /metrics before: the leader says 1, the follower 0; both parse.
    test::PrometheusScrape before = test::parsePrometheus(get(portOf(leader), QStringLiteral("/metrics")).body);
    QVERIFY2(before.ok(), qPrintable(before.error));
    QCOMPARE(before.value(QStringLiteral("baton_is_leader")), 1.0);
    const test::PrometheusScrape followerBefore = test::parsePrometheus(get(portOf(follower), QStringLiteral("/metrics")).body);
    QVERIFY2(followerBefore.ok(), qPrintable(followerBefore.error));
    QCOMPARE(followerBefore.value(QStringLiteral("baton_is_leader")), 0.0);
    // The label is `identity`: Prometheus owns `instance`.
    QCOMPARE(before.value(QStringLiteral("baton_is_leader"), {{QStringLiteral("identity"), leader.instanceId()}}), 1.0);
    QCOMPARE(followerBefore.value(QStringLiteral("baton_leader_info"), {{QStringLiteral("holder"), leader.instanceId()}}), 1.0);
    for (const QString &path : {QStringLiteral("/livez"), QStringLiteral("/healthz"), QStringLiteral("/readyz")})
        QTRY_COMPARE_WITH_TIMEOUT(get(portOf(follower), path).status, 200, 5000);

    // O3 /leader: 200 with the lease, the holder, the fencing token and the
    // time left by F4 (within the step-down deadline) on the leader; 503 on
    // the follower, naming the holder; an unknown ?lease= is 404.
    // Asked until it answers as leader: on a loaded machine a renewal may
    // come late, and the leader then rightly answers 503 for a moment.
    HttpAnswer leads;
    QTRY_VERIFY_WITH_TIMEOUT((leads = get(portOf(leader), QStringLiteral("/leader"))).status == 200, 10000);
    const QJsonObject leadsJson = QJsonDocument::fromJson(leads.body).object();
    QCOMPARE(leadsJson.value(QStringLiteral("lease")).toString(), QStringLiteral("watched"));
    QCOMPARE(leadsJson.value(QStringLiteral("holder")).toString(), leader.instanceId());
    QCOMPARE(leadsJson.value(QStringLiteral("fencingToken")).toInteger(), lease.value(QStringLiteral("transitions")).toInteger());
    const qint64 validForMs = leadsJson.value(QStringLiteral("validForMs")).toInteger();
    QVERIFY2(validForMs > 0 && validForMs <= (leaseMs + renewMs) / 2, leads.body.constData());
    QCOMPARE(leads.body.count('\n'), 1);
    QCOMPARE(get(portOf(leader), QStringLiteral("/leader?lease=watched")).status, 200);
    const HttpAnswer follows = get(portOf(follower), QStringLiteral("/leader"));
    QCOMPARE(follows.status, 503);
    QCOMPARE(QJsonDocument::fromJson(follows.body).object().value(QStringLiteral("holder")).toString(), leader.instanceId());
    const HttpAnswer unknown = get(portOf(follower), QStringLiteral("/leader?lease=other"));
    QCOMPARE(unknown.status, 404);
    QVERIFY2(unknown.body.contains("other"), unknown.body.constData());

    // The failover: SIGKILL to the leader; the follower takes over (F6),
    // and its metrics show it.
    QSignalSpy died(&leader, &ParticipantProcess::finished);
    leader.sendSignal(SIGKILL);
    QVERIFY(died.wait(10000));
    QTRY_VERIFY_WITH_TIMEOUT(follower.isLeading(), 20000);
    const test::PrometheusScrape after = test::parsePrometheus(get(portOf(follower), QStringLiteral("/metrics")).body);
    QVERIFY2(after.ok(), qPrintable(after.error));
    QCOMPARE(after.value(QStringLiteral("baton_is_leader")), 1.0);
    QVERIFY(after.value(QStringLiteral("baton_leader_transitions_total"))
            > followerBefore.value(QStringLiteral("baton_leader_transitions_total")));
    QVERIFY(after.value(QStringLiteral("baton_attempts_total"), {{QStringLiteral("outcome"), QStringLiteral("acquired")}}) >= 1.0);
    QVERIFY(after.value(QStringLiteral("baton_attempt_latency_seconds_count"))
            > followerBefore.value(QStringLiteral("baton_attempt_latency_seconds_count")));
    // Its first renewal came after the old leader's last one (two wall
    // times of this host, compared with each other, not with a threshold).
    QVERIFY(after.value(QStringLiteral("baton_last_renewal_timestamp_seconds"))
            > before.value(QStringLiteral("baton_last_renewal_timestamp_seconds")));
    // F7: the transitions are the lease record's, the number `baton status`
    // shows for the same lease (the first acquisition is term 0).
    QProcess *statusAfter = runStatus({QStringLiteral("--json")});
    QVERIFY(statusAfter->waitForFinished(10000));
    const QJsonObject leaseAfter = test::parseEventLine(statusAfter->readAllStandardOutput().split('\n').at(0));
    QCOMPARE(leaseAfter.value(QStringLiteral("holder")).toString(), follower.instanceId());
    QCOMPARE(after.value(QStringLiteral("baton_leader_transitions_total")),
             leaseAfter.value(QStringLiteral("transitions")).toDouble());
    QCOMPARE(followerBefore.value(QStringLiteral("baton_leader_transitions_total")),
             lease.value(QStringLiteral("transitions")).toDouble());
    QVERIFY(!get(portOf(follower), QStringLiteral("/metrics")).body.contains("password"));

    // The watchers saw it as an expiry; on SIGTERM they write the history.
    QTRY_VERIFY_WITH_TIMEOUT(watchJson->peek(1 << 20).contains("\"leader-changed\""), 10000);
    for (QProcess *watcher : {watchCsv, watchJson}) {
        ::kill(pid_t(watcher->processId()), SIGTERM);
        QVERIFY(watcher->waitForFinished(10000));
        QCOMPARE(watcher->exitCode(), 0);
    }
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList csvLines = QString::fromUtf8(csv.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
    QCOMPARE(csvLines.at(0), QStringLiteral("lease,from,to,why,time,mono,gapMs,transitions,recorded"));
    // O2: the leader's acquisition, stored with the lease before the
    // watchers started, then the failover they saw.
    QCOMPARE(csvLines.size(), 3);
    const QStringList stored = csvLines.at(1).split(QLatin1Char(','));
    QCOMPARE(stored.size(), 9);
    QCOMPARE(stored.at(2), leader.instanceId());
    QCOMPARE(stored.at(3), QStringLiteral("first-acquire"));
    QCOMPARE(stored.at(8), QStringLiteral("true"));
    const QStringList change = csvLines.at(2).split(QLatin1Char(','));
    QCOMPARE(change.size(), 9);
    QCOMPARE(change.at(8), QStringLiteral("false")); // seen by this observer
    QCOMPARE(change.at(0), QStringLiteral("watched"));
    QCOMPARE(change.at(1), leader.instanceId());
    QCOMPARE(change.at(2), follower.instanceId());
    QCOMPARE(change.at(3), QStringLiteral("expired"));
    QVERIFY(change.at(6).toLongLong() >= 0);
    test::keepArtifactFile(test::ArtifactKind::Export, csvPath);
    test::keepArtifactFile(test::ArtifactKind::Export, jsonPath);
    // R2: the exports and the store the processes wrote, under umask 0.
    BATON_COMPARE_MODE(csvPath, 0600);
    BATON_COMPARE_MODE(jsonPath, 0600);
    BATON_COMPARE_MODE(m_folder.filePath(QStringLiteral("registry")), 0700);
    const QDir registryFolder(m_folder.filePath(QStringLiteral("registry")));
    const QStringList records
            = registryFolder.entryList({QStringLiteral("cluster:watched.*.json")}, QDir::Files);
    QVERIFY(!records.isEmpty());
    for (const QString &record : records)
        BATON_COMPARE_MODE(registryFolder.filePath(record), 0600);
    QFile historyJson(jsonPath);
    QVERIFY(historyJson.open(QIODevice::ReadOnly));
    const QJsonArray history = QJsonDocument::fromJson(historyJson.readAll()).object().value(QStringLiteral("history")).toArray();
    QCOMPARE(history.size(), 2);
    QCOMPARE(history.at(0).toObject().value(QStringLiteral("recorded")).toBool(), true);
    QCOMPARE(history.at(1).toObject().value(QStringLiteral("why")).toString(), QStringLiteral("expired"));
    for (const QByteArray &line : watchJson->readAllStandardOutput().split('\n')) {
        if (line.isEmpty())
            continue;
        const QJsonObject record = test::parseEventLine(line);
        QVERIFY2(!record.isEmpty(), line.constData());
        for (const char *field : {"v", "ts", "mono", "lease", "instance", "event"})
            QVERIFY2(record.contains(QLatin1String(field)), line.constData());
    }

    // The store folder goes away: after the lease without an answer,
    // /readyz says 503 with the reason on one line, while /livez and its
    // alias /healthz stay 200 (a store outage must not get every replica
    // restarted); the folder back, ready again (R4).
    const QString registry = m_folder.filePath(QStringLiteral("registry"));
    const QString hidden = m_folder.filePath(QStringLiteral("registry.away"));
    QVERIFY(QDir().rename(registry, hidden));
    QTRY_COMPARE_WITH_TIMEOUT(get(portOf(follower), QStringLiteral("/readyz")).status, 503, 10000);
    const HttpAnswer notReady = get(portOf(follower), QStringLiteral("/readyz"));
    QVERIFY2(notReady.body.contains("longer than the lease"), notReady.body.constData());
    QCOMPARE(notReady.body.count('\n'), 1);
    for (const QString &path : {QStringLiteral("/livez"), QStringLiteral("/healthz")}) {
        const HttpAnswer alive = get(portOf(follower), path);
        QCOMPARE(alive.status, 200);
        QCOMPARE(alive.body, QByteArray("ok\n"));
    }
    QCOMPARE(test::parsePrometheus(get(portOf(follower), QStringLiteral("/metrics")).body)
                     .value(QStringLiteral("baton_ready")),
             0.0);
    QVERIFY(QDir().rename(hidden, registry));
    QTRY_COMPARE_WITH_TIMEOUT(get(portOf(follower), QStringLiteral("/readyz")).status, 200, 10000);

    QSignalSpy exited(&follower, &ParticipantProcess::finished);
    follower.sendSignal(SIGTERM);
    QVERIFY(exited.wait(10000));
    QCOMPARE(follower.exitCode(), 0);
}

QTEST_GUILESS_MAIN(TestStatusMetrics)
#include "tst_statusmetrics.moc"
