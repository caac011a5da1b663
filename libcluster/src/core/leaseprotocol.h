#pragma once

#include "leaserecord.h"

#include <batoninternal/leasehistory.h>

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>

#include <functional>
#include <optional>

namespace baton {

/*! One lease as a LeaseProtocol listed or watched it: decoded, or an error saying why not (R1). */
struct SourcedLease
{
    /*! Its name in the protocol: the lease name, or `namespace/name` across namespaces. */
    QString name;
    /*! Opaque; a new version is a change (the F2 clock restarts). */
    QString version;
    bool valid = false;
    /*! When not valid: the field and what is wrong with it. */
    QString error;
    LeaseRecord record;
    /*!
     * The lease's stored history (O2), oldest first, when it was read with
     * the lease: on Kubernetes with every change, in a store with every
     * list. Unset when not read this time.
     */
    std::optional<QList<HistoryEntry>> history;
    /*! When the stored history was there but unreadable: what was wrong (warned once). */
    QString historyError;

    /*! The lease as the election sees it; call only when valid. */
    LeaseState state() const { return {true, record, version}; }
};

/*!
 * What a LeaseProtocol watch reports, for one lease or every lease of its
 * place: changed() and removed() as they happen, listed() when a list()
 * (or, where the protocol must list before it can follow, the watch's own
 * first list) is done, resynchronise() when it lost track. Nothing is
 * emitted once it is deleted. A list() made while one is on its way is
 * answered by that one.
 */
class LeaseWatch : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    /*! Reads every lease the watch covers; answered once by listed() or listFailed(). */
    virtual void list() = 0;
    /*! Whether changes arrive by themselves; false: the caller polls with list(). */
    virtual bool isWatching() const = 0;

Q_SIGNALS:
    /*! Every lease there is, as of the list: a name missing from it is gone. */
    void listed(const QList<baton::SourcedLease> &leases);
    /*! The list failed; \a message says why (never a secret, R2). */
    void listFailed(const QString &message);
    void changed(const baton::SourcedLease &lease);
    void removed(const QString &name);
    /*! The watch lost track of changes (a broken stream, a 410): list again. */
    void resynchronise();
};

/*!
 * The one protocol of a place where leases live (a Registry store, one or
 * every Kubernetes namespace, this process), shaped like client-go's lock
 * interface: get, create, update, list, watch, describe. Participants and
 * observers use the same object; it knows nothing about elections, and
 * maps its wire's errors into LeaseReply here, never higher up.
 *
 * Each request's callback runs exactly once, on a later event-loop turn,
 * unless the protocol is destroyed first.
 */
class LeaseProtocol : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const LeaseReply &)>;
    /*! Every lease with its stored history, or an error (never a secret, R2). */
    using ListCallback = std::function<void(const QList<SourcedLease> &leases, const QString &error)>;
    using QObject::QObject;

    /*! The place, for messages: `cluster:*`, `Leases in namespace prod at https://...`. */
    virtual QString describe() const = 0;
    /*! One lease of it, for logs: `cluster:leader in FileStore /var/lib/x`. */
    virtual QString describeLease(const QString &name) const = 0;
    virtual void get(const QString &name, Callback done) = 0;
    /*!
     * Creates the lease; Conflict when it exists. A \a change is this
     * acquisition's holder change: kept in the lease's stored history, in
     * the same write where the protocol allows it (O2).
     */
    virtual void create(const QString &name, const LeaseRecord &record,
                        const std::optional<HistoryEntry> &change, Callback done) = 0;
    /*! Replaces the lease when it still has \a version; Conflict otherwise. */
    virtual void update(const QString &name, const LeaseRecord &record, const QString &version,
                        const std::optional<HistoryEntry> &change, Callback done) = 0;
    virtual void list(ListCallback done) = 0;
    /*!
     * Follows the lease \a name, or every lease when \a name is empty: an
     * event on one lease reaches its own watches, never every election's.
     * nullptr when this place cannot be watched (the caller then polls).
     */
    virtual LeaseWatch *watch(const QString &name, QObject *parent) = 0;
    /*!
     * Whether updates that come together go out in fewer requests than
     * one each (etcd's txn): the elections of a process then renew on one
     * grid, so that their renewals meet. Elsewhere that would only bunch
     * requests that are better spread.
     */
    virtual bool sharesWrites() const { return false; }
};

} // namespace baton

Q_DECLARE_METATYPE(baton::SourcedLease)
