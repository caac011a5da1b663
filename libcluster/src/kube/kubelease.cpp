#include "kubelease.h"

#include "jsonutil.h"

#include <QRegularExpression>

#include <tuple>

namespace baton::kubelease {

namespace {

bool parseTime(const QJsonValue &value, QDateTime *time)
{
    if (value.isUndefined() || value.isNull()) {
        *time = {};
        return true;
    }
    // RFC 3339 with any number of fraction digits: MicroTime has six, Time none.
    static const QRegularExpression re(QStringLiteral(
            "^(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2})(?:\\.(\\d{1,9}))?(Z|[+-]\\d{2}:\\d{2})$"));
    const QRegularExpressionMatch m = re.match(value.toString());
    if (!value.isString() || !m.hasMatch())
        return false;
    const QString millis = (m.captured(2) + QStringLiteral("000")).left(3);
    *time = QDateTime::fromString(m.captured(1) + QLatin1Char('.') + millis + m.captured(3),
                                  Qt::ISODateWithMs);
    return time->isValid();
}

} // namespace

QString microTime(const QDateTime &time)
{
    // Our clock has milliseconds; MicroTime wants exactly six digits.
    return time.toUTC().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzz")) + QStringLiteral("000Z");
}

bool isValidName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral(
            "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));
    return !name.isEmpty() && name.size() <= 253 && re.match(name).hasMatch();
}

QJsonObject withSuccessor(QJsonObject spec, const LeaseRecord &record)
{
    const QString strategy = QStringLiteral("strategy");
    const QString preferredHolder = QStringLiteral("preferredHolder");
    if (record.successor.isEmpty()) {
        spec.remove(preferredHolder);
        // Another writer's strategy is its own business (R7): only ours goes.
        if (spec.value(strategy).toString() == steeringStrategy)
            spec.remove(strategy);
        return spec;
    }
    spec.insert(preferredHolder, record.successor);
    if (spec.value(strategy).toString().isEmpty())
        spec.insert(strategy, steeringStrategy);
    return spec;
}

QJsonObject withIncarnation(QJsonObject metadata, const LeaseRecord &record)
{
    QJsonObject annotations = metadata.value(QStringLiteral("annotations")).toObject();
    if (record.holderIncarnation.isEmpty())
        annotations.remove(incarnationAnnotation);
    else
        annotations.insert(incarnationAnnotation, record.holderIncarnation);
    if (record.handoverRequestedBy.isEmpty())
        annotations.remove(requestedByAnnotation);
    else
        annotations.insert(requestedByAnnotation, record.handoverRequestedBy);
    if (annotations.isEmpty())
        metadata.remove(QStringLiteral("annotations"));
    else
        metadata.insert(QStringLiteral("annotations"), annotations);
    return metadata;
}

bool decode(const QJsonObject &lease, LeaseState *state, QString *errorString)
{
    auto bad = [&](const QString &field, const QString &why) {
        *errorString = field + QLatin1Char(' ') + why;
        return false;
    };
    const QJsonObject meta = lease.value(QStringLiteral("metadata")).toObject();
    const QString version = meta.value(QStringLiteral("resourceVersion")).toString();
    if (version.isEmpty())
        return bad(QStringLiteral("metadata.resourceVersion"), QStringLiteral("is missing"));
    const QJsonValue specValue = lease.value(QStringLiteral("spec"));
    if (!specValue.isObject())
        return bad(QStringLiteral("spec"), QStringLiteral("is missing"));
    const QJsonObject spec = specValue.toObject();
    LeaseRecord record;
    const QJsonValue holder = spec.value(QStringLiteral("holderIdentity"));
    if (!holder.isUndefined() && !holder.isNull() && !holder.isString())
        return bad(QStringLiteral("spec.holderIdentity"), QStringLiteral("is not a string"));
    record.holder = holder.toString();
    const QJsonValue incarnation = meta.value(QStringLiteral("annotations")).toObject()
                                           .value(incarnationAnnotation);
    if (!incarnation.isUndefined() && !incarnation.isString())
        return bad(QStringLiteral("metadata.annotations[\"%1\"]").arg(incarnationAnnotation),
                   QStringLiteral("is not a string"));
    // A released Lease keeps no incarnation, whatever another writer left.
    if (!record.holder.isEmpty())
        record.holderIncarnation = incarnation.toString();
    // KEP-4355's field: whom the holder should hand over to, and once it
    // has, whom the free Lease is kept for.
    for (const auto &[field, value, target] :
         {std::tuple {QStringLiteral("spec.preferredHolder"), spec.value(QStringLiteral("preferredHolder")), &record.successor},
          std::tuple {QStringLiteral("metadata.annotations[\"%1\"]").arg(requestedByAnnotation),
                      meta.value(QStringLiteral("annotations")).toObject().value(requestedByAnnotation),
                      &record.handoverRequestedBy}}) {
        if (!value.isUndefined() && !value.isNull() && !value.isString())
            return bad(field, QStringLiteral("is not a string"));
        *target = value.toString();
    }
    // R1: a duration we cannot trust makes no one leader, and no lease free.
    const QJsonValue duration = spec.value(QStringLiteral("leaseDurationSeconds"));
    if (duration.isUndefined() || duration.isNull())
        return bad(QStringLiteral("spec.leaseDurationSeconds"), QStringLiteral("is missing"));
    if (!jsonutil::isInteger(duration) || duration.toDouble() <= 0)
        return bad(QStringLiteral("spec.leaseDurationSeconds"),
                   QStringLiteral("is %1; it must be a positive whole number").arg(jsonutil::describe(duration)));
    record.leaseDurationMs = qint64(duration.toDouble()) * 1000;
    const QJsonValue transitions = spec.value(QStringLiteral("leaseTransitions"));
    if (!transitions.isUndefined() && !transitions.isNull()) {
        if (!jsonutil::isInteger(transitions) || transitions.toDouble() < 0)
            return bad(QStringLiteral("spec.leaseTransitions"),
                       QStringLiteral("is %1; it must be a whole number, 0 or more")
                               .arg(jsonutil::describe(transitions)));
        record.transitions = qint64(transitions.toDouble());
    }
    for (const auto &[field, target] : {std::pair {QStringLiteral("acquireTime"), &record.acquireTime},
                                        std::pair {QStringLiteral("renewTime"), &record.renewTime}}) {
        if (!parseTime(spec.value(field), target))
            return bad(QStringLiteral("spec.") + field,
                       QStringLiteral("is %1, not an RFC 3339 time").arg(jsonutil::describe(spec.value(field))));
    }
    state->exists = true;
    state->record = record;
    state->version = version;
    return true;
}

bool decodeHistory(const QJsonObject &metadata, QList<HistoryEntry> *changes, QString *errorString)
{
    const QJsonValue stored = metadata.value(QStringLiteral("annotations")).toObject()
                                      .value(leasehistory::kubernetesAnnotation);
    changes->clear();
    if (stored.isUndefined())
        return true;
    if (!stored.isString()) {
        *errorString = QStringLiteral("not a string");
        return false;
    }
    return leasehistory::decodeText(stored.toString(), changes, errorString);
}

} // namespace baton::kubelease
