#pragma once

#include <QJsonObject>
#include <QString>

namespace baton::test {

/*! The `baton` executable under test, as the build told ctest (BATON_BINARY). */
QString batonBinary();

/*! Parses one line of an O5 event stream; an empty object when it is not JSON. */
QJsonObject parseEventLine(const QByteArray &line);

} // namespace baton::test
