#pragma once

#include <QHostAddress>
#include <QObject>
#include <QString>

namespace baton {

class ElectionMetrics;

/*!
 * `--listen`: serves `/metrics` (Prometheus text format) and `/healthz`
 * (200 "ok", or 503 with the reasons) from an ElectionMetrics. The HTTP
 * is the status module's (statusmodule.h), loaded by listen().
 */
class StatusServer : public QObject
{
    Q_OBJECT
public:
    explicit StatusServer(const ElectionMetrics *metrics, QObject *parent = nullptr);

    /*!
     * Reads `PORT`, `:PORT`, `localhost:PORT`, `A.B.C.D:PORT` or
     * `[IPv6]:PORT`. Without a host, or with `localhost`, the loopback
     * address: a non-loopback one must be written out as numbers, so that
     * exposing the metrics is never an accident of name resolution.
     */
    static bool parseAddress(const QString &text, QHostAddress *address, quint16 *port,
                             QString *errorString);

    /*!
     * Loads the status module and listens; returns the port (useful with
     * port 0), or 0 with \a errorString set.
     */
    quint16 listen(const QHostAddress &address, quint16 port, QString *errorString);

private:
    const ElectionMetrics *m_metrics;
};

} // namespace baton
