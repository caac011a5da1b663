#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <functional>

class QJsonObject;

namespace baton {

class Clock;
class ClusterService;

/*!
 * The numbers behind `/metrics`, `/readyz` and `/leader` (O3), kept from the
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

    /*! Follows \a cluster's events; its isLeader(), deadline and lease record feed the rest. */
    void follow(ClusterService *cluster);
    /*! The `--exec` command follows \a lease: its series are there before its first start. */
    void followExec(const QString &lease);
    /*!
     * `--schedule` runs on \a lease, about every \a intervalSeconds: its
     * run series are there before its first run.
     */
    void followSchedule(const QString &lease, double intervalSeconds);
    /*!
     * What the process's output lost to readers that did not keep up: the
     * event records (stdout) and the log lines (stderr) dropped so far.
     * Read at each render, from any thread's counters; not rendered unset.
     */
    void countDrops(std::function<quint64()> eventRecords, std::function<quint64()> logLines);
    /*! One record of the event stream (election or exec). */
    void record(const QJsonObject &event);

    /*! The Prometheus text exposition format, version 0.0.4. */
    QByteArray render() const;

    /*! The lease names followed or seen in events, sorted. */
    QStringList leaseNames() const;

    struct Readiness
    {
        bool ready = true;
        /*! Why not, one sentence a lease; empty when ready. */
        QStringList reasons;
    };
    /*!
     * Ready when, for every lease, the store answered an attempt (whatever
     * its outcome but error or abandoned) within the last lease duration
     * (O3: /readyz).
     * Never says anything of the process itself: that is liveness, which
     * must not depend on the store.
     */
    Readiness readiness() const;

    struct Leadership
    {
        bool leading = false;
        /*! This instance when leading; otherwise the holder as last seen, empty when none. */
        QString holder;
        qint64 fencingToken = -1;
        /*! Until the F4 deadline; 0 when not leading. */
        qint64 validForMs = 0;
    };
    /*! Whether this instance leads \a lease now, by its F4 deadline (O3: /leader). */
    Leadership leadership(const QString &lease) const;

private:
    struct Lease
    {
        QPointer<ClusterService> cluster;
        QString identity;
        qint64 leaseDurationMs = 0;
        qint64 renewIntervalMs = 0;
        bool leading = false;
        /*! The fencing token of the last started-leading record: F7's count, for leases without a service. */
        qint64 lastToken = 0;
        QString lastHolder;
        QMap<QString, quint64> attempts;
        QList<quint64> bucketCounts;
        double latencySumSeconds = 0;
        quint64 latencyCount = 0;
        qint64 lastLatencyMs = -1;
        /*! Wall clock of the last acquisition or renewal, for display; 0: never. */
        double lastRenewalEpochSeconds = 0;
        /*! Mono of the last attempt the store answered (any outcome but error or abandoned), or -1. */
        qint64 lastAnswerMono = -1;
        /*! Other processes seen holding the lease under this instance's id. */
        quint64 identityConflicts = 0;
        /*! Handovers this instance wrote as the leader; handovers it was asked for. */
        quint64 handovers = 0;
        quint64 handoverRequests = 0;
        /*! Times the lease was seen free but kept for another instance. */
        quint64 reservationsSeen = 0;
        /*! Preference and drain, from the `candidates` events; -1 live: none seen (no steering). */
        int liveCandidates = -1;
        int priority = 0;
        bool drained = false;
        bool execFollowed = false;
        bool execRunning = false;
        quint64 execStarts = 0;
        /*! --schedule: about the time between ticks, 0 when not followed. */
        double scheduleIntervalSeconds = 0;
        /*! Runs by outcome: succeeded, failed, interrupted, skipped. */
        QMap<QString, quint64> runs;
        /*! Wall clock of the end of the last successful run, for display and alerts; 0: none seen. */
        double lastSuccessEpochSeconds = 0;
    };
    Lease &leaseFor(const QString &name);
    static bool isLeading(const Lease &lease);
    /*! Why \a lease is not ready, or empty. */
    QString notReadyReason(const QString &name, const Lease &lease) const;

    const Clock *m_clock;
    QMap<QString, Lease> m_leases;
    std::function<quint64()> m_eventRecordsDropped;
    std::function<quint64()> m_logLinesDropped;
};

} // namespace baton
