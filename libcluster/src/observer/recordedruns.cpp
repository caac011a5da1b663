#include "recordedruns.h"

#include <algorithm>
#include <limits>

namespace baton {

bool RecordedRuns::earlier(const LeaseFailover &a, const LeaseFailover &b)
{
    return a.when < b.when;
}

QList<LeaseFailover> RecordedRuns::merged(QList<LeaseFailover> history, QList<LeaseFailover> sorted)
{
    if (history.isEmpty())
        return sorted;
    // In place: only the rows later than the earliest of \a sorted move,
    // and a change of today merged into a long history moves almost none.
    // Of two rows at the same time, the history's stays first.
    const qsizetype before = history.size();
    for (LeaseFailover &row : sorted)
        history.append(std::move(row));
    std::inplace_merge(history.begin(), history.begin() + before, history.end(), earlier);
    return history;
}

qsizetype RecordedRuns::size() const
{
    qsizetype total = 0;
    for (const QList<LeaseFailover> &run : m_runs)
        total += run.size();
    if (m_merging)
        total += m_merging->out.size() + (m_merging->older.size() - m_merging->nextOlder)
                + (m_merging->newer.size() - m_merging->nextNewer);
    return total;
}

QList<LeaseFailover> RecordedRuns::push(QList<LeaseFailover> changes)
{
    std::stable_sort(changes.begin(), changes.end(), earlier);
    m_runs.push_back(std::move(changes));
    return m_runs.back();
}

bool RecordedRuns::mergeStep(bool all, const QDeadlineTimer &until)
{
    if (!m_merging) {
        if (m_runs.size() < 2)
            return false;
        if (!all && m_runs.back().size() * 2 < m_runs[m_runs.size() - 2].size())
            return false;
        Merging merging;
        merging.newer = std::move(m_runs.back());
        m_runs.pop_back();
        merging.older = std::move(m_runs.back());
        m_runs.pop_back();
        merging.at = m_runs.size();
        merging.out.reserve(merging.older.size() + merging.newer.size());
        m_merging = std::move(merging);
    }
    advance(stepRows, until);
    return true;
}

void RecordedRuns::advance(qsizetype rows, const QDeadlineTimer &until)
{
    // The clock is read once per thousand rows: a row moves in well under a
    // microsecond, a clock read costs about as much.
    constexpr qsizetype rowsPerLook = 1000;
    Merging &m = *m_merging;
    for (qsizetype moved = 0; moved < rows; ++moved) {
        if (moved > 0 && moved % rowsPerLook == 0 && until.hasExpired())
            break;
        const bool olderLeft = m.nextOlder < m.older.size();
        const bool newerLeft = m.nextNewer < m.newer.size();
        if (!olderLeft && !newerLeft)
            break;
        // The older run's row first on a tie: it was pushed first.
        if (olderLeft && (!newerLeft || !earlier(m.newer.at(m.nextNewer), m.older.at(m.nextOlder))))
            m.out.append(std::move(m.older[m.nextOlder++]));
        else
            m.out.append(std::move(m.newer[m.nextNewer++]));
    }
    if (m.nextOlder < m.older.size() || m.nextNewer < m.newer.size()) {
        // The rows moved out go with the step that moved them (a removal at
        // the front only moves the list's start): left to the last step,
        // 400,000 of them took that turn 16 ms.
        m.older.remove(0, std::exchange(m.nextOlder, 0));
        m.newer.remove(0, std::exchange(m.nextNewer, 0));
        return;
    }
    m_runs.insert(m_runs.begin() + std::ptrdiff_t(m.at), std::move(m.out));
    m_merging.reset();
}

QList<LeaseFailover> RecordedRuns::takeAll()
{
    // Each merge finished at once: whoever takes all wants them now.
    do {
        if (m_merging)
            advance(std::numeric_limits<qsizetype>::max());
    } while (mergeStep(true));
    QList<LeaseFailover> all = m_runs.empty() ? QList<LeaseFailover>() : std::move(m_runs.front());
    m_runs.clear();
    return all;
}

QList<LeaseFailover> RecordedRuns::all() const
{
    RecordedRuns copy = *this;
    return copy.takeAll();
}

} // namespace baton
