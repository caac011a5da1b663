#include <batoninternal/leasecodec.h>

#include "jsonutil.h"

#include <batoninternal/isotime.h>

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

} // namespace

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
