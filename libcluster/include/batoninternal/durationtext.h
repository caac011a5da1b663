#pragma once

#include <batoninternal/batoninternal_export.h>

#include <QString>
#include <QStringView>

#include <optional>

namespace baton::durationtext {

/*!
 * A duration written as Go and kubectl write them, at millisecond
 * precision: a number (decimals allowed) and a unit, repeated: "500ms",
 * "1.5s", "2m", "1h30m", "-5s". Units are ms, s, m and h. One syntax for
 * the configuration and every command-line option; a bare number is the
 * caller's to allow (the configuration reads it as milliseconds).
 * Returns the milliseconds, or nothing with \a problem saying what is wrong
 * ("unknown unit "x" (ms, s, m or h)", "finer than a millisecond", ...),
 * for the caller to put after the name and the text.
 */
BATON_INTERNAL_EXPORT std::optional<qint64> parse(QStringView text, QString *problem);

/*! The shortest such text for \a ms: 1500 -> "1.5s", 90000 -> "1m30s", 0 -> "0s". */
BATON_INTERNAL_EXPORT QString format(qint64 ms);

/*! The forms accepted, for messages. */
BATON_INTERNAL_EXPORT QString forms();

} // namespace baton::durationtext
