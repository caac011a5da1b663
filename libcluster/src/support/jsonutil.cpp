#include "jsonutil.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace baton::jsonutil {

QString describe(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Undefined:
        return QStringLiteral("missing");
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    case QJsonValue::Array:
        return QStringLiteral("an array");
    default: {
        // Serialising a one-element array prints the scalar as JSON spells it.
        const QByteArray json = QJsonDocument(QJsonArray {value}).toJson(QJsonDocument::Compact);
        return QString::fromUtf8(json.mid(1, json.size() - 2));
    }
    }
}

bool isInteger(const QJsonValue &value)
{
    if (!value.isDouble())
        return false;
    const double number = value.toDouble();
    return std::isfinite(number) && std::floor(number) == number && std::fabs(number) <= 9.0e15;
}

void lineAndColumn(const QByteArray &text, qsizetype offset, int *line, int *column)
{
    *line = 1;
    *column = 1;
    const qsizetype end = qMin(offset, text.size());
    for (qsizetype i = 0; i < end; ++i) {
        if (text.at(i) == '\n') {
            ++*line;
            *column = 1;
        } else {
            ++*column;
        }
    }
}

} // namespace baton::jsonutil
