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

bool startsWithByteOrderMark(const QByteArray &text)
{
    return text.startsWith("\xEF\xBB\xBF");
}

void lineAndColumn(const QByteArray &text, qsizetype offset, int *line, int *column)
{
    *line = 1;
    *column = 1;
    const qsizetype end = qMin(offset, text.size());
    for (qsizetype i = startsWithByteOrderMark(text) ? 3 : 0; i < end; ++i) {
        const char c = text.at(i);
        if (c == '\n') {
            ++*line;
            *column = 1;
        } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
            // Columns count characters, as editors do: a UTF-8 continuation
            // byte is part of the character before it.
            ++*column;
        }
    }
}

} // namespace baton::jsonutil
