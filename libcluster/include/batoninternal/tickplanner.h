#pragma once

#include <batoninternal/batoninternal_export.h>
#include <batoninternal/runledger.h>
#include <batoninternal/tickschedule.h>

#include <QDateTime>
#include <QList>
#include <QString>

#include <optional>

namespace baton {

/*!
 * The decisions of scheduled work, without a clock, a timer or a store:
 * which tick to claim, which record to take over, settle or skip, when to
 * wake up next. A driver (ScheduledRunner, LeaderSchedule, the simulation)
 * owns the timer, the wall clock, the run ledger and the work; it tells the
 * planner what happened, with the wall time of the moment, and carries out
 * the actions each call returns, in their order.
 *
 * The events, and what the driver does around them:
 * - leadershipStarted(token, now): this instance leads under \a token. The
 *   driver carries out ReadRecords (RunLedger::list()) and answers with
 *   recordsListed(token, records, now).
 * - leadershipEnded(now): the timer stops (wakeAt() is invalid); a run that
 *   was started gets InterruptWork: the driver stops the work (or lets the
 *   exec guard stop it), then reports runEnded(RunRecord::interrupted, now).
 * - timerFired(now): the driver's timer went off; call it at wakeAt(), or
 *   earlier (the driver may cap its waits to see a clock that was set or a
 *   host that slept): a call before the tick is due only re-aligns.
 * - claimAnswered(record, answer, now): the outcome of a Claim or a
 *   TakeOver; \a record is the record as stored (with its version) when
 *   the answer is Claimed, the one asked for otherwise.
 * - runEnded(outcome, now): the work of the started run ended, with one of
 *   RunRecord's outcomes ("succeeded", "failed: ...", "interrupted: ...").
 *
 * After every call, the driver arms its timer for wakeAt().
 *
 * What it guarantees (S1-S3), given a ledger whose claim is a conditional
 * create and whose replace is conditional on the version: a tick is started
 * only after its claim (or its take-over) was answered Claimed under the
 * leadership that asked; a run left "running" by an earlier leadership is
 * marked interrupted and re-run (the latest one only) under Rerun, as is
 * the newest tick's run when its own leader settled it interrupted (a clean
 * stop); the latest tick nobody started runs once on becoming leader if it
 * is no older than the catch-up window (after such a rerun, if there is
 * one); a tick due while a run is going is
 * recorded as skipped, or under Queue waits for it (one at most: a newer
 * tick pushes the waiting one out as skipped). One run at a time: from a
 * Claim until its answer, and from StartWork until runEnded(), another
 * tick is an overlap.
 *
 * The driver's one duty of its own: Claim, TakeOver and RecordSkip are
 * carried out only while the lease is held on the boot clock (a leader
 * frozen past its deadline starts nothing); a Claim or TakeOver not
 * carried out is answered Failed.
 */
class BATON_INTERNAL_EXPORT TickPlanner
{
public:
    enum class OnInterrupted { Skip, Rerun };
    enum class Overlap { Skip, Queue };

    struct Policy
    {
        TickSchedule schedule;
        OnInterrupted onInterrupted = OnInterrupted::Skip;
        /*! How late a tick nobody started may still run once; 0: never. */
        qint64 catchUpMs = 0;
        Overlap overlap = Overlap::Skip;
    };

    struct Action
    {
        enum class Kind {
            /*! List the lease's run records; answer with recordsListed(). */
            ReadRecords,
            /*! Create \a record (a conditional create); answer with claimAnswered(). */
            Claim,
            /*! Replace \a earlier, an interrupted run, by \a record (its next attempt); answer with claimAnswered(). */
            TakeOver,
            /*! Replace \a earlier, a run of an earlier leadership, by \a record, settled as interrupted. */
            MarkInterrupted,
            /*! Create \a record, a skipped tick; \a earlier is the run still going. No answer. */
            RecordSkip,
            /*! Start the work of \a record, a claimed run; report its end with runEnded(). */
            StartWork,
            /*! The leadership ended: stop the work of \a record; report its end with runEnded(). */
            InterruptWork,
            /*! Replace \a earlier, this instance's run, by \a record, settled with its outcome. */
            Settle,
        };
        Kind kind;
        RunRecord record;
        RunRecord earlier;
    };

    enum class ClaimAnswer {
        Claimed,
        /*! Another instance has the tick (or changed the record taken over). */
        Taken,
        /*! The store could not say, or the driver did not ask. */
        Failed,
    };

    /*! \a instance names this instance in the records it writes. */
    TickPlanner(Policy policy, QString instance);

    QList<Action> leadershipStarted(qint64 token, const QDateTime &now);
    QList<Action> leadershipEnded(const QDateTime &now);
    /*! \a token: the leadership that asked; an answer for an earlier one is ignored. */
    QList<Action> recordsListed(qint64 token, const QList<RunRecord> &records, const QDateTime &now);
    QList<Action> timerFired(const QDateTime &now);
    QList<Action> claimAnswered(const RunRecord &record, ClaimAnswer answer, const QDateTime &now);
    QList<Action> runEnded(const QString &outcome, const QDateTime &now);

    /*! When the timer should go off next: the next tick; invalid while not leading (or no tick comes). */
    QDateTime wakeAt() const;
    bool isLeading() const { return m_leading; }
    /*! The run claimed or going on here, if any. */
    std::optional<RunRecord> current() const { return m_current; }
    const Policy &policy() const { return m_policy; }

private:
    void realign(const QDateTime &now);
    /*! The latest tick nobody started, if the catch-up window still holds it. */
    std::optional<QDateTime> missedTick(const QList<RunRecord> &records, const QDateTime &now) const;
    void due(const QDateTime &tick, const QDateTime &now, QList<Action> &actions);
    void claim(const QDateTime &tick, const std::optional<RunRecord> &interrupted, const QDateTime &now,
               QList<Action> &actions);
    RunRecord freshRecord(const QString &tick, const QDateTime &now) const;

    Policy m_policy;
    QString m_instance;
    bool m_leading = false;
    qint64 m_token = 0;
    /*! The tick the timer waits for. */
    QDateTime m_nextTick;
    /*! Claimed (or being claimed) and not yet settled. */
    std::optional<RunRecord> m_current;
    bool m_started = false;
    /*! Overlap Queue: the tick to run when the current run ends. */
    std::optional<QDateTime> m_queued;
};

} // namespace baton
