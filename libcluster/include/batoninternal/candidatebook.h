#pragma once

#include <batoninternal/batoninternal_export.h>
#include <batoninternal/labelselector.h>

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace baton {

class CandidateRecordBackend;
class Store;
struct StoreEntry;

/*!
 * One instance's announcement that it stands for a lease (H2, H3), as the
 * store keeps it under `candidate:<lease>:<instance>` (one ConfigMap per
 * candidate beside a Kubernetes Lease). The candidate rewrites it every
 * heartbeat; anybody (`baton drain`) may change `drained` by a conditional
 * update, which the candidate keeps. Times are wall clock, for display:
 * readers judge liveness by how long they have seen a version unchanged,
 * on their own boot clock.
 */
struct BATON_INTERNAL_EXPORT CandidateRecord
{
    QString instance;
    /*! The process's incarnation: a restart shows as a new one, and resets its stability. */
    QString incarnation;
    /*! Higher is preferred; equal priorities never move a lease. */
    int priority = 0;
    /*! Drained or started as a standby: hands over and takes no lease while another candidate is live. */
    bool drained = false;
    /*! Who drained it, for display: `user@host` (`baton drain`, the dashboard's with " (dashboard)"), or "standby". */
    QString drainedBy;
    QDateTime drainedAt;
    /*! The candidate's last heartbeat, wall clock. */
    QDateTime heartbeat;
    /*! How often the candidate writes; a version unchanged for 3 of these is a candidate gone. */
    qint64 heartbeatIntervalMs = 0;
    /*! The candidate stopped cleanly: not live, kept so that a drain outlives the process. */
    bool left = false;
    /*! What the candidate says it is (`baton join --label zone=a`), for `baton handover --to zone=a`. */
    CandidateLabels labels;
    /*! The store's version, for the conditional update; empty: not stored. */
    QString version;

    /*!
     * Whether the record looks live to one look from \a nowWall, another
     * host's wall clock: not left, and a heartbeat within three of its
     * intervals. For display and for choosing among candidates, never for
     * a lease decision (clocks differ between hosts).
     */
    bool seemsLiveAt(const QDateTime &nowWall) const;

    QJsonObject toJson() const;
    /*! The record \a json holds, or nothing when it is not one (no instance). */
    static std::optional<CandidateRecord> fromJson(const QJsonObject &json);
};

/*!
 * The candidate records of one lease in a store (through the public Store
 * API only), or over a CandidateRecordBackend (ConfigMaps beside a
 * Kubernetes Lease). Every callback runs once, on a later turn of the
 * event loop, unless the book is destroyed first.
 */
class BATON_INTERNAL_EXPORT CandidateBook : public QObject
{
    Q_OBJECT
public:
    /*! ok false, error empty: a conflict (the record exists, or its version moved on). */
    using Done = std::function<void(bool ok, const CandidateRecord &record, const QString &error)>;
    /*! ok true with no record (version empty): nobody announced \a instance. */
    using Read = std::function<void(bool ok, const std::optional<CandidateRecord> &record, const QString &error)>;
    using Listed = std::function<void(bool ok, const QList<CandidateRecord> &records, const QString &error)>;

    CandidateBook(Store *store, const QString &lease, QObject *parent = nullptr);
    /*! Over \a backend, which it takes. */
    CandidateBook(std::unique_ptr<CandidateRecordBackend> backend, const QString &lease,
                  QObject *parent = nullptr);
    ~CandidateBook() override;

    /*! `candidate:<lease>:` */
    static QString prefix(const QString &lease);
    /*! `candidate:<lease>:<instance>` */
    static QString key(const QString &lease, const QString &instance);

    void read(const QString &instance, Read done);
    /*! Creates \a record only if its instance has none. */
    void create(const CandidateRecord &record, Done done);
    /*! Replaces \a earlier (with its version) by \a record, only if unchanged since. */
    void replace(const CandidateRecord &earlier, const CandidateRecord &record, Done done);
    /*! Every candidate of the lease, by instance. */
    void list(Listed done);
    /*! Conditional on \a record's version; best effort. */
    void remove(const CandidateRecord &record);
    /*!
     * From now on, list() answers from a copy of the records that the
     * store keeps current by watching them, where the store can (etcd):
     * for a candidate, which lists them every heartbeat.
     */
    void followRecords();

private:
    QPointer<Store> m_store;
    QString m_lease;
    std::unique_ptr<CandidateRecordBackend> m_backend;
    bool m_following = false;
};

} // namespace baton
