#pragma once

#include <QObject>

#include <functional>

namespace baton {

class ClusterServicePrivate;

/*!
 * What steers an election from beside it (preference and drain): the
 * candidate roster, which the application makes for the elections that
 * have other candidates. The cluster service starts it with the election
 * and lets it finish before its own stop ends. It acts on the election
 * only through the cluster service (the stand-by gate, a handover); it
 * never ends or blocks a leadership.
 */
class ElectionSteering : public QObject
{
public:
    using QObject::QObject;

    /*! The election is about to start: the first attempt comes right after. */
    virtual void start() = 0;
    /*! A clean stop: \a done runs once, on a later turn of the event loop, in bounded time. */
    virtual void stop(std::function<void()> done) = 0;
    /*!
     * The leader's renewal has just gone to a protocol whose writes go
     * together (etcd's txn): a write made now, in this turn, goes with it.
     */
    virtual void renewing() {}
};

/*! Makes the steering of \a election, or nullptr with the reason set (the election goes on without). */
using ElectionSteeringFactory =
        std::function<ElectionSteering *(ClusterServicePrivate *election, QString *errorString)>;

} // namespace baton
