#pragma once

#include <batoninternal/runledger.h>
#include <batoninternal/tickschedule.h>

#include <QDateTime>
#include <QList>

#include <optional>

namespace baton {

/*!
 * One row of the Runs tab: a recorded run, or a stretch of consecutive
 * ticks of the schedule that nobody recorded ("missed").
 */
struct RunRow
{
    /*! The run; for a missed stretch, only its first tick's name. */
    RunRecord record;
    /*! How many ticks the stretch missed; 0 for a recorded run. */
    int missed = 0;
    /*! More were missed than were counted (missed is then the count's bound). */
    bool missedMore = false;
    /*! The stretch's first and last ticks, UTC. */
    QDateTime firstMissed;
    QDateTime lastMissed;

    bool isMissed() const { return missed > 0; }
    bool operator==(const RunRow &other) const;
};

/*!
 * What the Runs tab shows of a lease's run records: the runs, newest tick
 * first, with the ticks nobody recorded between them. Pure: the records and
 * the time in, rows out.
 *
 * The schedule is the one the newest record names (RunRecord::schedule);
 * gaps are looked for from the oldest record of that schedule on (an older
 * schedule's ticks are not this one's, and before the oldest record there
 * is nothing to tell a missed tick from a trimmed record). A tick after the
 * newest record counts as missed once it is due by more than dueGraceMs on
 * the reader's wall clock: the leader records a tick when its own clock
 * reaches it, and another host's clock may differ by a few seconds.
 */
namespace runrows {

/*! How long after it is due a tick with no record is still not called missed. */
constexpr qint64 dueGraceMs = 30'000;
/*! A stretch of a cron schedule's missed ticks is counted tick by tick, up to this many. */
constexpr int countBound = 1000;

/*! The schedule the newest of \a records (oldest first, as RunLedger lists them) names, if it reads. */
std::optional<TickSchedule> scheduleOf(const QList<RunRecord> &records);
/*! \a records (oldest first) as rows, newest first, with the missed stretches up to \a now. */
QList<RunRow> build(const QList<RunRecord> &records, const QDateTime &now);

} // namespace runrows

} // namespace baton
