#pragma once

#include <batoninternal/batoninternal_export.h>

#include <QDateTime>
#include <QString>
#include <QStringView>
#include <QTimeZone>

#include <bitset>
#include <optional>

namespace baton {

/*!
 * When scheduled work runs: a five-field cron expression read in a time
 * zone, or `every DURATION`. A tick is named by its nominal instant in UTC,
 * which the schedule alone fixes, so that instances with skewed clocks
 * agree on which tick is which.
 *
 * Forms:
 * - `MIN HOUR DOM MONTH DOW [ZONE]`: cron's fields (`*`, `5`, `1-5`,
 *   steps `10-50/20` and a star followed by `/15`, lists with commas; month names jan-dec, day names
 *   sun-sat, Sunday 0 or 7), read in the IANA time zone ZONE (UTC when
 *   absent). As cron does, when both day fields are restricted (neither
 *   starts with `*`), a day matches either of them. A time that the zone
 *   skips (clocks go forward) ticks at the first instant after the gap; a
 *   time the zone repeats (clocks go back) ticks once, at its first
 *   occurrence.
 * - `every DURATION` (e.g. `every 10m`): whole seconds, at multiples of the
 *   duration since 1970-01-01T00:00:00Z, so every instance counts the same
 *   ticks.
 */
class BATON_INTERNAL_EXPORT TickSchedule
{
public:
    /*! A schedule that never ticks; parse() makes the others. */
    TickSchedule() = default;
    /*! Reads \a text; nothing, with \a problem naming the field and what is wrong, if it is not a schedule. */
    static std::optional<TickSchedule> parse(QStringView text, QString *problem);

    /*! The first tick strictly after \a after; invalid when none comes in the next years. */
    QDateTime nextAfter(const QDateTime &after) const;
    /*! The latest tick at or before \a at; invalid when none came in the last years. */
    QDateTime latestAtOrBefore(const QDateTime &at) const;

    /*! The text it was read from, trimmed. */
    QString text() const { return m_text; }
    /*! `every`: the period in milliseconds; 0 for a cron expression. */
    qint64 periodMs() const { return m_periodMs; }

    /*! A tick's name, its instant in UTC to the second: 2026-12-01T03:00:00Z. */
    static QString tickName(const QDateTime &tick);

private:
    std::optional<QDateTime> scan(const QDateTime &from, bool forward) const;
    bool dayMatches(const QDate &date) const;
    qint64 instantOfWallTime(qint64 wallSeconds) const;

    QString m_text;
    qint64 m_periodMs = 0;
    std::bitset<60> m_minutes;
    std::bitset<24> m_hours;
    std::bitset<32> m_days;    // 1-31
    std::bitset<13> m_months;  // 1-12
    std::bitset<7> m_weekdays; // 0 Sunday - 6
    bool m_daysRestricted = false;
    bool m_weekdaysRestricted = false;
    QTimeZone m_zone;
};

} // namespace baton
