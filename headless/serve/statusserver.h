#pragma once

#include "statusmodule.h"

#include <QHostAddress>
#include <QObject>
#include <QString>

namespace baton {

class ElectionMetrics;

/*!
 * `--listen`: serves, from an ElectionMetrics (O3, docs/reference/metrics.md):
 * `/metrics` (Prometheus text format, with `baton_build_info` and the
 * standard `process_*`); `/livez` and its alias `/healthz` (the event loop
 * answers: never the store); `/readyz` (the store answered within the
 * lease); `/leader` (200 with JSON only while this instance leads by its F4
 * deadline). The HTTP is the status module's (statusmodule.h), loaded by
 * listen().
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
    QByteArray metricsBody() const;
    /*! One lease, or the one named by `?lease=`. */
    statusmodule::Page leaderPage(const QUrlQuery &query) const;

    const ElectionMetrics *m_metrics;
};

} // namespace baton
