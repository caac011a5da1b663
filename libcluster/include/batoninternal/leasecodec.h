#pragma once

#include <batoninternal/batoninternal_export.h>
#include <baton/leaserecord.h>

#include <QJsonObject>

namespace baton {

/*!
 * The lease record as a Registry document, readable with `etcdctl get` or
 * `cat`: holderIdentity, leaseDurationMs, acquireTime, renewTime (UTC, ISO
 * 8601 with milliseconds) and leaseTransitions.
 */
namespace leasecodec {

BATON_INTERNAL_EXPORT QJsonObject encode(const LeaseRecord &record);
/*!
 * encode() as compact JSON, written straight: the same bytes as
 * QJsonDocument(encode(record)).toJson(QJsonDocument::Compact), without an
 * object built and serialized at every renewal.
 */
BATON_INTERNAL_EXPORT QByteArray encodeCompact(const LeaseRecord &record);
/*!
 * Reads a document back. A missing or mistyped field (R1) fills \a
 * errorString with the field and what was wrong, and returns false.
 */
BATON_INTERNAL_EXPORT bool decode(const QJsonObject &document, LeaseRecord *record, QString *errorString);

} // namespace leasecodec
} // namespace baton
