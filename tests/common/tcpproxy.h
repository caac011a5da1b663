#pragma once

#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTcpServer>

class QTcpSocket;

namespace baton::test {

/*!
 * A loopback TCP proxy the tests can cut: it forwards every connection to
 * a target, and on request closes all of them (a broken watch stream) or
 * refuses new ones (a store that is unreachable for a while).
 */
class TcpProxy : public QObject
{
    Q_OBJECT
public:
    explicit TcpProxy(quint16 targetPort, QObject *parent = nullptr);

    bool listen();
    quint16 port() const { return m_server.serverPort(); }
    /*! Closes every forwarded connection at once. */
    void cutAll();
    /*! While refusing, a new connection is closed as soon as it is accepted. */
    void setRefusing(bool refusing) { m_refusing = refusing; }
    int connectionsAccepted() const { return m_accepted; }

private:
    void accept();

    QTcpServer m_server;
    quint16 m_targetPort;
    bool m_refusing = false;
    int m_accepted = 0;
    QList<QPointer<QTcpSocket>> m_sockets;
};

} // namespace baton::test
