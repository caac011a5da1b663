#pragma once

#include "leaserecord.h"

#include <batoninternal/leasehistory.h>

#include <QJsonObject>
#include <QString>

namespace baton {

/*!
 * The `coordination.k8s.io/v1` Lease object as client-go's LeaseLock reads
 * and writes it (B3), in one place for the election backend and the
 * observer: both read the same fields with the same rules.
 */
namespace kubelease {

inline const QString apiVersion = QStringLiteral("coordination.k8s.io/v1");
/*!
 * The holder's incarnation (R5): the Lease's spec has no field for it, and
 * client-go readers ignore annotations, so the Lease stays valid for them.
 */
inline const QString incarnationAnnotation = QStringLiteral("baton.dev/holder-incarnation");
/*! Who asked for the handover spec.preferredHolder names: the Lease spec has no field for it. */
inline const QString requestedByAnnotation = QStringLiteral("baton.dev/handover-requested-by");

/*!
 * The coordinated-election strategy Baton names when it writes
 * spec.preferredHolder: the API server takes that field only beside a
 * strategy, and a qualified name of ours tells Kubernetes' own coordinated
 * election that this Lease is not its to steer.
 */
inline const QString steeringStrategy = QStringLiteral("baton.dev/steering");

/*!
 * \a spec with preferredHolder set to \a record's successor, and a
 * strategy beside it (steeringStrategy, unless another writer's is
 * there); without a successor, both removed, the strategy only if it is ours.
 */
QJsonObject withSuccessor(QJsonObject spec, const LeaseRecord &record);

/*! \a metadata with the annotation of \a record's incarnation set, or removed when it has none. */
QJsonObject withIncarnation(QJsonObject metadata, const LeaseRecord &record);

/*! A MicroTime: UTC, exactly six fraction digits, `Z`. */
QString microTime(const QDateTime &time);

/*! Whether \a name is a DNS-1123 subdomain, as the API requires of Lease names. */
bool isValidName(const QString &name);

/*!
 * Reads the record and resourceVersion of a Lease. When it cannot be
 * trusted (R1: a missing or negative duration, a time that is not one, a
 * field of the wrong type) returns false and says which field and why in
 * \a errorString (`spec.leaseDurationSeconds is -5; ...`).
 */
bool decode(const QJsonObject &lease, LeaseState *state, QString *errorString);

/*!
 * Reads the stored history (O2) from a Lease's \a metadata: its annotation
 * leasehistory::kubernetesAnnotation. A Lease without it (client-go's) has an
 * empty history. One that is not a string or not a history returns false,
 * with what was wrong in \a errorString.
 */
bool decodeHistory(const QJsonObject &metadata, QList<HistoryEntry> *changes, QString *errorString);

} // namespace kubelease
} // namespace baton
