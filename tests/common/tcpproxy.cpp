#include "tcpproxy.h"

#include <QTcpSocket>

namespace baton::test {

TcpProxy::TcpProxy(quint16 targetPort, QObject *parent)
    : QObject(parent)
    , m_targetPort(targetPort)
{
    connect(&m_server, &QTcpServer::newConnection, this, &TcpProxy::accept);
}

bool TcpProxy::listen()
{
    return m_server.listen(QHostAddress::LocalHost);
}

void TcpProxy::cutAll()
{
    const auto sockets = std::exchange(m_sockets, {});
    for (const QPointer<QTcpSocket> &socket : sockets) {
        if (socket)
            socket->abort();
    }
}

void TcpProxy::accept()
{
    while (QTcpSocket *client = m_server.nextPendingConnection()) {
        ++m_accepted;
        if (m_refusing) {
            client->abort();
            client->deleteLater();
            continue;
        }
        auto *upstream = new QTcpSocket(client);
        m_sockets.append(client);
        m_sockets.append(upstream);
        // Bytes the client sends before the upstream is connected are kept
        // in the client's buffer and forwarded on connection.
        connect(upstream, &QTcpSocket::connected, client, [client, upstream] {
            upstream->write(client->readAll());
        });
        connect(client, &QTcpSocket::readyRead, upstream, [client, upstream] {
            if (upstream->state() == QAbstractSocket::ConnectedState)
                upstream->write(client->readAll());
        });
        connect(upstream, &QTcpSocket::readyRead, client,
                [client, upstream] { client->write(upstream->readAll()); });
        auto closeBoth = [client, upstream] {
            upstream->abort();
            client->abort();
            client->deleteLater();
        };
        connect(client, &QTcpSocket::disconnected, client, closeBoth);
        connect(upstream, &QTcpSocket::disconnected, client, closeBoth);
        connect(upstream, &QTcpSocket::errorOccurred, client, closeBoth);
        upstream->connectToHost(QHostAddress::LocalHost, m_targetPort);
    }
}

} // namespace baton::test
