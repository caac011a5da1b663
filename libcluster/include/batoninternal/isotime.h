#pragma once

#include <batoninternal/batoninternal_export.h>

#include <QDateTime>
#include <QString>
#include <QStringView>

// Times as Baton's documents and events write them: ISO 8601 in UTC, to the
// millisecond, "2026-12-06T05:10:05.123Z" (what QDateTime::toString writes
// with Qt::ISODateWithMs for a UTC time). Every renewal of every election
// writes two in its lease document and one in its event, and every watcher
// reads two back: Qt's general formatter and parser, which build a calendar
// and a time zone for each, were a tenth of a renewal's instructions.
namespace baton::isotime {

/*! \a time as `yyyy-MM-ddTHH:mm:ss.zzzZ` in UTC; empty when \a time is invalid. */
BATON_INTERNAL_EXPORT QString format(const QDateTime &time);

/*!
 * A time format() wrote, read without Qt's general parser; any other text
 * is read as QDateTime::fromString(text, Qt::ISODateWithMs) reads it
 * (offsets, no milliseconds, ...). Invalid when neither reads it.
 */
BATON_INTERNAL_EXPORT QDateTime parse(QStringView text);

} // namespace baton::isotime
