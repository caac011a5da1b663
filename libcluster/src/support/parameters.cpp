#include "parameters.h"

#include <batoninternal/durationtext.h>

#include "jsonutil.h"


#include <algorithm>
#include <cmath>

namespace baton {

namespace {

// A typo of a secret's name still holds the secret: its value is never shown.
bool looksSecret(const QString &name)
{
    const QString lower = name.toLower();
    for (const char *word : {"pass", "token", "secret", "key", "cred"})
        if (lower.contains(QLatin1String(word)))
            return true;
    return false;
}

// Edits to turn one word into the other, a swap of neighbours counting as
// one: the typing mistakes people make ("ulr" for "url").
qsizetype editDistance(const QString &a, const QString &b)
{
    const qsizetype columns = b.size() + 1;
    QList<qsizetype> d((a.size() + 1) * columns);
    auto at = [&](qsizetype i, qsizetype j) -> qsizetype & { return d[i * columns + j]; };
    for (qsizetype i = 0; i <= a.size(); ++i)
        at(i, 0) = i;
    for (qsizetype j = 0; j <= b.size(); ++j)
        at(0, j) = j;
    for (qsizetype i = 1; i <= a.size(); ++i) {
        for (qsizetype j = 1; j <= b.size(); ++j) {
            const qsizetype cost = a.at(i - 1) == b.at(j - 1) ? 0 : 1;
            at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
            if (i > 1 && j > 1 && a.at(i - 1) == b.at(j - 2) && a.at(i - 2) == b.at(j - 1))
                at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
        }
    }
    return at(a.size(), b.size());
}

QString formatRefusal(const QString &service, const QString &name, const QString &shown,
                      const QString &rule)
{
    return QStringLiteral("%1: parameter \"%2\" = %3: %4").arg(service, name, shown, rule);
}

void collectUnknown(const QJsonObject &object, const QString &prefix, const QStringList &declared,
                    QStringList *clauses)
{
    QStringList here; // the names declared at this level, without the prefix
    QStringList blocks;
    for (const QString &full : declared) {
        if (!full.startsWith(prefix))
            continue;
        const QString rest = full.mid(prefix.size());
        const QString head = rest.section(QLatin1Char('.'), 0, 0);
        if (!here.contains(head))
            here.append(head);
        if (rest.contains(QLatin1Char('.')) && !blocks.contains(head))
            blocks.append(head);
    }
    if (prefix.isEmpty())
        here.append(QStringLiteral("type"));
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        const QString key = it.key();
        if (here.contains(key)) {
            // A block's own keys are checked too; a block of the wrong type
            // is the service's to refuse.
            if (blocks.contains(key) && it.value().isObject())
                collectUnknown(it.value().toObject(), prefix + key + QLatin1Char('.'), declared,
                               clauses);
            continue;
        }
        const QString suggestion = parameters::closest(key, here);
        // "pasword" is no secret's name, but it holds the password all the same.
        const QString shown = looksSecret(suggestion) ? QStringLiteral("(hidden)")
                                                      : parameters::shownValue(key, it.value());
        QStringList known = here;
        known.removeAll(QStringLiteral("type"));
        known.sort(Qt::CaseInsensitive);
        const QString rule = suggestion.isEmpty()
                ? QStringLiteral("unknown parameter (known: %1)").arg(known.join(QStringLiteral(", ")))
                : QStringLiteral("unknown parameter, did you mean \"%1\"?").arg(prefix + suggestion);
        clauses->append(QStringLiteral("parameter \"%1\" = %2: %3").arg(prefix + key, shown, rule));
    }
}

} // namespace

ParameterReader::ParameterReader(const QString &service, const QJsonObject &parameters)
    : m_service(service)
    , m_parameters(parameters)
{
}

QString ParameterReader::describeService(const QString &name, const QString &type)
{
    if (type.isEmpty())
        return QStringLiteral("service \"%1\"").arg(name);
    return QStringLiteral("service \"%1\" (%2)").arg(name, type);
}

QJsonValue ParameterReader::value(const QString &name) const
{
    const QStringList path = name.split(QLatin1Char('.'));
    QJsonValue current = m_parameters;
    for (const QString &step : path) {
        if (!current.isObject())
            return QJsonValue(QJsonValue::Undefined);
        current = current.toObject().value(step);
    }
    return current;
}

bool ParameterReader::has(const QString &name) const
{
    const QJsonValue v = value(name);
    return !v.isUndefined() && !v.isNull();
}

void ParameterReader::refuse(const QString &name, const QJsonValue &value, const QString &rule)
{
    if (m_refused.contains(name))
        return;
    m_refused.append(name);
    m_errors.append(formatRefusal(m_service, name, jsonutil::describe(value), rule));
}

void ParameterReader::refuseHidden(const QString &name, const QString &rule)
{
    if (m_refused.contains(name))
        return;
    m_refused.append(name);
    m_errors.append(formatRefusal(m_service, name, QStringLiteral("(hidden)"), rule));
}

qint64 ParameterReader::duration(const QString &name, qint64 fallback, qint64 minimum,
                                 qint64 maximum)
{
    if (!has(name))
        return fallback;
    const QJsonValue v = value(name);
    QString problem;
    const std::optional<qint64> ms = parameters::parseDuration(v, &problem);
    if (!ms) {
        refuse(name, v, problem);
        return fallback;
    }
    // Zero is a number the parser accepts; the range decides whether it may be.
    if (*ms < minimum || *ms > maximum) {
        refuse(name, v, parameters::durationRule(minimum, maximum));
        return fallback;
    }
    return *ms;
}

QString ParameterReader::string(const QString &name, const QString &fallback, bool mayBeEmpty)
{
    if (!has(name))
        return fallback;
    const QJsonValue v = value(name);
    if (!v.isString() || (!mayBeEmpty && v.toString().isEmpty())) {
        refuse(name, v, mayBeEmpty ? QStringLiteral("it must be a string")
                                   : QStringLiteral("it must be a non-empty string"));
        return fallback;
    }
    return v.toString();
}

qint64 ParameterReader::integer(const QString &name, qint64 fallback, qint64 minimum,
                               qint64 maximum)
{
    if (!has(name))
        return fallback;
    const QJsonValue v = value(name);
    if (!jsonutil::isInteger(v) || v.toDouble() < double(minimum) || v.toDouble() > double(maximum)) {
        refuse(name, v, QStringLiteral("it must be a whole number from %1 to %2").arg(minimum).arg(maximum));
        return fallback;
    }
    return qint64(v.toDouble());
}

QString ParameterReader::secret(const QString &name)
{
    if (!has(name))
        return {};
    const QJsonValue v = value(name);
    if (!v.isString()) {
        refuseHidden(name, QStringLiteral("it must be a string"));
        return {};
    }
    return v.toString();
}

bool ParameterReader::boolean(const QString &name, bool fallback)
{
    if (!has(name))
        return fallback;
    const QJsonValue v = value(name);
    if (!v.isBool()) {
        refuse(name, v, QStringLiteral("it must be true or false"));
        return fallback;
    }
    return v.toBool();
}

QJsonObject ParameterReader::block(const QString &name, const QString &example)
{
    if (!has(name))
        return {};
    const QJsonValue v = value(name);
    if (!v.isObject()) {
        refuse(name, v, QStringLiteral("it must be an object such as %1").arg(example));
        return {};
    }
    return v.toObject();
}

namespace parameters {

std::optional<qint64> parseDuration(const QJsonValue &value, QString *problem)
{
    if (value.isDouble()) {
        // Bare numbers are milliseconds, as in the original configuration files.
        const double number = value.toDouble();
        if (!std::isfinite(number) || std::abs(number) > 1e15) {
            *problem = QStringLiteral("too long a duration");
            return std::nullopt;
        }
        if (!jsonutil::isInteger(value)) {
            *problem = QStringLiteral("finer than a millisecond (a bare number is milliseconds)");
            return std::nullopt;
        }
        return qint64(number);
    }
    if (!value.isString()) {
        *problem = QStringLiteral("not a duration: it must be milliseconds (5000) or %1")
                           .arg(durationtext::forms());
        return std::nullopt;
    }
    return durationtext::parse(value.toString(), problem);
}

QString durationRule(qint64 minimum, qint64 maximum)
{
    return QStringLiteral("it must be a duration from %1 to %2")
            .arg(durationtext::format(minimum), durationtext::format(maximum));
}

QString shownValue(const QString &key, const QJsonValue &value)
{
    return looksSecret(key) ? QStringLiteral("(hidden)") : jsonutil::describe(value);
}

QString closest(const QString &word, const QStringList &candidates)
{
    QString best;
    qsizetype bestDistance = 0;
    for (const QString &candidate : candidates) {
        const qsizetype distance = editDistance(word.toLower(), candidate.toLower());
        if (best.isEmpty() || distance < bestDistance) {
            best = candidate;
            bestDistance = distance;
        }
    }
    // A third of the word, at least one letter and at most three: further
    // than that it is another word, and a guess would mislead.
    const qsizetype allowed = std::clamp<qsizetype>(word.size() / 3, 1, 3);
    return bestDistance <= allowed ? best : QString();
}

QString refuseUnknown(const QString &service, const QJsonObject &parameters,
                      const QStringList &declared)
{
    QStringList clauses;
    collectUnknown(parameters, QString(), declared, &clauses);
    if (clauses.isEmpty())
        return {};
    for (QString &clause : clauses)
        clause = QStringLiteral("%1: %2").arg(service, clause);
    return clauses.join(QLatin1Char('\n'));
}

QString refusedParameter(const QString &line)
{
    // The one format of formatRefusal(): the service never contains ": parameter \"".
    static const QString marker = QStringLiteral(": parameter \"");
    const qsizetype start = line.indexOf(marker);
    if (start < 0)
        return {};
    const qsizetype nameStart = start + marker.size();
    const qsizetype end = line.indexOf(QStringLiteral("\" = "), nameStart);
    return end < 0 ? QString() : line.mid(nameStart, end - nameStart);
}

} // namespace parameters

} // namespace baton
