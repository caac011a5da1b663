#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

class QJsonObject;

namespace baton {

class Clock;
class ClusterService;

/*!
 * The numbers behind `/metrics` and `/healthz` (SPEC O3), kept from the
 * event stream (O5) beside the election, never inside it: the election
 * does not know this exists, as client-go's metrics and health adaptors.
 * Holds lease names and instance ids only, never a store's credentials (R2).
 */
class ElectionMetrics : public QObject
{
    Q_OBJECT
public:
    explicit ElectionMetrics(const Clock *clock = nullptr, QObject *parent = nullptr);
    ~ElectionMetrics() override;

    /*! Bucket upper bounds of the attempt latency histogram, in seconds. */
    static const QList<double> &latencyBuckets();

    /*! Follows \a cluster's events; its isLeader() and lease duration feed health(). */
    void follow(ClusterService *cluster);
    /*! One record of the event stream (election or exec). */
    void record(const QJsonObject &event);

    /*! The Prometheus text exposition format, version 0.0.4. */
    QByteArray render() const;

    struct Health
    {
        bool healthy = true;
        /*! Why not, one sentence a lease; empty when healthy. */
        QStringList reasons;
    };
    /*!
     * Unhealthy when a lease's events say it leads but the service's
     * deadline has passed (isLeader() is false: F4), or when every attempt
     * has failed for longer than the lease duration (the store is gone).
     */
    Health health() const;

private:
    struct Lease
    {
        QPointer<ClusterService> cluster;
        QString instance;
        qint64 leaseDurationMs = 0;
        bool leading = false;
        quint64 transitions = 0;
        QMap<QString, quint64> attempts;
        QList<quint64> bucketCounts;
        double latencySumSeconds = 0;
        quint64 latencyCount = 0;
        qint64 lastLatencyMs = -1;
        qint64 lastRenewalMono = -1;
        /*! Mono of the first error since the last attempt the store answered, or -1. */
        qint64 failingSinceMono = -1;
        bool execRunning = false;
        quint64 execStarts = 0;
    };
    Lease &leaseFor(const QString &name);

    const Clock *m_clock;
    QMap<QString, Lease> m_leases;
};

} // namespace baton
