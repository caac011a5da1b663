#pragma once

#include <baton/store.h>

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>

#include <optional>

// The shapes of the etcd transactions the store sends (a comparison, what to
// do when it holds, what to read when it does not) and what their answers
// say. Keys are full etcd keys (the store's prefix included).
namespace baton::etcdtxn {

/*! A comparison that holds when \a key does not exist. */
QJsonObject absent(const QByteArray &key);
/*! A comparison that holds when \a key was last written at \a revision. */
QJsonObject modifiedAt(const QByteArray &key, qint64 revision);
QJsonObject putOp(const QByteArray &key, const QJsonObject &document);
/*! putOp() of a document already written as compact JSON, \a value. */
QJsonObject putValueOp(const QByteArray &key, const QByteArray &value);
QJsonObject rangeOp(const QByteArray &key);
/*!
 * R7: the put of \a side, conditional on the version it was built from:
 * a txn of its own, nested in the one of the write it goes with, so that
 * the write wins or loses by its own comparison alone. Unconditional when
 * \a side was built from no version (sideApplied() then says true).
 */
QJsonObject sideOp(const QByteArray &key, const StoreSideWrite &side);
/*! Whether the \a index-th response of \a answer, a sideOp(), wrote its document. */
bool sideApplied(const QJsonObject &answer, qsizetype index);
/*! One comparison, one operation when it holds, another when it does not. */
QJsonObject txn(const QJsonObject &compare, const QJsonObject &success, const QJsonObject &failure);
/*! One comparison, the operations when it holds, one operation when it does not. */
QJsonObject txn(const QJsonObject &compare, const QJsonArray &success, const QJsonObject &failure);

/*!
 * The body of one txn of conditional puts, written straight as compact
 * JSON: each key's put when every key is still at the revision named for
 * it, and a read of each key when one is not (the reads tell which). It is
 * what txn() of modifiedAt(), putValueOp() and rangeOp() per key would
 * write, without an object per operation: keys and values go in base64 and
 * revisions as digits, so nothing in it needs escaping. A process in a
 * thousand elections writes one for each renewal slot.
 */
class GuardedPuts
{
public:
    void add(const QByteArray &key, qint64 revision, const QByteArray &value);
    bool isEmpty() const { return m_compares.isEmpty(); }
    /*! The body; this writer is empty again. */
    QByteArray take();

private:
    QByteArray m_compares;
    QByteArray m_puts;
    QByteArray m_reads;
};

/*!
 * Whether a txn applied and, when it did, the revision it made; false, with
 * \a why, when the answer does not say.
 */
bool outcome(const QJsonObject &answer, bool *succeeded, qint64 *revision, QString *why);
/*! The \a index-th response of a txn's answer, of \a kind (`response_range`). */
QJsonObject response(const QJsonObject &answer, qsizetype index, const QString &kind);
/*! The entry a range response found, none when the key is absent; false, with \a why, when unreadable. */
bool foundEntry(const QJsonObject &rangeResponse, const QByteArray &keyPrefix,
                std::optional<StoreEntry> *entry, QString *why);

/*!
 * The entries of a range response, by key; one that cannot be read is left
 * out and its reason added to \a unreadable. False, with \a why, when the
 * response has no list of entries.
 */
bool entries(const QJsonObject &rangeResponse, const QByteArray &keyPrefix,
             QList<StoreEntry> *entries, QStringList *unreadable, QString *why);

} // namespace baton::etcdtxn
