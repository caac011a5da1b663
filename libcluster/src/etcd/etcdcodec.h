#pragma once

#include <baton/store.h>

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>

// etcd v3 JSON (proto3 JSON through the gRPC gateway) to and from Store
// terms. The traps it absorbs: keys and values are base64, 64-bit integers
// are strings, and fields at their default value are left out (a failed
// txn has no `succeeded`, a PUT event no `type`, an empty range no `kvs`).
namespace baton::etcdcodec {

QString encodeBytes(const QByteArray &bytes);
/*! The key that starts a range over every key starting with \a prefix. */
QByteArray prefixRangeStart(const QByteArray &prefix);
/*! The range_end that makes a range cover every key starting with \a prefix. */
QByteArray prefixRangeEnd(const QByteArray &prefix);
/*!
 * A revision: a decimal string (or a JSON integer, accepted too); an absent
 * field is \a absent. False when present and not a non-negative integer.
 */
bool revision(const QJsonValue &value, qint64 *result, qint64 absent = -1);
/*! A boolean that proto3 leaves out when false. */
bool optionalBool(const QJsonValue &value, bool *result);
/*!
 * One `kv` record as a StoreEntry: the key (without \a keyPrefix), the value
 * parsed as a JSON object, the version from `mod_revision`.
 */
bool decodeKv(const QJsonValue &kv, const QByteArray &keyPrefix, StoreEntry *entry,
              QString *errorString);
/*! The key of a `kv` record without \a keyPrefix (a DELETE event carries no value). */
bool decodeKey(const QJsonValue &kv, const QByteArray &keyPrefix, QString *key,
               QString *errorString);
/*! The `kvs` of a range answer: absent is empty; anything else but a list is an error. */
bool kvsOf(const QJsonObject &rangeResponse, QJsonArray *kvs, QString *errorString);

} // namespace baton::etcdcodec
