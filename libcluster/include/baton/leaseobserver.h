#pragma once

#include "leaserecord.h"
#include "registrykey.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QTimer>

#include <map>
#include <optional>

namespace baton {

class Clock;
class LeaseSource;
class Store;
struct SourcedLease;

/*! One lease as an observer sees it (O2). */
struct ObservedLease
{
    QString name;
    /*! False when the entry could not be read as a lease (then see error). */
    bool valid = false;
    QString error;
    LeaseRecord record;
    QString version;
    /*! When this observer first saw the current version: the F2 clock. */
    qint64 changedMono = 0;
    /*! When this observer first saw the current holder (or the lease, at start). */
    qint64 holderSinceMono = 0;
    /*! Holder changes this observer has seen. */
    int changesSeen = 0;
    /*! The holder's lease ran out with no change seen (F2, this observer's clock). */
    bool expired = false;

    /*! Milliseconds since the record last changed, by this observer's clock. */
    qint64 sinceChangeMs(qint64 nowMono) const { return nowMono - changedMono; }
};

/*! One holder change seen by an observer. */
struct LeaseFailover
{
    QString lease;
    QString from;
    QString to;
    /*!
     * first-acquire, released, expired, taken-over: as in the event stream
     * (O5). "expired" when the previous holder had not renewed for half a
     * lease or more as this observer saw it (its successor judged the
     * expiry on its own clock, which may run a little ahead of ours).
     */
    QString why;
    QDateTime when;
    qint64 mono = 0;
    /*!
     * Milliseconds without a leader before \a to took the lease: from the
     * release seen, or from the expiry of \a from as this observer judged it.
     * 0 for a take-over, -1 when unknown (first-acquire) or not a take-up.
     */
    qint64 gapMs = -1;
    qint64 transitions = 0;
};

/*!
 * Lists and watches every lease of a store (the `cluster:*` entries, 
 * O2) or of a Kubernetes namespace, without taking part, and keeps each
 * lease's state and failover history while it runs. Judges expiry as a
 * follower does (F2): by its own monotonic clock, from when it saw the
 * record change; the records' times are shown, never trusted. Where the
 * source cannot watch, it lists again every pollInterval().
 *
 * The reading is a LeaseSource's (StoreLeaseSource, KubernetesLeaseSource);
 * the state, history and expiry are the same whatever the source.
 *
 * No printing and no widgets: `baton status` formats it, and the dashboard
 * can model it.
 */
class LeaseObserver : public QObject
{
    Q_OBJECT
public:
    /*! Observes the `cluster:*` entries of \a store. */
    explicit LeaseObserver(Store *store, const Clock *clock = nullptr, QObject *parent = nullptr);
    /*! Observes what \a source reads; takes ownership of it. */
    explicit LeaseObserver(LeaseSource *source, const Clock *clock = nullptr, QObject *parent = nullptr);
    ~LeaseObserver() override;

    /*! What is observed, for messages: `cluster:*`, `Leases in namespace prod at ...`. */
    QString describeSource() const;

    void setPollInterval(int ms) { m_pollIntervalMs = ms; }
    int pollInterval() const { return m_pollIntervalMs; }

    /*! Starts the watch, then the first list; ready() follows it. */
    void start();
    void stop();
    bool isReady() const { return m_ready; }

    /*! Every lease, sorted by name. */
    QList<ObservedLease> leases() const;
    std::optional<ObservedLease> lease(const QString &name) const;
    QList<LeaseFailover> history() const { return m_history; }
    const Clock &clock() const { return *m_clock; }

    static QByteArray historyToCsv(const QList<LeaseFailover> &history);
    static QByteArray historyToJson(const QList<LeaseFailover> &history);

Q_SIGNALS:
    /*! The first list has been read (or failed: see storeError()). */
    void ready();
    /*! A lease appeared or its record changed (every renewal). */
    void leaseChanged(const QString &name);
    void leaseRemoved(const QString &name);
    /*! The holder changed; also appended to history(). */
    void failover(const baton::LeaseFailover &change);
    /*! The holder's lease ran out as this observer sees it. */
    void leaseExpired(const QString &name);
    /*! Listing failed; the observer keeps trying (R4). */
    void storeError(const QString &message);

private:
    void setUpSource();
    void list();
    void onListed(const QList<SourcedLease> &leases);
    void onListFailed(const QString &message);
    void afterList(bool ok);
    void apply(const SourcedLease &lease);
    void remove(const QString &name);
    /*! Keeps \a lease's expiry deadline in m_deadlines (or drops it when it cannot expire). */
    void schedule(const ObservedLease &lease);
    void unschedule(const QString &name);
    void armExpiry();
    void checkExpiry();

    using Deadlines = std::multimap<qint64, QString>;

    LeaseSource *m_source;
    const Clock *m_clock;
    QHash<QString, ObservedLease> m_leases;
    /*!
     * The expiry deadline (monotonic ms) of every lease that can still run
     * out, earliest first, and where each lease's entry is: a renewal moves
     * one entry in O(log n) instead of scanning every lease (benchmarks.md).
     */
    Deadlines m_deadlines;
    QHash<QString, Deadlines::iterator> m_deadlineOf;
    QList<LeaseFailover> m_history;
    bool m_listing = false;
    bool m_ready = false;
    bool m_running = false;
    int m_pollIntervalMs = 1000;
    QTimer m_pollTimer;
    QTimer m_expiryTimer;
};

} // namespace baton

Q_DECLARE_METATYPE(baton::LeaseFailover)
