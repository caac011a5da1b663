// Real `baton join` processes electing through a Kubernetes Lease, on the
// test Lease API server (leaseapiserver.h) run inside this test over TLS
// with bearer tokens. Every fact about timing comes from the processes' own
// event streams (O5) on CLOCK_BOOTTIME; every fact about what went over
// the wire comes from the server's per-user verb counters.

#include <baton/clock.h>
#include "leaseapiserver.h"
#include <batoninternal/leasehistory.h>
#include "eventstream.h"
#include "participantprocess.h"
#include "participants.h"
#include "testcertificates.h"
#include "testsecrets.h"
#include "testsupport.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstdio>

using namespace baton;
using namespace baton::test;

namespace {

// The lease and renewal of this run, BATON_TEST_TIME_SCALE times those of a
// quiet machine; every bound below is derived from them.
const qint64 leaseMs = scaledMs(2000);
const qint64 renewMs = scaledMs(500);
const QString ns = QStringLiteral("e2e");

// The tokens of the test: none of them may ever show in a log (R2).
const QString watchToken = test::testSecret(QStringLiteral("kube-token-watch"));
const QString pollToken = test::testSecret(QStringLiteral("kube-token-poll"));
const QString noUpdateToken = test::testSecret(QStringLiteral("kube-token-noupdate"));
const QString adminToken = test::testSecret(QStringLiteral("kube-token-admin"));
// The watcher's Role, for one participant whose requests a test tells apart.
const QString lateJoinerToken = test::testSecret(QStringLiteral("kube-token-late-joiner"));
const QString lateJoinerUser = QStringLiteral("system:serviceaccount:e2e:late-joiner");
// A `tokenFile` before and after its rotation: the second of the same
// length as the first, the third longer.
const QString rotatedToken1 = test::testSecret(QStringLiteral("kube-token-rotated-1"));
const QString rotatedToken2 = test::testSecret(QStringLiteral("kube-token-rotated-2"));
const QString rotatedTokenLong = test::testSecret(QStringLiteral("kube-token-rotated-long"));

/*! The user the test server knows a rotated token as. */
QString rotatedUser(const QString &token)
{
    return QStringLiteral("system:serviceaccount:e2e:") + token.section(QLatin1Char('-'), -2);
}

/*!
 * Replaces \a path as the kubelet and systemd do, by a rename, so that a
 * reader never sees half a token; with \a keepTime the new file carries the
 * old one's modification time, as `cp -p` or `rsync -t` would leave it.
 */
bool replaceTokenFile(const QString &path, const QString &token, bool keepTime)
{
    const QDateTime oldTime = QFileInfo(path).lastModified();
    const QString next = path + QStringLiteral(".next");
    QFile file(next);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)
        || file.write(token.toUtf8()) != token.toUtf8().size())
        return false;
    if (!file.flush())
        return false;
    if (keepTime && !file.setFileTime(oldTime, QFileDevice::FileModificationTime))
        return false;
    file.close();
    return std::rename(QFile::encodeName(next).constData(), QFile::encodeName(path).constData()) == 0;
}

QList<QJsonObject> eventsNamed(const ParticipantProcess &p, const QString &name)
{
    QList<QJsonObject> found;
    for (const QJsonObject &e : p.events())
        if (e.value(QStringLiteral("event")).toString() == name)
            found << e;
    return found;
}

} // namespace

class TestKubernetesElection : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void oneLeaderCrashTakeoverAndWatchFastHandover();
    void twoProcessesWithOneInstanceIdNeverBothLead();
    void twoCrashesAndAHandoverAreStoredWithTheLeaseAndToldAsEvents();
    void aHandoverGoesToTheNamedSuccessorAndTheThirdNeverLeads();
    void tryZeroLetsTheAttemptAfterAReleaseDecide();
    void pollingParticipantUsesOnlyGetCreateUpdate();
    void conflictStormNeverMakesTwoLeaders();
    void withoutUpdateItGetsAClear403AndNeverLeads();
    void malformedLeaseIsAnErrorNeverALeader_data();
    void malformedLeaseIsAnErrorNeverALeader();
    void malformedKubeconfigIsAClearError_data();
    void malformedKubeconfigIsAClearError();
    void tokenFileRewrittenWhileLeadingIsUsedFromTheNextRequest_data();
    void tokenFileRewrittenWhileLeadingIsUsedFromTheNextRequest();
    void cleanup();
    void noTokenInAnyLog();

private:
    QString writeKubeconfig(const QString &token);
    /*! Starts the participant \a id, elected as \a instanceId (default: \a id), with \a extra arguments. */
    ParticipantProcess *start(const QString &id, const QString &leaseName, const QString &token,
                              const QString &instanceId = {}, const QStringList &extra = {},
                              qint64 leaseDurationMs = leaseMs);
    int leaders() const;
    ParticipantProcess *leader() const;
    void checkAuthorityNeverOverlaps();
    void writeLease(const QString &name, const QJsonObject &spec);

    QTemporaryDir m_folder;
    test::TestCertificates m_certificates;
    test::LeaseApiServer m_server;
    QNetworkAccessManager m_network;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
    QByteArray m_allOutput;
    QHash<QString, QString> m_kubeconfigs;
    int m_malformedRow = 0;
};

void TestKubernetesElection::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
    QString error;
    QVERIFY2(m_certificates.generate(m_folder.path(), &error), qPrintable(error));
    QVERIFY2(m_server.setTls(m_certificates.serverCertFile(), m_certificates.serverKeyFile(), {}, &error),
             qPrintable(error));
    QVERIFY2(m_server.listen(&error), qPrintable(error));
    // B5: the Roles of resources/kubernetes/, as tokens.
    m_server.addToken(watchToken, QStringLiteral("system:serviceaccount:e2e:watcher"),
                      {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
                       QStringLiteral("list"), QStringLiteral("watch")});
    m_server.addToken(pollToken, QStringLiteral("system:serviceaccount:e2e:poller"),
                      {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update")});
    m_server.addToken(noUpdateToken, QStringLiteral("system:serviceaccount:e2e:no-update"),
                      {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("list"),
                       QStringLiteral("watch")});
    m_server.addToken(lateJoinerToken, lateJoinerUser,
                      {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
                       QStringLiteral("list"), QStringLiteral("watch")});
    m_server.addToken(adminToken, QStringLiteral("admin"),
                      {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
                       QStringLiteral("list"), QStringLiteral("watch"), QStringLiteral("delete")});
}

QString TestKubernetesElection::writeKubeconfig(const QString &token)
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

ParticipantProcess *TestKubernetesElection::start(const QString &id, const QString &leaseName,
                                                  const QString &token, const QString &instanceId,
                                                  const QStringList &extra, qint64 leaseDurationMs)
{
    const QJsonObject config {
            {QStringLiteral("services"),
             QJsonObject {{QStringLiteral("cluster"),
                           QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/KubernetesClusterService")},
                                        {QStringLiteral("config"), writeKubeconfig(token)},
                                        {QStringLiteral("leaseName"), leaseName},
                                        {QStringLiteral("instanceId"), instanceId.isEmpty() ? id : instanceId},
                                        {QStringLiteral("leaseDuration"), leaseDurationMs},
                                        {QStringLiteral("renewInterval"), renewMs}}}}}};
    const QString path = m_folder.filePath(id + QStringLiteral(".json"));
    if (!test::writeJsonFile(path, config))
        return nullptr;
    // /metrics served for the secrets scan (R2): each process holds a token.
    m_participants.push_back(
            test::startParticipant(id, path, QStringList {QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")} + extra));
    return m_participants.back().get();
}

int TestKubernetesElection::leaders() const
{
    int count = 0;
    for (const auto &p : m_participants)
        count += p->isLeading() ? 1 : 0;
    return count;
}

ParticipantProcess *TestKubernetesElection::leader() const
{
    for (const auto &p : m_participants)
        if (p->isLeading())
            return p.get();
    return nullptr;
}

void TestKubernetesElection::checkAuthorityNeverOverlaps()
{
    // F1: each term's authority, from started-leading to the validUntilMono
    // of its stopped-leading (or open), never overlaps another's.
    QList<QPair<qint64, qint64>> terms;
    for (const auto &p : m_participants) {
        const QList<QJsonObject> starts = eventsNamed(*p, QStringLiteral("started-leading"));
        const QList<QJsonObject> stops = eventsNamed(*p, QStringLiteral("stopped-leading"));
        // A killed leader's authority ended at its F4 deadline: half of
        // lease + renew after the start of its last successful attempt.
        qint64 killedEnd = std::numeric_limits<qint64>::max();
        if (!p->isRunning()) {
            for (const QJsonObject &a : eventsNamed(*p, QStringLiteral("attempt"))) {
                const QString outcome = a.value(QStringLiteral("outcome")).toString();
                if (outcome == QStringLiteral("acquired") || outcome == QStringLiteral("renewed"))
                    killedEnd = monoOf(a) - qint64(a.value(QStringLiteral("latencyMs")).toDouble())
                            + (leaseMs + renewMs) / 2;
            }
        }
        for (qsizetype i = 0; i < starts.size(); ++i) {
            const qint64 end = i < stops.size()
                    ? qint64(stops[i].value(QStringLiteral("validUntilMono")).toDouble())
                    : killedEnd;
            terms.append({monoOf(starts[i]), end});
        }
    }
    std::sort(terms.begin(), terms.end());
    for (qsizetype i = 1; i < terms.size(); ++i)
        QVERIFY2(terms[i].first >= terms[i - 1].second,
                 qPrintable(QStringLiteral("two authority intervals overlap: [%1, %2) and [%3, ...)")
                                    .arg(terms[i - 1].first)
                                    .arg(terms[i - 1].second)
                                    .arg(terms[i].first)));
}

void TestKubernetesElection::oneLeaderCrashTakeoverAndWatchFastHandover()
{
    const QString lease = QStringLiteral("billing-cron");
    for (const QString &id : {QStringLiteral("w1"), QStringLiteral("w2"), QStringLiteral("w3")})
        QVERIFY(start(id, lease, watchToken));

    // F1: one leader; the Lease names it as client-go would write it (B3).
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);
    ParticipantProcess *first = leader();
    QTRY_COMPARE_WITH_TIMEOUT(m_server.lease(ns, lease)[QStringLiteral("spec")][QStringLiteral("holderIdentity")].toString(),
                              first->instanceId(), 10000);
    const QJsonObject spec = m_server.lease(ns, lease)[QStringLiteral("spec")].toObject();
    QCOMPARE(spec[QStringLiteral("leaseDurationSeconds")].toInt(), int((leaseMs + 999) / 1000)); // rounded up
    const QRegularExpression microTime(QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z$"));
    QVERIFY(microTime.match(spec[QStringLiteral("renewTime")].toString()).hasMatch());
    QVERIFY(microTime.match(spec[QStringLiteral("acquireTime")].toString()).hasMatch());
    // Every follower follows by watch (B5: list and watch are granted).
    QTRY_VERIFY_WITH_TIMEOUT(m_server.watchCount() >= 3, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(std::all_of(m_participants.begin(), m_participants.end(), [](const auto &p) {
                                 return p->isLeading() || !lastEvent(*p, QStringLiteral("attempt")).isEmpty();
                             }),
                             10000);
    QCOMPARE(leaders(), 1);

    // F6: SIGKILL; another takes over within leaseDuration + renewInterval.
    QSignalSpy died(first, &ParticipantProcess::finished);
    const qint64 killMono = Clock::system().monotonicMs();
    first->sendSignal(SIGKILL);
    QVERIFY(died.wait(10000));
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);
    ParticipantProcess *second = leader();
    QVERIFY(second != first);
    const QJsonObject took = lastEvent(*second, QStringLiteral("started-leading"));
    const qint64 failoverMs = monoOf(took) - killMono;
    qInfo("Kubernetes crash failover: %lld ms after SIGKILL (lease %lld ms, F6 bound %lld ms)", failoverMs,
          leaseMs, leaseMs + renewMs);
    QVERIFY2(failoverMs <= leaseMs + renewMs, qPrintable(QString::number(failoverMs)));
    QVERIFY(took.value(QStringLiteral("token")).toInteger()
            > lastEvent(*first, QStringLiteral("started-leading")).value(QStringLiteral("token")).toInteger());

    // F5 + F8: SIGTERM; the release reaches the last follower by watch, and
    // it takes over at once rather than at its next renewInterval tick.
    QSignalSpy exited(second, &ParticipantProcess::finished);
    const qint64 termMono = Clock::system().monotonicMs();
    second->sendSignal(SIGTERM);
    QVERIFY(exited.wait(10000));
    QCOMPARE(second->exitCode(), 0);
    const QJsonObject released = lastEvent(*second, QStringLiteral("released"));
    QVERIFY(released.value(QStringLiteral("released")).toBool());
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);
    ParticipantProcess *third = leader();
    const qint64 handoverMs = monoOf(lastEvent(*third, QStringLiteral("started-leading"))) - monoOf(released);
    qInfo("Kubernetes clean handover by watch: %lld ms after the release (renewInterval %lld ms)",
          handoverMs, renewMs);
    // The follower may see the release on its watch, and lead, before the
    // leader has read the reply to its release and stamped its `released`
    // event: handoverMs can be a little negative. It cannot lead before the
    // leader was asked to stop.
    QVERIFY(monoOf(lastEvent(*third, QStringLiteral("started-leading"))) >= termMono);
    QVERIFY2(handoverMs < renewMs, "the handover waited for a poll: the watch did not carry the release");
    QVERIFY(m_server.count(QStringLiteral("system:serviceaccount:e2e:watcher"), QStringLiteral("watch")) >= 3);

    QSignalSpy thirdExited(third, &ParticipantProcess::finished);
    third->sendSignal(SIGTERM);
    QVERIFY(thirdExited.wait(10000));
    // The release as client-go writes it: an explicit empty holder, 1 second.
    const QJsonObject after = m_server.lease(ns, lease)[QStringLiteral("spec")].toObject();
    QCOMPARE(after[QStringLiteral("holderIdentity")], QJsonValue(QString()));
    QCOMPARE(after[QStringLiteral("leaseDurationSeconds")].toInt(), 1);
    checkAuthorityNeverOverlaps();
}

void TestKubernetesElection::twoProcessesWithOneInstanceIdNeverBothLead()
{
    // R5: two pods of one Deployment configured with one fixed instanceId.
    // The Lease has no field for the incarnation; an annotation carries it.
    const QString lease = QStringLiteral("twins");
    const QString id = QStringLiteral("worker");
    const QString annotation = QStringLiteral("baton.dev/holder-incarnation");
    auto storedIncarnation = [&] {
        return m_server.lease(ns, lease)[QStringLiteral("metadata")][QStringLiteral("annotations")][annotation]
                .toString();
    };
    ParticipantProcess *a = start(QStringLiteral("twin-a"), lease, watchToken, id);
    QVERIFY(a);
    QTRY_VERIFY_WITH_TIMEOUT(a->isLeading(), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(!storedIncarnation().isEmpty(), 10000);
    const QString aIncarnation = storedIncarnation();
    ParticipantProcess *b = start(QStringLiteral("twin-b"), lease, watchToken, id);
    QVERIFY(b);
    QTRY_COMPARE_WITH_TIMEOUT(eventsNamed(*b, QStringLiteral("identity-conflict")).size(), 1, 20000);
    const QJsonObject conflict = lastEvent(*b, QStringLiteral("identity-conflict"));
    QCOMPARE(conflict.value(QStringLiteral("theirIncarnation")).toString(), aIncarnation);
    const QString bIncarnation = conflict.value(QStringLiteral("incarnation")).toString();
    QVERIFY(!bIncarnation.isEmpty() && bIncarnation != aIncarnation);

    // Three leases of renewals: b never leads, and says so once.
    const qint64 before = renewalsSince(*a);
    QTRY_VERIFY_WITH_TIMEOUT(renewalsSince(*a) >= before + 3 * leaseMs / renewMs, 20 * leaseMs);
    QVERIFY(eventsNamed(*b, QStringLiteral("started-leading")).isEmpty());
    QCOMPARE(eventsNamed(*b, QStringLiteral("identity-conflict")).size(), 1);
    QVERIFY(eventsNamed(*a, QStringLiteral("stopped-leading")).isEmpty());
    // A client-go reader still sees a valid Lease naming the holder.
    QCOMPARE(m_server.lease(ns, lease)[QStringLiteral("spec")][QStringLiteral("holderIdentity")].toString(), id);

    // F6 with R5: a dies; b takes the expired lease and writes its own incarnation.
    QSignalSpy died(a, &ParticipantProcess::finished);
    a->sendSignal(SIGKILL);
    QVERIFY(died.wait(10000));
    QTRY_VERIFY_WITH_TIMEOUT(b->isLeading(), 20000);
    QTRY_COMPARE_WITH_TIMEOUT(storedIncarnation(), bIncarnation, 10000);
    QCOMPARE(lastEvent(*b, QStringLiteral("leader-changed")).value(QStringLiteral("why")).toString(),
             QStringLiteral("expired"));
    checkAuthorityNeverOverlaps();
}

void TestKubernetesElection::twoCrashesAndAHandoverAreStoredWithTheLeaseAndToldAsEvents()
{
    // O2, B4: three participants; the leader killed twice, then a clean
    // handover to a fourth. The Lease's annotation holds the four changes
    // in order with their reasons, and the server holds one Event
    // "<identity> became leader" for each.
    const QString lease = QStringLiteral("history-e2e");
    for (const QString &id : {QStringLiteral("h1"), QStringLiteral("h2"), QStringLiteral("h3")})
        QVERIFY(start(id, lease, watchToken));
    auto messages = [&] {
        QStringList found;
        for (const QJsonObject &e : m_server.events(ns))
            if (e[QStringLiteral("involvedObject")][QStringLiteral("name")].toString() == lease
                && e[QStringLiteral("reason")].toString() == QStringLiteral("LeaderElection"))
                found << e[QStringLiteral("message")].toString();
        return found;
    };
    QStringList holders;
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);
    holders << leader()->instanceId();
    for (int kill = 0; kill < 2; ++kill) {
        // The Event follows the Lease write: a leader killed between the
        // two never posts it, which is what a crash does, not what this
        // test is about.
        QTRY_VERIFY_WITH_TIMEOUT(messages().contains(holders.last() + QStringLiteral(" became leader")), 10000);
        ParticipantProcess *killed = leader();
        QSignalSpy died(killed, &ParticipantProcess::finished);
        killed->sendSignal(SIGKILL);
        QVERIFY(died.wait(10000));
        QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);
        QVERIFY(leader() != killed);
        holders << leader()->instanceId();
    }
    ParticipantProcess *last = start(QStringLiteral("h4"), lease, watchToken);
    QVERIFY(last);
    QTRY_VERIFY_WITH_TIMEOUT(!lastEvent(*last, QStringLiteral("attempt")).isEmpty(), 10000);
    ParticipantProcess *releasing = leader();
    QSignalSpy exited(releasing, &ParticipantProcess::finished);
    releasing->sendSignal(SIGTERM);
    QVERIFY(exited.wait(10000));
    QTRY_VERIFY_WITH_TIMEOUT(last->isLeading(), 20000);
    holders << last->instanceId();

    const QJsonValue annotation = m_server.lease(ns, lease)[QStringLiteral("metadata")][QStringLiteral("annotations")]
                                          [leasehistory::kubernetesAnnotation];
    QList<HistoryEntry> changes;
    QString error;
    QVERIFY2(annotation.isString() && leasehistory::decodeText(annotation.toString(), &changes, &error),
             qPrintable(error));
    QStringList whys;
    QStringList froms;
    QStringList tos;
    for (const HistoryEntry &change : std::as_const(changes)) {
        whys << change.why;
        froms << change.from;
        tos << change.to;
    }
    QCOMPARE(whys, (QStringList {QStringLiteral("first-acquire"), QStringLiteral("expired"), QStringLiteral("expired"),
                                 QStringLiteral("released")}));
    QCOMPARE(tos, holders);
    QCOMPARE(froms, (QStringList {QString()} + holders.mid(0, 3)));
    for (qsizetype i = 1; i < changes.size(); ++i) {
        QVERIFY2(changes[i].gapMs >= 0, qPrintable(QString::number(changes[i].gapMs)));
        QVERIFY(changes[i].transitions > changes[i - 1].transitions);
    }

    QStringList expected;
    for (const QString &holder : std::as_const(holders))
        expected << holder + QStringLiteral(" became leader");
    QTRY_COMPARE_WITH_TIMEOUT(messages(), expected, 10000);

    // O2: a `baton status` started afterwards, which saw none of it, has
    // the four changes from its first list, marked recorded.
    const QString historyPath = m_folder.filePath(QStringLiteral("history-e2e.json"));
    QProcess status;
    test::keepOutput(&status, QStringLiteral("status-history-e2e"), test::ArtifactKind::Events);
    status.start(test::batonBinary(), {QStringLiteral("status"), lease, QStringLiteral("--kube-context"),
                                       QStringLiteral("test"), QStringLiteral("--kubeconfig"),
                                       writeKubeconfig(watchToken), QStringLiteral("--namespace"), ns,
                                       QStringLiteral("--history"), historyPath});
    // The server runs in this process: wait with the event loop.
    QSignalSpy statusFinished(&status, &QProcess::finished);
    QVERIFY(statusFinished.wait(20000));
    m_allOutput += status.readAllStandardOutput() + status.readAllStandardError();
    QCOMPARE(status.exitCode(), 0);
    QFile file(historyPath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonArray rows = QJsonDocument::fromJson(file.readAll())[QStringLiteral("history")].toArray();
    QStringList shown;
    for (const QJsonValue &row : rows) {
        // The namespace holds the Leases of the other tests too.
        if (row[QStringLiteral("lease")].toString() != lease)
            continue;
        QVERIFY(row[QStringLiteral("recorded")].toBool());
        shown << QStringLiteral("%1>%2:%3").arg(row[QStringLiteral("from")].toString(), row[QStringLiteral("to")].toString(),
                                                row[QStringLiteral("why")].toString());
    }
    QStringList stored;
    for (const HistoryEntry &change : std::as_const(changes))
        stored << QStringLiteral("%1>%2:%3").arg(change.from, change.to, change.why);
    QCOMPARE(shown, stored);

    // And `baton status --history --json` prints them, one list and exit:
    // one leader-changed record a change, oldest first.
    QProcess printing;
    test::keepOutput(&printing, QStringLiteral("status-history-e2e-json"), test::ArtifactKind::Events);
    printing.start(test::batonBinary(), {QStringLiteral("status"), lease, QStringLiteral("--kube-context"),
                                         QStringLiteral("test"), QStringLiteral("--kubeconfig"),
                                         writeKubeconfig(watchToken), QStringLiteral("--namespace"), ns,
                                         QStringLiteral("--history"), QStringLiteral("--json")});
    QSignalSpy printed(&printing, &QProcess::finished);
    QVERIFY(printed.wait(20000));
    const QByteArray lines = printing.readAllStandardOutput();
    m_allOutput += lines + printing.readAllStandardError();
    QCOMPARE(printing.exitCode(), 0);
    QStringList printedChanges;
    for (const QByteArray &line : lines.trimmed().split('\n')) {
        const QJsonObject r = QJsonDocument::fromJson(line).object();
        QCOMPARE(r[QStringLiteral("event")].toString(), QStringLiteral("leader-changed"));
        QCOMPARE(r[QStringLiteral("lease")].toString(), lease);
        QVERIFY(r[QStringLiteral("recorded")].toBool());
        printedChanges << QStringLiteral("%1>%2:%3").arg(r[QStringLiteral("from")].toString(), r[QStringLiteral("to")].toString(),
                                                         r[QStringLiteral("why")].toString());
    }
    QCOMPARE(printedChanges, stored);
}

void TestKubernetesElection::pollingParticipantUsesOnlyGetCreateUpdate()
{
    // B5: get, create and update suffice; the election polls.
    const QString user = QStringLiteral("system:serviceaccount:e2e:poller");
    const QString lease = QStringLiteral("poll-only");
    QVERIFY(start(QStringLiteral("p1"), lease, pollToken));
    QVERIFY(start(QStringLiteral("p2"), lease, pollToken));
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);
    ParticipantProcess *first = leader();
    QTRY_VERIFY_WITH_TIMEOUT(std::all_of(m_participants.begin(), m_participants.end(), [](const auto &p) {
                                 return p->isLeading() || !lastEvent(*p, QStringLiteral("attempt")).isEmpty();
                             }),
                             10000);
    QSignalSpy exited(first, &ParticipantProcess::finished);
    first->sendSignal(SIGTERM);
    QVERIFY(exited.wait(10000));
    const QJsonObject released = lastEvent(*first, QStringLiteral("released"));
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);
    const qint64 handoverMs = monoOf(lastEvent(*leader(), QStringLiteral("started-leading"))) - monoOf(released);
    qInfo("Kubernetes clean handover by polling: %lld ms after the release (renewInterval %lld ms)",
          handoverMs, renewMs);
    QVERIFY(handoverMs <= renewMs + leaseMs);

    const QSet<QString> used = m_server.verbsUsed(user);
    // O2: and the Event that says who became leader.
    QVERIFY2((used - QSet<QString> {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
                                    QStringLiteral("events/create")}).isEmpty(),
             qPrintable(QJsonDocument(m_server.counters()).toJson()));
    QVERIFY(used.contains(QStringLiteral("update")));
    // One try at a list per process, refused once, never again; no watch attempted.
    QVERIFY(m_server.count(user, QStringLiteral("list"), true) <= 2);
    QCOMPARE(m_server.count(user, QStringLiteral("watch"), true), 0);
    for (const auto &p : m_participants) {
        const QString log = QString::fromUtf8(p->standardError());
        QCOMPARE(log.count(QStringLiteral("following the Lease by polling")), 1);
        // The Lease's list refused is no warning; the only warnings are of
        // the candidate records: a Role without configmaps has no
        // preference or drain (H2, H3), said once per kind, and the
        // election goes on (the leadership above).
        for (const QString &line : log.split(QLatin1Char('\n')))
            if (line.contains(QStringLiteral("warning"), Qt::CaseInsensitive))
                QVERIFY2(line.contains(QStringLiteral("candidate record")), qPrintable(line));
        QCOMPARE(log.count(QStringLiteral("candidate record (list)")), 1);
        QVERIFY(!firstEvent(*p, QStringLiteral("steering-failed")).isEmpty());
    }

    // A refusal is not asked again at every heartbeat. Over eight lease
    // durations of the survivor's renewals, the pauses after each refused
    // heartbeat (none, then 1, 3, 7 heartbeats) leave at most four
    // heartbeats of two refused requests (its record, the list), and one
    // list on becoming leader; asked every heartbeat, it would be 16.
    ParticipantProcess *survivor = leader();
    QVERIFY(survivor);
    auto refused = [&] {
        int n = 0;
        for (const char *verb : {"get", "list", "create", "update"})
            n += m_server.count(user, QStringLiteral("configmaps/") + QLatin1String(verb), true);
        return n;
    };
    const int refusedBefore = refused();
    const qint64 renewedBefore = renewalsSince(*survivor);
    QTRY_VERIFY_WITH_TIMEOUT(renewalsSince(*survivor) >= renewedBefore + 8 * leaseMs / renewMs, 20 * leaseMs);
    QVERIFY2(refused() - refusedBefore <= 2 * 4 + 1,
             qPrintable(QStringLiteral("%1 refused requests for the candidate records in eight lease durations")
                                .arg(refused() - refusedBefore)));
}

void TestKubernetesElection::writeLease(const QString &name, const QJsonObject &spec)
{
    // A fourth writer, through the API like any client: GET, then PUT.
    QUrl url = m_server.url();
    url.setPath(QStringLiteral("/apis/coordination.k8s.io/v1/namespaces/%1/leases/%2").arg(ns, name));
    QNetworkRequest request(url);
    QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
    ssl.setCaCertificates(QSslCertificate::fromPath(m_certificates.caFile()));
    request.setSslConfiguration(ssl);
    request.setRawHeader("Authorization", "Bearer " + adminToken.toUtf8());
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    QNetworkReply *get = m_network.get(request);
    QSignalSpy got(get, &QNetworkReply::finished);
    QVERIFY(got.wait(5000));
    QJsonObject lease = QJsonDocument::fromJson(get->readAll()).object();
    get->deleteLater();
    if (lease[QStringLiteral("kind")].toString() != QStringLiteral("Lease"))
        lease = {{QStringLiteral("apiVersion"), QStringLiteral("coordination.k8s.io/v1")},
                 {QStringLiteral("kind"), QStringLiteral("Lease")},
                 {QStringLiteral("metadata"), QJsonObject {{QStringLiteral("name"), name}}}};
    lease[QStringLiteral("spec")] = spec;
    QNetworkReply *put = m_network.put(request, QJsonDocument(lease).toJson());
    QSignalSpy done(put, &QNetworkReply::finished);
    QVERIFY(done.wait(5000));
    put->deleteLater();
}

void TestKubernetesElection::conflictStormNeverMakesTwoLeaders()
{
    const QString lease = QStringLiteral("storm");
    const QString user = QStringLiteral("system:serviceaccount:e2e:watcher");
    for (const QString &id : {QStringLiteral("s1"), QStringLiteral("s2"), QStringLiteral("s3")})
        QVERIFY(start(id, lease, watchToken));
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);

    // B3, F1: an intruder overwrites the Lease through the API right after
    // every successful write of a participant, so the holder's next
    // conditional write meets a 409. Driven by the server's answers, not
    // by a timer.
    const QString now = QStringLiteral("2026-01-01T00:00:00.000000Z");
    constexpr int stormSize = 10;
    int overwrites = 0;
    bool writing = false;
    int maxLeaders = 0;
    auto connection = connect(&m_server, &test::LeaseApiServer::requestHandled, this,
                              [&](const QString &who, const QString &verb, int status) {
        maxLeaders = std::max(maxLeaders, leaders());
        if (who != user || status >= 300 || writing || overwrites >= stormSize
            || (verb != QStringLiteral("update") && verb != QStringLiteral("create")))
            return;
        writing = true;
        QUrl url = m_server.url();
        url.setPath(QStringLiteral("/apis/coordination.k8s.io/v1/namespaces/%1/leases/%2").arg(ns, lease));
        QNetworkRequest request(url);
        QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
        ssl.setCaCertificates(QSslCertificate::fromPath(m_certificates.caFile()));
        request.setSslConfiguration(ssl);
        request.setRawHeader("Authorization", "Bearer " + adminToken.toUtf8());
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        QNetworkReply *get = m_network.get(request);
        connect(get, &QNetworkReply::finished, this, [&, get, request] {
            get->deleteLater();
            QJsonObject object = QJsonDocument::fromJson(get->readAll()).object();
            object[QStringLiteral("spec")] = QJsonObject {
                    {QStringLiteral("holderIdentity"), QStringLiteral("intruder")},
                    {QStringLiteral("leaseDurationSeconds"), 1},
                    {QStringLiteral("acquireTime"), now},
                    {QStringLiteral("renewTime"), now},
                    {QStringLiteral("leaseTransitions"), 100 + overwrites}};
            QNetworkReply *put = m_network.put(request, QJsonDocument(object).toJson());
            connect(put, &QNetworkReply::finished, this, [&, put] {
                put->deleteLater();
                if (put->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200)
                    ++overwrites;
                writing = false;
            });
        });
    });
    QTRY_VERIFY_WITH_TIMEOUT(overwrites >= stormSize, 60000);
    disconnect(connection);
    int conflicts = 0;
    int takenOver = 0;
    for (const auto &p : m_participants) {
        for (const QJsonObject &e : eventsNamed(*p, QStringLiteral("attempt")))
            conflicts += e.value(QStringLiteral("outcome")).toString() == QStringLiteral("conflict") ? 1 : 0;
        takenOver += int(eventsNamed(*p, QStringLiteral("stopped-leading")).size());
    }
    qInfo("409 storm: %d overwrites; the participants met %d conflicts and stepped down %d times",
          overwrites, conflicts, takenOver);
    QVERIFY(conflicts > 0);
    QVERIFY(maxLeaders <= 1);
    // When the intruder stops, its last lease expires and one participant leads again.
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);
    QVERIFY(m_server.lease(ns, lease)[QStringLiteral("spec")][QStringLiteral("leaseTransitions")].toInt() > 100);
    checkAuthorityNeverOverlaps();
}

void TestKubernetesElection::withoutUpdateItGetsAClear403AndNeverLeads()
{
    // A released Lease exists: taking it needs update, which this token lacks.
    const QString lease = QStringLiteral("no-update");
    const QString now = QStringLiteral("2026-01-01T00:00:00.000000Z");
    writeLease(lease, {{QStringLiteral("holderIdentity"), QString()},
                       {QStringLiteral("leaseDurationSeconds"), 1},
                       {QStringLiteral("acquireTime"), now},
                       {QStringLiteral("renewTime"), now},
                       {QStringLiteral("leaseTransitions"), 0}});
    ParticipantProcess *p = start(QStringLiteral("nu1"), lease, noUpdateToken);
    QVERIFY(p);
    auto firstError = [p] {
        for (const QJsonObject &e : eventsNamed(*p, QStringLiteral("attempt")))
            if (e.value(QStringLiteral("outcome")).toString() == QStringLiteral("error"))
                return e.value(QStringLiteral("error")).toString();
        return QString();
    };
    QTRY_VERIFY_WITH_TIMEOUT(!firstError().isEmpty(), 20000);
    const QString error = firstError();
    QVERIFY2(error.contains(QStringLiteral("403 Forbidden")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("cannot update resource \"leases\"")), qPrintable(error));
    // B5: the error names the shipped Role that grants what is missing.
    QVERIFY2(error.contains(QStringLiteral("resources/kubernetes/participant/role.yaml")), qPrintable(error));
    QVERIFY(eventsNamed(*p, QStringLiteral("started-leading")).isEmpty());
    QVERIFY(!p->isLeading());
}

void TestKubernetesElection::malformedLeaseIsAnErrorNeverALeader_data()
{
    QTest::addColumn<QJsonObject>("spec");
    QTest::addColumn<QString>("field");
    QTest::newRow("a negative duration")
            << QJsonObject {{QStringLiteral("holderIdentity"), QString()}, {QStringLiteral("leaseDurationSeconds"), -5}}
            << QStringLiteral("spec.leaseDurationSeconds");
    QTest::newRow("no duration") << QJsonObject {{QStringLiteral("holderIdentity"), QString()}}
                                 << QStringLiteral("spec.leaseDurationSeconds");
    QTest::newRow("a renewTime that is not a time")
            << QJsonObject {{QStringLiteral("holderIdentity"), QString()},
                            {QStringLiteral("leaseDurationSeconds"), 2},
                            {QStringLiteral("renewTime"), QStringLiteral("yesterday")}}
            << QStringLiteral("spec.renewTime");
}

void TestKubernetesElection::malformedLeaseIsAnErrorNeverALeader()
{
    // R1: a Lease the client cannot trust is an error, never a free lease.
    QFETCH(QJsonObject, spec);
    QFETCH(QString, field);
    const QString lease = QStringLiteral("malformed-%1").arg(++m_malformedRow);
    m_server.putRaw(ns, lease,
                    {{QStringLiteral("apiVersion"), QStringLiteral("coordination.k8s.io/v1")},
                     {QStringLiteral("kind"), QStringLiteral("Lease")},
                     {QStringLiteral("spec"), spec}});
    ParticipantProcess *p = start(QStringLiteral("m-") + lease, lease, watchToken);
    QVERIFY(p);
    QTRY_VERIFY_WITH_TIMEOUT(eventsNamed(*p, QStringLiteral("attempt")).size() >= 2, 20000);
    for (const QJsonObject &e : eventsNamed(*p, QStringLiteral("attempt"))) {
        QCOMPARE(e.value(QStringLiteral("outcome")).toString(), QStringLiteral("error"));
        QVERIFY2(e.value(QStringLiteral("error")).toString().contains(field),
                 qPrintable(e.value(QStringLiteral("error")).toString()));
    }
    QVERIFY(eventsNamed(*p, QStringLiteral("started-leading")).isEmpty());
}

void TestKubernetesElection::malformedKubeconfigIsAClearError_data()
{
    QTest::addColumn<QByteArray>("kubeconfig");
    QTest::addColumn<QStringList>("mustMention");
    QTest::newRow("broken YAML") << QByteArray("clusters: [\n  - name: x\n")
                                 << QStringList {QStringLiteral("malformed YAML")};
    QTest::newRow("a user with a certificate and no key")
            << QByteArray("current-context: x\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n"
                          "contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n"
                          "users:\n- name: u\n  user:\n    client-certificate-data: eA==\n")
            << QStringList {QStringLiteral("users[0] \"u\""), QStringLiteral("client-key")};
    QTest::newRow("a lease name that is not a DNS subdomain") << QByteArray()
                                                              << QStringList {QStringLiteral("leaseName"), QStringLiteral("DNS-1123")};
}

void TestKubernetesElection::malformedKubeconfigIsAClearError()
{
    // R1, P1: one clear error naming the file and the entry; exit code 2.
    QFETCH(QByteArray, kubeconfig);
    QFETCH(QStringList, mustMention);
    const QString kubeconfigPath = m_folder.filePath(QStringLiteral("bad-kubeconfig"));
    QFile file(kubeconfigPath);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(kubeconfig.isEmpty() ? QFile(writeKubeconfig(watchToken)).fileName().toUtf8() : kubeconfig);
    file.close();
    const QString configPath = m_folder.filePath(QStringLiteral("bad.json"));
    QFile config(configPath);
    QVERIFY(config.open(QIODevice::WriteOnly | QIODevice::Truncate));
    config.write(QJsonDocument(QJsonObject {
                         {QStringLiteral("services"),
                          QJsonObject {{QStringLiteral("k"),
                                        QJsonObject {{QStringLiteral("type"), QStringLiteral("KubernetesClusterService")},
                                                     {QStringLiteral("config"), kubeconfig.isEmpty() ? writeKubeconfig(watchToken) : kubeconfigPath},
                                                     {QStringLiteral("leaseName"),
                                                      kubeconfig.isEmpty() ? QStringLiteral("Billing_Cron") : QStringLiteral("ok")}}}}}})
                         .toJson());
    config.close();
    QProcess baton;
    test::keepOutput(&baton, QStringLiteral("bad-kubeconfig"), test::ArtifactKind::Events);
    baton.start(test::batonBinary(), {QStringLiteral("join"), QStringLiteral("--config"), configPath});
    QVERIFY(baton.waitForFinished(20000));
    QCOMPARE(baton.exitCode(), 2);
    const QString error = QString::fromUtf8(baton.readAllStandardError());
    m_allOutput += error.toUtf8();
    if (!kubeconfig.isEmpty())
        QVERIFY2(error.contains(kubeconfigPath), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("\"k\"")), qPrintable(error));
    for (const QString &part : mustMention)
        QVERIFY2(error.contains(part), qPrintable(QStringLiteral("\"%1\" not in: %2").arg(part, error)));
}

void TestKubernetesElection::tokenFileRewrittenWhileLeadingIsUsedFromTheNextRequest_data()
{
    QTest::addColumn<QString>("newToken");
    QTest::addColumn<bool>("keepTime");
    QTest::newRow("a longer token with a new modification time") << rotatedTokenLong << false;
    QTest::newRow("a token of the same length with the old modification time") << rotatedToken2 << true;
}

void TestKubernetesElection::tokenFileRewrittenWhileLeadingIsUsedFromTheNextRequest()
{
    // B5, R2: `tokenFile` (a mounted Secret, a systemd credential) rotates
    // while the election runs. The request after the rotation carries the
    // new token: the old one, revoked as soon as the server has seen the
    // new one, never costs the leader its lease. Neither token is ever
    // logged (noTokenInAnyLog).
    QFETCH(QString, newToken);
    QFETCH(bool, keepTime);
    const QStringList verbs {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
                             QStringLiteral("list"), QStringLiteral("watch")};
    m_server.addToken(rotatedToken1, rotatedUser(rotatedToken1), verbs);
    m_server.addToken(newToken, rotatedUser(newToken), verbs);
    m_server.resetCounters();

    const QString tokenPath = m_folder.filePath(QStringLiteral("rotating-token-%1").arg(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-')));
    QFile::remove(tokenPath);
    QVERIFY(replaceTokenFile(tokenPath, rotatedToken1, false));
    // The kubeconfig's own token may not update: only the token file leads.
    const QString lease = QStringLiteral("rotating-%1").arg(keepTime ? QStringLiteral("kept") : QStringLiteral("new"));
    const QJsonObject config {
            {QStringLiteral("services"),
             QJsonObject {{QStringLiteral("cluster"),
                           QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/KubernetesClusterService")},
                                        {QStringLiteral("config"), writeKubeconfig(noUpdateToken)},
                                        {QStringLiteral("tokenFile"), tokenPath},
                                        {QStringLiteral("leaseName"), lease},
                                        {QStringLiteral("instanceId"), QStringLiteral("rotating")},
                                        {QStringLiteral("leaseDuration"), leaseMs},
                                        {QStringLiteral("renewInterval"), renewMs}}}}}};
    const QString configPath = m_folder.filePath(lease + QStringLiteral(".json"));
    QVERIFY(test::writeJsonFile(configPath, config));
    m_participants.push_back(test::startParticipant(QStringLiteral("rotating"), configPath));
    ParticipantProcess *p = m_participants.back().get();
    QTRY_VERIFY_WITH_TIMEOUT(p->isLeading(), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(m_server.count(rotatedUser(rotatedToken1), QStringLiteral("update")) >= 1,
                             int(10 * renewMs));

    QVERIFY(replaceTokenFile(tokenPath, newToken, keepTime));
    // The next renewal, within a renewInterval and its answer.
    QTRY_VERIFY_WITH_TIMEOUT(m_server.count(rotatedUser(newToken), QStringLiteral("update")) >= 1,
                             int(4 * renewMs));
    m_server.removeToken(rotatedToken1);
    const int updatesBefore = m_server.count(rotatedUser(newToken), QStringLiteral("update"));
    QTRY_VERIFY_WITH_TIMEOUT(m_server.count(rotatedUser(newToken), QStringLiteral("update")) >= updatesBefore + 2,
                             int(6 * renewMs));
    QVERIFY(p->isLeading());
    QVERIFY(eventsNamed(*p, QStringLiteral("stopped-leading")).isEmpty());
    QCOMPARE(eventsNamed(*p, QStringLiteral("started-leading")).size(), 1);
    m_server.removeToken(newToken);
}

void TestKubernetesElection::aHandoverGoesToTheNamedSuccessorAndTheThirdNeverLeads()
{
    // H1 on Leases: `baton handover` writes spec.preferredHolder; the leader
    // stops its work, leaves the Lease kept for the successor, which takes it;
    // the third participant never leads.
    const QString lease = QStringLiteral("handover-e2e");
    for (const QString &id : {QStringLiteral("h1"), QStringLiteral("h2"), QStringLiteral("h3")})
        QVERIFY(start(id, lease, watchToken));
    QTRY_COMPARE_WITH_TIMEOUT(leaders(), 1, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(std::all_of(m_participants.begin(), m_participants.end(),
                                         [](const auto &p) {
                                             return p->isLeading()
                                                     || !firstEvent(*p, QStringLiteral("attempt")).isEmpty();
                                         }),
                             20000);
    ParticipantProcess *first = leader();
    std::vector<ParticipantProcess *> others;
    for (const auto &p : m_participants)
        if (p.get() != first)
            others.push_back(p.get());
    ParticipantProcess *successor = others.at(0);
    ParticipantProcess *third = others.at(1);
    const qint64 asked = Clock::system().monotonicMs();
    QProcess handover;
    test::keepOutput(&handover, QStringLiteral("handover-e2e"), test::ArtifactKind::Events);
    handover.start(test::batonBinary(), {QStringLiteral("handover"), lease, QStringLiteral("--to"),
                                         successor->instanceId(), QStringLiteral("--config"),
                                         m_folder.filePath(first->label() + QStringLiteral(".json"))});
    // The server runs in this process: wait with the event loop.
    QSignalSpy handoverFinished(&handover, &QProcess::finished);
    QVERIFY(handoverFinished.wait(20000));
    m_allOutput += handover.readAllStandardOutput() + handover.readAllStandardError();
    QCOMPARE(handover.exitCode(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(successor->isLeading(), 20000);
    QCOMPARE(leaders(), 1);
    const QJsonObject stopped = lastEvent(*first, QStringLiteral("stopped-leading"), asked);
    QCOMPARE(stopped.value(QStringLiteral("reason")).toString(), QStringLiteral("handed-over"));
    const QJsonObject took = lastEvent(*successor, QStringLiteral("started-leading"), asked);
    QVERIFY(monoOf(took) >= monoOf(stopped));
    QVERIFY(monoOf(took) - monoOf(stopped) < leaseMs);
    QVERIFY(firstEvent(*third, QStringLiteral("started-leading"), asked).isEmpty());
    QVERIFY(!firstEvent(*third, QStringLiteral("reserved-for"), asked).isEmpty());
    checkAuthorityNeverOverlaps();
}

void TestKubernetesElection::tryZeroLetsTheAttemptAfterAReleaseDecide()
{
    // `join --try 0`: the first attempt decides, but one given up because
    // the watch saw the lease released while it was on its way says
    // nothing: the lease is free, and the attempt that follows decides.
    // A long lease: the held read must still be on its way (its timeout is
    // the lease duration less the renewal interval) when the release comes.
    const QString lease = QStringLiteral("try-zero");
    const qint64 longLeaseMs = 10 * leaseMs;
    ParticipantProcess *holder = start(QStringLiteral("holder"), lease, watchToken, {}, {}, longLeaseMs);
    QVERIFY(holder);
    QTRY_VERIFY_WITH_TIMEOUT(holder->isLeading(), 20000);
    // The late joiner's first read of the Lease stays unanswered.
    m_server.holdAnswers(lateJoinerUser, QStringLiteral("get"), 1);
    QSignalSpy held(&m_server, &test::LeaseApiServer::answerHeld);
    ParticipantProcess *late = start(QStringLiteral("late"), lease, lateJoinerToken, {},
                                     {QStringLiteral("--try"), QStringLiteral("0")}, longLeaseMs);
    QVERIFY(late);
    QTRY_COMPARE_WITH_TIMEOUT(held.size(), 1, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(m_server.count(lateJoinerUser, QStringLiteral("watch")) >= 1, 20000);
    QSignalSpy exited(holder, &ParticipantProcess::finished);
    holder->sendSignal(SIGTERM);
    QVERIFY(exited.wait(10000));
    QTRY_VERIFY_WITH_TIMEOUT(late->isLeading() || !late->isRunning(), 20000);
    QVERIFY2(late->isRunning(), late->standardError().constData());
    QVERIFY(late->isLeading());
    const QList<QJsonObject> attempts = eventsNamed(*late, QStringLiteral("attempt"));
    QVERIFY(attempts.size() >= 2);
    QCOMPARE(attempts.at(0).value(QStringLiteral("outcome")).toString(), QStringLiteral("abandoned"));
    QVERIFY(!late->standardError().contains("--try 0: giving up"));
    m_server.releaseHeldAnswers();
}

void TestKubernetesElection::cleanup()
{
    for (const auto &p : m_participants) {
        if (p->isRunning()) {
            test::keepMetrics(*p);
            QSignalSpy finished(p.get(), &ParticipantProcess::finished);
            p->sendSignal(SIGTERM);
            finished.wait(10000);
        }
        m_allOutput += p->standardError();
        for (const QJsonObject &e : p->events())
            m_allOutput += QJsonDocument(e).toJson(QJsonDocument::Compact) + '\n';
        if (QTest::currentTestFailed())
            qWarning("--- %s ---\n%s", qPrintable(p->label()), p->standardError().constData());
    }
    m_participants.clear();
}

void TestKubernetesElection::noTokenInAnyLog()
{
    // R2: every log line and event of every process of this test, searched
    // for every token the server accepts.
    QVERIFY(m_allOutput.size() > 1000);
    for (const QString &token : {watchToken, pollToken, noUpdateToken, adminToken, rotatedToken1,
                                 rotatedToken2, rotatedTokenLong, lateJoinerToken})
        QVERIFY2(!m_allOutput.contains(token.toUtf8()), qPrintable(token));
}

QTEST_GUILESS_MAIN(TestKubernetesElection)
#include "tst_kubernetes_election.moc"
