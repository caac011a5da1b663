// `baton join --schedule` on a Kubernetes Lease, end to end: real `baton`
// processes against the test Lease API server, each run kept in a ConfigMap
// beside the Lease. The command's own log is the judge, as in
// tst_joinschedule: each line is one run, named by the BATON_TICK it was given.

#include "eventstream.h"
#include "leaseapiserver.h"
#include "participantprocess.h"
#include "participants.h"
#include "testcertificates.h"
#include "testsecrets.h"
#include "testsupport.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <csignal>

using namespace baton;
using namespace baton::test;

namespace {

constexpr qint64 leaseMs = 2000;
constexpr qint64 renewMs = 500;
const QString ns = QStringLiteral("jobs");
// The participant Role of resources/kubernetes/participant: its verbs on configmaps.
const QString participantToken = test::testSecret(QStringLiteral("kube-token-schedule"));
// A Role without configmaps: what a cluster set up before scheduled runs has.
const QString leaseOnlyToken = test::testSecret(QStringLiteral("kube-token-lease-only"));

QList<QJsonObject> eventsNamed(const ParticipantProcess &p, const QString &name)
{
    QList<QJsonObject> found;
    for (const QJsonObject &e : p.events())
        if (e.value(QStringLiteral("event")).toString() == name)
            found.append(e);
    return found;
}

QString uniqueLease(const QString &stem)
{
    return stem + QStringLiteral("-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
}

} // namespace

class TestKubernetesSchedule : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void eachTickRunsOnceAcrossAKilledLeaderWithOneConfigMapPerRun();
    void anInterruptedRunIsMarkedAndRerunOrNotByPolicy_data();
    void anInterruptedRunIsMarkedAndRerunOrNotByPolicy();
    void aTickDuringARunIsSkippedAndRecordedInItsConfigMap();
    void withoutConfigMapsInTheRoleNoRunStartsAndTheErrorNamesThem();
    void aLeaseNameTooLongForALabelIsRefused();

private:
    QString writeKubeconfig(const QString &token);
    QString writeConfig(const QString &id, const QString &token);
    ParticipantProcess *start(const QString &id, const QStringList &extra, const QString &token = participantToken);
    ParticipantProcess *leader(const ParticipantProcess *except = nullptr) const;
    QStringList logLines() const;
    /*! The run records of m_lease as the ConfigMaps hold them, by tick. */
    QHash<QString, QJsonObject> storedRecords() const;
    /*! `baton status --runs LEASE -o json` read from the API server, with \a extra arguments. */
    QJsonObject runsDocument(const QString &lease, const QStringList &extra = {});

    QTemporaryDir m_folder;
    TestCertificates m_certificates;
    LeaseApiServer m_server;
    QHash<QString, QString> m_kubeconfigs;
    QString m_log;
    QString m_lease;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
};

void TestKubernetesSchedule::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
    QString error;
    QVERIFY2(m_certificates.generate(m_folder.path(), &error), qPrintable(error));
    QVERIFY2(m_server.setTls(m_certificates.serverCertFile(), m_certificates.serverKeyFile(), {}, &error),
             qPrintable(error));
    QVERIFY2(m_server.listen(&error), qPrintable(error));
    const QStringList leaseVerbs {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
                                  QStringLiteral("list"), QStringLiteral("watch")};
    m_server.addToken(participantToken, QStringLiteral("system:serviceaccount:jobs:participant"),
                      leaseVerbs
                              + QStringList {QStringLiteral("configmaps/list"),
                                             QStringLiteral("configmaps/create"), QStringLiteral("configmaps/update"),
                                             QStringLiteral("configmaps/delete")});
    m_server.addToken(leaseOnlyToken, QStringLiteral("system:serviceaccount:jobs:lease-only"), leaseVerbs);
}

void TestKubernetesSchedule::cleanup()
{
    for (const auto &p : m_participants) {
        p->sendSignal(SIGCONT);
        p->sendSignal(SIGKILL);
    }
    m_participants.clear();
}

QString TestKubernetesSchedule::writeKubeconfig(const QString &token)
{
    // Written once per token: rewriting a file a starting process reads would race.
    if (m_kubeconfigs.contains(token))
        return m_kubeconfigs.value(token);
    const QString path = m_folder.filePath(QStringLiteral("kubeconfig-%1").arg(m_kubeconfigs.size()));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    file.write(QStringLiteral("apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                              "clusters:\n- name: test\n  cluster:\n    server: %1\n"
                              "    certificate-authority: %2\n"
                              "contexts:\n- name: test\n  context:\n    cluster: test\n    user: me\n"
                              "    namespace: %3\n"
                              "users:\n- name: me\n  user:\n    token: %4\n")
                       .arg(m_server.url().toString(), m_certificates.caFile(), ns, token)
                       .toUtf8());
    m_kubeconfigs.insert(token, path);
    return path;
}

QString TestKubernetesSchedule::writeConfig(const QString &id, const QString &token)
{
    const QJsonObject config {
            {QStringLiteral("services"),
             QJsonObject {{QStringLiteral("cluster"),
                           QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/KubernetesClusterService")},
                                        {QStringLiteral("config"), writeKubeconfig(token)},
                                        {QStringLiteral("leaseName"), m_lease},
                                        {QStringLiteral("instanceId"), id},
                                        {QStringLiteral("leaseDuration"), leaseMs},
                                        {QStringLiteral("renewInterval"), renewMs}}}}}};
    const QString path = m_folder.filePath(id + QStringLiteral(".json"));
    return test::writeJsonFile(path, config) ? path : QString();
}

ParticipantProcess *TestKubernetesSchedule::start(const QString &id, const QStringList &extra, const QString &token)
{
    m_participants.push_back(std::make_unique<ParticipantProcess>(
            id, test::batonBinary(),
            QStringList {QStringLiteral("join"), QStringLiteral("--config"), writeConfig(id, token),
                         QStringLiteral("--events"), QStringLiteral("json")}
                    + extra));
    test::keepOutput(m_participants.back().get());
    m_participants.back()->start();
    return m_participants.back().get();
}

ParticipantProcess *TestKubernetesSchedule::leader(const ParticipantProcess *except) const
{
    for (const auto &p : m_participants)
        if (p.get() != except && p->isRunning() && p->isLeading())
            return p.get();
    return nullptr;
}

QStringList TestKubernetesSchedule::logLines() const
{
    QFile file(m_log);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

QHash<QString, QJsonObject> TestKubernetesSchedule::storedRecords() const
{
    QHash<QString, QJsonObject> records;
    for (const QJsonObject &map : m_server.configMaps(ns)) {
        const QJsonObject labels = map[QStringLiteral("metadata")][QStringLiteral("labels")].toObject();
        if (labels.value(QStringLiteral("baton.dev/lease")).toString() != m_lease)
            continue;
        const QJsonObject record = QJsonDocument::fromJson(
                map[QStringLiteral("data")][QStringLiteral("record")].toString().toUtf8()).object();
        records.insert(record.value(QStringLiteral("tick")).toString(), record);
    }
    return records;
}

QJsonObject TestKubernetesSchedule::runsDocument(const QString &lease, const QStringList &extra)
{
    QProcess status;
    // The API server answers in this process: wait with its event loop running.
    QSignalSpy finished(&status, &QProcess::finished);
    status.start(test::batonBinary(), QStringList {QStringLiteral("status"), QStringLiteral("--kubeconfig"),
                                       writeKubeconfig(participantToken), QStringLiteral("--runs"), lease,
                                       QStringLiteral("-o"), QStringLiteral("json")}
                         + extra);
    if (!finished.wait(20000) || status.exitCode() != 0) {
        qWarning("%s", status.readAllStandardError().constData());
        return {};
    }
    return QJsonDocument::fromJson(status.readAllStandardOutput()).object();
}

void TestKubernetesSchedule::eachTickRunsOnceAcrossAKilledLeaderWithOneConfigMapPerRun()
{
    // S1, S2: two nodes, a tick every two seconds, the leader killed.
    m_lease = uniqueLease(QStringLiteral("ticks"));
    m_log = m_folder.filePath(m_lease + QStringLiteral(".log"));
    const QStringList job {QStringLiteral("--schedule"), QStringLiteral("every 2s"), QStringLiteral("--exec"),
                           QStringLiteral("echo \"$BATON_TICK $BATON_INSTANCE $BATON_FENCING_TOKEN\" >> '%1'")
                                   .arg(m_log)};
    for (const QString &id : {QStringLiteral("k1"), QStringLiteral("k2")})
        start(id, job);
    QTRY_VERIFY_WITH_TIMEOUT(logLines().size() >= 2, 20000);
    ParticipantProcess *first = leader();
    QVERIFY(first);
    const int before = int(logLines().size());

    QSignalSpy died(first, &ParticipantProcess::finished);
    first->sendSignal(SIGKILL);
    QVERIFY(died.wait(10000));
    const auto succeeded = [this, first] {
        const ParticipantProcess *now = leader(first);
        if (!now)
            return 0;
        int count = 0;
        for (const QJsonObject &e : eventsNamed(*now, QStringLiteral("run-finished")))
            count += e.value(QStringLiteral("outcome")).toString() == QLatin1String("succeeded");
        return count;
    };
    QTRY_VERIFY_WITH_TIMEOUT(succeeded() >= 2, 30000);

    const QStringList lines = logLines();
    QVERIFY(lines.size() >= before + 2);
    QSet<QString> ticks;
    QSet<QString> instances;
    for (const QString &line : lines) {
        const QStringList words = line.split(QLatin1Char(' '));
        QCOMPARE(words.size(), 3);
        QVERIFY2(!ticks.contains(words.at(0)), qPrintable(QStringLiteral("tick run twice: ") + line));
        ticks.insert(words.at(0));
        instances.insert(words.at(1));
    }
    QCOMPARE(instances.size(), 2);

    // One ConfigMap per run, named by the tick, labelled with the lease,
    // holding the record with the token the command was given.
    const QHash<QString, QJsonObject> records = storedRecords();
    for (const QString &line : lines) {
        const QStringList words = line.split(QLatin1Char(' '));
        QVERIFY2(records.contains(words.at(0)), qPrintable(QStringLiteral("no ConfigMap for ") + line));
        QCOMPARE(records.value(words.at(0)).value(QStringLiteral("token")).toString(), words.at(2));
        QString safeTick = words.at(0).toLower();
        safeTick.remove(QLatin1Char('-')).remove(QLatin1Char(':'));
        const QJsonObject map = m_server.configMap(ns, QStringLiteral("baton-run-%1-%2").arg(m_lease, safeTick));
        QVERIFY2(!map.isEmpty(), qPrintable(QStringLiteral("no ConfigMap baton-run-%1-%2").arg(m_lease, safeTick)));
        QCOMPARE(map[QStringLiteral("metadata")][QStringLiteral("labels")][QStringLiteral("app.kubernetes.io/managed-by")]
                         .toString(),
                 QStringLiteral("baton"));
    }

    // S4: `baton status --runs` reads the same records from the API server.
    const QJsonObject listed = runsDocument(m_lease);
    QCOMPARE(listed.value(QStringLiteral("kind")).toString(), QStringLiteral("RunList"));
    QSet<QString> listedTicks;
    for (const QJsonValue &item : listed.value(QStringLiteral("items")).toArray()) {
        QCOMPARE(item[QStringLiteral("lease")].toString(), m_lease);
        listedTicks.insert(item[QStringLiteral("tick")].toString());
    }
    for (const QString &tick : std::as_const(ticks))
        QVERIFY2(listedTicks.contains(tick), qPrintable(QStringLiteral("status --runs lacks ") + tick));
    // Across all namespaces the lease is named namespace/name, its runs too.
    const QJsonArray everywhere = runsDocument(ns + QLatin1Char('/') + m_lease, {QStringLiteral("--all-namespaces")})
                                          .value(QStringLiteral("items")).toArray();
    QCOMPARE(everywhere.size(), listed.value(QStringLiteral("items")).toArray().size());
    QCOMPARE(everywhere.first()[QStringLiteral("lease")].toString(), ns + QLatin1Char('/') + m_lease);
    // The participant Role's configmaps rule (resources/kubernetes/participant) is enough,
    // the candidate records of preference and drain included (their get).
    const QSet<QString> role {QStringLiteral("configmaps/get"), QStringLiteral("configmaps/list"),
                              QStringLiteral("configmaps/create"), QStringLiteral("configmaps/update"),
                              QStringLiteral("configmaps/delete")};
    for (const QString &verb : m_server.verbsUsed(QStringLiteral("system:serviceaccount:jobs:participant")))
        QVERIFY2(!verb.startsWith(QStringLiteral("configmaps/")) || role.contains(verb), qPrintable(verb));
}

void TestKubernetesSchedule::anInterruptedRunIsMarkedAndRerunOrNotByPolicy_data()
{
    QTest::addColumn<QString>("policy");
    QTest::addColumn<bool>("rerun");
    QTest::newRow("S2 by default, not rerun") << QString() << false;
    QTest::newRow("S2 rerun: the next leader runs it again") << "rerun" << true;
}

void TestKubernetesSchedule::anInterruptedRunIsMarkedAndRerunOrNotByPolicy()
{
    // S2: the leader is killed while the run of a tick is going; the next
    // leader finds its ConfigMap "running".
    QFETCH(QString, policy);
    QFETCH(bool, rerun);
    m_lease = uniqueLease(QStringLiteral("rerun"));
    m_log = m_folder.filePath(m_lease + QStringLiteral(".log"));
    QStringList job {QStringLiteral("--schedule"), QStringLiteral("every 2s"), QStringLiteral("--exec"),
                     QStringLiteral("echo \"$BATON_TICK $BATON_INSTANCE\" >> '%1'; sleep 60").arg(m_log)};
    if (!policy.isEmpty())
        job << QStringLiteral("--on-interrupted") << policy;
    for (const QString &id : {QStringLiteral("r1"), QStringLiteral("r2")})
        start(id, job);
    QTRY_VERIFY_WITH_TIMEOUT(logLines().size() == 1, 20000);
    ParticipantProcess *first = leader();
    QVERIFY(first);
    const QString tick = logLines().first().split(QLatin1Char(' ')).first();
    QTRY_COMPARE_WITH_TIMEOUT(storedRecords().value(tick).value(QStringLiteral("outcome")).toString(),
                              QStringLiteral("running"), 10000);

    first->sendSignal(SIGKILL);
    QTRY_VERIFY_WITH_TIMEOUT(leader(first), 20000);
    ParticipantProcess *second = leader(first);
    if (rerun) {
        QTRY_COMPARE_WITH_TIMEOUT(logLines().size(), 2, 20000);
        QCOMPARE(logLines().at(1), tick + QLatin1Char(' ') + second->label());
        QTRY_COMPARE_WITH_TIMEOUT(storedRecords().value(tick).value(QStringLiteral("attempt")).toInt(), 2, 10000);
        QCOMPARE(storedRecords().value(tick).value(QStringLiteral("instance")).toString(), second->label());
    } else {
        QTRY_COMPARE_WITH_TIMEOUT(storedRecords().value(tick).value(QStringLiteral("outcome")).toString(),
                                  QStringLiteral("interrupted: leadership ended"), 20000);
        QTRY_COMPARE_WITH_TIMEOUT(logLines().size(), 2, 20000);
        QVERIFY(logLines().at(1).split(QLatin1Char(' ')).first() > tick); // a later tick, not this one
    }
}

void TestKubernetesSchedule::aTickDuringARunIsSkippedAndRecordedInItsConfigMap()
{
    // S3: a run longer than the period; by default the tick is skipped, and
    // its ConfigMap says so.
    m_lease = uniqueLease(QStringLiteral("overlap"));
    m_log = m_folder.filePath(m_lease + QStringLiteral(".log"));
    ParticipantProcess *only = start(QStringLiteral("o1"),
                                     {QStringLiteral("--schedule"), QStringLiteral("every 1s"), QStringLiteral("--exec"),
                                      QStringLiteral("echo \"$BATON_TICK\" >> '%1'; sleep 2.5").arg(m_log)});
    QTRY_VERIFY_WITH_TIMEOUT(eventsNamed(*only, QStringLiteral("run-skipped")).size() >= 2, 30000);
    const QString skippedTick = eventsNamed(*only, QStringLiteral("run-skipped")).first()
                                        .value(QStringLiteral("tick")).toString();
    QTRY_COMPARE_WITH_TIMEOUT(storedRecords().value(skippedTick).value(QStringLiteral("outcome")).toString(),
                              QStringLiteral("skipped: previous run still going"), 10000);
    QVERIFY(!logLines().contains(skippedTick));
}

void TestKubernetesSchedule::withoutConfigMapsInTheRoleNoRunStartsAndTheErrorNamesThem()
{
    // S1: no record, no run. A Role from before scheduled runs lets the
    // election go on but no tick can be claimed; the log says what is missing.
    m_lease = uniqueLease(QStringLiteral("norole"));
    m_log = m_folder.filePath(m_lease + QStringLiteral(".log"));
    ParticipantProcess *only = start(QStringLiteral("n1"),
                                     {QStringLiteral("--schedule"), QStringLiteral("every 1s"), QStringLiteral("--exec"),
                                      QStringLiteral("echo \"$BATON_TICK\" >> '%1'").arg(m_log)},
                                     leaseOnlyToken);
    QTRY_VERIFY_WITH_TIMEOUT(only->isLeading(), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(m_server.count(QStringLiteral("system:serviceaccount:jobs:lease-only"),
                                            QStringLiteral("configmaps/create"), true)
                                     >= 2,
                             20000);
    const auto said = [only](const char *part) { return only->standardError().contains(part); };
    QTRY_VERIFY_WITH_TIMEOUT(said("cannot create resource \\\"configmaps\\\"") || said("cannot create resource \"configmaps\""),
                             10000);
    QVERIFY2(said("on configmaps"), only->standardError().constData());
    QVERIFY(logLines().isEmpty());
}

void TestKubernetesSchedule::aLeaseNameTooLongForALabelIsRefused()
{
    // A label value holds 63 characters: a longer lease name is refused at
    // once, with the reason, rather than kept under a name nobody can select.
    m_lease = QStringLiteral("a").repeated(64);
    QProcess baton;
    QSignalSpy finished(&baton, &QProcess::finished);
    baton.start(test::batonBinary(), {QStringLiteral("join"), QStringLiteral("--config"),
                                      writeConfig(QStringLiteral("long"), participantToken), QStringLiteral("--schedule"),
                                      QStringLiteral("every 10m"), QStringLiteral("--exec"), QStringLiteral("true")});
    QVERIFY(finished.wait(20000));
    QCOMPARE(baton.exitCode(), 2);
    const QString error = QString::fromUtf8(baton.readAllStandardError());
    QVERIFY2(error.contains(QStringLiteral("a label value holds at most 63 characters")), qPrintable(error));
    QVERIFY(storedRecords().isEmpty());
    // Reading is not refused: such a lease has no runs, and says so.
    const QJsonObject listed = runsDocument(m_lease);
    QCOMPARE(listed.value(QStringLiteral("kind")).toString(), QStringLiteral("RunList"));
    QVERIFY(listed.value(QStringLiteral("items")).toArray().isEmpty());
}

QTEST_GUILESS_MAIN(TestKubernetesSchedule)
#include "tst_kubernetes_schedule.moc"
