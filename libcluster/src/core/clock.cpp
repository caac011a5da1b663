#include "clock.h"

#include <time.h>

namespace baton {

namespace {

class SystemClock final : public Clock
{
public:
    qint64 monotonicMs() const override
    {
        // QElapsedTimer hides which clock it reads; O5 promises CLOCK_MONOTONIC
        // so that the `mono` of two processes on one host can be compared.
        timespec ts {};
        clock_gettime(CLOCK_MONOTONIC, &ts);
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
