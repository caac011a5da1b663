// The grace period of --exec: how long the command has between SIGTERM and
// SIGKILL, and the most the election's timings allow.

#include "execsupervisor.h"

#include <baton/clusterservice.h>

#include <algorithm>

namespace baton {

qint64 ExecSupervisor::maxGrace(const ElectionTimings &timings)
{
    // SIGKILL at the end of the grace must land before the earliest
    // takeover, leaseDuration after the attempt by the follower's clock. A
    // grace of the whole margin would leave nothing for the kill itself
    // (the signal, the scheduler, the exit) nor for the leader's clock
    // running slow (toleratedClockDrift). A quarter of the margin is kept:
    // tens of milliseconds or more, where a kill takes a few, and a quarter
    // of the tolerated drift still holds at the cap (docs/safety.md, "The grace of a command").
    const qint64 reserve = (timings.safetyMargin + 3) / 4;
    return std::max<qint64>(0, timings.safetyMargin - reserve);
}

qint64 ExecSupervisor::effectiveGrace(qint64 requestedMs, const ElectionTimings &timings,
                                      QString *errorString)
{
    if (requestedMs < 0)
        return timings.safetyMargin / 2;
    const qint64 cap = maxGrace(timings);
    if (requestedMs > cap) {
        *errorString = QStringLiteral(
                               "--grace %1 ms does not fit in the safety margin of %2 ms "
                               "((leaseDuration %3 - renewInterval %4) / 2) with the quarter "
                               "kept for the kill and clock drift: the command could still run "
                               "when another instance takes the lease; use at most "
                               "%5 ms, or a longer leaseDuration")
                               .arg(requestedMs)
                               .arg(timings.safetyMargin)
                               .arg(timings.leaseDuration)
                               .arg(timings.renewInterval)
                               .arg(cap);
        return -1;
    }
    return requestedMs;
}

} // namespace baton
