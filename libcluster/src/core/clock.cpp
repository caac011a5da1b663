#include <baton/clock.h>

#include <time.h>

namespace baton {

namespace {

#ifdef CLOCK_BOOTTIME
constexpr clockid_t decisionClock = CLOCK_BOOTTIME;
#else
constexpr clockid_t decisionClock = CLOCK_MONOTONIC; // no suspend-aware clock here
#endif

class SystemClock final : public Clock
{
public:
    qint64 monotonicMs() const override
    {
        // F4: a host resumed from suspend must find its deadline passed, so
        // the clock counts the suspension; CLOCK_MONOTONIC (and QTimer,
        // QElapsedTimer) stand still then. One named clock, not
        // QElapsedTimer's choice, so that the `mono` of two processes on one
        // host can be compared (O5).
        timespec ts {};
        clock_gettime(decisionClock, &ts);
        return qint64(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
    }
    QDateTime wallNow() const override { return QDateTime::currentDateTimeUtc(); }
};

} // namespace

const Clock &Clock::system()
{
    static const SystemClock clock;
    return clock;
}

} // namespace baton
