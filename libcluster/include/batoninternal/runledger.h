#pragma once

#include <batoninternal/batoninternal_export.h>

#include <QDateTime>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace baton {

class ClusterService;
class LeaseObserver;
class RunRecordBackend;
class Store;
struct StoreEntry;

/*!
 * One run of one tick of a schedule, as the store keeps it under
 * `run:<lease>:<tick>`. Times are the runner's wall clock, for display.
 */
struct BATON_INTERNAL_EXPORT RunRecord
{
    /*! The tick's name, its nominal instant in UTC (TickSchedule::tickName()). */
    QString tick;
    QString instance;
    /*! The fencing token of the leadership that ran it. */
    qint64 token = 0;
    QDateTime start;
    /*! Invalid while it runs. */
    QDateTime end;
    /*!
     * "running", "succeeded", "failed: exit code N", "failed: signal N",
     * "interrupted: leadership ended", "skipped: previous run still going".
     */
    QString outcome;
    /*! How many times the tick was started: above 1 after a rerun of an interrupted run. */
    int attempt = 1;
    /*!
     * The schedule's text (TickSchedule::text()) the tick came from, so that
     * a reader (the dashboard) can tell the next tick and the ticks nobody
     * recorded; empty in records written before it was kept.
     */
    QString schedule;
    /*! The store's version of the record, for the conditional update that settles it. */
    QString version;

    static const QString running;
    static const QString succeeded;
    static const QString interrupted;
    static const QString skipped;

    bool isRunning() const { return outcome == running; }
    QJsonObject toJson() const;
    /*! The record \a entry holds, or nothing when it is not one. */
    static std::optional<RunRecord> fromEntry(const StoreEntry &entry);
};

/*!
 * The run records of one lease in a store (through the public Store API
 * only): a tick is claimed by a conditional create, so that of the
 * instances that reach it, one at most runs it, and settled by an update
 * conditional on the version the claim wrote. The same, with the same
 * guarantees, over a RunRecordBackend (one ConfigMap per run beside a
 * Kubernetes Lease: KubeRunRecords). Every callback runs once,
 * on a later turn of the event loop, unless the ledger is destroyed first.
 */
class BATON_INTERNAL_EXPORT RunLedger : public QObject
{
    Q_OBJECT
public:
    /*! The records of at most this many ticks are kept, and at most this many bytes of them. */
    static constexpr int defaultKeepCount = 100;
    static constexpr qint64 defaultKeepBytes = 64 * 1024;

    using Done = std::function<void(bool ok, const RunRecord &record, const QString &error)>;
    using Listed = std::function<void(bool ok, const QList<RunRecord> &records, const QString &error)>;

    RunLedger(Store *store, const QString &lease, QObject *parent = nullptr);
    /*!
     * Over \a backend, which it takes: the records kept elsewhere than in a
     * store (Kubernetes ConfigMaps, see openRunLedger()).
     */
    RunLedger(std::unique_ptr<RunRecordBackend> backend, const QString &lease, QObject *parent = nullptr);
    ~RunLedger() override;

    /*! `run:<lease>:` */
    static QString prefix(const QString &lease);
    /*! `run:<lease>:<tick>` */
    static QString key(const QString &lease, const QString &tick);

    /*! Creates \a record only if its tick has none: ok false, error empty, when another has it. */
    void claim(const RunRecord &record, Done done);
    /*!
     * Replaces \a earlier (a record read from the store, with its version)
     * by \a record, only if it is unchanged since: taking an interrupted
     * run over, or settling one's own run.
     */
    void replace(const RunRecord &earlier, const RunRecord &record, Done done);
    /*! Every record of the lease, oldest tick first. */
    void list(Listed done);
    /*!
     * Removes the oldest finished records beyond \a keepCount or beyond
     * \a keepBytes in all (each removal conditional on the version read).
     */
    void trim(int keepCount = defaultKeepCount, qint64 keepBytes = defaultKeepBytes);

private:
    QPointer<Store> m_store;
    QString m_lease;
    std::unique_ptr<RunRecordBackend> m_backend;
};

} // namespace baton
