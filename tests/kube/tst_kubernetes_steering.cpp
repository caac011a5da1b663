// Preference (H2) and drain (H3) on a Kubernetes Lease, end to end: real
// `baton join` processes with --priority and --prefer-after, and `baton
// drain` / `baton undrain` run beside them as an operator runs them,
// against the test Lease API server. The facts come from the participants'
// event streams (their boot clock), from every Lease the server stored
// (seen after each write it answered) and from the candidates' ConfigMaps.

#include <baton/clock.h>
#include "eventstream.h"
#include "leaseapiserver.h"
#include "participantprocess.h"
#include "participants.h"
#include "testcertificates.h"
#include "testsecrets.h"
#include "testsupport.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <csignal>

using namespace baton;
using namespace baton::test;

namespace {

// Candidates beat every lease duration and are gone after three of them.
const qint64 leaseMs = scaledMs(2000);
const qint64 renewMs = scaledMs(500);
const qint64 preferAfterMs = scaledMs(4000);
const QString ns = QStringLiteral("steering");
const QString steeringStrategy = QStringLiteral("baton.dev/steering");
// The participant Role of resources/kubernetes/participant, configmaps included.
const QString participantToken = test::testSecret(QStringLiteral("kube-token-steering"));
// The same, without update on Leases: a candidate that heartbeats but can never lead.
const QString cannotLeadToken = test::testSecret(QStringLiteral("kube-token-cannot-lead"));
// The participant Role without list on ConfigMaps: its record is written, the others' never read.
const QString cannotListToken = test::testSecret(QStringLiteral("kube-token-cannot-list"));
const QString cannotListUser = QStringLiteral("system:serviceaccount:steering:cannot-list");
// The participant Role without get on ConfigMaps, until a test grants it.
const QString cannotReadToken = test::testSecret(QStringLiteral("kube-token-cannot-read"));
const QString cannotReadUser = QStringLiteral("system:serviceaccount:steering:cannot-read");
const QStringList cannotReadVerbs {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
                                   QStringLiteral("list"), QStringLiteral("watch"),
                                   QStringLiteral("configmaps/list"), QStringLiteral("configmaps/create"),
                                   QStringLiteral("configmaps/update")};

/*! A Lease as the server stored it after one write, and when (this process's boot clock). */
struct StoredLease
{
    qint64 mono = 0;
    QJsonObject spec;
};

} // namespace

class TestKubernetesSteering : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void aHigherPriorityLeadsAfterTheHysteresisAndTheLeaseShowsIt();
    void aDrainedLeaderHandsOverAndStandsByAcrossARestartUntilUndrained();
    void aLabelSelectorHandsOverToTheMatchingCandidate();
    void aPreferredHolderThatCannotLeadIsBackedOff();
    void aCandidateThatMayNotListStaysLiveForTheOthers();
    void aRefusedReadOfTheOwnRecordIsToldWhenItWorksAgain();
    void cleanup();

private:
    QString writeKubeconfig(const QString &token = participantToken,
                            const QString &fileName = QStringLiteral("kubeconfig"));
    QString configPath(const QString &id) const { return m_folder.filePath(m_lease + QLatin1Char('-') + id + QStringLiteral(".json")); }
    ParticipantProcess *start(const QString &id, const QStringList &extra = {}, const QString &kubeconfig = {});
    void stop(ParticipantProcess *participant);
    ParticipantProcess *leader(const ParticipantProcess *except = nullptr) const;
    /*! Runs `baton` with \a arguments; the server answers in this process, so the wait runs its event loop. */
    int runBaton(const QStringList &arguments, QByteArray *output);
    /*! The ConfigMap holding the candidate record of \a instance for m_lease, or an empty object. */
    QJsonObject candidateMap(const QString &instance) const;
    QJsonObject candidateRecord(const QString &instance) const;
    /*! The first stored Lease that kept the lease for \a successor, or none. */
    StoredLease firstReservationFor(const QString &successor) const;

    QTemporaryDir m_folder;
    TestCertificates m_certificates;
    LeaseApiServer m_server;
    QString m_kubeconfig;
    QString m_lease;
    QList<StoredLease> m_stored;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
};

void TestKubernetesSteering::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
    QString error;
    QVERIFY2(m_certificates.generate(m_folder.path(), &error), qPrintable(error));
    QVERIFY2(m_server.setTls(m_certificates.serverCertFile(), m_certificates.serverKeyFile(), {}, &error),
             qPrintable(error));
    QVERIFY2(m_server.listen(&error), qPrintable(error));
    m_server.addToken(participantToken, QStringLiteral("system:serviceaccount:steering:participant"),
                      {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
                       QStringLiteral("list"), QStringLiteral("watch"), QStringLiteral("configmaps/get"),
                       QStringLiteral("configmaps/list"), QStringLiteral("configmaps/create"),
                       QStringLiteral("configmaps/update"), QStringLiteral("configmaps/delete")});
    // Every Lease the server stored, seen right after the write: what a
    // watcher of the Lease could read at that moment.
    connect(&m_server, &LeaseApiServer::requestHandled, this,
            [this](const QString &, const QString &verb, int status) {
                if ((verb == QLatin1String("update") || verb == QLatin1String("create")) && status / 100 == 2)
                    m_stored.append({Clock::system().monotonicMs(),
                                     m_server.lease(ns, m_lease).value(QStringLiteral("spec")).toObject()});
            });
    m_server.addToken(cannotLeadToken, QStringLiteral("system:serviceaccount:steering:cannot-lead"),
                      {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("list"),
                       QStringLiteral("watch"), QStringLiteral("configmaps/get"), QStringLiteral("configmaps/list"),
                       QStringLiteral("configmaps/create"), QStringLiteral("configmaps/update")});
    m_server.addToken(cannotListToken, cannotListUser,
                      {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
                       QStringLiteral("list"), QStringLiteral("watch"), QStringLiteral("configmaps/get"),
                       QStringLiteral("configmaps/create"), QStringLiteral("configmaps/update")});
    m_server.addToken(cannotReadToken, cannotReadUser, cannotReadVerbs);
    m_kubeconfig = writeKubeconfig();
    QVERIFY(!m_kubeconfig.isEmpty());
}

void TestKubernetesSteering::init()
{
    m_lease = QStringLiteral("steer-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    m_stored.clear();
}

QString TestKubernetesSteering::writeKubeconfig(const QString &token, const QString &fileName)
{
    const QString path = m_folder.filePath(fileName);
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
    return path;
}

ParticipantProcess *TestKubernetesSteering::start(const QString &id, const QStringList &extra,
                                                   const QString &kubeconfig)
{
    const QJsonObject config {
            {QStringLiteral("services"),
             QJsonObject {{QStringLiteral("cluster"),
                           QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/KubernetesClusterService")},
                                        {QStringLiteral("config"), kubeconfig.isEmpty() ? m_kubeconfig : kubeconfig},
                                        {QStringLiteral("leaseName"), m_lease},
                                        {QStringLiteral("instanceId"), id},
                                        {QStringLiteral("leaseDuration"), leaseMs},
                                        {QStringLiteral("renewInterval"), renewMs}}}}}};
    if (!test::writeJsonFile(configPath(id), config))
        return nullptr;
    m_participants.push_back(test::startParticipant(id, configPath(id), extra));
    return m_participants.back().get();
}

void TestKubernetesSteering::stop(ParticipantProcess *participant)
{
    QSignalSpy finished(participant, &ParticipantProcess::finished);
    participant->sendSignal(SIGTERM);
    QVERIFY(finished.wait(20000));
}

int TestKubernetesSteering::runBaton(const QStringList &arguments, QByteArray *output)
{
    QProcess baton;
    test::keepOutput(&baton, m_lease + QLatin1Char('-') + arguments.value(0), test::ArtifactKind::Events);
    QSignalSpy finished(&baton, &QProcess::finished);
    baton.start(test::batonBinary(), arguments);
    if (!finished.wait(20000))
        return -1;
    *output = baton.readAllStandardOutput() + baton.readAllStandardError();
    return baton.exitStatus() == QProcess::NormalExit ? baton.exitCode() : -1;
}

QJsonObject TestKubernetesSteering::candidateMap(const QString &instance) const
{
    // The name the design gives: the lease, and 8 hex of the instance's sha256.
    const QString hash = QString::fromLatin1(
            QCryptographicHash::hash(instance.toUtf8(), QCryptographicHash::Sha256).toHex().left(8));
    return m_server.configMap(ns, QStringLiteral("baton-candidate-%1-%2").arg(m_lease, hash));
}

QJsonObject TestKubernetesSteering::candidateRecord(const QString &instance) const
{
    return QJsonDocument::fromJson(
                   candidateMap(instance)[QStringLiteral("data")][QStringLiteral("record")].toString().toUtf8())
            .object();
}

StoredLease TestKubernetesSteering::firstReservationFor(const QString &successor) const
{
    for (const StoredLease &stored : m_stored)
        if (stored.spec.value(QStringLiteral("preferredHolder")).toString() == successor)
            return stored;
    return {};
}

void TestKubernetesSteering::aHigherPriorityLeadsAfterTheHysteresisAndTheLeaseShowsIt()
{
    // H2: the leader hands over to a candidate of a higher priority once
    // that one has run unchanged for the leader's --prefer-after, not
    // before; the Lease is kept for it with spec.preferredHolder, which the
    // API server takes only beside a spec.strategy.
    const QStringList prefer {QStringLiteral("--prefer-after"), QStringLiteral("%1ms").arg(preferAfterMs)};
    ParticipantProcess *low = start(QStringLiteral("low"), prefer);
    QVERIFY(low);
    QTRY_VERIFY_WITH_TIMEOUT(low->isLeading(), 20000);
    const qint64 highStarted = Clock::system().monotonicMs();
    ParticipantProcess *high = start(QStringLiteral("high"), prefer + QStringList {QStringLiteral("--priority"),
                                                                                   QStringLiteral("5")});
    QVERIFY(high);
    QTRY_VERIFY_WITH_TIMEOUT(high->isLeading(), 20000 + preferAfterMs);
    QVERIFY(!low->isLeading());

    const QJsonObject requested = lastEvent(*low, QStringLiteral("handover-requested"));
    QCOMPARE(requested.value(QStringLiteral("to")).toString(), QStringLiteral("high"));
    QCOMPARE(requested.value(QStringLiteral("by")).toString(), QStringLiteral("preferred holder"));
    qInfo("preference on a Lease: asked %lld ms after the higher priority started (hysteresis %lld ms)",
          monoOf(requested) - highStarted, preferAfterMs);
    QVERIFY(monoOf(requested) - highStarted >= preferAfterMs);
    QVERIFY(monoOf(firstEvent(*high, QStringLiteral("started-leading")))
            >= monoOf(lastEvent(*low, QStringLiteral("stopped-leading"))));

    // What the server stored: the Lease kept for "high", with the strategy,
    // not before the hysteresis, while "high" did not hold it yet.
    const StoredLease reserved = firstReservationFor(QStringLiteral("high"));
    QVERIFY2(reserved.mono > 0, "no stored Lease had spec.preferredHolder \"high\"");
    QCOMPARE(reserved.spec.value(QStringLiteral("strategy")).toString(), steeringStrategy);
    QVERIFY(reserved.spec.value(QStringLiteral("holderIdentity")).toString() != QLatin1String("high"));
    QVERIFY(reserved.mono - highStarted >= preferAfterMs);
    for (const StoredLease &stored : std::as_const(m_stored)) {
        if (stored.mono < reserved.mono)
            QVERIFY(stored.spec.value(QStringLiteral("holderIdentity")).toString() != QLatin1String("high"));
        if (!stored.spec.value(QStringLiteral("preferredHolder")).toString().isEmpty())
            QCOMPARE(stored.spec.value(QStringLiteral("strategy")).toString(), steeringStrategy);
    }
    QCOMPARE(m_server.lease(ns, m_lease)[QStringLiteral("spec")][QStringLiteral("holderIdentity")].toString(),
             QStringLiteral("high"));

    // Each candidate announced itself in a ConfigMap of its own beside the Lease.
    for (const auto &[instance, priority] : {std::pair {QStringLiteral("low"), 0}, std::pair {QStringLiteral("high"), 5}}) {
        const QJsonObject map = candidateMap(instance);
        QVERIFY2(!map.isEmpty(), qPrintable(QStringLiteral("no candidate ConfigMap for ") + instance));
        const QJsonObject labels = map[QStringLiteral("metadata")][QStringLiteral("labels")].toObject();
        QCOMPARE(labels.value(QStringLiteral("baton.dev/candidate-for")).toString(), m_lease);
        QCOMPARE(labels.value(QStringLiteral("app.kubernetes.io/managed-by")).toString(), QStringLiteral("baton"));
        QVERIFY(!labels.contains(QStringLiteral("baton.dev/lease"))); // not a run record
        const QJsonObject record = candidateRecord(instance);
        QCOMPARE(record.value(QStringLiteral("instance")).toString(), instance);
        QCOMPARE(record.value(QStringLiteral("priority")).toInt(), priority);
    }
}

void TestKubernetesSteering::aDrainedLeaderHandsOverAndStandsByAcrossARestartUntilUndrained()
{
    // H3: `baton drain` on the leader (the configuration names the
    // kubeconfig): it hands over at its next heartbeat and stands by; the
    // drain is stored in its ConfigMap, so a restart comes up standing by
    // and lets a released Lease go to another candidate; `baton undrain`
    // lets it lead again.
    ParticipantProcess *first = start(QStringLiteral("a"));
    QVERIFY(first);
    QTRY_VERIFY_WITH_TIMEOUT(first->isLeading(), 20000);
    QVERIFY(start(QStringLiteral("b")));
    QVERIFY(start(QStringLiteral("c")));
    QTRY_VERIFY_WITH_TIMEOUT(lastEvent(*first, QStringLiteral("candidates")).value(QStringLiteral("live")).toInt() == 3,
                             20000);

    const qint64 drained = Clock::system().monotonicMs();
    QByteArray said;
    QCOMPARE(runBaton({QStringLiteral("drain"), QStringLiteral("a"), QStringLiteral("--config"),
                       configPath(QStringLiteral("a"))},
                      &said),
             0);
    QVERIFY2(said.contains("drained"), said.constData());
    QVERIFY(candidateRecord(QStringLiteral("a")).value(QStringLiteral("drained")).toBool());
    QTRY_VERIFY_WITH_TIMEOUT(leader(first), 20000);
    ParticipantProcess *successor = leader(first);
    ParticipantProcess *third = successor->label() == QLatin1String("b") ? m_participants.at(2).get()
                                                                         : m_participants.at(1).get();
    QVERIFY(!first->isLeading());
    const QJsonObject requested = lastEvent(*first, QStringLiteral("handover-requested"), drained);
    QCOMPARE(requested.value(QStringLiteral("to")).toString(), successor->label());
    QCOMPARE(requested.value(QStringLiteral("by")).toString(), QStringLiteral("drain"));
    QVERIFY(lastEvent(*first, QStringLiteral("standing-by"), drained).value(QStringLiteral("standingBy")).toBool());
    qInfo("drain on a Lease: asked %lld ms after `baton drain` (heartbeat %lld ms)", monoOf(requested) - drained,
          leaseMs);
    const StoredLease reserved = firstReservationFor(successor->label());
    QVERIFY2(reserved.mono > 0, "no stored Lease had spec.preferredHolder for the successor");
    QVERIFY(reserved.mono >= drained);
    QCOMPARE(reserved.spec.value(QStringLiteral("strategy")).toString(), steeringStrategy);
    QVERIFY(reserved.spec.value(QStringLiteral("holderIdentity")).toString() != successor->label());

    // The drain outlives a restart: the new run stands by, and a Lease
    // released by its holder goes to the other candidate, not to it.
    stop(first);
    QVERIFY(candidateRecord(QStringLiteral("a")).value(QStringLiteral("drained")).toBool());
    const qint64 restarted = Clock::system().monotonicMs();
    ParticipantProcess *again = start(QStringLiteral("a"));
    QVERIFY(again);
    QTRY_VERIFY_WITH_TIMEOUT(!firstEvent(*again, QStringLiteral("standing-by"), restarted).isEmpty(), 20000);
    QVERIFY(firstEvent(*again, QStringLiteral("standing-by"), restarted).value(QStringLiteral("standingBy")).toBool());
    QTRY_VERIFY_WITH_TIMEOUT(lastEvent(*again, QStringLiteral("candidates")).value(QStringLiteral("live")).toInt() == 3,
                             20000);
    QVERIFY(successor->isLeading());
    // The other candidate paused, so the drained one alone sees the Lease
    // free: it must let it lie while that candidate is still live (its
    // record is live for three heartbeats, far longer than this takes).
    third->sendSignal(SIGSTOP);
    const qint64 released = Clock::system().monotonicMs();
    stop(successor);
    QTRY_VERIFY_WITH_TIMEOUT(!lastEvent(*again, QStringLiteral("leader-changed"), released).isEmpty(), 20000);
    third->sendSignal(SIGCONT);
    QTRY_VERIFY_WITH_TIMEOUT(third->isLeading(), 20000);
    QVERIFY(firstEvent(*again, QStringLiteral("started-leading")).isEmpty());

    // Undrained: it stops standing by at its next heartbeat (equal
    // priorities: the lease stays), and leads when the other goes.
    const qint64 undrained = Clock::system().monotonicMs();
    QCOMPARE(runBaton({QStringLiteral("undrain"), QStringLiteral("a"), QStringLiteral("--config"),
                       configPath(QStringLiteral("a"))},
                      &said),
             0);
    QVERIFY(!candidateRecord(QStringLiteral("a")).value(QStringLiteral("drained")).toBool());
    QTRY_VERIFY_WITH_TIMEOUT(!lastEvent(*again, QStringLiteral("standing-by"), undrained).isEmpty(), 20000);
    QVERIFY(!lastEvent(*again, QStringLiteral("standing-by"), undrained).value(QStringLiteral("standingBy")).toBool());
    QVERIFY(third->isLeading());
    QVERIFY(firstEvent(*again, QStringLiteral("started-leading")).isEmpty());
    stop(third);
    QTRY_VERIFY_WITH_TIMEOUT(again->isLeading(), 20000);
    QCOMPARE(m_server.lease(ns, m_lease)[QStringLiteral("spec")][QStringLiteral("holderIdentity")].toString(),
             QStringLiteral("a"));
}

ParticipantProcess *TestKubernetesSteering::leader(const ParticipantProcess *except) const
{
    for (const auto &p : m_participants)
        if (p.get() != except && p->isRunning() && p->isLeading())
            return p.get();
    return nullptr;
}

void TestKubernetesSteering::aLabelSelectorHandsOverToTheMatchingCandidate()
{
    // H1 with labels: the labels live in the candidates' ConfigMaps, and
    // `baton handover --to zone=b` reads them there to pick the successor.
    ParticipantProcess *a = start(QStringLiteral("a"), {QStringLiteral("--label"), QStringLiteral("zone=a")});
    QVERIFY(a);
    QTRY_VERIFY_WITH_TIMEOUT(a->isLeading(), 20000);
    ParticipantProcess *b = start(QStringLiteral("b"), {QStringLiteral("--label"), QStringLiteral("zone=b")});
    ParticipantProcess *c = start(QStringLiteral("c"), {QStringLiteral("--label"), QStringLiteral("zone=c")});
    QVERIFY(b && c);
    QTRY_VERIFY_WITH_TIMEOUT(!firstEvent(*b, QStringLiteral("candidates")).isEmpty()
                                     && !firstEvent(*c, QStringLiteral("candidates")).isEmpty(),
                             20000);
    QCOMPARE(candidateRecord(QStringLiteral("b")).value(QStringLiteral("labels")).toObject(),
             (QJsonObject {{QStringLiteral("zone"), QStringLiteral("b")}}));
    QByteArray said;
    QCOMPARE(runBaton({QStringLiteral("handover"), m_lease, QStringLiteral("--to"), QStringLiteral("zone=b"),
                       QStringLiteral("--config"), configPath(QStringLiteral("a"))},
                      &said),
             0);
    QVERIFY2(said.contains("over to b"), said.constData());
    QTRY_VERIFY_WITH_TIMEOUT(b->isLeading(), 20000);
    QVERIFY(firstEvent(*c, QStringLiteral("started-leading")).isEmpty());
    QVERIFY(!firstReservationFor(QStringLiteral("b")).spec.isEmpty());
    QVERIFY(firstReservationFor(QStringLiteral("c")).spec.isEmpty());
}

void TestKubernetesSteering::aPreferredHolderThatCannotLeadIsBackedOff()
{
    // H2: a candidate of a higher priority whose account may not update
    // Leases heartbeats, so it is preferred; handed the lease, it never
    // takes it, and the reservation lapses. The leader takes the lease
    // back, says so, and hands it over again only after twice the
    // hysteresis: each such failure costs a lease duration without a
    // leader, and grows rarer.
    const QStringList prefer {QStringLiteral("--prefer-after"), QStringLiteral("%1ms").arg(preferAfterMs)};
    ParticipantProcess *leader = start(QStringLiteral("a"), prefer);
    QVERIFY(leader);
    QTRY_VERIFY_WITH_TIMEOUT(leader->isLeading(), 20000);
    const QString stuckConfig = writeKubeconfig(cannotLeadToken, QStringLiteral("kubeconfig-cannot-lead"));
    ParticipantProcess *stuck = start(QStringLiteral("stuck"), prefer + QStringList {QStringLiteral("--priority"),
                                                                                     QStringLiteral("5")},
                                      stuckConfig);
    QVERIFY(stuck);
    QTRY_VERIFY_WITH_TIMEOUT(!firstEvent(*leader, QStringLiteral("handover-missed")).isEmpty(),
                             20 * preferAfterMs);
    const QJsonObject missed = firstEvent(*leader, QStringLiteral("handover-missed"));
    QCOMPARE(missed.value(QStringLiteral("to")).toString(), QStringLiteral("stuck"));
    QCOMPARE(qint64(missed.value(QStringLiteral("backoffMs")).toDouble()), 2 * preferAfterMs);
    auto handovers = [leader] {
        QList<qint64> at;
        for (const QJsonObject &event : leader->events())
            if (event.value(QStringLiteral("event")).toString() == QLatin1String("handover-requested"))
                at << monoOf(event);
        return at;
    };
    QTRY_VERIFY_WITH_TIMEOUT(handovers().size() >= 2, 40 * preferAfterMs);
    const QList<qint64> at = handovers();
    qInfo("back-off: handed over again %lld ms after the first miss (asked: %lld ms)", at.at(1) - monoOf(missed),
          2 * preferAfterMs);
    QVERIFY(at.at(1) - monoOf(missed) >= 2 * preferAfterMs);
    QVERIFY(firstEvent(*stuck, QStringLiteral("started-leading")).isEmpty());
    QVERIFY2(leader->standardError().contains("did not take the lease handed to it as the preferred holder"),
             leader->standardError().constData());
}

void TestKubernetesSteering::aCandidateThatMayNotListStaysLiveForTheOthers()
{
    // A listing refused pauses the listing only: the candidate's record is
    // still written at every heartbeat, so the leader does not count it
    // gone (three heartbeats unchanged) and tidy it away. Paused with the
    // listing, it was written at heartbeats 0, 1, 3, 7, ... only.
    ParticipantProcess *leading = start(QStringLiteral("a"));
    QVERIFY(leading);
    QTRY_VERIFY_WITH_TIMEOUT(leading->isLeading(), 20000);
    const QString config = writeKubeconfig(cannotListToken, QStringLiteral("kubeconfig-cannot-list"));
    ParticipantProcess *blind = start(QStringLiteral("blind"), {}, config);
    QVERIFY(blind);
    QTRY_VERIFY_WITH_TIMEOUT(lastEvent(*leading, QStringLiteral("candidates")).value(QStringLiteral("live")).toInt() == 2,
                             20000);
    QTRY_VERIFY_WITH_TIMEOUT(!firstEvent(*blind, QStringLiteral("steering-failed")).isEmpty(), 20000);
    const qint64 since = Clock::system().monotonicMs();
    const int writesBefore = m_server.count(cannotListUser, QStringLiteral("configmaps/update"));
    // Eight heartbeats of the candidates, as the leader's renewals count them.
    QTRY_VERIFY_WITH_TIMEOUT(renewalsSince(*leading, since) >= 8 * leaseMs / renewMs, 20 * leaseMs);
    const int writes = m_server.count(cannotListUser, QStringLiteral("configmaps/update")) - writesBefore;
    qInfo("a candidate that may not list wrote its record %d times in eight heartbeats", writes);
    QVERIFY2(writes >= 6, qPrintable(QString::number(writes)));
    for (const QJsonObject &event : leading->events())
        if (event.value(QStringLiteral("event")).toString() == QLatin1String("candidates") && monoOf(event) >= since)
            QCOMPARE(event.value(QStringLiteral("live")).toInt(), 2);
    QVERIFY(!candidateMap(QStringLiteral("blind")).isEmpty());
    QVERIFY(leading->isLeading());
    QVERIFY(firstEvent(*blind, QStringLiteral("started-leading")).isEmpty());
}

void TestKubernetesSteering::aRefusedReadOfTheOwnRecordIsToldWhenItWorksAgain()
{
    // An operator at 3 a.m. grants the missing right: the warning said the
    // steering is off until the record works again, and the log says when.
    const QString config = writeKubeconfig(cannotReadToken, QStringLiteral("kubeconfig-cannot-read"));
    ParticipantProcess *p = start(QStringLiteral("unread"), {}, config);
    QVERIFY(p);
    QTRY_VERIFY_WITH_TIMEOUT(p->standardError().contains("candidate record (read)"), 20000);
    m_server.setVerbs(cannotReadUser, cannotReadVerbs + QStringList {QStringLiteral("configmaps/get")});
    QTRY_VERIFY_WITH_TIMEOUT(p->standardError().contains("candidate record (read) works again"), 20 * leaseMs);
    QTRY_VERIFY_WITH_TIMEOUT(!candidateRecord(QStringLiteral("unread")).isEmpty(), 20000);
    m_server.setVerbs(cannotReadUser, cannotReadVerbs);
}

void TestKubernetesSteering::cleanup()
{
    for (const auto &p : m_participants) {
        if (p->isRunning()) {
            QSignalSpy finished(p.get(), &ParticipantProcess::finished);
            p->sendSignal(SIGCONT);
            p->sendSignal(SIGTERM);
            finished.wait(10000);
        }
        if (QTest::currentTestFailed())
            qWarning("--- %s (%d events) ---\n%s", qPrintable(p->label()), int(p->events().size()),
                     p->standardError().constData());
    }
    m_participants.clear();
}

QTEST_GUILESS_MAIN(TestKubernetesSteering)
#include "tst_kubernetes_steering.moc"
