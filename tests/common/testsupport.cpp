#include "testsupport.h"

#include <QJsonDocument>
#include <QProcessEnvironment>

namespace baton::test {

QString batonBinary()
{
    return QProcessEnvironment::systemEnvironment().value(QStringLiteral("BATON_BINARY"));
}

QJsonObject parseEventLine(const QByteArray &line)
{
    const QJsonDocument document = QJsonDocument::fromJson(line.trimmed());
    return document.isObject() ? document.object() : QJsonObject();
}

} // namespace baton::test
