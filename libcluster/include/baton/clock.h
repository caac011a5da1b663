#pragma once

#include <baton/baton_export.h>

#include <QDateTime>
#include <QtGlobal>

namespace baton {

/*!
 * Where every decision reads the time. The monotonic reading decides; the
 * wall clock only labels records and events for people (F2, O5).
 * A LeaseObserver and a cluster service take one, so that tests and
 * simulations can pass a clock that moves only when told to.
 */
class BATON_EXPORT Clock
{
public:
    /*! Clocks are used through this interface. */
    virtual ~Clock() = default;
    /*!
     * Milliseconds of a monotonic clock that keeps counting while the host
     * is suspended (CLOCK_BOOTTIME on Linux, F4): comparable between
     * processes of one host, and the clock of the events' `mono` (O5).
     */
    virtual qint64 monotonicMs() const = 0;
    /*! The wall-clock time, for display and records only. */
    virtual QDateTime wallNow() const = 0;

    /*! This host's clocks. */
    static const Clock &system();
};

} // namespace baton
