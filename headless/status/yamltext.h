#pragma once

#include <QByteArray>
#include <QJsonValue>

namespace baton {

/*!
 * `baton status -o yaml`: a JSON document written as YAML block style, as
 * kubectl writes it. A string is plain only when no YAML reader could take
 * it for anything else (a number, a boolean, null, a time, an indicator);
 * otherwise it is double-quoted with JSON's escapes, which YAML reads the
 * same. The records are small and flat: no anchors, no multi-line scalars.
 */
namespace yamltext {

/*! \a value as a YAML document, its last newline included. */
QByteArray fromJson(const QJsonValue &value);

} // namespace yamltext

} // namespace baton
