#pragma once

#include <baton/baton_export.h>
#include <baton/service.h>

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>

#include <functional>
#include <optional>

namespace baton {

/*! One document of a store, with the version that conditional writes compare. */
struct BATON_EXPORT StoreEntry
{
    /*! The document's key, e.g. `cluster:cron`. */
    QString key;
    /*! The document itself. */
    QJsonObject document;
    /*! Opaque: etcd's mod_revision, a counter elsewhere. Compare for equality only. */
    QString version;
};

/*! The result of one store operation. */
struct BATON_EXPORT StoreResult
{
    /*! What happened. */
    enum class Status {
        /*! Done as asked. */
        Ok,
        /*! Create found the key taken, or a conditional write found another version. */
        Conflict,
        /*! The key does not exist (get, conditional write, delete). */
        NotFound,
        /*! The store could not be reached or answered with an error. */
        Unavailable,
        /*! The store answered something this client cannot read. */
        BadReply,
        /*!
         * The store was reached and refused the configured credentials
         * (etcd: the user name or password). Trying again with the same
         * ones will not help; a store that could not be reached while
         * authenticating is Unavailable.
         */
        CredentialsRefused,
    };
    /*! What happened. */
    Status status = Status::Ok;
    /*!
     * Ok: the entry as now stored (get, create, update) or removed. Conflict:
     * the entry that won, when the store said so (entryKnown). NotFound: where
     * the store keeps the removal of a key as a version (the file store),
     * entry.version is that version, which every later version of the key
     * exceeds; empty otherwise.
     */
    StoreEntry entry;
    /*! Whether entry holds the entry (always for Ok; for Conflict, when the store said). */
    bool entryKnown = false;
    /*! list(): the entries under the prefix. */
    QList<StoreEntry> entries;
    /*! For people: what went wrong and where. Never holds a secret. */
    QString errorString;

    /*! Whether status is Ok. */
    bool ok() const { return status == Status::Ok; }
};

/*!
 * A second document that a conditional write carries (O2): written only
 * when the conditional write succeeds, and itself conditional on the
 * version it was built from, so that a writer that comes late never
 * erases what another wrote there since. The lease's stored history
 * (`history:<leaseName>`) travels this way with the acquisition that
 * changes the holder.
 */
struct BATON_EXPORT StoreSideWrite
{
    /*! The key of the second document, e.g. `history:cron`. */
    QString key;
    /*! What it is replaced with, when \a key still has the version basedOn. */
    QJsonObject document;
    /*!
     * The version of \a key that \a document was built from: empty when the
     * key was absent. Unset: built from a read that could not be understood,
     * which tells nothing of what is there; then \a document replaces only a
     * document the store itself still cannot read (the file store's corrupt
     * file, as an unconditional remove clears one), and over anything else,
     * an absence included, rebase decides.
     */
    std::optional<QString> basedOn;
    /*!
     * When \a key has moved past basedOn: the document to write over what
     * is there now (none when the key is now absent) instead, or none to
     * leave it as it is. Unset: leave it.
     */
    std::function<std::optional<QJsonObject>(const std::optional<StoreEntry> &current)> rebase;
};

/*!
 * Follows the documents under a key prefix (B1). Delivers a change for
 * every write it sees; it may coalesce several writes of one key into the
 * last. Destroying the object ends the watch.
 */
class BATON_EXPORT StoreWatch : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

Q_SIGNALS:
    /*! \a entry was created or written. */
    void entryChanged(const baton::StoreEntry &entry);
    /*! \a key was deleted. */
    void entryRemoved(const QString &key);
    /*! The watch lost events (stream broken, history compacted): read again. */
    void resynchronise();
};

/*!
 * The Registry interface (B1): a small document store that every
 * election backend on a store uses, and nothing more.
 *
 * Every operation is asynchronous: the callback runs exactly once, on a
 * later turn of the event loop of the store's thread (never inside the
 * call), unless the store is destroyed first.
 */
class BATON_EXPORT Store : public Service
{
    Q_OBJECT
public:
    /*! Receives the result of one operation, exactly once. */
    using Callback = std::function<void(const StoreResult &)>;
    /*! As Service::Service(): a store configured as \a name with \a parameters. */
    using Service::Service;

    /*! Reads \a key: Ok with the entry, or NotFound. */
    virtual void get(const QString &key, Callback done) = 0;
    /*! Writes \a document only when \a key does not exist. */
    virtual void create(const QString &key, const QJsonObject &document, Callback done) = 0;
    /*!
     * The patch-if-version of B1: replaces the document of \a key only
     * when its version is still \a version. Conflict carries the current
     * entry when the store can tell.
     */
    virtual void update(const QString &key, const QJsonObject &document, const QString &version,
                        Callback done) = 0;
    /*!
     * create(), and when it succeeds, \a side written too. A store with
     * writes of several keys makes both one write, so that no reader ever
     * sees one without the other (memory, etcd). This default writes
     * \a side after the create succeeded: a crash between the two loses
     * the side write, never the create. \a done gets the create's result;
     * a side write that fails is logged and changes nothing of it.
     */
    virtual void createWith(const QString &key, const QJsonObject &document,
                            const StoreSideWrite &side, Callback done);
    /*! update() with \a side, as createWith(). */
    virtual void updateWith(const QString &key, const QJsonObject &document,
                            const QString &version, const StoreSideWrite &side, Callback done);
    /*! Deletes \a key; with a non-empty \a version, only when it still has that version. */
    virtual void remove(const QString &key, const QString &version, Callback done) = 0;
    /*! Reads every entry whose key starts with \a prefix into StoreResult::entries. */
    virtual void list(const QString &prefix, Callback done) = 0;
    /*! A watch of the keys under \a prefix, or nullptr when this store cannot watch. */
    virtual StoreWatch *watch(const QString &prefix, QObject *parent) = 0;
};

} // namespace baton

Q_DECLARE_METATYPE(baton::StoreEntry)
