#include <batoninternal/leasecodec.h>

#include "jsonutil.h"

#include <batoninternal/isotime.h>

#include <QJsonDocument>

namespace baton::leasecodec {

namespace {

const QString holderKey = QStringLiteral("holderIdentity");
const QString incarnationKey = QStringLiteral("holderIncarnation");
const QString durationKey = QStringLiteral("leaseDurationMs");
const QString acquireKey = QStringLiteral("acquireTime");
const QString renewKey = QStringLiteral("renewTime");
const QString transitionsKey = QStringLiteral("leaseTransitions");
const QString successorKey = QStringLiteral("successor");
const QString requestedByKey = QStringLiteral("handoverRequestedBy");

bool readOptionalString(const QJsonObject &document, const QString &key, QString *value,
                        QString *errorString)
{
    const QJsonValue v = document.value(key);
    if (!v.isUndefined() && !v.isNull() && !v.isString()) {
        *errorString = QStringLiteral("field \"%1\" must be a string").arg(key);
        return false;
    }
    *value = v.toString();
    return true;
}

QString timeText(const QDateTime &time)
{
    return isotime::format(time);
}

bool readInteger(const QJsonObject &document, const QString &key, qint64 minimum, qint64 *value,
                 QString *errorString)
{
    const QJsonValue v = document.value(key);
    if (!jsonutil::isInteger(v) || v.toDouble() < double(minimum)) {
        *errorString = QStringLiteral("field \"%1\" must be an integer of at least %2, not %3")
                               .arg(key)
                               .arg(minimum)
                               .arg(jsonutil::describe(v));
        return false;
    }
    *value = qint64(v.toDouble());
    return true;
}

bool readTime(const QJsonObject &document, const QString &key, QDateTime *value,
              QString *errorString)
{
    const QJsonValue v = document.value(key);
    if (v.isUndefined() || v.isNull() || (v.isString() && v.toString().isEmpty())) {
        *value = {};
        return true;
    }
    *value = isotime::parse(v.toString());
    if (!v.isString() || !value->isValid()) {
        *errorString = QStringLiteral("field \"%1\" must be an ISO 8601 time").arg(key);
        return false;
    }
    return true;
}

/*! \a text as a JSON string, escaped as QJsonDocument escapes it. */
void appendString(QByteArray *out, const QString &text)
{
    static constexpr char kHex[] = "0123456789abcdef";
    out->append('"');
    const QByteArray utf8 = text.toUtf8();
    for (const char c : utf8) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out->append('\\').append(c);
        } else if (byte >= 0x20) {
            out->append(c);
        } else if (c == '\b') {
            out->append("\\b");
        } else if (c == '\f') {
            out->append("\\f");
        } else if (c == '\n') {
            out->append("\\n");
        } else if (c == '\r') {
            out->append("\\r");
        } else if (c == '\t') {
            out->append("\\t");
        } else {
            out->append("\\u00").append(kHex[byte >> 4]).append(kHex[byte & 0xf]);
        }
    }
    out->append('"');
}

void appendMember(QByteArray *out, const char *key, const QString &text)
{
    out->append(out->size() > 1 ? ",\"" : "\"").append(key).append("\":");
    appendString(out, text);
}

void appendMember(QByteArray *out, const char *key, qint64 number)
{
    out->append(out->size() > 1 ? ",\"" : "\"").append(key).append("\":").append(QByteArray::number(number));
}

} // namespace

QByteArray encodeCompact(const LeaseRecord &record)
{
    // A lone surrogate (an identity nobody checked) is escaped by Qt's
    // writer and would be replaced by toUtf8(): Qt writes those documents.
    for (const QString *text : { &record.holder, &record.holderIncarnation, &record.successor,
                                 &record.handoverRequestedBy })
        if (!text->isValidUtf16())
            return QJsonDocument(encode(record)).toJson(QJsonDocument::Compact);
    // The members of encode() in the order QJsonObject keeps them (by key).
    QByteArray out;
    out.reserve(256);
    out.append('{');
    appendMember(&out, "acquireTime", timeText(record.acquireTime));
    if (!record.handoverRequestedBy.isEmpty())
        appendMember(&out, "handoverRequestedBy", record.handoverRequestedBy);
    appendMember(&out, "holderIdentity", record.holder);
    if (!record.holderIncarnation.isEmpty())
        appendMember(&out, "holderIncarnation", record.holderIncarnation);
    appendMember(&out, "leaseDurationMs", record.leaseDurationMs);
    appendMember(&out, "leaseTransitions", record.transitions);
    appendMember(&out, "renewTime", timeText(record.renewTime));
    if (!record.successor.isEmpty())
        appendMember(&out, "successor", record.successor);
    out.append('}');
    return out;
}

QJsonObject encode(const LeaseRecord &record)
{
    QJsonObject document {
            {holderKey, record.holder},
            {durationKey, double(record.leaseDurationMs)},
            {acquireKey, timeText(record.acquireTime)},
            {renewKey, timeText(record.renewTime)},
            {transitionsKey, double(record.transitions)},
    };
    // Absent rather than empty: a record without a holder has no incarnation,
    // and readers of the earlier format see exactly the fields they know.
    if (!record.holderIncarnation.isEmpty())
        document.insert(incarnationKey, record.holderIncarnation);
    // Absent unless a handover is asked or a lease reserved: records without
    // one read exactly as before, for us and for earlier versions.
    if (!record.successor.isEmpty())
        document.insert(successorKey, record.successor);
    if (!record.handoverRequestedBy.isEmpty())
        document.insert(requestedByKey, record.handoverRequestedBy);
    return document;
}

bool decode(const QJsonObject &document, LeaseRecord *record, QString *errorString)
{
    const QJsonValue holder = document.value(holderKey);
    if (!holder.isString()) {
        *errorString = QStringLiteral("field \"%1\" must be a string").arg(holderKey);
        return false;
    }
    LeaseRecord decoded;
    decoded.holder = holder.toString();
    if (!readOptionalString(document, incarnationKey, &decoded.holderIncarnation, errorString)
        || !readOptionalString(document, successorKey, &decoded.successor, errorString)
        || !readOptionalString(document, requestedByKey, &decoded.handoverRequestedBy, errorString)
        || !readInteger(document, durationKey, 1, &decoded.leaseDurationMs, errorString)
        || !readInteger(document, transitionsKey, 0, &decoded.transitions, errorString)
        || !readTime(document, acquireKey, &decoded.acquireTime, errorString)
        || !readTime(document, renewKey, &decoded.renewTime, errorString))
        return false;
    *record = decoded;
    return true;
}

} // namespace baton::leasecodec
