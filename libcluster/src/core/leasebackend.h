#pragma once

#include "leaserecord.h"

#include <QObject>

#include <functional>

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
    /*! Creates the lease; Conflict when it exists. */
    virtual void create(const LeaseRecord &record, Callback done) = 0;
    /*! Replaces the lease when it still has \a version; Conflict otherwise. */
    virtual void update(const LeaseRecord &record, const QString &version, Callback done) = 0;
    /*!
     * Starts following the lease; changed() then reports every change seen.
     * Returns false when this backend cannot watch (the election then polls).
     */
    virtual bool startWatching() = 0;

Q_SIGNALS:
    void changed(const baton::LeaseState &state);
};

} // namespace baton
