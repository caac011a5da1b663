#include <batoninternal/isotime.h>

namespace baton::isotime {

namespace {

constexpr qint64 kDayMs = 86400 * 1000;
// 1970-01-01 to 10000-01-01: four-digit years with no sign, which is all the
// fast path writes and reads; Qt takes the rest.
constexpr qint64 kEndMs = qint64(2932897) * kDayMs;
constexpr int kLength = 24; // yyyy-MM-ddTHH:mm:ss.zzzZ

struct Civil
{
    int year;
    int month;
    int day;
};

// Days since 1970-01-01 to the proleptic Gregorian date, and back, over
// 400-year eras (Howard Hinnant's "chrono-compatible low-level date
// algorithms"); days are never negative here.
Civil civilFromDays(qint64 days)
{
    days += 719468;
    const qint64 era = days / 146097;
    const qint64 dayOfEra = days - era * 146097;
    const qint64 yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
    const qint64 dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    const qint64 shiftedMonth = (5 * dayOfYear + 2) / 153; // March is 0
    const int day = int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1);
    const int month = int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9);
    return { int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), month, day };
}

qint64 daysFromCivil(Civil date)
{
    const int year = date.year - (date.month <= 2 ? 1 : 0);
    const int era = year / 400;
    const int yearOfEra = year - era * 400;
    const int dayOfYear = (153 * (date.month > 2 ? date.month - 3 : date.month + 9) + 2) / 5 + date.day - 1;
    const int dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return qint64(era) * 146097 + dayOfEra - 719468;
}

int daysInMonth(int year, int month)
{
    static constexpr int kDays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : kDays[month - 1];
}

QChar *put(QChar *out, int value, int digits)
{
    for (int i = digits - 1; i >= 0; --i) {
        out[i] = QChar(u'0' + value % 10);
        value /= 10;
    }
    return out + digits;
}

/*! The \a digits-digit number at \a at of \a text; -1 when one is not a digit. */
int number(QStringView text, int at, int digits)
{
    int value = 0;
    for (int i = at; i < at + digits; ++i) {
        const char16_t c = text[i].unicode();
        if (c < u'0' || c > u'9')
            return -1;
        value = value * 10 + (c - u'0');
    }
    return value;
}

} // namespace

QString format(const QDateTime &time)
{
    if (!time.isValid())
        return {};
    const qint64 ms = time.toMSecsSinceEpoch();
    if (ms < 0 || ms >= kEndMs)
        return time.toUTC().toString(Qt::ISODateWithMs);
    const Civil date = civilFromDays(ms / kDayMs);
    const int msOfDay = int(ms % kDayMs);
    QString text(kLength, Qt::Uninitialized);
    QChar *out = text.data();
    out = put(out, date.year, 4);
    *out++ = u'-';
    out = put(out, date.month, 2);
    *out++ = u'-';
    out = put(out, date.day, 2);
    *out++ = u'T';
    out = put(out, msOfDay / 3600000, 2);
    *out++ = u':';
    out = put(out, msOfDay / 60000 % 60, 2);
    *out++ = u':';
    out = put(out, msOfDay / 1000 % 60, 2);
    *out++ = u'.';
    out = put(out, msOfDay % 1000, 3);
    *out = u'Z';
    return text;
}

QDateTime parse(QStringView text)
{
    auto general = [text] { return QDateTime::fromString(text.toString(), Qt::ISODateWithMs); };
    if (text.size() != kLength || text[4] != u'-' || text[7] != u'-' || text[10] != u'T'
        || text[13] != u':' || text[16] != u':' || text[19] != u'.' || text[23] != u'Z')
        return general();
    const Civil date { number(text, 0, 4), number(text, 5, 2), number(text, 8, 2) };
    const int hour = number(text, 11, 2);
    const int minute = number(text, 14, 2);
    const int second = number(text, 17, 2);
    const int millis = number(text, 20, 3);
    if (date.year < 1970 || date.month < 1 || date.month > 12 || date.day < 1
        || date.day > daysInMonth(date.year, date.month) || hour < 0 || hour > 23 || minute < 0
        || minute > 59 || second < 0 || second > 59 || millis < 0)
        return general();
    const qint64 ms = daysFromCivil(date) * kDayMs + ((hour * 60 + minute) * 60 + second) * 1000LL + millis;
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
}

} // namespace baton::isotime
