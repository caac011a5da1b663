#pragma once

#include <QDateTime>
#include <QtGlobal>

namespace baton {

/*!
 * Where every decision reads the time. The monotonic reading decides; the
 * wall clock only labels records and events for people (F2, O5).
 * Tests and simulations pass a ManualClock.
 */
class Clock
{
public:
    virtual ~Clock() = default;
    /*!
     * Milliseconds of a monotonic clock that keeps counting while the host
     * is suspended (CLOCK_BOOTTIME on Linux, F4): comparable between
     * processes of one host, and the clock of the events' `mono` (O5).
     */
    virtual qint64 monotonicMs() const = 0;
    virtual QDateTime wallNow() const = 0;

    static const Clock &system();
};

/*! A clock that moves only when told to. */
class ManualClock final : public Clock
{
public:
    explicit ManualClock(qint64 startMs = 1'000'000,
                         QDateTime wallStart = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC))
        : m_mono(startMs)
        , m_wallStart(std::move(wallStart))
        , m_monoStart(startMs)
    {
    }
    qint64 monotonicMs() const override { return m_mono; }
    QDateTime wallNow() const override { return m_wallStart.addMSecs(m_mono - m_monoStart); }
    void advance(qint64 ms) { m_mono += ms; }
    void setMonotonicMs(qint64 ms) { m_mono = ms; }

private:
    qint64 m_mono;
    QDateTime m_wallStart;
    qint64 m_monoStart;
};

} // namespace baton
