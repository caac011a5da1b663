#pragma once

#include <batoninternal/batoninternal_export.h>

#include <QJsonObject>
#include <QString>

namespace baton {

class Clock;

/*!
 * The records of the event stream (O5), one JSON object a line. The
 * stream is a public interface: docs/reference/events.md describes version 1, and
 * fields are only ever added.
 */
namespace eventrecord {

constexpr int streamVersion = 1;

/*! A record with `v`, `ts` (UTC, milliseconds), `mono`, `lease`, `instance` and `event`. */
BATON_INTERNAL_EXPORT QJsonObject make(const Clock &clock, const QString &lease, const QString &instance,
                                       const QString &event);

} // namespace eventrecord
} // namespace baton
