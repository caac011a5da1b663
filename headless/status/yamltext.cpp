#include "yamltext.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace baton::yamltext {

namespace {

bool plainIsSafe(const QString &text)
{
    // A word that starts with a letter and holds no indicator reads back as
    // this very string, except the words YAML 1.1 readers take for booleans
    // and null.
    static const QRegularExpression word(QStringLiteral("^[A-Za-z_][A-Za-z0-9_./-]*$"));
    static const QStringList reserved {QStringLiteral("true"), QStringLiteral("false"), QStringLiteral("yes"),
                                       QStringLiteral("no"),   QStringLiteral("on"),    QStringLiteral("off"),
                                       QStringLiteral("y"),    QStringLiteral("n"),     QStringLiteral("null")};
    return word.match(text).hasMatch() && !reserved.contains(text.toLower());
}

QByteArray scalar(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        return "null";
    case QJsonValue::Bool:
        return value.toBool() ? "true" : "false";
    case QJsonValue::Double:
    case QJsonValue::String:
        if (value.isString() && plainIsSafe(value.toString()))
            return value.toString().toUtf8();
        // A JSON string or number is a YAML flow scalar of the same value.
        return QJsonDocument(QJsonArray {value}).toJson(QJsonDocument::Compact).chopped(1).mid(1);
    default:
        return {};
    }
}

bool isEmptyCollection(const QJsonValue &value)
{
    return (value.isArray() && value.toArray().isEmpty()) || (value.isObject() && value.toObject().isEmpty());
}

void write(QByteArray *out, const QJsonValue &value, int indent);

/*! After "key:" or "- ": a scalar on the same line, a collection below (or `[]`/`{}`). */
void writeValue(QByteArray *out, const QJsonValue &value, int indent, bool inSequence)
{
    if (isEmptyCollection(value)) {
        *out += value.isArray() ? " []\n" : " {}\n";
    } else if (value.isObject() && inSequence) {
        // "- key: value": the first key on the dash's line, as kubectl writes it.
        QByteArray nested;
        write(&nested, value, indent);
        *out += ' ' + nested.mid(indent);
    } else if (value.isArray() || value.isObject()) {
        *out += '\n';
        write(out, value, value.isArray() && !inSequence ? indent - 2 : indent);
    } else {
        *out += ' ' + scalar(value) + '\n';
    }
}

void write(QByteArray *out, const QJsonValue &value, int indent)
{
    const QByteArray pad(indent, ' ');
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            *out += pad + scalar(it.key()) + ':';
            writeValue(out, it.value(), indent + 2, false);
        }
    } else if (value.isArray()) {
        for (const QJsonValue &item : value.toArray()) {
            *out += pad + '-';
            writeValue(out, item, indent + 2, true);
        }
    } else {
        *out += pad + scalar(value) + '\n';
    }
}

} // namespace

QByteArray fromJson(const QJsonValue &value)
{
    if (isEmptyCollection(value))
        return value.isArray() ? "[]\n" : "{}\n";
    QByteArray out;
    write(&out, value, 0);
    return out;
}

} // namespace baton::yamltext
