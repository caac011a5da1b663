// Prometheus checked by Prometheus (O3): the real tools of Debian's
// `prometheus` package read what `baton join --listen` serves and what
// resources/prometheus ships. `promtool check metrics` finds nothing to say
// of a real /metrics body; `promtool check rules` and `promtool test rules`
// accept the alerts and their unit tests; and a real Prometheus server,
// scraping three participants every second, sees one leader again, a new
// one, after the leader is killed (F6). Each test skips, saying so, only
// when the tool is not installed (setup.sh installs it; CI has it).

#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <QUrlQuery>

#include <csignal>

using namespace baton;

namespace {

constexpr qint64 leaseMs = 2000;
constexpr qint64 renewMs = 500;
const QString lease = QStringLiteral("scraped");

struct HttpAnswer
{
    int status = 0;
    QByteArray body;
};

} // namespace

class TestPrometheus : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void promtoolFindsNothingWrongInARealMetricsBody();
    void theAlertRulesPassPromtoolsCheckAndTheirUnitTests();
    void prometheusSeesANewLeaderAfterTheLeaderIsKilled();
    void cleanup();

private:
    QString writeConfig(const QString &instanceId);
    ParticipantProcess *startParticipant(const QString &id, const QStringList &extra = {});
    HttpAnswer get(const QUrl &url);
    /*! The result vector of an instant query to the server on \a port. */
    QJsonArray query(quint16 port, const QString &promql);
    static quint16 portOf(const ParticipantProcess &p);
    /*! The port the Prometheus server said it listens on; 0 until it has. */
    quint16 announcedServerPort() const;
    static QString tool(const char *name);

    QTemporaryDir m_folder;
    QNetworkAccessManager m_network;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
    std::unique_ptr<QProcess> m_server;
    QByteArray m_serverLog;
};

void TestPrometheus::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
}

void TestPrometheus::cleanup()
{
    if (QTest::currentTestFailed()) {
        for (const auto &p : m_participants)
            qWarning("--- %s ---\n%s", qPrintable(p->label()), p->standardError().constData());
        if (m_server)
            qWarning("--- prometheus ---\n%s", (m_serverLog + m_server->readAllStandardError()).constData());
    }
    m_participants.clear();
    if (m_server) {
        m_server->terminate();
        m_server->waitForFinished(10000);
        m_server.reset();
    }
}

QString TestPrometheus::tool(const char *name)
{
    return QStandardPaths::findExecutable(QLatin1String(name));
}

QString TestPrometheus::writeConfig(const QString &instanceId)
{
    const test::ParticipantConfig config {test::fileRegistry(m_folder.filePath(QStringLiteral("registry"))),
                                          lease, instanceId, leaseMs, renewMs};
    return config.writeTo(m_folder.filePath(instanceId + QStringLiteral(".json")));
}

ParticipantProcess *TestPrometheus::startParticipant(const QString &id, const QStringList &extra)
{
    m_participants.push_back(std::make_unique<ParticipantProcess>(
            id, test::batonBinary(),
            QStringList {QStringLiteral("join"), QStringLiteral("--config"), writeConfig(id),
                         QStringLiteral("--events"), QStringLiteral("json"), QStringLiteral("--listen"),
                         QStringLiteral("127.0.0.1:0")}
                    + extra));
    test::keepOutput(m_participants.back().get());
    m_participants.back()->start();
    return m_participants.back().get();
}

HttpAnswer TestPrometheus::get(const QUrl &url)
{
    QNetworkReply *reply = m_network.get(QNetworkRequest(url));
    QSignalSpy done(reply, &QNetworkReply::finished);
    if (!reply->isFinished() && !done.wait(5000))
        return {};
    HttpAnswer answer {reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll()};
    reply->deleteLater();
    return answer;
}

QJsonArray TestPrometheus::query(quint16 port, const QString &promql)
{
    QUrl url(QStringLiteral("http://127.0.0.1:%1/api/v1/query").arg(port));
    QUrlQuery q;
    q.addQueryItem(QStringLiteral("query"), promql);
    url.setQuery(q);
    const QJsonObject answer = QJsonDocument::fromJson(get(url).body).object();
    return answer.value(QStringLiteral("data")).toObject().value(QStringLiteral("result")).toArray();
}

quint16 TestPrometheus::portOf(const ParticipantProcess &p)
{
    static const QRegularExpression re(QStringLiteral("serving /metrics[^\\n]* on http://127\\.0\\.0\\.1:(\\d+)"));
    const QRegularExpressionMatch m = re.match(QString::fromUtf8(p.standardError()));
    return m.hasMatch() ? quint16(m.captured(1).toUInt()) : 0;
}

quint16 TestPrometheus::announcedServerPort() const
{
    // Its web listener's line once bound, with the port the kernel chose:
    // msg="Listening on" address=127.0.0.1:PORT
    static const QRegularExpression re(QStringLiteral("msg=\"Listening on\" address=127\\.0\\.0\\.1:(\\d+)"));
    const QRegularExpressionMatch m = re.match(QString::fromUtf8(m_serverLog));
    return m.hasMatch() ? quint16(m.captured(1).toUInt()) : 0;
}

void TestPrometheus::promtoolFindsNothingWrongInARealMetricsBody()
{
    // O3: the body a running participant serves, with --exec (its series
    // there from the start) and after a few renewals, linted by Prometheus's
    // own tool: no complaint at all (exit 0, nothing printed).
    const QString promtool = tool("promtool");
    if (promtool.isEmpty())
        QSKIP("promtool is not installed (Debian package prometheus; setup.sh installs it)");
    ParticipantProcess *p = startParticipant(QStringLiteral("alone"), {QStringLiteral("--exec"), QStringLiteral("sleep 600")});
    QTRY_VERIFY_WITH_TIMEOUT(portOf(*p) != 0, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(p->isLeading(), 20000);
    const QUrl metricsUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(portOf(*p)));
    QTRY_VERIFY_WITH_TIMEOUT(get(metricsUrl).body.contains("baton_exec_running{lease=\"scraped\"} 1"), 10000);
    const QByteArray body = get(metricsUrl).body;
    test::keepArtifact(test::ArtifactKind::Metrics, QStringLiteral("linted.txt"), body);
    QVERIFY(body.contains("process_resident_memory_bytes"));
    QVERIFY(body.contains("baton_build_info{"));

    QProcess check;
    check.start(promtool, {QStringLiteral("check"), QStringLiteral("metrics")});
    QVERIFY(check.waitForStarted(10000));
    check.write(body);
    check.closeWriteChannel();
    QVERIFY(check.waitForFinished(30000));
    const QByteArray said = check.readAllStandardOutput() + check.readAllStandardError();
    QVERIFY2(said.trimmed().isEmpty(), said.constData());
    QCOMPARE(check.exitCode(), 0);
}

void TestPrometheus::theAlertRulesPassPromtoolsCheckAndTheirUnitTests()
{
    // O3: the shipped alerts are valid rules, and each fires when its unit
    // test (tests/headless/baton-alerts.test.yml) says, and only then.
    const QString promtool = tool("promtool");
    if (promtool.isEmpty())
        QSKIP("promtool is not installed (Debian package prometheus; setup.sh installs it)");
    const QDir source(QStringLiteral(BATON_SOURCE_DIR));
    for (const QStringList &arguments :
         {QStringList {QStringLiteral("check"), QStringLiteral("rules"),
                       source.filePath(QStringLiteral("resources/prometheus/baton-alerts.yml"))},
          QStringList {QStringLiteral("test"), QStringLiteral("rules"),
                       source.filePath(QStringLiteral("tests/headless/baton-alerts.test.yml"))}}) {
        QProcess run;
        run.start(promtool, arguments);
        QVERIFY(run.waitForFinished(60000));
        const QByteArray said = run.readAllStandardOutput() + run.readAllStandardError();
        QVERIFY2(run.exitStatus() == QProcess::NormalExit && run.exitCode() == 0,
                 qPrintable(arguments.join(QLatin1Char(' ')) + QLatin1Char('\n') + QString::fromUtf8(said)));
        QVERIFY2(said.contains("SUCCESS"), said.constData());
    }
}

void TestPrometheus::prometheusSeesANewLeaderAfterTheLeaderIsKilled()
{
    // O3, F6: what an operator's Prometheus sees of a crash failover. Three
    // participants scraped every second; SIGKILL to the leader; Prometheus's
    // own query API says one leader again, and another one.
    const QString prometheus = tool("prometheus");
    if (prometheus.isEmpty())
        QSKIP("prometheus is not installed (Debian package prometheus; setup.sh installs it)");
    for (const QString &id : {QStringLiteral("p1"), QStringLiteral("p2"), QStringLiteral("p3")})
        startParticipant(id);
    QStringList targets;
    for (const auto &p : m_participants) {
        QTRY_VERIFY_WITH_TIMEOUT(portOf(*p) != 0, 10000);
        targets.append(QStringLiteral("'127.0.0.1:%1'").arg(portOf(*p)));
    }

    const QString configPath = m_folder.filePath(QStringLiteral("prometheus.yml"));
    QFile config(configPath);
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(QStringLiteral("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                                "scrape_configs:\n  - job_name: baton\n    static_configs:\n"
                                "      - targets: [%1]\n")
                         .arg(targets.join(QStringLiteral(", ")))
                         .toUtf8());
    config.close();
    m_server = std::make_unique<QProcess>();
    m_serverLog.clear();
    connect(m_server.get(), &QProcess::readyReadStandardError, this,
            [this] { m_serverLog += m_server->readAllStandardError(); });
    m_server->start(prometheus, {QStringLiteral("--config.file=") + configPath,
                                 QStringLiteral("--storage.tsdb.path=") + m_folder.filePath(QStringLiteral("tsdb")),
                                 // Port 0: the server binds a free port itself and
                                 // says which, so that no other process can take it
                                 // between a probe and the server's bind.
                                 QStringLiteral("--web.listen-address=127.0.0.1:0"),
                                 QStringLiteral("--log.level=info")});
    QVERIFY2(m_server->waitForStarted(10000), qPrintable(m_server->errorString()));
    QTRY_VERIFY2_WITH_TIMEOUT(announcedServerPort() != 0, m_serverLog.constData(), 30000);
    const quint16 serverPort = announcedServerPort();
    const QUrl ready(QStringLiteral("http://127.0.0.1:%1/-/ready").arg(serverPort));
    QTRY_COMPARE_WITH_TIMEOUT(get(ready).status, 200, 30000);

    // Before: all three targets up, exactly one leader, and it is the one
    // the event streams name.
    QTRY_COMPARE_WITH_TIMEOUT(query(serverPort, QStringLiteral("sum(up{job=\"baton\"})"))
                                      .at(0).toObject().value(QStringLiteral("value")).toArray().at(1).toString(),
                              QStringLiteral("3"), 30000);
    const QString isLeader = QStringLiteral("baton_is_leader{lease=\"%1\"} == 1").arg(lease);
    QTRY_COMPARE_WITH_TIMEOUT(query(serverPort, isLeader).size(), 1, 30000);
    const QString firstLeader = query(serverPort, isLeader).at(0).toObject().value(QStringLiteral("metric"))
                                        .toObject().value(QStringLiteral("identity")).toString();
    ParticipantProcess *leader = nullptr;
    for (const auto &p : m_participants)
        if (p->instanceId() == firstLeader)
            leader = p.get();
    QVERIFY2(leader, qPrintable(firstLeader));
    QTRY_VERIFY_WITH_TIMEOUT(leader->isLeading(), 10000);

    QSignalSpy died(leader, &ParticipantProcess::finished);
    leader->sendSignal(SIGKILL);
    QVERIFY(died.wait(10000));

    // After: one leader again by Prometheus's sum, another identity, and
    // leader_info of the survivors names it.
    const QString sum = QStringLiteral("sum(baton_is_leader{lease=\"%1\"})").arg(lease);
    QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const QJsonArray leaders = query(serverPort, isLeader);
                const QJsonArray total = query(serverPort, sum);
                return leaders.size() == 1 && total.size() == 1
                        && total.at(0).toObject().value(QStringLiteral("value")).toArray().at(1).toString() == QStringLiteral("1")
                        && leaders.at(0).toObject().value(QStringLiteral("metric")).toObject()
                                           .value(QStringLiteral("identity")).toString() != firstLeader;
            }(),
            60000);
    const QString secondLeader = query(serverPort, isLeader).at(0).toObject().value(QStringLiteral("metric"))
                                         .toObject().value(QStringLiteral("identity")).toString();
    QTRY_COMPARE_WITH_TIMEOUT(
            query(serverPort, QStringLiteral("count(baton_leader_info{lease=\"%1\",holder=\"%2\"})").arg(lease, secondLeader))
                    .at(0).toObject().value(QStringLiteral("value")).toArray().at(1).toString(),
            QStringLiteral("2"), 30000);
}

QTEST_GUILESS_MAIN(TestPrometheus)
#include "tst_prometheus.moc"
