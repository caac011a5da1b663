#pragma once

#include <baton/leaseobserver.h>

#include "listslice.h"
#include "recordedruns.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QObject>
#include <QString>
#include <QTimer>

#include <map>
#include <memory>

namespace baton {

class Application;
class Clock;
class LeaseProtocol;
class LeaseWatch;
class Store;
struct HistoryEntry;
struct SourcedLease;

/*!
 * The state and the reading of a LeaseObserver: it keeps the leases, the
 * history and the expiry deadlines, and emits through its LeaseObserver.
 * It lists and watches every lease of its LeaseProtocol, and polls with
 * lists where the protocol cannot watch.
 */
class LeaseObserverPrivate
{
public:
    /*! Observes every lease \a protocol reads, taking it. */
    LeaseObserverPrivate(LeaseProtocol *protocol, const Clock *clock);
    ~LeaseObserverPrivate();

    /*! An observer of every lease of \a protocol, which it takes; not started yet. */
    static LeaseObserver *create(LeaseProtocol *protocol, const Clock *clock, QObject *parent);
    /*! Connects to the observer once it has one. */
    void attach(LeaseObserver *observer);
    /*! What \a observer reads leases through; nullptr when it reads a store. */
    static LeaseProtocol *protocolOf(const LeaseObserver *observer) { return observer->d->m_protocol; }

    void start();
    void stop();
    void list();
    void onListed(const QList<SourcedLease> &leases);
    /*! Applies the next slice of the list being read; the last one finishes the list. */
    void applySlice();
    /*! A change the watch told while a list is being applied: newer than the list's. */
    void noteWatched(const QString &name);
    void onListFailed(const QString &message);
    void afterList(bool ok);
    /*! Takes what the protocol read of one lease; returns how many stored changes it added to the history. */
    int apply(const SourcedLease &lease);
    void applyRecord(const SourcedLease &lease);
    /*! Queues \a name's stored changes that history() lacks for insertRecorded(); returns how many. */
    int mergeRecorded(const QString &name, const QList<HistoryEntry> &changes);
    /*!
     * Puts every waiting stored change in its place by time; before ready()
     * tells those not told yet (storedHistoryAdded()).
     */
    void insertRecorded();
    /*! The stored changes read since the last call, as a run of m_recordedRuns; returns it, sorted. */
    QList<LeaseFailover> queueRecorded();
    /*! history() with the waiting stored changes in their places, for a reader while a list is applied. */
    QList<LeaseFailover> historyWithWaiting() const;
    void remove(const QString &name);
    /*! Keeps \a lease's expiry deadline in m_deadlines (or drops it when it cannot expire). */
    void schedule(const ObservedLease &lease);
    void unschedule(const QString &name);
    void armExpiry();
    void checkExpiry();

    using Deadlines = std::multimap<qint64, QString>;
    /*!
     * How long one event-loop turn applies a list's leases (one lease at
     * least) or merges their stored changes: kListSliceMs. A count alone
     * cost ten times more in a debug build, or beside a dashboard's views,
     * than where it was chosen; what the slice emits afterwards (its stored
     * changes) grows with it and roughly doubles the turn.
     */
    static constexpr qint64 sliceBudgetMs = kListSliceMs;
    /*! Leases of a list applied per event-loop turn at most, however fast they go. */
    static constexpr qsizetype listSlice = 250;

    LeaseObserver *q = nullptr;
    LeaseProtocol *m_protocol;
    /*! Every lease of the protocol, while running; nullptr when it cannot watch. */
    LeaseWatch *m_watch = nullptr;
    const Clock *m_clock;
    /*! What open() opened for this observer: deleted after the protocol. */
    std::unique_ptr<Application> m_application;
    std::unique_ptr<Store> m_ownedStore;
    Store *m_store = nullptr;
    bool m_defaultRegistry = false;
    QString m_emptyText;
    QHash<QString, ObservedLease> m_leases;
    /*!
     * The expiry deadline (monotonic ms) of every lease that can still run
     * out, earliest first, and where each lease's entry is: a renewal moves
     * one entry in O(log n) instead of scanning every lease (benchmarks.md).
     */
    Deadlines m_deadlines;
    QHash<QString, Deadlines::iterator> m_deadlineOf;
    QList<LeaseFailover> m_history;
    /*! The history row of each lease's release not yet taken up. */
    QHash<QString, qsizetype> m_openRelease;
    /*!
     * The transitions of each lease's history rows that name a holder: a
     * change is known by them (F7), looked up without scanning the history.
     * The value is the holder a stored row names, empty for a row seen live:
     * a record that brings a change already read from the stored history is
     * that row, but only a stored row can say so (a tool that does not count
     * its writes may show two holders at the same transitions).
     */
    QHash<QString, QHash<qint64, QString>> m_historyTransitions;
    /*! Stored changes read since the last slice (or watch event), not yet a run. */
    QList<LeaseFailover> m_pendingRecorded;
    /*! A list's stored changes, merged among themselves a step a slice, and into the history when it is done. */
    RecordedRuns m_recordedRuns;
    /*! The leases whose unreadable stored history was warned about (once each). */
    QSet<QString> m_historyWarned;
    /*!
     * The list being applied, a slice per event-loop turn, so that
     * a first list of 20,000 leases (and their stored histories) never
     * freezes the window that shows them (benchmarks-bounds.md). m_listing
     * stays true until its last slice.
     */
    QList<SourcedLease> m_listed;
    qsizetype m_listedNext = 0;
    /*! The names of the list's leases applied so far: a known lease not among them is gone. */
    QSet<QString> m_listedNames;
    /*! Bumped by each list taken and by stop(): a slice of an earlier list ends where it is. */
    quint64 m_listGeneration = 0;
    int m_listedRecorded = 0;
    /*! The leases the watch told of while the list was applied: the list's records of them are older. */
    QSet<QString> m_watchedWhileListing;
    QTimer m_sliceTimer;
    bool m_listing = false;
    bool m_ready = false;
    bool m_running = false;
    int m_pollIntervalMs = 1000;
    QTimer m_pollTimer;
    QTimer m_expiryTimer;
};

} // namespace baton
