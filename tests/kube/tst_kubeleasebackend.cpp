// The Kubernetes lease protocol against the test Lease API server, in
// process: what a write the API server treats as a no-op means for the
// leader's authority (F4), and what a renewal keeps of what other writers
// put on the Lease (R7).

#include "leasebackendtesting.h"
#include "kubeconnection.h"
#include "kubernetesleaseprotocol.h"
#include "leaseapiserver.h"

#include "kubelease.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>

#include <memory>
#include <optional>

using namespace baton;

using baton::test::OneLease;
using baton::test::ReplyWaiter;

namespace {

const QString kNamespace = QStringLiteral("backend");
const QString kToken = QStringLiteral("kube-backend-test-token");
// A participant whose Role also allows list and watch (B5): it follows the Lease.
const QString kWatchingToken = QStringLiteral("kube-backend-watching-token");

// What other tools put on a Lease they manage or track.
const QString kManagedBy = QStringLiteral("app.kubernetes.io/managed-by");
const QString kArgoTracking = QStringLiteral("argocd.argoproj.io/tracking-id");
const QJsonArray kOwner {QJsonObject {{QStringLiteral("apiVersion"), QStringLiteral("apps/v1")},
                                      {QStringLiteral("kind"), QStringLiteral("Deployment")},
                                      {QStringLiteral("name"), QStringLiteral("billing")},
                                      {QStringLiteral("uid"), QStringLiteral("6f1c2a52-0000-4000-8000-000000000001")}}};

KubeClientConfig configFor(const QUrl &server, const QString &token)
{
    KubeClientConfig config;
    config.server = server;
    config.token = token;
    config.namespaceName = kNamespace;
    config.source = QStringLiteral("the test");
    return config;
}

QJsonObject metadataOf(const QJsonObject &lease)
{
    return lease.value(QStringLiteral("metadata")).toObject();
}

QString versionOf(const QJsonObject &lease)
{
    return metadataOf(lease).value(QStringLiteral("resourceVersion")).toString();
}

HistoryEntry firstAcquisition(const QString &holder)
{
    HistoryEntry entry;
    entry.to = holder;
    entry.why = QStringLiteral("first-acquire");
    entry.at = QDateTime::currentDateTimeUtc();
    entry.transitions = 0;
    return entry;
}

} // namespace

class TestKubeLeaseBackend : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void anUpdateIdenticalToTheStoredLeaseRenewsNothing();
    void labelsAndAnnotationsOfOtherWritersSurviveAHundredRenewalsBehindALaggingWatch();
    void aWatchThatReplaysAnOlderObjectLeavesTheNextRenewalWhole();
    void anUpdateAtAVersionNeverSeenReadsTheObjectFirst();
    void anUpdateAtAVersionNeverSeenThatIsNoLongerCurrentIsAConflictWithoutAWrite();
    void leasesOfOneConfigurationShareOneConnection();
    void twentyWatchesOverOneConnectionEachHearTheirLease();
    void theAnswerToAProtocolDestroyedGoesNowhereWhileItsConnectionLives();

    void cleanup();

private:
    std::unique_ptr<OneLease> backend(const QString &name, const QString &token);
    /*! Creates \a name held by \a record.holder, with its first change in the stored history. */
    QString createWithHistory(OneLease &backend, const LeaseRecord &record);
    /*! Another client (Helm, Argo CD) labels and annotates the Lease; returns its new version. */
    QString labelAsAnotherTool(const QString &name);
    /*! One renewal at \a version; the new version, or empty (with the test failed). */
    QString renew(OneLease &backend, LeaseRecord &record, const QString &version);
    /*! Whether the stored Lease still has the other tool's metadata and our history; why not in \a why. */
    bool keepsWhatOthersWrote(const QString &name, QString *why) const;
    /*! Starts \a backend's watch and waits until the server streams to it and the list was reported. */
    bool watchStarted(OneLease &backend);

    test::LeaseApiServer m_server;
};

void TestKubeLeaseBackend::initTestCase()
{
    QString error;
    QVERIFY2(m_server.listen(&error), qPrintable(error));
    m_server.addToken(kToken, QStringLiteral("system:serviceaccount:backend:participant"),
                      {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update")});
    m_server.addToken(kWatchingToken, QStringLiteral("system:serviceaccount:backend:watching"),
                      {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
                       QStringLiteral("list"), QStringLiteral("watch")});
}

void TestKubeLeaseBackend::cleanup()
{
    // A test that failed while the watch lagged leaves no lag to the next.
    m_server.stopHoldingWatchEvents();
}

std::unique_ptr<OneLease> TestKubeLeaseBackend::backend(const QString &name, const QString &token)
{
    auto protocol = std::make_unique<KubernetesLeaseProtocol>(configFor(m_server.url(), token), false, 5000);
    QString error;
    if (!protocol->setUp(&error))
        qWarning("%s", qPrintable(error));
    return std::make_unique<OneLease>(std::move(protocol), name);
}

QString TestKubeLeaseBackend::createWithHistory(OneLease &backend, const LeaseRecord &record)
{
    ReplyWaiter created;
    backend.create(record, firstAcquisition(record.holder), created.callback());
    if (!created.wait() || created.reply().outcome != LeaseReply::Outcome::Ok) {
        QTest::qFail("the Lease was not created", __FILE__, __LINE__);
        return {};
    }
    return created.reply().state.version;
}

QString TestKubeLeaseBackend::labelAsAnotherTool(const QString &name)
{
    QJsonObject lease = m_server.lease(kNamespace, name);
    QJsonObject meta = metadataOf(lease);
    QJsonObject labels = meta.value(QStringLiteral("labels")).toObject();
    labels.insert(kManagedBy, QStringLiteral("Helm"));
    labels.insert(QStringLiteral("app.kubernetes.io/instance"), QStringLiteral("billing"));
    meta.insert(QStringLiteral("labels"), labels);
    QJsonObject annotations = meta.value(QStringLiteral("annotations")).toObject();
    annotations.insert(kArgoTracking, QStringLiteral("billing:coordination.k8s.io/Lease:backend/") + name);
    meta.insert(QStringLiteral("annotations"), annotations);
    meta.insert(QStringLiteral("ownerReferences"), kOwner);
    lease.insert(QStringLiteral("metadata"), meta);
    return versionOf(m_server.putRaw(kNamespace, name, lease));
}

QString TestKubeLeaseBackend::renew(OneLease &backend, LeaseRecord &record,
                                    const QString &version)
{
    record.renewTime = record.renewTime.addMSecs(1000);
    ReplyWaiter renewed;
    backend.update(record, version, std::nullopt, renewed.callback());
    if (!renewed.wait() || renewed.reply().outcome != LeaseReply::Outcome::Ok) {
        QTest::qFail(qPrintable(QStringLiteral("the renewal at version %1 failed: %2")
                                        .arg(version, renewed.wait() ? renewed.reply().errorString
                                                                     : QStringLiteral("no answer"))),
                     __FILE__, __LINE__);
        return {};
    }
    return renewed.reply().state.version;
}

bool TestKubeLeaseBackend::keepsWhatOthersWrote(const QString &name, QString *why) const
{
    const QJsonObject meta = metadataOf(m_server.lease(kNamespace, name));
    const QJsonObject labels = meta.value(QStringLiteral("labels")).toObject();
    const QJsonObject annotations = meta.value(QStringLiteral("annotations")).toObject();
    QList<HistoryEntry> history;
    QString historyError;
    if (labels.value(kManagedBy).toString() != QStringLiteral("Helm")
        || labels.value(QStringLiteral("app.kubernetes.io/instance")).toString() != QStringLiteral("billing")) {
        *why = QStringLiteral("the other tool's labels are gone");
    } else if (!annotations.value(kArgoTracking).toString().endsWith(name)) {
        *why = QStringLiteral("the other tool's annotation is gone");
    } else if (meta.value(QStringLiteral("ownerReferences")).toArray() != kOwner) {
        *why = QStringLiteral("the owner reference is gone");
    } else if (!kubelease::decodeHistory(meta, &history, &historyError)) {
        *why = QStringLiteral("the stored history does not decode: ") + historyError;
    } else if (history.size() != 1 || history.first().why != QStringLiteral("first-acquire")) {
        *why = QStringLiteral("the stored history has %1 changes, not the first acquisition").arg(history.size());
    } else {
        return true;
    }
    *why += QStringLiteral(" (metadata: %1)")
                    .arg(QString::fromUtf8(QJsonDocument(meta).toJson(QJsonDocument::Compact)));
    return false;
}

bool TestKubeLeaseBackend::watchStarted(OneLease &backend)
{
    const int watches = m_server.watchCount();
    backend.startWatching();
    return QTest::qWaitFor([&] { return m_server.watchCount() > watches && backend.changes().count() > 0; },
                           5000);
}

// F4: the API server keeps the resourceVersion of an update identical to the
// stored Lease and tells no watcher, so the followers' clocks keep running
// from the last change they saw. Such a renewal must not extend the leader's
// validity: it is answered as a failed write, not as a renewal. A renewal
// that does change the Lease still succeeds with a new version.
void TestKubeLeaseBackend::anUpdateIdenticalToTheStoredLeaseRenewsNothing()
{
    auto protocol = std::make_unique<KubernetesLeaseProtocol>(configFor(m_server.url(), kToken), false, 5000);
    QString error;
    QVERIFY2(protocol->setUp(&error), qPrintable(error));
    OneLease backend(std::move(protocol), QStringLiteral("identical"));

    LeaseRecord record;
    record.holder = QStringLiteral("leader");
    record.leaseDurationMs = 3000;
    record.acquireTime = QDateTime::currentDateTimeUtc();
    record.renewTime = record.acquireTime;
    ReplyWaiter created;
    backend.create(record, std::nullopt, created.callback());
    QVERIFY(created.wait());
    QCOMPARE(int(created.reply().outcome), int(LeaseReply::Outcome::Ok));
    const QString version = created.reply().state.version;
    QVERIFY(!version.isEmpty());

    ReplyWaiter identical;
    backend.update(record, version, std::nullopt, identical.callback());
    QVERIFY(identical.wait());
    QCOMPARE(int(identical.reply().outcome), int(LeaseReply::Outcome::Error));
    QVERIFY2(identical.reply().errorString.contains(QLatin1String("renews nothing")),
             qPrintable(identical.reply().errorString));
    QCOMPARE(m_server.lease(kNamespace, QStringLiteral("identical"))
                     .value(QStringLiteral("metadata")).toObject()
                     .value(QStringLiteral("resourceVersion")).toString(),
             version);

    record.renewTime = record.renewTime.addMSecs(1000);
    ReplyWaiter renewed;
    backend.update(record, version, std::nullopt, renewed.callback());
    QVERIFY(renewed.wait());
    QCOMPARE(int(renewed.reply().outcome), int(LeaseReply::Outcome::Ok));
    QVERIFY(renewed.reply().state.version != version);
}

// R7: a renewal is built from the object the API server returned at the
// version it names, whatever the watch delivered since. Here the watch lags
// one event behind the answers to the renewals, as an apiserver's watch
// cache does under load: each renewal's answer arrives before the event of
// the renewal before it. The labels, annotation and finalizer another tool
// put on the Lease, and the stored history, survive a hundred renewals.
void TestKubeLeaseBackend::labelsAndAnnotationsOfOtherWritersSurviveAHundredRenewalsBehindALaggingWatch()
{
    const QString name = QStringLiteral("lagging-watch");
    const auto leader = backend(name, kWatchingToken);
    const QList<LeaseState> &changes = leader->changes();
    LeaseRecord record = test::heldRecord(QStringLiteral("leader"), 0);
    QVERIFY(!createWithHistory(*leader, record).isEmpty());
    QString version = labelAsAnotherTool(name);
    QVERIFY(watchStarted(*leader));
    QTRY_COMPARE(changes.last().version, version);

    m_server.holdWatchEvents();
    for (int renewal = 1; renewal <= 100; ++renewal) {
        version = renew(*leader, record, version);
        QVERIFY(!version.isEmpty());
        // All but the newest event: the one of the renewal before this one
        // arrives after this renewal's answer.
        const int late = m_server.heldWatchEvents() - 1;
        if (late > 0) {
            const qsizetype seen = changes.count();
            m_server.releaseWatchEvents(late);
            QVERIFY(QTest::qWaitFor([&] { return changes.count() == seen + late; }, 5000));
            QVERIFY(changes.last().version != version);
        }
        QString why;
        QVERIFY2(keepsWhatOthersWrote(name, &why),
                 qPrintable(QStringLiteral("after renewal %1: %2").arg(renewal).arg(why)));
    }
    m_server.stopHoldingWatchEvents();
    QCOMPARE(versionOf(m_server.lease(kNamespace, name)), version);
}

// R7: an older object delivered after a newer one (a watch resumed from an
// older version, a relist answered from a lagging cache) never becomes the
// base of the next renewal; here the replayed object is even the one from
// before the other tool labelled the Lease.
void TestKubeLeaseBackend::aWatchThatReplaysAnOlderObjectLeavesTheNextRenewalWhole()
{
    const QString name = QStringLiteral("replaying-watch");
    const auto leader = backend(name, kWatchingToken);
    const QList<LeaseState> &changes = leader->changes();
    LeaseRecord record = test::heldRecord(QStringLiteral("leader"), 0);
    const QString unlabelled = createWithHistory(*leader, record);
    QVERIFY(!unlabelled.isEmpty());
    QString version = labelAsAnotherTool(name);
    QVERIFY(watchStarted(*leader));
    QTRY_COMPARE(changes.last().version, version);
    for (int renewal = 1; renewal <= 3; ++renewal) {
        version = renew(*leader, record, version);
        QVERIFY(!version.isEmpty());
    }
    QTRY_COMPARE(changes.last().version, version);

    for (const QString &old : {unlabelled, QString::number(version.toLongLong() - 1)}) {
        const qsizetype seen = changes.count();
        QVERIFY(m_server.replayWatchEvent(old));
        QTRY_COMPARE(changes.count(), seen + 1);
        QCOMPARE(changes.last().version, old);
        version = renew(*leader, record, version);
        QVERIFY(!version.isEmpty());
        QString why;
        QVERIFY2(keepsWhatOthersWrote(name, &why),
                 qPrintable(QStringLiteral("after the replay of version %1: %2").arg(old, why)));
    }
}

// R7: asked to update at a version it holds no object for, the backend reads
// the Lease first and builds the update from what the server returned,
// rather than writing a bare object over the other writers' metadata.
void TestKubeLeaseBackend::anUpdateAtAVersionNeverSeenReadsTheObjectFirst()
{
    const QString name = QStringLiteral("never-seen");
    LeaseRecord record = test::heldRecord(QStringLiteral("leader"), 0);
    {
        const auto creator = backend(name, kToken);
        QVERIFY(!createWithHistory(*creator, record).isEmpty());
    }
    const QString version = labelAsAnotherTool(name);
    const auto leader = backend(name, kToken);
    const int gets = m_server.count(QStringLiteral("system:serviceaccount:backend:participant"),
                                    QStringLiteral("get"));
    QVERIFY(!renew(*leader, record, version).isEmpty());
    QCOMPARE(m_server.count(QStringLiteral("system:serviceaccount:backend:participant"), QStringLiteral("get")),
             gets + 1);
    QString why;
    QVERIFY2(keepsWhatOthersWrote(name, &why), qPrintable(why));
    QCOMPARE(m_server.lease(kNamespace, name).value(QStringLiteral("spec")).toObject()
                     .value(QStringLiteral("renewTime")).toString(),
             KubernetesLeaseProtocol::microTime(record.renewTime));
}

// R7, B3: when the read shows that the Lease moved past the version, the
// conditional write could only lose: it is a conflict with the state read,
// and nothing is written.
void TestKubeLeaseBackend::anUpdateAtAVersionNeverSeenThatIsNoLongerCurrentIsAConflictWithoutAWrite()
{
    const QString name = QStringLiteral("never-seen-stale");
    LeaseRecord record = test::heldRecord(QStringLiteral("leader"), 0);
    QString stale;
    {
        const auto creator = backend(name, kToken);
        stale = createWithHistory(*creator, record);
        QVERIFY(!stale.isEmpty());
    }
    const QString current = labelAsAnotherTool(name);
    const auto late = backend(name, kToken);
    const QString user = QStringLiteral("system:serviceaccount:backend:participant");
    const int updates = m_server.count(user, QStringLiteral("update"));
    record.renewTime = record.renewTime.addMSecs(1000);
    ReplyWaiter refused;
    late->update(record, stale, std::nullopt, refused.callback());
    QVERIFY(refused.wait());
    QCOMPARE(int(refused.reply().outcome), int(LeaseReply::Outcome::Conflict));
    QVERIFY(refused.reply().stateKnown);
    QCOMPARE(refused.reply().state.version, current);
    QCOMPARE(m_server.count(user, QStringLiteral("update")), updates);
    QCOMPARE(versionOf(m_server.lease(kNamespace, name)), current);
}

// P3: a process in a thousand elections on one kubeconfig holds one HTTP
// client, one TLS setting and one credential for them all, not one each: a
// network manager is an HTTP thread of its own.
void TestKubeLeaseBackend::leasesOfOneConfigurationShareOneConnection()
{
    QCOMPARE(KubeConnection::countInThisThread(), 0);
    std::vector<std::unique_ptr<OneLease>> leases;
    for (int i = 0; i < 3; ++i)
        leases.push_back(backend(QStringLiteral("shared-%1").arg(i), kWatchingToken));
    QCOMPARE(KubeConnection::countInThisThread(), 1);
    // Another namespace names other URLs over the same connection.
    KubeClientConfig elsewhere = configFor(m_server.url(), kWatchingToken);
    elsewhere.namespaceName = QStringLiteral("elsewhere");
    auto other = std::make_unique<KubernetesLeaseProtocol>(elsewhere, false, 5000);
    QCOMPARE(KubeConnection::countInThisThread(), 1);
    // Another user, or another timeout, never shares.
    leases.push_back(backend(QStringLiteral("shared-other-user"), kToken));
    QCOMPARE(KubeConnection::countInThisThread(), 2);
    auto slower = std::make_unique<KubernetesLeaseProtocol>(configFor(m_server.url(), kWatchingToken), false, 9000);
    QCOMPARE(KubeConnection::countInThisThread(), 3);

    // Each still writes its own Lease.
    for (const auto &lease : leases) {
        ReplyWaiter created;
        lease->create(test::heldRecord(QStringLiteral("pod-a"), 0), std::nullopt, created.callback());
        QVERIFY(created.wait());
        QCOMPARE(created.reply().outcome, LeaseReply::Outcome::Ok);
    }
    QCOMPARE(m_server.lease(kNamespace, QStringLiteral("shared-2"))
                     .value(QStringLiteral("spec")).toObject().value(QStringLiteral("holderIdentity")).toString(),
             QStringLiteral("pod-a"));

    leases.clear();
    other.reset();
    slower.reset();
    QCOMPARE(KubeConnection::countInThisThread(), 0);
}

// P3: a watch holds its connection as long as it lasts, and Qt opens six
// connections to a host per network manager: over one shared connection,
// the seventh watch would wait behind six that never end.
void TestKubeLeaseBackend::twentyWatchesOverOneConnectionEachHearTheirLease()
{
    constexpr int count = 20;
    std::vector<std::unique_ptr<OneLease>> leases;
    for (int i = 0; i < count; ++i)
        leases.push_back(backend(QStringLiteral("watched-%1").arg(i), kWatchingToken));
    QCOMPARE(KubeConnection::countInThisThread(), 1);
    const int watchesBefore = m_server.watchCount();
    for (const auto &lease : leases)
        QVERIFY(lease->startWatching());
    QTRY_COMPARE_WITH_TIMEOUT(m_server.watchCount(), watchesBefore + count, 10000);

    for (int i = 0; i < count; ++i) {
        ReplyWaiter created;
        leases[i]->create(test::heldRecord(QStringLiteral("holder-%1").arg(i), 0), std::nullopt, created.callback());
        QVERIFY(created.wait());
        QCOMPARE(created.reply().outcome, LeaseReply::Outcome::Ok);
    }
    for (int i = 0; i < count; ++i) {
        const OneLease &lease = *leases[i];
        QTRY_VERIFY_WITH_TIMEOUT(!lease.changes().isEmpty()
                                         && lease.changes().constLast().record.holder == QStringLiteral("holder-%1").arg(i),
                                 10000);
    }
}

// P3: each protocol's requests answer only it: one destroyed while its request
// is out is not called back, though the connection it shared lives on.
void TestKubeLeaseBackend::theAnswerToAProtocolDestroyedGoesNowhereWhileItsConnectionLives()
{
    auto gone = std::make_unique<KubernetesLeaseProtocol>(configFor(m_server.url(), kWatchingToken), false, 5000);
    auto staying = std::make_unique<KubernetesLeaseProtocol>(configFor(m_server.url(), kWatchingToken), false, 5000);
    QString error;
    QVERIFY2(gone->setUp(&error), qPrintable(error));
    QVERIFY2(staying->setUp(&error), qPrintable(error));
    QCOMPARE(KubeConnection::countInThisThread(), 1);

    bool goneAnswered = false;
    QSignalSpy handled(&m_server, &test::LeaseApiServer::requestHandled);
    gone->get(QStringLiteral("answered-nowhere"), [&goneAnswered](const LeaseReply &) { goneAnswered = true; });
    gone.reset();
    // The second request goes once the server has answered the first: that
    // answer is read a round trip before the second's.
    QVERIFY(handled.wait());
    ReplyWaiter read;
    staying->get(QStringLiteral("answered-nowhere"), read.callback());
    QVERIFY(read.wait());
    QCOMPARE(read.reply().outcome, LeaseReply::Outcome::Ok);
    QVERIFY(!goneAnswered);
}

QTEST_GUILESS_MAIN(TestKubeLeaseBackend)
#include "tst_kubeleasebackend.moc"
