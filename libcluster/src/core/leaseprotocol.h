#pragma once

#include "leaserecord.h"

#include <batoninternal/leasehistory.h>

#include <QObject>

#include <functional>
#include <optional>

namespace baton {

/*!
 * One place to keep one lease, and one wire protocol: nothing about
 * elections (DESIGN: the lock interface of client-go). Implementations map
 * their protocol's errors into LeaseReply here, never higher up.
 *
 * Each request's callback runs exactly once, on a later event-loop turn,
 * unless the backend is destroyed first.
 */
class LeaseBackend : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const LeaseReply &)>;
    using QObject::QObject;

    /*! Where the lease lives, for logs: `cluster:leader in FileStore /var/lib/x`. */
    virtual QString describe() const = 0;
    virtual void read(Callback done) = 0;
    /*!
     * Creates the lease; Conflict when it exists. A \a change is this
     * acquisition's holder change: kept in the lease's stored history, in
     * the same write where the protocol allows it (O2).
     */
    virtual void create(const LeaseRecord &record, const std::optional<HistoryEntry> &change,
                        Callback done) = 0;
    /*! Replaces the lease when it still has \a version; Conflict otherwise. */
    virtual void update(const LeaseRecord &record, const QString &version,
                        const std::optional<HistoryEntry> &change, Callback done) = 0;
    /*!
     * Starts following the lease; changed() then reports every change seen.
     * Returns false when this backend cannot watch (the election then polls).
     */
    virtual bool startWatching() = 0;

Q_SIGNALS:
    void changed(const baton::LeaseState &state);
};

} // namespace baton
