// `baton status` on Kubernetes (O2, O3): real `baton join` processes
// elect through the test Lease API server (leaseapiserver.h, TLS, bearer
// tokens) and real `baton status` processes observe them. What the
// observer sent over the wire comes from the server's per-user verb
// counters (B5); what it saw comes from its own output.

#include "eventstream.h"
#include "kubeconfig.h"
#include "kubernetesleaseprotocol.h"
#include "leaseapiserver.h"
#include <baton/leaseobserver.h>
#include "leaseobserver_p.h"
#include "participantprocess.h"
#include "participants.h"
#include "testcertificates.h"
#include "testsecrets.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace baton;

namespace {

constexpr qint64 leaseMs = 2000;
constexpr qint64 renewMs = 500;
const QString ns = QStringLiteral("ks");

// The tokens of the test: none of them may ever show in an output (R2).
const QString participantToken = test::testSecret(QStringLiteral("kube-token-participant"));
const QString observerToken = test::testSecret(QStringLiteral("kube-token-observer"));
const QString listerToken = test::testSecret(QStringLiteral("kube-token-lister"));
const QString wrongToken = test::testSecret(QStringLiteral("kube-token-wrong"));
const QString getterToken = test::testSecret(QStringLiteral("kube-token-getter"));

const QString observerUser = QStringLiteral("system:serviceaccount:baton-system:baton-observer");
const QString listerUser = QStringLiteral("system:serviceaccount:baton-system:lister");

QJsonObject leaseObject(const QString &holder, int seconds)
{
    const QString now = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzz000Z"));
    return {{QStringLiteral("apiVersion"), QStringLiteral("coordination.k8s.io/v1")},
            {QStringLiteral("kind"), QStringLiteral("Lease")},
            {QStringLiteral("spec"),
             QJsonObject {{QStringLiteral("holderIdentity"), holder},
                          {QStringLiteral("leaseDurationSeconds"), seconds},
                          {QStringLiteral("acquireTime"), now},
                          {QStringLiteral("renewTime"), now},
                          {QStringLiteral("leaseTransitions"), 0}}}};
}

/*! A `baton status` process, its output read as it comes. */
class StatusProcess
{
public:
    explicit StatusProcess(const QStringList &arguments)
    {
        QObject::connect(&m_process, &QProcess::readyReadStandardOutput, [this] {
            m_stdout += m_process.readAllStandardOutput();
        });
        QObject::connect(&m_process, &QProcess::readyReadStandardError, [this] {
            m_stderr += m_process.readAllStandardError();
        });
        m_process.start(test::batonBinary(), QStringList {QStringLiteral("status")} + arguments);
    }
    ~StatusProcess()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
        // R2: every output of every status process goes to the secrets scan.
        m_stdout += m_process.readAllStandardOutput();
        m_stderr += m_process.readAllStandardError();
        test::keepArtifact(test::ArtifactKind::Status, QStringLiteral("status.out"), m_stdout);
        test::keepArtifact(test::ArtifactKind::ParticipantLog, QStringLiteral("status.log"), m_stderr);
    }

    bool waitForExit()
    {
        if (m_process.state() == QProcess::NotRunning)
            return true;
        QSignalSpy finished(&m_process, &QProcess::finished);
        return finished.wait(15000);
    }
    void terminate() { ::kill(pid_t(m_process.processId()), SIGTERM); }
    int exitCode() const { return m_process.exitCode(); }
    QByteArray out() const { return m_stdout; }
    QByteArray err() const { return m_stderr; }

    QList<QJsonObject> records() const
    {
        QList<QJsonObject> found;
        for (const QByteArray &line : m_stdout.split('\n'))
            if (!line.isEmpty())
                found << test::parseEventLine(line);
        return found;
    }
    /*! The last `lease` snapshot record of \a lease, or an empty object. */
    QJsonObject lease(const QString &lease) const
    {
        QJsonObject last;
        for (const QJsonObject &r : records())
            if (r.value(QStringLiteral("event")).toString() == QStringLiteral("lease")
                && r.value(QStringLiteral("lease")).toString() == lease)
                last = r;
        return last;
    }
    /*! The leader-changed records of \a lease, in order. */
    QList<QJsonObject> changes(const QString &lease) const
    {
        QList<QJsonObject> found;
        for (const QJsonObject &r : records())
            if (r.value(QStringLiteral("event")).toString() == QStringLiteral("leader-changed")
                && r.value(QStringLiteral("lease")).toString() == lease)
                found << r;
        return found;
    }

private:
    QProcess m_process;
    QByteArray m_stdout;
    QByteArray m_stderr;
};

} // namespace

class TestKubernetesStatus : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void statusListsTheLeaseWithItsHolder();
    void watchSeesAFailoverWithItsCause();
    void withWatchDeniedItPollsAndStillSeesTheChange();
    void allNamespacesShowsLeasesOfEveryNamespace();
    void malformedLeaseIsAnErrorLineAndTheOthersStillShow();
    void refusedCredentialsAreAClearError();
    void aJoinWhoseTokenIsRefusedGivesUpWithOneError();
    void aWatchTooOldRelistsAndFollowsOn();
    void cleanup();
    void noTokenInAnyOutput();

private:
    QStringList kube(const QString &context) const;
    ParticipantProcess *start(const QString &id, const QString &leaseName,
                              const QString &context = QStringLiteral("participant"));
    ParticipantProcess *leader() const;
    void keep(const StatusProcess &status);
    void checkObserverUsedOnlyGetListWatch(const QString &user);

    QTemporaryDir m_folder;
    test::TestCertificates m_certificates;
    test::LeaseApiServer m_server;
    QString m_kubeconfig;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
    QByteArray m_allOutput;
};

void TestKubernetesStatus::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
    QString error;
    QVERIFY2(m_certificates.generate(m_folder.path(), &error), qPrintable(error));
    QVERIFY2(m_server.setTls(m_certificates.serverCertFile(), m_certificates.serverKeyFile(), {}, &error),
             qPrintable(error));
    QVERIFY2(m_server.listen(&error), qPrintable(error));
    // B5: a watching participant, and the observer ClusterRole of
    // resources/kubernetes/observer/clusterrole.yaml (get, list, watch).
    m_server.addToken(participantToken, QStringLiteral("system:serviceaccount:ks:participant"),
                      {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
                       QStringLiteral("list"), QStringLiteral("watch")});
    m_server.addToken(observerToken, observerUser,
                      {QStringLiteral("get"), QStringLiteral("list"), QStringLiteral("watch")});
    m_server.addToken(listerToken, listerUser, {QStringLiteral("get"), QStringLiteral("list")});
    m_server.addToken(getterToken, QStringLiteral("system:serviceaccount:baton-system:getter"),
                      {QStringLiteral("get")});

    // One kubeconfig, a context per identity, as an operator's would be.
    m_kubeconfig = m_folder.filePath(QStringLiteral("kubeconfig"));
    QFile file(m_kubeconfig);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QString yaml = QStringLiteral("apiVersion: v1\nkind: Config\ncurrent-context: participant\n"
                                  "clusters:\n- name: test\n  cluster:\n    server: %1\n"
                                  "    certificate-authority: %2\ncontexts:\n")
                           .arg(m_server.url().toString(), m_certificates.caFile());
    const QList<QPair<QString, QString>> identities {{QStringLiteral("participant"), participantToken},
                                                      {QStringLiteral("observer"), observerToken},
                                                      {QStringLiteral("lister"), listerToken},
                                                      {QStringLiteral("wrong"), wrongToken},
                                                      {QStringLiteral("getter"), getterToken}};
    for (const auto &[name, token] : identities)
        yaml += QStringLiteral("- name: %1\n  context:\n    cluster: test\n    user: %1\n    namespace: %2\n")
                        .arg(name, ns);
    yaml += QStringLiteral("users:\n");
    for (const auto &[name, token] : identities)
        yaml += QStringLiteral("- name: %1\n  user:\n    token: %2\n").arg(name, token);
    file.write(yaml.toUtf8());
}

QStringList TestKubernetesStatus::kube(const QString &context) const
{
    return {QStringLiteral("--kube-context"), context, QStringLiteral("--kubeconfig"), m_kubeconfig};
}

ParticipantProcess *TestKubernetesStatus::start(const QString &id, const QString &leaseName,
                                                const QString &context)
{
    const QJsonObject config {
            {QStringLiteral("services"),
             QJsonObject {{QStringLiteral("cluster"),
                           QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/KubernetesClusterService")},
                                        {QStringLiteral("config"), m_kubeconfig},
                                        {QStringLiteral("context"), context},
                                        {QStringLiteral("leaseName"), leaseName},
                                        {QStringLiteral("instanceId"), id},
                                        {QStringLiteral("leaseDuration"), leaseMs},
                                        {QStringLiteral("renewInterval"), renewMs}}}}}};
    const QString path = m_folder.filePath(id + QStringLiteral(".json"));
    if (!test::writeJsonFile(path, config))
        return nullptr;
    m_participants.push_back(test::startParticipant(id, path));
    return m_participants.back().get();
}

ParticipantProcess *TestKubernetesStatus::leader() const
{
    ParticipantProcess *found = nullptr;
    for (const auto &p : m_participants)
        if (p->isLeading())
            found = found ? nullptr : p.get(); // two leaders: none to name
    return found;
}

void TestKubernetesStatus::keep(const StatusProcess &status)
{
    m_allOutput += status.out() + status.err();
}

void TestKubernetesStatus::checkObserverUsedOnlyGetListWatch(const QString &user)
{
    // B5: a read-only observer needs get, list and watch, and uses nothing else.
    const QSet<QString> used = m_server.verbsUsed(user);
    QVERIFY2((used - QSet<QString> {QStringLiteral("get"), QStringLiteral("list"), QStringLiteral("watch")}).isEmpty(),
             qPrintable(QJsonDocument(m_server.counters()).toJson()));
    for (const QString &verb : {QStringLiteral("create"), QStringLiteral("update"), QStringLiteral("delete")}) {
        QCOMPARE(m_server.count(user, verb), 0);
        QCOMPARE(m_server.count(user, verb, true), 0);
    }
}

void TestKubernetesStatus::statusListsTheLeaseWithItsHolder()
{
    // O2, O3: `baton status --json` on Kubernetes prints what it does for a Registry.
    const QString lease = QStringLiteral("jobs");
    QVERIFY(start(QStringLiteral("j1"), lease));
    QVERIFY(start(QStringLiteral("j2"), lease));
    QTRY_VERIFY_WITH_TIMEOUT(leader() != nullptr, 15000);
    const QString holder = leader()->instanceId();
    QTRY_COMPARE_WITH_TIMEOUT(m_server.lease(ns, lease)[QStringLiteral("spec")][QStringLiteral("holderIdentity")].toString(),
                              holder, 5000);

    StatusProcess json(kube(QStringLiteral("observer")) << QStringLiteral("--json"));
    QVERIFY(json.waitForExit());
    keep(json);
    QVERIFY2(json.exitCode() == 0, json.err().constData());
    const QJsonObject record = json.lease(lease);
    QVERIFY2(!record.isEmpty(), json.out().constData());
    QCOMPARE(record.value(QStringLiteral("holder")).toString(), holder);
    QCOMPARE(record.value(QStringLiteral("leaseDurationMs")).toInteger(), leaseMs);
    QVERIFY(!record.contains(QStringLiteral("error")));
    QCOMPARE(record.value(QStringLiteral("expired")).toBool(), false);

    // The table, for people: the lease and its holder on one line.
    StatusProcess table(kube(QStringLiteral("observer")));
    QVERIFY(table.waitForExit());
    keep(table);
    QCOMPARE(table.exitCode(), 0);
    const QList<QByteArray> lines = table.out().split('\n');
    QVERIFY2(std::any_of(lines.begin(), lines.end(),
                         [&](const QByteArray &line) {
                             return line.startsWith(lease.toUtf8() + ' ') && line.contains(holder.toUtf8())
                                     && line.contains("held");
                         }),
             table.out().constData());
    checkObserverUsedOnlyGetListWatch(observerUser);

    // B4, O3: the participant's own configuration (a Kubernetes election,
    // no Registry) names the same Leases: status reads them, not the host's
    // default Registry, which it used to report missing.
    StatusProcess configured({QStringLiteral("--config"), m_folder.filePath(QStringLiteral("j1.json"))});
    QVERIFY(configured.waitForExit());
    keep(configured);
    QVERIFY2(configured.exitCode() == 0, configured.err().constData());
    const QList<QByteArray> configuredLines = configured.out().split('\n');
    QVERIFY2(std::any_of(configuredLines.begin(), configuredLines.end(),
                         [&](const QByteArray &line) {
                             return line.startsWith(lease.toUtf8() + ' ') && line.contains(holder.toUtf8());
                         }),
             (configured.out() + configured.err()).constData());
    QVERIFY2(!configured.err().contains("registry"), configured.err().constData());
}

void TestKubernetesStatus::watchSeesAFailoverWithItsCause()
{
    // O2, O3: --watch follows the Lease and names each holder change with
    // its cause, as the participants' leader-changed records do (O5).
    const QString lease = QStringLiteral("failover");
    QVERIFY(start(QStringLiteral("f1"), lease));
    QVERIFY(start(QStringLiteral("f2"), lease));
    QTRY_VERIFY_WITH_TIMEOUT(leader() != nullptr, 15000);
    ParticipantProcess *first = leader();
    QTRY_COMPARE_WITH_TIMEOUT(m_server.lease(ns, lease)[QStringLiteral("spec")][QStringLiteral("holderIdentity")].toString(),
                              first->instanceId(), 5000);

    const QString historyPath = m_folder.filePath(QStringLiteral("failover-history.csv"));
    const int watchesBefore = m_server.count(observerUser, QStringLiteral("watch"));
    StatusProcess status(kube(QStringLiteral("observer"))
                         << QStringLiteral("--watch") << QStringLiteral("--json") << QStringLiteral("--history")
                         << historyPath);
    QTRY_COMPARE_WITH_TIMEOUT(status.lease(lease).value(QStringLiteral("holder")).toString(), first->instanceId(), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(m_server.count(observerUser, QStringLiteral("watch")) > watchesBefore, 5000);

    // F5: SIGTERM to the leader releases the Lease; the other takes it.
    QSignalSpy exited(first, &ParticipantProcess::finished);
    first->sendSignal(SIGTERM);
    QVERIFY(exited.wait(10000));
    QTRY_VERIFY_WITH_TIMEOUT(leader() != nullptr, 10000);
    const QString second = leader()->instanceId();
    QVERIFY(second != first->instanceId());
    QTRY_VERIFY_WITH_TIMEOUT(status.changes(lease).size() >= 2, 10000);
    const QList<QJsonObject> changes = status.changes(lease);
    QCOMPARE(changes[0].value(QStringLiteral("from")).toString(), first->instanceId());
    QCOMPARE(changes[0].value(QStringLiteral("to")).toString(), QString());
    QCOMPARE(changes[0].value(QStringLiteral("why")).toString(), QStringLiteral("released"));
    // O1: the take-up completes the release: one handover, from, to, gap.
    QCOMPARE(changes[1].value(QStringLiteral("from")).toString(), first->instanceId());
    QCOMPARE(changes[1].value(QStringLiteral("to")).toString(), second);
    QCOMPARE(changes[1].value(QStringLiteral("why")).toString(), QStringLiteral("released"));
    QVERIFY(changes[1].contains(QStringLiteral("gapMs")));
    QVERIFY(test::monoOf(changes[1]) >= test::monoOf(changes[0]));

    // SIGTERM ends the observer with success and its history on disk (O2).
    status.terminate();
    QVERIFY(status.waitForExit());
    keep(status);
    QCOMPARE(status.exitCode(), 0);
    test::keepArtifactFile(test::ArtifactKind::Export, historyPath);
    QFile history(historyPath);
    QVERIFY(history.open(QIODevice::ReadOnly));
    const QByteArray csv = history.readAll();
    QVERIFY2(csv.contains(QStringLiteral("%1,%2,%3,released").arg(lease, first->instanceId(), second).toUtf8()),
             csv.constData());
    // The first acquisition happened before the observer started: it is
    // there only as read from the Lease's stored history, marked recorded,
    // and the handover is never called a first acquisition.
    QStringList firstAcquisitions;
    for (const QByteArray &line : csv.split('\n'))
        if (line.startsWith(lease.toUtf8() + ',') && line.contains(",first-acquire,"))
            firstAcquisitions << QString::fromUtf8(line).trimmed();
    QCOMPARE(firstAcquisitions.size(), 1);
    QVERIFY2(firstAcquisitions[0].startsWith(QStringLiteral("%1,,%2,first-acquire,").arg(lease, first->instanceId())),
             csv.constData());
    QVERIFY2(firstAcquisitions[0].endsWith(QStringLiteral(",true")), csv.constData());
    checkObserverUsedOnlyGetListWatch(observerUser);
}

void TestKubernetesStatus::withWatchDeniedItPollsAndStillSeesTheChange()
{
    // B5: without watch, the observer lists every pollInterval; the 403 is
    // logged once at info, and the change is still seen.
    const QString lease = QStringLiteral("polled");
    m_server.putRaw(ns, lease, leaseObject(QStringLiteral("alpha"), 30));
    StatusProcess status(kube(QStringLiteral("lister")) << QStringLiteral("--watch") << QStringLiteral("--json"));
    QTRY_COMPARE_WITH_TIMEOUT(status.lease(lease).value(QStringLiteral("holder")).toString(), QStringLiteral("alpha"),
                              10000);
    QTRY_COMPARE_WITH_TIMEOUT(m_server.count(listerUser, QStringLiteral("watch"), true), 1, 5000);
    const int lists = m_server.count(listerUser, QStringLiteral("list"));
    QTRY_VERIFY_WITH_TIMEOUT(m_server.count(listerUser, QStringLiteral("list")) > lists, 5000);

    m_server.putRaw(ns, lease, leaseObject(QStringLiteral("beta"), 30));
    QTRY_VERIFY_WITH_TIMEOUT(!status.changes(lease).isEmpty(), 10000);
    const QJsonObject change = status.changes(lease).constFirst();
    QCOMPARE(change.value(QStringLiteral("from")).toString(), QStringLiteral("alpha"));
    QCOMPARE(change.value(QStringLiteral("to")).toString(), QStringLiteral("beta"));
    QVERIFY(!change.value(QStringLiteral("why")).toString().isEmpty());

    status.terminate();
    QVERIFY(status.waitForExit());
    keep(status);
    QCOMPARE(status.exitCode(), 0);
    const QString log = QString::fromUtf8(status.err());
    QCOMPARE(log.count(QStringLiteral("may not watch leases")), 1);
    QVERIFY2(log.contains(QStringLiteral("baton.kube.info")) || log.contains(QStringLiteral(" info: ")), qPrintable(log));
    QCOMPARE(m_server.count(listerUser, QStringLiteral("watch"), true), 1);
    checkObserverUsedOnlyGetListWatch(listerUser);
}

void TestKubernetesStatus::allNamespacesShowsLeasesOfEveryNamespace()
{
    // O2: all namespaces, each lease named namespace/name; one namespace
    // shows its own only.
    m_server.putRaw(QStringLiteral("team-a"), QStringLiteral("reports"), leaseObject(QStringLiteral("a-1"), 15));
    m_server.putRaw(QStringLiteral("team-b"), QStringLiteral("reports"), leaseObject(QStringLiteral("b-1"), 15));

    StatusProcess all(kube(QStringLiteral("observer")) << QStringLiteral("--all-namespaces") << QStringLiteral("--json"));
    QVERIFY(all.waitForExit());
    keep(all);
    QVERIFY2(all.exitCode() == 0, all.err().constData());
    QCOMPARE(all.lease(QStringLiteral("team-a/reports")).value(QStringLiteral("holder")).toString(), QStringLiteral("a-1"));
    QCOMPARE(all.lease(QStringLiteral("team-b/reports")).value(QStringLiteral("holder")).toString(), QStringLiteral("b-1"));

    StatusProcess one(kube(QStringLiteral("observer")) << QStringLiteral("--namespace") << QStringLiteral("team-b")
                                                       << QStringLiteral("--json"));
    QVERIFY(one.waitForExit());
    keep(one);
    QCOMPARE(one.exitCode(), 0);
    QCOMPARE(one.records().size(), 1);
    QCOMPARE(one.lease(QStringLiteral("reports")).value(QStringLiteral("holder")).toString(), QStringLiteral("b-1"));
    checkObserverUsedOnlyGetListWatch(observerUser);
}

void TestKubernetesStatus::malformedLeaseIsAnErrorLineAndTheOthersStillShow()
{
    // R1: a Lease the observer cannot trust is shown as an error naming the
    // field; the others show as usual and nothing crashes.
    const QString mixed = QStringLiteral("mixed");
    m_server.putRaw(mixed, QStringLiteral("fine"), leaseObject(QStringLiteral("good-holder"), 15));
    QJsonObject broken = leaseObject(QStringLiteral("bad-holder"), 15);
    QJsonObject spec = broken[QStringLiteral("spec")].toObject();
    spec[QStringLiteral("leaseDurationSeconds")] = -5;
    broken[QStringLiteral("spec")] = spec;
    m_server.putRaw(mixed, QStringLiteral("broken"), broken);

    StatusProcess json(kube(QStringLiteral("observer")) << QStringLiteral("--namespace") << mixed
                                                        << QStringLiteral("--json"));
    QVERIFY(json.waitForExit());
    keep(json);
    QVERIFY2(json.exitCode() == 0, json.err().constData());
    QCOMPARE(json.lease(QStringLiteral("fine")).value(QStringLiteral("holder")).toString(), QStringLiteral("good-holder"));
    const QJsonObject bad = json.lease(QStringLiteral("broken"));
    QVERIFY2(bad.value(QStringLiteral("error")).toString().contains(QStringLiteral("spec.leaseDurationSeconds")),
             json.out().constData());
    QCOMPARE(bad.value(QStringLiteral("holder")).toString(), QString()); // never guessed

    StatusProcess table(kube(QStringLiteral("observer")) << QStringLiteral("--namespace") << mixed);
    QVERIFY(table.waitForExit());
    keep(table);
    QCOMPARE(table.exitCode(), 0);
    QVERIFY2(table.out().contains("unreadable: unusable Lease: spec.leaseDurationSeconds is -5"), table.out().constData());
    QVERIFY2(table.out().contains("good-holder"), table.out().constData());
}

void TestKubernetesStatus::refusedCredentialsAreAClearError()
{
    // R1, R2: a refused token is one clear error naming the kubeconfig, not the token.
    StatusProcess wrong(kube(QStringLiteral("wrong")));
    QVERIFY(wrong.waitForExit());
    keep(wrong);
    QCOMPARE(wrong.exitCode(), 1);
    const QString error = QString::fromUtf8(wrong.err());
    QVERIFY2(error.contains(QStringLiteral("401 Unauthorized")), qPrintable(error));
    QVERIFY2(error.contains(m_kubeconfig), qPrintable(error));

    // B5: without list there is nothing to observe; the error names the Role to grant.
    StatusProcess forbidden(kube(QStringLiteral("getter")));
    QVERIFY(forbidden.waitForExit());
    keep(forbidden);
    QCOMPARE(forbidden.exitCode(), 1);
    const QString refused = QString::fromUtf8(forbidden.err());
    QVERIFY2(refused.contains(QStringLiteral("403 Forbidden")), qPrintable(refused));
    QVERIFY2(refused.contains(QStringLiteral("resources/kubernetes/observer/clusterrole.yaml")), qPrintable(refused));

    // An unknown context: bad usage, nothing sent.
    StatusProcess unknown(kube(QStringLiteral("nowhere")));
    QVERIFY(unknown.waitForExit());
    keep(unknown);
    QCOMPARE(unknown.exitCode(), 2);
    QVERIFY2(unknown.err().contains("nowhere"), unknown.err().constData());
}

void TestKubernetesStatus::aJoinWhoseTokenIsRefusedGivesUpWithOneError()
{
    // B6, R2: every request of a participant whose token the API server
    // refuses (401) is refused credentials; after the bound, one error line
    // naming the lease, the kubeconfig and what to mend, exit 77, never
    // leading, the token never printed. Without the bound, the wait fails.
    ParticipantProcess *refused = start(QStringLiteral("refused"), QStringLiteral("refused"),
                                        QStringLiteral("wrong"));
    QVERIFY(refused);
    QSignalSpy finished(refused, &ParticipantProcess::finished);
    if (refused->isRunning())
        QVERIFY2(finished.wait(int(test::scaledMs(60000))), refused->standardError().constData());
    const QByteArray err = refused->standardError();
    QCOMPARE(refused->exitStatus(), QProcess::NormalExit);
    QVERIFY2(refused->exitCode() == 77, err.constData());
    int refusals = 0;
    for (const QJsonObject &event : refused->events()) {
        QVERIFY(event.value(QStringLiteral("event")).toString() != QLatin1String("started-leading"));
        if (event.value(QStringLiteral("errorKind")).toString() == QLatin1String("credentials-refused"))
            ++refusals;
    }
    QCOMPARE(refusals, 5);
    QList<QByteArray> givingUp;
    for (const QByteArray &line : err.split('\n'))
        if (line.contains("credentials refused"))
            givingUp << line;
    QCOMPARE(givingUp.size(), 1);
    for (const QByteArray &named : {QByteArray("lease \"refused\""), m_kubeconfig.toUtf8(),
                                    QByteArray("401 Unauthorized"), QByteArray("token"),
                                    QByteArray("exit status 77")})
        QVERIFY2(givingUp.first().contains(named), givingUp.first().constData());
    QVERIFY2(!err.contains(wrongToken.toUtf8()), "the token was printed");
}

void TestKubernetesStatus::aWatchTooOldRelistsAndFollowsOn()
{
    // O2 in process: a watch resumed from a version the server forgot gets
    // 410 Gone; the source lists again and follows on from the new list.
    m_server.setBookmarkInterval(60000);
    KubeClientConfig config;
    QString error;
    KubeConfigOptions options;
    options.configPath = m_kubeconfig;
    options.context = QStringLiteral("observer");
    options.namespaceName = QStringLiteral("relist");
    QVERIFY2(kubeconfig::resolve(options, QProcessEnvironment::systemEnvironment(), &config, &error), qPrintable(error));
    auto *source = new KubernetesLeaseProtocol(config, false, 5000);
    QVERIFY2(source->setUp(&error), qPrintable(error));
    const std::unique_ptr<LeaseObserver> owned(LeaseObserverPrivate::create(source, nullptr, nullptr));
    LeaseObserver &observer = *owned;
    m_server.putRaw(QStringLiteral("relist"), QStringLiteral("one"), leaseObject(QStringLiteral("h1"), 15));
    QSignalSpy ready(&observer, &LeaseObserver::ready);
    const int lists = m_server.count(observerUser, QStringLiteral("list"));
    const int watches = m_server.count(observerUser, QStringLiteral("watch"));
    observer.start();
    QVERIFY(ready.wait(5000));
    QVERIFY(observer.lease(QStringLiteral("one")));
    QTRY_COMPARE_WITH_TIMEOUT(m_server.count(observerUser, QStringLiteral("watch")), watches + 1, 5000);

    // Elsewhere the version moves on; then the history goes and the stream ends.
    m_server.putRaw(QStringLiteral("elsewhere"), QStringLiteral("x"), leaseObject(QStringLiteral("hx"), 15));
    m_server.compactHistory();
    m_server.endAllWatches();
    QTRY_COMPARE_WITH_TIMEOUT(m_server.count(observerUser, QStringLiteral("list")), lists + 2, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(m_server.count(observerUser, QStringLiteral("watch")) >= watches + 3, 5000);

    // Following on: a change and a removal arrive by the new watch.
    QSignalSpy failovers(&observer, &LeaseObserver::failover);
    m_server.putRaw(QStringLiteral("relist"), QStringLiteral("one"), leaseObject(QStringLiteral("h2"), 15));
    QVERIFY(failovers.wait(5000));
    QCOMPARE(failovers.constLast().constFirst().value<LeaseFailover>().to, QStringLiteral("h2"));
    QCOMPARE(m_server.count(observerUser, QStringLiteral("list")), lists + 2);
    observer.stop();
    m_server.setBookmarkInterval(1000);
}

void TestKubernetesStatus::cleanup()
{
    for (const auto &p : m_participants) {
        if (p->isRunning()) {
            QSignalSpy finished(p.get(), &ParticipantProcess::finished);
            p->sendSignal(SIGTERM);
            finished.wait(10000);
        }
        m_allOutput += p->standardError();
        if (QTest::currentTestFailed())
            qWarning("--- %s ---\n%s", qPrintable(p->label()), p->standardError().constData());
    }
    m_participants.clear();
}

void TestKubernetesStatus::noTokenInAnyOutput()
{
    // R2: every output and log of every status and join process of this
    // test, searched for every token the server knows.
    QVERIFY(m_allOutput.size() > 1000);
    for (const QString &token : {participantToken, observerToken, listerToken, wrongToken, getterToken})
        QVERIFY2(!m_allOutput.contains(token.toUtf8()), qPrintable(token));
}

QTEST_GUILESS_MAIN(TestKubernetesStatus)
#include "tst_kubernetes_status.moc"
