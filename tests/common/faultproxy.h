#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QTcpServer>

namespace baton::test {

/*!
 * A loopback TCP proxy between one participant and its store that injects
 * network faults: added latency, a blackhole (connections stay open, nothing
 * is forwarded), one-way loss (one direction black-holed while the other
 * flows) and resets (every connection aborted with an RST).
 *
 * A blackhole holds the bytes instead of dropping them: a TCP stream cannot
 * lose bytes in the middle and stay open, so what a partition looks like to
 * both ends is a stream that stalls and, once healed, delivers what was
 * retransmitted. heal() ends every fault; held bytes then flow in order.
 */
class FaultProxy : public QObject
{
    Q_OBJECT
public:
    enum Direction { ToStore = 0x1, FromStore = 0x2, Both = ToStore | FromStore };

    explicit FaultProxy(quint16 targetPort, QObject *parent = nullptr);
    ~FaultProxy() override;

    bool listen();
    quint16 port() const { return m_server.serverPort(); }

    /*! Every chunk in \a direction is forwarded \a ms after it arrived, in order. */
    void setLatency(Direction direction, int ms);
    /*! Nothing is forwarded in \a direction until heal(). */
    void setBlackhole(Direction direction);
    /*! Aborts every forwarded connection with an RST; new ones are accepted as usual. */
    void resetAll();
    /*! No latency, no blackhole; held bytes are forwarded. */
    void heal();

    int latencyMs(Direction direction) const;
    bool isHeld(Direction direction) const;

private:
    class Link;
    void accept();
    void pumpAll();

    QTcpServer m_server;
    quint16 m_targetPort;
    int m_latencyToStore = 0;
    int m_latencyFromStore = 0;
    bool m_holdToStore = false;
    bool m_holdFromStore = false;
    QList<QPointer<Link>> m_links;
};

} // namespace baton::test
