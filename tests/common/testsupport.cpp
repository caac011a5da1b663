#include "testsupport.h"

#include <QFile>
#include <QJsonDocument>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QSet>
#include <QSysInfo>

#include <cmath>
#include <limits>

#include <sys/stat.h>

namespace baton::test {

QString batonBinary()
{
    return QProcessEnvironment::systemEnvironment().value(QStringLiteral("BATON_BINARY"));
}

double timeScale()
{
    static const double scale = [] {
        const QString text = QProcessEnvironment::systemEnvironment().value(
                QStringLiteral("BATON_TEST_TIME_SCALE"));
        if (text.isEmpty())
            return 1.0;
        bool ok = false;
        const double value = text.toDouble(&ok);
        if (!ok || !std::isfinite(value) || value < 1.0)
            qFatal("BATON_TEST_TIME_SCALE is \"%s\": it must be a number of at least 1",
                   qPrintable(text));
        return value;
    }();
    return scale;
}

qint64 scaledMs(qint64 ms)
{
    return qint64(std::llround(double(ms) * timeScale()));
}

bool isRunningProcess(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (pid <= 0 || !stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray text = stat.readAll();
    const qsizetype end = text.lastIndexOf(')');
    return end > 0 && end + 2 < text.size() && text.at(end + 2) != 'Z';
}

int fileMode(const QString &path)
{
    struct stat info {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return -1;
    return int(info.st_mode & 07777);
}

bool isUserAtThisHost(const QString &by)
{
    const QString host = QLatin1Char('@') + QSysInfo::machineHostName();
    return by.endsWith(host) && by.size() > host.size();
}

QString octalMode(int mode)
{
    return mode < 0 ? QStringLiteral("absent") : QStringLiteral("0%1").arg(mode, 0, 8);
}

QJsonObject parseEventLine(const QByteArray &line)
{
    const QJsonDocument document = QJsonDocument::fromJson(line.trimmed());
    return document.isObject() ? document.object() : QJsonObject();
}

} // namespace baton::test

namespace baton::test {

namespace {

bool isMetricName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[a-zA-Z_:][a-zA-Z0-9_:]*$"));
    return re.match(name).hasMatch();
}

bool parseNumber(const QString &text, double *value)
{
    if (text == QLatin1String("+Inf") || text == QLatin1String("Inf")) {
        *value = std::numeric_limits<double>::infinity();
        return true;
    }
    if (text == QLatin1String("-Inf")) {
        *value = -std::numeric_limits<double>::infinity();
        return true;
    }
    if (text == QLatin1String("NaN")) {
        *value = std::numeric_limits<double>::quiet_NaN();
        return true;
    }
    bool ok = false;
    *value = text.toDouble(&ok);
    return ok;
}

/*! Reads `{name="value",...}` from \a pos; false on any syntax error. */
bool parseLabels(const QString &line, qsizetype *pos, QMap<QString, QString> *labels, QString *why)
{
    static const QRegularExpression labelName(QStringLiteral("^[a-zA-Z_][a-zA-Z0-9_]*"));
    ++*pos; // '{'
    while (*pos < line.size() && line.at(*pos) != QLatin1Char('}')) {
        const QRegularExpressionMatch m = labelName.match(line.mid(*pos));
        if (!m.hasMatch()) {
            *why = QStringLiteral("bad label name");
            return false;
        }
        const QString name = m.captured();
        *pos += name.size();
        if (line.mid(*pos, 2) != QLatin1String("=\"")) {
            *why = QStringLiteral("label %1 lacks =\"").arg(name);
            return false;
        }
        *pos += 2;
        QString value;
        bool closed = false;
        while (*pos < line.size()) {
            const QChar c = line.at(*pos);
            if (c == QLatin1Char('\\')) {
                const QChar next = *pos + 1 < line.size() ? line.at(*pos + 1) : QChar();
                if (next == QLatin1Char('\\') || next == QLatin1Char('"'))
                    value += next;
                else if (next == QLatin1Char('n'))
                    value += QLatin1Char('\n');
                else {
                    *why = QStringLiteral("bad escape in label %1").arg(name);
                    return false;
                }
                *pos += 2;
            } else if (c == QLatin1Char('"')) {
                ++*pos;
                closed = true;
                break;
            } else {
                value += c;
                ++*pos;
            }
        }
        if (!closed) {
            *why = QStringLiteral("unterminated value of label %1").arg(name);
            return false;
        }
        if (labels->contains(name)) {
            *why = QStringLiteral("label %1 twice").arg(name);
            return false;
        }
        labels->insert(name, value);
        if (*pos < line.size() && line.at(*pos) == QLatin1Char(','))
            ++*pos;
    }
    if (*pos >= line.size()) {
        *why = QStringLiteral("unterminated label set");
        return false;
    }
    ++*pos; // '}'
    return true;
}

QString familyOf(const QString &name, const QMap<QString, QString> &types)
{
    for (const char *suffix : {"_bucket", "_sum", "_count"}) {
        const QLatin1String s(suffix);
        if (name.endsWith(s)) {
            const QString base = name.left(name.size() - s.size());
            if (types.value(base) == QLatin1String("histogram") || types.value(base) == QLatin1String("summary"))
                return base;
        }
    }
    return name;
}

} // namespace

double PrometheusScrape::value(const QString &name, const QMap<QString, QString> &labels) const
{
    for (const PrometheusSample &s : samples) {
        if (s.name != name)
            continue;
        bool match = true;
        for (auto it = labels.constBegin(); it != labels.constEnd(); ++it)
            match = match && s.labels.value(it.key()) == it.value();
        if (match)
            return s.value;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

PrometheusScrape parsePrometheus(const QByteArray &text)
{
    PrometheusScrape scrape;
    if (!text.endsWith('\n')) {
        scrape.error = QStringLiteral("the exposition does not end with a line feed");
        return scrape;
    }
    const QStringList lines = QString::fromUtf8(text).split(QLatin1Char('\n'));
    QSet<QString> helped;
    QSet<QString> finishedFamilies;
    QString currentFamily;
    QSet<QString> seen;
    for (qsizetype i = 0; i + 1 < lines.size(); ++i) {
        const QString &line = lines.at(i);
        auto fail = [&](const QString &why) {
            scrape.error = QStringLiteral("line %1: %2: %3").arg(i + 1).arg(why, line);
            return scrape;
        };
        if (line.isEmpty())
            continue;
        if (line.startsWith(QLatin1Char('#'))) {
            const QStringList parts = line.split(QLatin1Char(' '));
            if (parts.size() >= 3 && (parts.at(1) == QLatin1String("HELP") || parts.at(1) == QLatin1String("TYPE"))) {
                const QString name = parts.at(2);
                if (!isMetricName(name))
                    return fail(QStringLiteral("bad metric name"));
                if (parts.at(1) == QLatin1String("HELP")) {
                    if (helped.contains(name))
                        return fail(QStringLiteral("second HELP"));
                    helped.insert(name);
                } else {
                    static const QStringList types {QStringLiteral("counter"), QStringLiteral("gauge"),
                                                    QStringLiteral("histogram"), QStringLiteral("summary"),
                                                    QStringLiteral("untyped")};
                    if (parts.size() != 4 || !types.contains(parts.at(3)))
                        return fail(QStringLiteral("bad TYPE"));
                    if (scrape.types.contains(name) || finishedFamilies.contains(name) || currentFamily == name)
                        return fail(QStringLiteral("TYPE after the family began or twice"));
                    if (parts.at(3) == QLatin1String("counter") && !name.endsWith(QLatin1String("_total")))
                        return fail(QStringLiteral("a counter's name should end in _total"));
                    scrape.types.insert(name, parts.at(3));
                }
            }
            continue;
        }
        PrometheusSample sample;
        qsizetype pos = 0;
        while (pos < line.size() && line.at(pos) != QLatin1Char('{') && line.at(pos) != QLatin1Char(' '))
            ++pos;
        sample.name = line.left(pos);
        if (!isMetricName(sample.name))
            return fail(QStringLiteral("bad metric name"));
        QString why;
        if (pos < line.size() && line.at(pos) == QLatin1Char('{') && !parseLabels(line, &pos, &sample.labels, &why))
            return fail(why);
        if (pos >= line.size() || line.at(pos) != QLatin1Char(' '))
            return fail(QStringLiteral("no space before the value"));
        const QStringList rest = line.mid(pos + 1).split(QLatin1Char(' '));
        if (rest.isEmpty() || rest.size() > 2 || !parseNumber(rest.at(0), &sample.value))
            return fail(QStringLiteral("bad value"));
        if (rest.size() == 2) {
            bool ok = false;
            rest.at(1).toLongLong(&ok);
            if (!ok)
                return fail(QStringLiteral("bad timestamp"));
        }
        const QString family = familyOf(sample.name, scrape.types);
        if (!scrape.types.contains(family))
            return fail(QStringLiteral("a sample without a TYPE"));
        if (family != currentFamily) {
            if (finishedFamilies.contains(family))
                return fail(QStringLiteral("the family's samples are not together"));
            if (!currentFamily.isEmpty())
                finishedFamilies.insert(currentFamily);
            currentFamily = family;
        }
        QStringList key {sample.name};
        for (auto it = sample.labels.constBegin(); it != sample.labels.constEnd(); ++it)
            key << it.key() + QLatin1Char('=') + it.value();
        if (seen.contains(key.join(QLatin1Char('\x1f'))))
            return fail(QStringLiteral("a repeated sample"));
        seen.insert(key.join(QLatin1Char('\x1f')));
        if (scrape.types.value(family) == QLatin1String("counter") && !(sample.value >= 0))
            return fail(QStringLiteral("a negative counter"));
        scrape.samples.append(sample);
    }

    // Histograms: per series (labels without le), increasing bounds,
    // cumulative counts, +Inf equal to _count, and a _sum.
    for (auto t = scrape.types.constBegin(); t != scrape.types.constEnd(); ++t) {
        if (t.value() != QLatin1String("histogram"))
            continue;
        QMap<QString, QList<QPair<double, double>>> series;
        QMap<QString, QMap<QString, QString>> seriesLabels;
        for (const PrometheusSample &s : std::as_const(scrape.samples)) {
            if (s.name != t.key() + QStringLiteral("_bucket"))
                continue;
            QMap<QString, QString> labels = s.labels;
            double bound = 0;
            if (!labels.contains(QStringLiteral("le")) || !parseNumber(labels.take(QStringLiteral("le")), &bound)) {
                scrape.error = QStringLiteral("%1: a bucket without a numeric le").arg(t.key());
                return scrape;
            }
            QStringList key;
            for (auto it = labels.constBegin(); it != labels.constEnd(); ++it)
                key << it.key() + QLatin1Char('=') + it.value();
            series[key.join(QLatin1Char(','))].append({bound, s.value});
            seriesLabels[key.join(QLatin1Char(','))] = labels;
        }
        for (auto it = series.constBegin(); it != series.constEnd(); ++it) {
            const auto &buckets = it.value();
            for (qsizetype i = 1; i < buckets.size(); ++i) {
                if (!(buckets.at(i).first > buckets.at(i - 1).first)) {
                    scrape.error = QStringLiteral("%1{%2}: le bounds not increasing").arg(t.key(), it.key());
                    return scrape;
                }
                if (buckets.at(i).second < buckets.at(i - 1).second) {
                    scrape.error = QStringLiteral("%1{%2}: bucket counts decrease").arg(t.key(), it.key());
                    return scrape;
                }
            }
            if (buckets.isEmpty() || !std::isinf(buckets.constLast().first)) {
                scrape.error = QStringLiteral("%1{%2}: no +Inf bucket").arg(t.key(), it.key());
                return scrape;
            }
            const double count = scrape.value(t.key() + QStringLiteral("_count"), seriesLabels.value(it.key()));
            if (count != buckets.constLast().second) {
                scrape.error = QStringLiteral("%1{%2}: +Inf bucket is not _count").arg(t.key(), it.key());
                return scrape;
            }
            if (std::isnan(scrape.value(t.key() + QStringLiteral("_sum"), seriesLabels.value(it.key())))) {
                scrape.error = QStringLiteral("%1{%2}: no _sum").arg(t.key(), it.key());
                return scrape;
            }
        }
    }
    return scrape;
}

} // namespace baton::test
