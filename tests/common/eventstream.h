#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

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

} // namespace baton::test
