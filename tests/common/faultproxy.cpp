#include "faultproxy.h"

#include <QDeadlineTimer>
#include <QTcpSocket>
#include <QTimer>

#include <deque>

#include <sys/socket.h>

namespace baton::test {

namespace {

qint64 nowMs()
{
    return QDeadlineTimer::current().deadline();
}

/*! An abort that the peer sees as "connection reset", not as an orderly close. */
void abortWithReset(QTcpSocket *socket)
{
    if (socket->socketDescriptor() >= 0) {
        const linger noLinger {1, 0};
        ::setsockopt(int(socket->socketDescriptor()), SOL_SOCKET, SO_LINGER, &noLinger,
                     sizeof noLinger);
    }
    socket->abort();
}

} // namespace

/*!
 * One forwarded connection: two queues of chunks, one a direction, each
 * released when its time has come and its direction is not held.
 */
class FaultProxy::Link : public QObject
{
public:
    Link(FaultProxy *proxy, QTcpSocket *client)
        : QObject(proxy)
        , m_proxy(proxy)
        , m_client(client)
        , m_upstream(new QTcpSocket(this))
    {
        client->setParent(this);
        m_toStore.timer.setSingleShot(true);
        m_fromStore.timer.setSingleShot(true);
        connect(&m_toStore.timer, &QTimer::timeout, this, &Link::pump);
        connect(&m_fromStore.timer, &QTimer::timeout, this, &Link::pump);
        connect(m_client, &QTcpSocket::readyRead, this,
                [this] { enqueue(m_toStore, FaultProxy::ToStore, m_client->readAll()); });
        connect(m_upstream, &QTcpSocket::readyRead, this,
                [this] { enqueue(m_fromStore, FaultProxy::FromStore, m_upstream->readAll()); });
        connect(m_upstream, &QTcpSocket::connected, this, &Link::pump);
        // Either end going away ends the link: the store restarting closes
        // the participant's connections, as it would without a proxy.
        connect(m_client, &QTcpSocket::disconnected, this, &Link::close);
        connect(m_upstream, &QTcpSocket::disconnected, this, &Link::close);
        connect(m_client, &QTcpSocket::errorOccurred, this, &Link::close);
        connect(m_upstream, &QTcpSocket::errorOccurred, this, &Link::close);
        m_upstream->connectToHost(QHostAddress::LocalHost, proxy->m_targetPort);
        // Bytes the client sent before the link existed.
        enqueue(m_toStore, FaultProxy::ToStore, m_client->readAll());
    }

    void pump()
    {
        if (m_closed)
            return;
        if (m_upstream->state() == QAbstractSocket::ConnectedState)
            release(m_toStore, FaultProxy::ToStore, m_upstream);
        release(m_fromStore, FaultProxy::FromStore, m_client);
    }

    void reset()
    {
        if (m_closed)
            return;
        m_closed = true;
        abortWithReset(m_client);
        abortWithReset(m_upstream);
        deleteLater();
    }

private:
    struct Queue
    {
        std::deque<std::pair<qint64, QByteArray>> chunks; // (due, bytes)
        QTimer timer;
    };

    void enqueue(Queue &queue, FaultProxy::Direction direction, QByteArray bytes)
    {
        if (bytes.isEmpty() || m_closed)
            return;
        queue.chunks.emplace_back(nowMs() + m_proxy->latencyMs(direction), std::move(bytes));
        pump();
    }

    void release(Queue &queue, FaultProxy::Direction direction, QTcpSocket *to)
    {
        if (m_proxy->isHeld(direction))
            return;
        const qint64 now = nowMs();
        while (!queue.chunks.empty() && queue.chunks.front().first <= now) {
            to->write(queue.chunks.front().second);
            queue.chunks.pop_front();
        }
        if (!queue.chunks.empty())
            queue.timer.start(int(queue.chunks.front().first - now));
    }

    void close()
    {
        if (m_closed)
            return;
        m_closed = true;
        m_client->abort();
        m_upstream->abort();
        deleteLater();
    }

    FaultProxy *m_proxy;
    QTcpSocket *m_client;
    QTcpSocket *m_upstream;
    Queue m_toStore;
    Queue m_fromStore;
    bool m_closed = false;
};

FaultProxy::FaultProxy(quint16 targetPort, QObject *parent)
    : QObject(parent)
    , m_targetPort(targetPort)
{
    connect(&m_server, &QTcpServer::newConnection, this, &FaultProxy::accept);
}

FaultProxy::~FaultProxy() = default;

bool FaultProxy::listen()
{
    return m_server.listen(QHostAddress::LocalHost);
}

void FaultProxy::setLatency(Direction direction, int ms)
{
    if (direction & ToStore)
        m_latencyToStore = ms;
    if (direction & FromStore)
        m_latencyFromStore = ms;
}

void FaultProxy::setBlackhole(Direction direction)
{
    m_holdToStore = m_holdToStore || (direction & ToStore);
    m_holdFromStore = m_holdFromStore || (direction & FromStore);
}

void FaultProxy::resetAll()
{
    const auto links = std::exchange(m_links, {});
    for (const QPointer<Link> &link : links)
        if (link)
            link->reset();
}

void FaultProxy::heal()
{
    m_latencyToStore = m_latencyFromStore = 0;
    m_holdToStore = m_holdFromStore = false;
    pumpAll();
}

int FaultProxy::latencyMs(Direction direction) const
{
    return direction == ToStore ? m_latencyToStore : m_latencyFromStore;
}

bool FaultProxy::isHeld(Direction direction) const
{
    return direction == ToStore ? m_holdToStore : m_holdFromStore;
}

void FaultProxy::pumpAll()
{
    // What a blackhole held goes on now; chunks under a latency keep their time.
    for (const QPointer<Link> &link : std::as_const(m_links))
        if (link)
            link->pump();
}

void FaultProxy::accept()
{
    m_links.removeAll(nullptr);
    while (QTcpSocket *client = m_server.nextPendingConnection())
        m_links.append(new Link(this, client));
}

} // namespace baton::test
