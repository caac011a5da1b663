#pragma once

#include <baton/baton_export.h>

#include <QDateTime>
#include <QtGlobal>

namespace baton {

/*!
 * Where every decision reads the time. The monotonic reading decides; the
 * wall clock only labels records and events for people (F2, O5).
 * Tests and simulations pass a ManualClock; a LeaseObserver takes one.
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

/*! A clock that moves only when told to. */
class ManualClock final : public Clock
{
public:
    /*! Starts at \a startMs on the monotonic clock, \a wallStart on the wall clock. */
    explicit ManualClock(qint64 startMs = 1'000'000,
                         QDateTime wallStart = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC))
        : m_mono(startMs)
        , m_wallStart(std::move(wallStart))
        , m_monoStart(startMs)
    {
    }
    /*! Where it was set or advanced to. */
    qint64 monotonicMs() const override { return m_mono; }
    /*! The wall clock moves with the monotonic one. */
    QDateTime wallNow() const override { return m_wallStart.addMSecs(m_mono - m_monoStart); }
    /*! Moves both clocks on by \a ms. */
    void advance(qint64 ms) { m_mono += ms; }
    /*! Sets the monotonic reading (the wall clock follows). */
    void setMonotonicMs(qint64 ms) { m_mono = ms; }

private:
    qint64 m_mono;
    QDateTime m_wallStart;
    qint64 m_monoStart;
};

} // namespace baton
