#pragma once

#include <baton/clock.h>

#include <QDate>
#include <QDateTime>
#include <QTime>

#include <utility>

namespace baton::test {

/*!
 * A clock that moves only when told to, for tests and simulations: every
 * decision of an Elector, a cluster service or a LeaseObserver given one
 * reads it, so a test advances time instead of waiting for it.
 */
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

} // namespace baton::test
