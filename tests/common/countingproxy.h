#pragma once

#include <QMap>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTcpServer>

#include <memory>

class QTcpSocket;

namespace baton::test {

/*!
 * A loopback proxy to a store that counts the HTTP/1.1 requests it
 * forwards, by request line (`POST /v3/kv/range`): request line, headers,
 * a Content-Length body. A watch is one long request; a chunked body ends
 * the counting on its connection.
 */
class CountingProxy : public QObject
{
    Q_OBJECT
public:
    explicit CountingProxy(quint16 target, QObject *parent = nullptr);

    quint16 port() const { return m_server.serverPort(); }
    QMap<QString, int> counts() const { return m_counts; }
    int count(const QString &requestLine) const { return m_counts.value(requestLine); }
    int total() const;
    void reset() { m_counts.clear(); }
    /*!
     * While on, what the server sends on connections whose latest request
     * was \a requestLine (a watch: `POST /v3/watch`, the last request of
     * its connection) is kept back, and forwarded when it is turned off:
     * a stream that lags, still open.
     */
    void setHolding(const QString &requestLine, bool holding);

private:
    struct Parser
    {
        QByteArray buffer;
        qint64 bodyLeft = 0;
        bool opaque = false; // a body we cannot delimit: counting stops on this connection
        QString lastRequest;
        QByteArray heldBack;
    };

    void forward(QTcpSocket *client);
    void parse(Parser &parser, const QByteArray &data);

    QTcpServer m_server;
    quint16 m_target;
    QMap<QString, int> m_counts;
    QString m_holding;
    QList<std::pair<QPointer<QTcpSocket>, std::shared_ptr<Parser>>> m_connections;
};

} // namespace baton::test
