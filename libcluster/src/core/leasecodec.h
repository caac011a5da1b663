#pragma once

#include "leaserecord.h"

#include <QJsonObject>

namespace baton {

/*!
 * The lease record as a Registry document, readable with `etcdctl get` or
 * `cat`: holderIdentity, leaseDurationMs, acquireTime, renewTime (UTC, ISO
 * 8601 with milliseconds) and leaseTransitions.
 */
namespace leasecodec {

QJsonObject encode(const LeaseRecord &record);
/*!
 * Reads a document back. A missing or mistyped field (R1) fills \a
 * errorString with the field and what was wrong, and returns false.
 */
bool decode(const QJsonObject &document, LeaseRecord *record, QString *errorString);

} // namespace leasecodec
} // namespace baton
