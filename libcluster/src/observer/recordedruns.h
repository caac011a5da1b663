#pragma once

#include <baton/leaseobserver.h>

#include <QDeadlineTimer>
#include <QList>

#include <optional>
#include <vector>

namespace baton {

/*!
 * Stored changes read by a list, waiting for their places in the history:
 * runs sorted by time, merged two at a time and at most a budget of rows
 * per call, so that a list of 400,000 changes costs each change a few
 * moves, and no event-loop turn more than the budget. Merging each
 * slice's changes into the whole history instead moved every row already
 * there once per slice.
 *
 * Of two changes at the same time, the one pushed first stays first.
 */
class RecordedRuns
{
public:
    /*! The time order of the history. */
    static bool earlier(const LeaseFailover &a, const LeaseFailover &b);
    /*! \a sorted (by earlier()) merged after \a history's rows of the same time; both sorted. */
    static QList<LeaseFailover> merged(QList<LeaseFailover> history, QList<LeaseFailover> sorted);

    /*! Rows one mergeStep() moves at most. */
    static constexpr qsizetype stepRows = 50000;

    bool isEmpty() const { return m_runs.empty() && !m_merging; }
    /*! The runs waiting, one being merged counted once. */
    qsizetype runCount() const { return qsizetype(m_runs.size()) + (m_merging ? 1 : 0); }
    /*! How many changes wait, in every run. */
    qsizetype size() const;

    /*! Adds \a changes (in any order; a lease's own oldest first) as a run; returns the run, sorted. */
    QList<LeaseFailover> push(QList<LeaseFailover> changes);
    /*!
     * Goes on with the merge under way, or starts one of the two newest
     * runs when the newer is at least half the older (with \a all, whenever
     * there are two): keeps the runs few and each change's moves about log2
     * of their count. Moves at most stepRows rows, fewer once \a until has
     * passed (a thousand at least). Returns whether it did.
     */
    bool mergeStep(bool all = false, const QDeadlineTimer &until = QDeadlineTimer(QDeadlineTimer::Forever));
    /*! Every waiting change, sorted, in one list; none wait after. */
    QList<LeaseFailover> takeAll();
    /*! Every waiting change, sorted, in one list; they still wait. */
    QList<LeaseFailover> all() const;

private:
    struct Merging
    {
        QList<LeaseFailover> older;
        QList<LeaseFailover> newer;
        QList<LeaseFailover> out;
        qsizetype nextOlder = 0;
        qsizetype nextNewer = 0;
        /*! Where the result goes back among m_runs: runs pushed meanwhile are newer. */
        std::size_t at = 0;
    };
    /*! Moves up to \a rows rows of the merge under way, until \a until; puts its result back when done. */
    void advance(qsizetype rows, const QDeadlineTimer &until = QDeadlineTimer(QDeadlineTimer::Forever));

    std::vector<QList<LeaseFailover>> m_runs; // oldest first
    std::optional<Merging> m_merging;
};

} // namespace baton
