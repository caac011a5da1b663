#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

#include <limits>

namespace baton::test {

/*! The `mono` of an O5 record: CLOCK_BOOTTIME milliseconds. */
inline qint64 monoOf(const QJsonObject &event)
{
    return qint64(event.value(QStringLiteral("mono")).toDouble());
}

/*! The first record named \a name at or after \a since, or an empty object. */
inline QJsonObject firstEvent(const QList<QJsonObject> &events, const QString &name,
                              qint64 since = 0)
{
    for (const QJsonObject &e : events)
        if (e.value(QStringLiteral("event")).toString() == name && monoOf(e) >= since)
            return e;
    return {};
}

/*! The last record named \a name at or after \a since, or an empty object. */
inline QJsonObject lastEvent(const QList<QJsonObject> &events, const QString &name,
                             qint64 since = 0)
{
    for (auto it = events.rbegin(); it != events.rend(); ++it)
        if (it->value(QStringLiteral("event")).toString() == name && monoOf(*it) >= since)
            return *it;
    return {};
}

/*! The same, for anything that has the records as events() (a participant process). */
template<typename Source>
    requires requires(const Source &source) { source.events(); }
QJsonObject firstEvent(const Source &source, const QString &name, qint64 since = 0)
{
    return firstEvent(source.events(), name, since);
}

template<typename Source>
    requires requires(const Source &source) { source.events(); }
QJsonObject lastEvent(const Source &source, const QString &name, qint64 since = 0)
{
    return lastEvent(source.events(), name, since);
}

/*! How many `attempt` records renewed the lease at or after \a since. */
inline int renewalsSince(const QList<QJsonObject> &events, qint64 since = 0)
{
    int renewals = 0;
    for (const QJsonObject &e : events)
        renewals += e.value(QStringLiteral("event")).toString() == QLatin1String("attempt")
                && e.value(QStringLiteral("outcome")).toString() == QLatin1String("renewed")
                && monoOf(e) >= since;
    return renewals;
}

template<typename Source>
    requires requires(const Source &source) { source.events(); }
int renewalsSince(const Source &source, qint64 since = 0)
{
    return renewalsSince(source.events(), since);
}

/*!
 * The last `attempt` record that won or kept the lease (`acquired` or
 * `renewed`) before \a before, or an empty object. Its attempt started at
 * `mono - latencyMs`: the instant a leader's F4 deadline counts from.
 */
inline QJsonObject lastSuccessfulAttempt(const QList<QJsonObject> &events,
                                         qint64 before = std::numeric_limits<qint64>::max())
{
    for (auto it = events.rbegin(); it != events.rend(); ++it) {
        const QString outcome = it->value(QStringLiteral("outcome")).toString();
        if (it->value(QStringLiteral("event")).toString() == QLatin1String("attempt")
            && monoOf(*it) < before
            && (outcome == QLatin1String("acquired") || outcome == QLatin1String("renewed")))
            return *it;
    }
    return {};
}

/*! When the attempt of \a attempt started, by the host's monotonic clock. */
inline qint64 attemptStartOf(const QJsonObject &attempt)
{
    return monoOf(attempt) - qint64(attempt.value(QStringLiteral("latencyMs")).toDouble());
}

} // namespace baton::test
