#include <batoninternal/durationtext.h>

#include <QStringList>

namespace baton::durationtext {

namespace {

constexpr qint64 kHourMs = 3600 * 1000;
// Far beyond any lease or timeout (about 11 years), and far from overflow.
constexpr qint64 kLongestMs = qint64(100000) * kHourMs;

qint64 unitMs(QStringView unit)
{
    if (unit == u"ms")
        return 1;
    if (unit == u"s")
        return 1000;
    if (unit == u"m")
        return 60 * 1000;
    if (unit == u"h")
        return kHourMs;
    return 0;
}

bool isDigit(QChar c)
{
    return c >= u'0' && c <= u'9';
}

} // namespace

std::optional<qint64> parse(QStringView text, QString *problem)
{
    text = text.trimmed();
    bool negative = false;
    if (text.startsWith(u'-') || text.startsWith(u'+')) {
        negative = text.startsWith(u'-');
        text = text.mid(1);
    }
    if (text.isEmpty()) {
        *problem = QStringLiteral("not a duration: it must be %1").arg(forms());
        return std::nullopt;
    }
    if (text == u"0")
        return 0;
    // Decimal digits read exactly, never through a double: "0.1s" is 100 ms.
    qint64 totalMs = 0;
    qsizetype i = 0;
    while (i < text.size()) {
        const qsizetype numberStart = i;
        while (i < text.size() && isDigit(text.at(i)))
            ++i;
        const QStringView whole = text.mid(numberStart, i - numberStart);
        QStringView fraction;
        if (i < text.size() && text.at(i) == u'.') {
            const qsizetype fractionStart = ++i;
            while (i < text.size() && isDigit(text.at(i)))
                ++i;
            fraction = text.mid(fractionStart, i - fractionStart);
        }
        if (whole.isEmpty() && fraction.isEmpty()) {
            *problem = QStringLiteral("not a duration: it must be %1").arg(forms());
            return std::nullopt;
        }
        const qsizetype unitStart = i;
        while (i < text.size() && !isDigit(text.at(i)) && text.at(i) != u'.')
            ++i;
        const QStringView unit = text.mid(unitStart, i - unitStart).trimmed();
        if (unit.isEmpty()) {
            *problem = QStringLiteral("a number without a unit (ms, s, m or h)");
            return std::nullopt;
        }
        const qint64 factor = unitMs(unit);
        if (factor == 0) {
            *problem = QStringLiteral("unknown unit \"%1\" (ms, s, m or h)").arg(unit.toString());
            return std::nullopt;
        }
        if (whole.size() > 12 || fraction.size() > 12) {
            *problem = QStringLiteral("too long a duration");
            return std::nullopt;
        }
        // The fraction in the unit's milliseconds, exactly: 0.25 of a second
        // is 250 ms; 0.0001 of a second is finer than this clock counts.
        qint64 fractionMs = 0;
        if (!fraction.isEmpty()) {
            qint64 scale = 1;
            for (qsizetype k = 0; k < fraction.size(); ++k)
                scale *= 10;
            const qint64 numerator = fraction.toString().toLongLong() * factor;
            if (numerator % scale != 0) {
                *problem = QStringLiteral("finer than a millisecond");
                return std::nullopt;
            }
            fractionMs = numerator / scale;
        }
        totalMs += (whole.isEmpty() ? 0 : whole.toString().toLongLong()) * factor + fractionMs;
        if (totalMs > kLongestMs) {
            *problem = QStringLiteral("too long a duration");
            return std::nullopt;
        }
    }
    return negative ? -totalMs : totalMs;
}

QString format(qint64 ms)
{
    if (ms == 0)
        return QStringLiteral("0s");
    QString text = ms < 0 ? QStringLiteral("-") : QString();
    qint64 left = ms < 0 ? -ms : ms;
    if (left < 1000)
        return text + QString::number(left) + QStringLiteral("ms");
    const qint64 hours = left / kHourMs;
    left %= kHourMs;
    const qint64 minutes = left / 60000;
    left %= 60000;
    if (hours > 0)
        text += QString::number(hours) + u'h';
    if (minutes > 0)
        text += QString::number(minutes) + u'm';
    if (left > 0) {
        QString seconds = QString::number(left / 1000);
        if (left % 1000 != 0) {
            QString thousandths = QStringLiteral("%1").arg(left % 1000, 3, 10, QLatin1Char('0'));
            while (thousandths.endsWith(u'0'))
                thousandths.chop(1);
            seconds += u'.' + thousandths;
        }
        text += seconds + u's';
    }
    return text;
}

QString forms()
{
    return QStringLiteral("a number with a unit ms, s, m or h (\"500ms\", \"1.5s\", \"2m\", \"1h30m\")");
}

} // namespace baton::durationtext
