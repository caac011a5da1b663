#pragma once

#include <QJsonValue>
#include <QString>

namespace baton::jsonutil {

/*! A value as it would appear in the file, for error messages: `"abc"`, `-5`, `true`, `an object`. */
QString describe(const QJsonValue &value);

/*! Whether \a value is a JSON number with no fractional part, within 2^53. */
bool isInteger(const QJsonValue &value);

/*! Line and column (both from 1) of byte \a offset in \a text. */
/*!
 * Whether \a text begins with a UTF-8 byte-order mark, which QJsonDocument
 * accepts and skips, and an editor does not show.
 */
bool startsWithByteOrderMark(const QByteArray &text);
void lineAndColumn(const QByteArray &text, qsizetype offset, int *line, int *column);

} // namespace baton::jsonutil
