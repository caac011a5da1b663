// The Kubernetes lease backend against the test Lease API server, in
// process: what a write the API server treats as a no-op means for the
// leader's authority (F4).

#include "leasebackendtesting.h"
#include "kubernetesleasebackend.h"
#include "leaseapiserver.h"

#include <QDateTime>
#include <QSignalSpy>
#include <QTest>

#include <optional>

using namespace baton;

using baton::test::ReplyWaiter;

namespace {

const QString kNamespace = QStringLiteral("backend");
const QString kToken = QStringLiteral("kube-backend-test-token");

} // namespace

class TestKubeLeaseBackend : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void anUpdateIdenticalToTheStoredLeaseRenewsNothing();

private:
    test::LeaseApiServer m_server;
};

void TestKubeLeaseBackend::initTestCase()
{
    QString error;
    QVERIFY2(m_server.listen(&error), qPrintable(error));
    m_server.addToken(kToken, QStringLiteral("system:serviceaccount:backend:participant"),
                      {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update")});
}

// F4: the API server keeps the resourceVersion of an update identical to the
// stored Lease and tells no watcher, so the followers' clocks keep running
// from the last change they saw. Such a renewal must not extend the leader's
// validity: it is answered as a failed write, not as a renewal. A renewal
// that does change the Lease still succeeds with a new version.
void TestKubeLeaseBackend::anUpdateIdenticalToTheStoredLeaseRenewsNothing()
{
    KubeClientConfig config;
    config.server = m_server.url();
    config.token = kToken;
    config.namespaceName = kNamespace;
    config.source = QStringLiteral("the test");
    KubernetesLeaseBackend backend(config, QStringLiteral("identical"), 5000);
    QString error;
    QVERIFY2(backend.setUp(&error), qPrintable(error));

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

QTEST_GUILESS_MAIN(TestKubeLeaseBackend)
#include "tst_kubeleasebackend.moc"
