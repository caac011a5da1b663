#include "countingproxy.h"

#include <QTcpSocket>

#include <algorithm>
#include <memory>

namespace baton::test {

CountingProxy::CountingProxy(quint16 target, QObject *parent)
    : QObject(parent)
    , m_target(target)
{
    connect(&m_server, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *client = m_server.nextPendingConnection())
            forward(client);
    });
    m_server.listen(QHostAddress::LocalHost);
}

void CountingProxy::setHolding(const QString &requestLine, bool holding)
{
    m_holding = holding ? requestLine : QString();
    if (holding)
        return;
    for (const auto &[client, parser] : std::as_const(m_connections)) {
        if (client && !parser->heldBack.isEmpty())
            client->write(parser->heldBack);
        parser->heldBack.clear();
    }
}

int CountingProxy::total() const
{
    int n = 0;
    for (int c : m_counts)
        n += c;
    return n;
}

void CountingProxy::forward(QTcpSocket *client)
{
    auto *server = new QTcpSocket(client);
    auto parser = std::make_shared<Parser>();
    server->connectToHost(QHostAddress::LocalHost, m_target);
    connect(client, &QTcpSocket::readyRead, server, [this, client, server, parser] {
        const QByteArray data = client->readAll();
        parse(*parser, data);
        server->write(data);
    });
    connect(server, &QTcpSocket::readyRead, client, [this, client, server, parser] {
        if (!m_holding.isEmpty() && parser->lastRequest == m_holding)
            parser->heldBack += server->readAll();
        else
            client->write(server->readAll());
    });
    m_connections.append({ client, parser });
    connect(client, &QTcpSocket::disconnected, client, [client] { client->deleteLater(); });
    connect(server, &QTcpSocket::disconnected, client, [client] { client->disconnectFromHost(); });
}

void CountingProxy::parse(Parser &p, const QByteArray &data)
{
    if (p.opaque)
        return;
    p.buffer += data;
    for (;;) {
        if (p.bodyLeft > 0) {
            const qint64 take = std::min<qint64>(p.bodyLeft, p.buffer.size());
            p.buffer.remove(0, take);
            p.bodyLeft -= take;
            if (p.bodyLeft > 0)
                return;
        }
        const qsizetype end = p.buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        const QList<QByteArray> lines = p.buffer.left(end).split('\n');
        p.buffer.remove(0, end + 4);
        const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
        const QString request = QString::fromLatin1(requestLine.value(0) + ' ' + requestLine.value(1));
        ++m_counts[request];
        p.lastRequest = request;
        for (const QByteArray &line : lines) {
            const QByteArray lower = line.trimmed().toLower();
            if (lower.startsWith("content-length:"))
                p.bodyLeft = lower.mid(15).trimmed().toLongLong();
            else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked"))
                p.opaque = true;
        }
        if (p.opaque)
            return;
    }
}

} // namespace baton::test
