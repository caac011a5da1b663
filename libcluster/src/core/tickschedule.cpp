#include <batoninternal/tickschedule.h>

#include <batoninternal/durationtext.h>

#include <QStringList>

namespace baton {

namespace {

// Far enough for any schedule that can tick at all (29 February on a
// Monday comes within 28 years; a restricted day of week ORs with the
// day of month), near enough that a search for a tick stays quick.
constexpr int kScanDays = 366 * 29;
constexpr qint64 kDaySeconds = 86400;

struct Field
{
    const char *name;
    int low;
    int high;
    QStringList names; // names[i] is the value low + i
};

const Field &field(int index)
{
    static const Field fields[] = {
        {"minute", 0, 59, {}},
        {"hour", 0, 23, {}},
        {"day of month", 1, 31, {}},
        {"month", 1, 12,
         {QStringLiteral("jan"), QStringLiteral("feb"), QStringLiteral("mar"), QStringLiteral("apr"),
          QStringLiteral("may"), QStringLiteral("jun"), QStringLiteral("jul"), QStringLiteral("aug"),
          QStringLiteral("sep"), QStringLiteral("oct"), QStringLiteral("nov"), QStringLiteral("dec")}},
        // 7 is Sunday too, as in cron.
        {"day of week", 0, 7,
         {QStringLiteral("sun"), QStringLiteral("mon"), QStringLiteral("tue"), QStringLiteral("wed"),
          QStringLiteral("thu"), QStringLiteral("fri"), QStringLiteral("sat")}},
    };
    return fields[index];
}

std::optional<int> readValue(const Field &f, QStringView text, QString *problem)
{
    bool ok = false;
    int value = text.toInt(&ok);
    if (!ok) {
        const qsizetype named = f.names.indexOf(text.toString().toLower());
        if (named < 0) {
            *problem = f.names.isEmpty()
                    ? QStringLiteral("\"%1\" is not a number").arg(text)
                    : QStringLiteral("\"%1\" is neither a number nor a name (%2-%3)")
                              .arg(text, f.names.first(), f.names.last());
            return std::nullopt;
        }
        value = f.low + int(named);
    }
    if (value < f.low || value > f.high) {
        *problem = QStringLiteral("%1 is out of range %2-%3").arg(value).arg(f.low).arg(f.high);
        return std::nullopt;
    }
    return value;
}

// One field: a comma-separated list of `*`, `N`, `N-M`, each with an optional `/STEP`.
template<size_t N>
bool readField(int index, QStringView text, std::bitset<N> *bits, QString *problem)
{
    const Field &f = field(index);
    QString inner;
    for (QStringView item : text.split(u',')) {
        if (item.isEmpty()) {
            inner = QStringLiteral("an empty item in the list");
            break;
        }
        int step = 1;
        const qsizetype slash = item.indexOf(u'/');
        QStringView range = item;
        if (slash >= 0) {
            bool ok = false;
            step = item.mid(slash + 1).toInt(&ok);
            if (!ok || step < 1) {
                inner = QStringLiteral("step \"%1\" is not a whole number above 0").arg(item.mid(slash + 1));
                break;
            }
            range = item.first(slash);
        }
        int low = f.low;
        int high = f.high;
        if (range != u"*") {
            const qsizetype dash = range.indexOf(u'-', 1);
            const auto first = readValue(f, dash < 0 ? range : range.first(dash), &inner);
            if (!first)
                break;
            low = *first;
            // "5/15" runs from 5 to the end of the range, as cron reads it.
            high = dash < 0 && slash < 0 ? low : f.high;
            if (dash >= 0) {
                const auto last = readValue(f, range.mid(dash + 1), &inner);
                if (!last)
                    break;
                high = *last;
                if (high < low) {
                    inner = QStringLiteral("range %1 goes backwards").arg(range);
                    break;
                }
            }
        }
        for (int value = low; value <= high; value += step)
            bits->set(size_t(index == 4 && value == 7 ? 0 : value));
    }
    if (inner.isEmpty())
        return true;
    *problem = QStringLiteral("%1 \"%2\": %3").arg(QLatin1String(f.name), text, inner);
    return false;
}

int daysIn(int month)
{
    return QDate(2024, month, 1).daysInMonth(); // a leap year: 29 February can come
}

} // namespace

std::optional<TickSchedule> TickSchedule::parse(QStringView text, QString *problem)
{
    TickSchedule schedule;
    schedule.m_text = text.trimmed().toString();
    const QStringList words = schedule.m_text.split(u' ', Qt::SkipEmptyParts);
    if (words.size() == 2 && words.first() == u"every") {
        QString inner;
        const auto ms = durationtext::parse(words.at(1), &inner);
        if (!ms) {
            *problem = QStringLiteral("every \"%1\": %2").arg(words.at(1), inner);
            return std::nullopt;
        }
        if (*ms < 1000 || *ms % 1000 != 0) {
            *problem = QStringLiteral("every \"%1\": the period must be whole seconds, 1s or more")
                               .arg(words.at(1));
            return std::nullopt;
        }
        schedule.m_periodMs = *ms;
        return schedule;
    }
    if (words.size() < 5 || words.size() > 6) {
        *problem = QStringLiteral("\"%1\" has %2 fields: a schedule is five cron fields (minute hour "
                                  "day-of-month month day-of-week) and an optional time zone, or "
                                  "\"every DURATION\"")
                           .arg(schedule.m_text)
                           .arg(words.size());
        return std::nullopt;
    }
    if (!readField(0, words.at(0), &schedule.m_minutes, problem)
        || !readField(1, words.at(1), &schedule.m_hours, problem)
        || !readField(2, words.at(2), &schedule.m_days, problem)
        || !readField(3, words.at(3), &schedule.m_months, problem)
        || !readField(4, words.at(4), &schedule.m_weekdays, problem))
        return std::nullopt;
    schedule.m_daysRestricted = !words.at(2).startsWith(u'*');
    schedule.m_weekdaysRestricted = !words.at(4).startsWith(u'*');
    schedule.m_zone = QTimeZone::utc();
    if (words.size() == 6) {
        schedule.m_zone = QTimeZone(words.at(5).toUtf8());
        if (!schedule.m_zone.isValid()) {
            *problem = QStringLiteral("time zone \"%1\" is not known (an IANA name such as "
                                      "Europe/Paris, or UTC)")
                               .arg(words.at(5));
            return std::nullopt;
        }
    }
    if (!schedule.m_weekdaysRestricted) {
        bool someDayComes = false;
        for (int month = 1; month <= 12; ++month)
            for (int day = 1; day <= daysIn(month); ++day)
                someDayComes = someDayComes || (schedule.m_months.test(month) && schedule.m_days.test(day));
        if (!someDayComes) {
            *problem = QStringLiteral("day of month \"%1\" never comes in month \"%2\"")
                               .arg(words.at(2), words.at(3));
            return std::nullopt;
        }
    }
    return schedule;
}

bool TickSchedule::dayMatches(const QDate &date) const
{
    if (!m_months.test(size_t(date.month())))
        return false;
    const bool day = m_days.test(size_t(date.day()));
    const bool weekday = m_weekdays.test(size_t(date.dayOfWeek() % 7));
    if (m_daysRestricted && m_weekdaysRestricted)
        return day || weekday;
    return day && weekday;
}

// The instant at which the zone's clocks show \a wallSeconds (the wall time
// read as if it were UTC): the first such instant when the zone repeats it,
// the end of the gap when the zone skips it.
qint64 TickSchedule::instantOfWallTime(qint64 wallSeconds) const
{
    // One transition at most lies within a day of any wall time.
    const auto offsetAt = [this](qint64 utc) {
        return qint64(m_zone.offsetFromUtc(QDateTime::fromSecsSinceEpoch(utc, QTimeZone::utc())));
    };
    const qint64 before = offsetAt(wallSeconds - kDaySeconds);
    const qint64 after = offsetAt(wallSeconds + kDaySeconds);
    std::optional<qint64> earliest;
    for (qint64 offset : {before, after}) {
        const qint64 candidate = wallSeconds - offset;
        if (candidate + offsetAt(candidate) == wallSeconds && (!earliest || candidate < *earliest))
            earliest = candidate;
    }
    if (earliest)
        return *earliest;
    // In a gap: the clocks jumped from before the wall time to after it.
    const QTimeZone::OffsetData transition = m_zone.nextTransition(
            QDateTime::fromSecsSinceEpoch(wallSeconds - qMax(before, after) - 1, QTimeZone::utc()));
    return transition.atUtc.toSecsSinceEpoch();
}

std::optional<QDateTime> TickSchedule::scan(const QDateTime &from, bool forward) const
{
    const qint64 limit = from.toSecsSinceEpoch();
    const QDate start = from.toTimeZone(m_zone).date();
    // A day earlier (or later) too: a gap's tick may land on the next day's wall clock.
    for (int step = -1; step <= kScanDays; ++step) {
        const QDate date = start.addDays(forward ? step : -step);
        if (!dayMatches(date))
            continue;
        const qint64 midnight = QDateTime(date, QTime(0, 0), QTimeZone::utc()).toSecsSinceEpoch();
        for (int h = 0; h < 24; ++h) {
            const int hour = forward ? h : 23 - h;
            if (!m_hours.test(size_t(hour)))
                continue;
            for (int m = 0; m < 60; ++m) {
                const int minute = forward ? m : 59 - m;
                if (!m_minutes.test(size_t(minute)))
                    continue;
                const qint64 instant = instantOfWallTime(midnight + hour * 3600 + minute * 60);
                if (forward ? instant > limit : instant <= limit)
                    return QDateTime::fromSecsSinceEpoch(instant, QTimeZone::utc());
            }
        }
    }
    return std::nullopt;
}

QDateTime TickSchedule::nextAfter(const QDateTime &after) const
{
    if (m_periodMs > 0) {
        const qint64 period = m_periodMs / 1000;
        const qint64 seconds = after.toSecsSinceEpoch();
        const qint64 floor = seconds >= 0 ? seconds / period : -((-seconds + period - 1) / period);
        return QDateTime::fromSecsSinceEpoch((floor + 1) * period, QTimeZone::utc());
    }
    return scan(after, true).value_or(QDateTime());
}

QDateTime TickSchedule::latestAtOrBefore(const QDateTime &at) const
{
    if (m_periodMs > 0) {
        const qint64 period = m_periodMs / 1000;
        const qint64 seconds = at.toSecsSinceEpoch();
        const qint64 floor = seconds >= 0 ? seconds / period : -((-seconds + period - 1) / period);
        return QDateTime::fromSecsSinceEpoch(floor * period, QTimeZone::utc());
    }
    return scan(at, false).value_or(QDateTime());
}

QString TickSchedule::tickName(const QDateTime &tick)
{
    return tick.toUTC().toString(Qt::ISODate);
}

} // namespace baton
