// What a leader alone on etcd asks of etcd once it leads: `baton join`
// through a proxy that counts its requests by request line. Its candidate
// record's heartbeat comes with one of its renewals, and goes in that
// renewal's txn: one request a renewInterval, not one more each lease.

#include "countingproxy.h"
#include "etcdfixture.h"
#include "participants.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <QUuid>

#include <csignal>

using namespace baton;
using namespace baton::test;

namespace {

constexpr int kRenewMs = 250;
constexpr int kLeaseMs = 1000; // four renewIntervals: a heartbeat every fourth renewal

bool isRenewal(const QJsonObject &event)
{
    return event.value(QStringLiteral("event")).toString() == QLatin1String("attempt")
            && event.value(QStringLiteral("outcome")).toString() == QLatin1String("renewed");
}

} // namespace

class TestEtcdLeaderRequests : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void aLeaderAloneSendsOneRequestARenewal();

private:
    EtcdFixture m_etcd { "BATON_ETCD_DIR" };
    QTemporaryDir m_dir;
};

void TestEtcdLeaderRequests::initTestCase()
{
    if (!m_etcd.configured())
        QSKIP("no etcd fixture: run through ctest");
    QVERIFY2(!m_etcd.endpoints().isEmpty(), qPrintable(m_etcd.errorString()));
}

// P3: over three lease durations of steady leading (twelve renewals, three
// heartbeats of its candidate record), each renewal is one txn and nothing
// else goes to etcd.
void TestEtcdLeaderRequests::aLeaderAloneSendsOneRequestARenewal()
{
    CountingProxy proxy(quint16(QUrl(m_etcd.endpoints().first()).port()));
    const QString lease = QStringLiteral("alone");
    const QJsonObject config {
        { QStringLiteral("services"),
          QJsonObject {
              { QStringLiteral("Registry"),
                QJsonObject { { QStringLiteral("type"), QStringLiteral("Webda/EtcdStore") },
                              { QStringLiteral("endpoints"),
                                QJsonArray { QStringLiteral("http://127.0.0.1:%1").arg(proxy.port()) } },
                              { QStringLiteral("prefix"),
                                QStringLiteral("alone/%1/").arg(QUuid::createUuid().toString(QUuid::Id128)) } } },
              { QStringLiteral("cluster"),
                QJsonObject { { QStringLiteral("type"), QStringLiteral("Webda/StoreClusterService") },
                              { QStringLiteral("leaseName"), lease },
                              { QStringLiteral("leaseDuration"), kLeaseMs },
                              { QStringLiteral("renewInterval"), kRenewMs } } } } }
    };
    const QString path = m_dir.filePath(QStringLiteral("alone.json"));
    QVERIFY(writeJsonFile(path, config));
    auto leader = startParticipant(QStringLiteral("alone"), path);
    QTRY_VERIFY_WITH_TIMEOUT(leader->isLeading(), 10000);

    // Once its heartbeats follow its renewals (the second heartbeat comes
    // at a random instant of the first lease, the third with a renewal).
    int renewals = 0;
    connect(leader.get(), &ParticipantProcess::event, this, [&](const QJsonObject &event) {
        if (!isRenewal(event))
            return;
        if (++renewals == 12)
            proxy.reset(); // just after a renewal: its request is counted already
    });
    constexpr int kWindow = 12;
    QTRY_VERIFY_WITH_TIMEOUT(renewals >= 12 + kWindow, 20000);
    // A renewal's request is counted before its answer, and its event after.
    const QMap<QString, int> counts = proxy.counts();
    QCOMPARE(counts.value(QStringLiteral("POST /v3/kv/txn")), renewals - 12);
    // Nothing else, but a watch that happened to open again (counted once).
    const int others = proxy.total() - counts.value(QStringLiteral("POST /v3/kv/txn"));
    QVERIFY2(others <= counts.value(QStringLiteral("POST /v3/watch")) && others <= 1,
             qPrintable(QStringLiteral("%1 requests besides the renewals").arg(others)));

    leader->sendSignal(SIGTERM);
    QTRY_VERIFY_WITH_TIMEOUT(!leader->isRunning(), 10000);
}

QTEST_GUILESS_MAIN(TestEtcdLeaderRequests)
#include "tst_etcdleaderrequests.moc"
