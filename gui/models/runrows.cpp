#include "runrows.h"

#include <algorithm>
#include <limits>

namespace baton {

bool RunRow::operator==(const RunRow &other) const
{
    const RunRecord &a = record;
    const RunRecord &b = other.record;
    return a.tick == b.tick && a.instance == b.instance && a.token == b.token && a.start == b.start
            && a.end == b.end && a.outcome == b.outcome && a.attempt == b.attempt && a.version == b.version
            && a.schedule == b.schedule && missed == other.missed && missedMore == other.missedMore
            && firstMissed == other.firstMissed && lastMissed == other.lastMissed;
}

namespace runrows {

namespace {

QDateTime tickTime(const RunRecord &record)
{
    return QDateTime::fromString(record.tick, Qt::ISODate);
}

/*! The ticks of \a schedule after \a after and at or before \a upTo, as one row; nothing when there are none. */
std::optional<RunRow> stretch(const TickSchedule &schedule, const QDateTime &after, const QDateTime &upTo)
{
    const QDateTime first = schedule.nextAfter(after);
    if (!first.isValid() || first > upTo)
        return std::nullopt;
    RunRow row;
    row.firstMissed = first;
    row.lastMissed = schedule.latestAtOrBefore(upTo);
    row.record.tick = TickSchedule::tickName(first);
    if (schedule.periodMs() > 0) {
        // On a fixed period the count is arithmetic: a long outage costs nothing to count.
        const qint64 count = first.msecsTo(row.lastMissed) / schedule.periodMs() + 1;
        row.missed = int(std::min<qint64>(count, std::numeric_limits<int>::max()));
        return row;
    }
    QDateTime tick = first;
    while (tick.isValid() && tick <= row.lastMissed && row.missed < countBound) {
        ++row.missed;
        tick = schedule.nextAfter(tick);
    }
    row.missedMore = tick.isValid() && tick <= row.lastMissed;
    return row;
}

} // namespace

std::optional<TickSchedule> scheduleOf(const QList<RunRecord> &records)
{
    if (records.isEmpty() || records.last().schedule.isEmpty())
        return std::nullopt;
    QString problem;
    return TickSchedule::parse(records.last().schedule, &problem);
}

QList<RunRow> build(const QList<RunRecord> &records, const QDateTime &now)
{
    const std::optional<TickSchedule> schedule = scheduleOf(records);
    // The oldest record of the newest schedule: gaps are looked for from there on.
    qsizetype from = records.size();
    while (schedule && from > 0 && records.at(from - 1).schedule == records.last().schedule)
        --from;
    QList<RunRow> rows;
    rows.reserve(records.size() * 2 + 1);
    for (qsizetype i = 0; i < records.size(); ++i) {
        RunRow row;
        row.record = records.at(i);
        rows.append(row);
        if (!schedule || i < from)
            continue;
        const QDateTime tick = tickTime(records.at(i));
        const bool newest = i + 1 == records.size();
        // Ticks are whole seconds: the one before the next record's is a second earlier at the latest.
        const QDateTime upTo = newest ? now.addMSecs(-dueGraceMs) : tickTime(records.at(i + 1)).addSecs(-1);
        if (!tick.isValid() || !upTo.isValid())
            continue;
        if (const std::optional<RunRow> gap = stretch(*schedule, tick, upTo))
            rows.append(*gap);
    }
    std::reverse(rows.begin(), rows.end());
    return rows;
}

} // namespace runrows

} // namespace baton
