#pragma once

#include <baton/store.h>

#include <QByteArray>
#include <QJsonObject>
#include <QString>

// What an etcd answer means as a StoreResult, shared by the Registry store
// and the renewals' batches: one wording of each failure, whoever sent it.
namespace baton::etcdreplies {

/*! An answer this client cannot read; \a description names the store. */
StoreResult badReply(const QString &description, const QString &operation, const QString &key,
                     const QString &why);
/*!
 * What a conditional write answers when its comparison failed, from the
 * key's range (\a range, read in the txn's failure branch).
 */
StoreResult notApplied(const QString &description, const QByteArray &prefix,
                       const QString &operation, const QString &key, const QString &version,
                       const QJsonObject &range);
/*!
 * Whether etcd refused a txn for holding more operations than its
 * `--max-txn-ops`: the gateway's code (InvalidArgument) is shared with
 * other refusals, so only the message tells.
 */
bool tooManyOperations(const StoreResult &refusal);

} // namespace baton::etcdreplies
