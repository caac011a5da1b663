// FaultProxy (tests/common/faultproxy.*), the chaos harness's network
// faults, against a loopback echo server: each mode must do what the
// harness's report claims it did.

#include "faultproxy.h"

#include <QDeadlineTimer>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace baton::test;

namespace {

/*! Echoes every byte back on the connection it came from. */
class EchoServer : public QObject
{
public:
    EchoServer()
    {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                socket->setParent(this);
                connect(socket, &QTcpSocket::readyRead, socket, [socket] { socket->write(socket->readAll()); });
                connect(socket, &QTcpSocket::readyRead, this, [this] { ++m_received; });
            }
        });
    }
    bool listen() { return m_server.listen(QHostAddress::LocalHost); }
    quint16 port() const { return m_server.serverPort(); }
    int received() const { return m_received; }
    void closeAll()
    {
        for (QTcpSocket *socket : findChildren<QTcpSocket *>())
            socket->abort();
    }

private:
    QTcpServer m_server;
    int m_received = 0;
};

} // namespace

class TestFaultProxy : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void withoutAFaultBytesGoBothWays();
    void latencyDelaysEachDirection();
    void aBlackholeHoldsTheBytesUntilHealed();
    void oneWayLossLetsTheOtherDirectionFlow();
    void aResetAbortsTheConnection();
    void theStoreGoingAwayClosesTheClient();

private:
    QTcpSocket *connectClient();

    std::unique_ptr<EchoServer> m_echo;
    std::unique_ptr<FaultProxy> m_proxy;
    std::unique_ptr<QTcpSocket> m_client;
};

void TestFaultProxy::init()
{
    m_echo = std::make_unique<EchoServer>();
    QVERIFY(m_echo->listen());
    m_proxy = std::make_unique<FaultProxy>(m_echo->port());
    QVERIFY(m_proxy->listen());
}

void TestFaultProxy::cleanup()
{
    m_client.reset();
    m_proxy.reset();
    m_echo.reset();
}

QTcpSocket *TestFaultProxy::connectClient()
{
    m_client = std::make_unique<QTcpSocket>();
    m_client->connectToHost(QHostAddress::LocalHost, m_proxy->port());
    return m_client->waitForConnected(5000) ? m_client.get() : nullptr;
}

void TestFaultProxy::withoutAFaultBytesGoBothWays()
{
    QTcpSocket *client = connectClient();
    QVERIFY(client);
    client->write("ping");
    QTRY_COMPARE(client->bytesAvailable(), 4);
    QCOMPARE(client->readAll(), QByteArray("ping"));
}

void TestFaultProxy::latencyDelaysEachDirection()
{
    // Lower bounds only: the proxy must not forward before its latency.
    QTcpSocket *client = connectClient();
    QVERIFY(client);
    m_proxy->setLatency(FaultProxy::ToStore, 300);
    qint64 start = QDeadlineTimer::current().deadline();
    client->write("a");
    QTRY_COMPARE(m_echo->received(), 1);
    QVERIFY(QDeadlineTimer::current().deadline() - start >= 300);
    QTRY_COMPARE(client->bytesAvailable(), 1);
    client->readAll();

    m_proxy->setLatency(FaultProxy::ToStore, 0);
    m_proxy->setLatency(FaultProxy::FromStore, 300);
    start = QDeadlineTimer::current().deadline();
    client->write("b");
    QTRY_COMPARE(client->bytesAvailable(), 1);
    QVERIFY(QDeadlineTimer::current().deadline() - start >= 300);
}

void TestFaultProxy::aBlackholeHoldsTheBytesUntilHealed()
{
    QTcpSocket *client = connectClient();
    QVERIFY(client);
    m_proxy->setBlackhole(FaultProxy::Both);
    client->write("held");
    QTest::qWait(300); // a while in which nothing may arrive: what is checked is an absence
    QCOMPARE(m_echo->received(), 0);
    QCOMPARE(client->state(), QAbstractSocket::ConnectedState);
    m_proxy->heal();
    QTRY_COMPARE(client->bytesAvailable(), 4);
    QCOMPARE(client->readAll(), QByteArray("held"));
}

void TestFaultProxy::oneWayLossLetsTheOtherDirectionFlow()
{
    QTcpSocket *client = connectClient();
    QVERIFY(client);
    m_proxy->setBlackhole(FaultProxy::FromStore);
    client->write("x");
    QTRY_COMPARE(m_echo->received(), 1); // the request reaches the store
    QTest::qWait(300); // the reply must not come: an absence again
    QCOMPARE(client->bytesAvailable(), 0);
    m_proxy->heal();
    QTRY_COMPARE(client->bytesAvailable(), 1);
}

void TestFaultProxy::aResetAbortsTheConnection()
{
    QTcpSocket *client = connectClient();
    QVERIFY(client);
    client->write("x");
    QTRY_COMPARE(client->bytesAvailable(), 1);
    QSignalSpy errors(client, &QTcpSocket::errorOccurred);
    m_proxy->resetAll();
    QVERIFY(errors.wait(5000));
    QCOMPARE(client->error(), QAbstractSocket::RemoteHostClosedError);
    QVERIFY(client->state() != QAbstractSocket::ConnectedState);
    // A reset is one event: the next connection goes through.
    QTcpSocket *again = connectClient();
    QVERIFY(again);
    again->write("y");
    QTRY_COMPARE(again->bytesAvailable(), 1);
}

void TestFaultProxy::theStoreGoingAwayClosesTheClient()
{
    QTcpSocket *client = connectClient();
    QVERIFY(client);
    client->write("x");
    QTRY_COMPARE(client->bytesAvailable(), 1);
    QSignalSpy gone(client, &QTcpSocket::disconnected);
    m_echo->closeAll();
    QVERIFY(gone.wait(5000));
}

QTEST_GUILESS_MAIN(TestFaultProxy)
#include "tst_faultproxy.moc"
