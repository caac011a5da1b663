#pragma once

#include "leaserecord.h"

#include <batoninternal/leasehistory.h>

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>

#include <optional>

namespace baton {

/*! One lease as a LeaseSource read it: decoded, or an error saying why not (R1). */
struct SourcedLease
{
    /*! The observer's name for it: the lease name, or `namespace/name`. */
    QString name;
    /*! Opaque; a new version is a change (the F2 clock restarts). */
    QString version;
    bool valid = false;
    /*! When not valid: the field and what is wrong with it. */
    QString error;
    LeaseRecord record;
    /*!
     * The lease's stored history (O2), oldest first, when the source read
     * it with the lease: on Kubernetes with every change, in a store with
     * every list. Unset when not read this time.
     */
    std::optional<QList<HistoryEntry>> history;
    /*! When the stored history was there but unreadable: what was wrong (warned once). */
    QString historyError;
};

/*!
 * Where a LeaseObserver reads leases from (O2): the `cluster:*`
 * entries of a Store, or the Lease objects of a Kubernetes namespace. The
 * observer keeps state, history and expiry; a source only lists, follows
 * and decodes, with the protocol's own way of not missing a change between
 * the list and the watch.
 *
 * The observer calls list() after start(), again on resynchronise(), and
 * every pollInterval while isWatching() is false or the last list failed.
 * A list() made while running is answered by one listed() or listFailed(),
 * on a later event-loop turn (overlapping lists may share one answer);
 * nothing is emitted after stop().
 */
class LeaseSource : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    /*! What is observed, for messages: `cluster:*`, `Leases in namespace prod at https://...`. */
    virtual QString describe() const = 0;
    /*! Starts following changes where the source can; no list yet. */
    virtual void start() = 0;
    /*! Stops following; nothing is emitted after it. */
    virtual void stop() = 0;
    virtual void list() = 0;
    /*! Whether changes arrive by themselves; false: the observer polls with list(). */
    virtual bool isWatching() const = 0;

Q_SIGNALS:
    /*! Every lease there is, as of the list: a name missing from it is gone. */
    void listed(const QList<baton::SourcedLease> &leases);
    /*! The list failed; \a message says why (never a secret, R2). */
    void listFailed(const QString &message);
    void changed(const baton::SourcedLease &lease);
    void removed(const QString &name);
    /*! The source lost track of changes (a broken watch, a 410): list again. */
    void resynchronise();
};

} // namespace baton

Q_DECLARE_METATYPE(baton::SourcedLease)
