#pragma once

#include <baton/store.h>

#include "versionfloor.h"

#include <QHash>
#include <QMap>

#include <memory>
#include <optional>

namespace baton {

/*!
 * `Webda/MemoryStore` (B1): documents in this process, shared by every
 * service of the process that names it. With `persistence.path`, the whole
 * store is loaded from that file at init() and written back atomically
 * after each change, so a restarted process finds its documents again.
 *
 * Versions are the decimal strings of one counter for the whole store, so a
 * key that is removed and created again never gets back a version an old
 * writer may still hold. It also remembers the last version of each key it
 * removed (VersionFloor), and after a load from the persistence file, the
 * counter it found, so a re-created lease record carries on its fencing
 * tokens above the old ones (F7).
 *
 * Persistence file (owner-only, replaced atomically on every change):
 * \code
 * {"lastVersion": "12",
 *  "documents": {"cluster:leader": {"version": "12", "document": {...}}}}
 * \endcode
 * A change that cannot be written to that file is undone and reported as
 * Unavailable, so memory and file never disagree.
 */
class MemoryStore : public Store, public VersionFloor
{
    Q_OBJECT
public:
    MemoryStore(const QString &name, const QJsonObject &parameters, Application *application);
    /*! The parameters this type takes; the configuration refuses others (P1). */
    static QStringList parameterNames();
    ~MemoryStore() override;

    bool init(QString *errorString) override;

    void get(const QString &key, Callback done) override;
    void create(const QString &key, const QJsonObject &document, Callback done) override;
    void update(const QString &key, const QJsonObject &document, const QString &version,
                Callback done) override;
    /*! Both keys in one change: a reader, the persistence file included, sees both or neither. */
    void createWith(const QString &key, const QJsonObject &document, const StoreSideWrite &side,
                    Callback done) override;
    void updateWith(const QString &key, const QJsonObject &document, const QString &version,
                    const StoreSideWrite &side, Callback done) override;
    void remove(const QString &key, const QString &version, Callback done) override;
    void list(const QString &prefix, Callback done) override;
    StoreWatch *watch(const QString &prefix, QObject *parent) override;
    qint64 versionFloor(const QString &key) const override;

private:
    struct Document
    {
        QJsonObject document;
        quint64 version = 0;
    };
    /*! A list() under way: the entries copied so far, in key order. */
    struct Listing;
    /*! Copies the next entries of \a listing for one slice of a turn, and answers when none are left. */
    void listSome(const std::shared_ptr<Listing> &listing);
    StoreEntry entryFor(const QString &key) const;
    static StoreEntry entryOf(const QString &key, const Document &document);
    void deliver(Callback done, StoreResult result);
    /*! Writes \a key (and \a side), answers \a done with \a key's entry, and tells the watches. */
    void commitAndDeliver(const QString &key, const QJsonObject &document, Callback done,
                          const std::optional<StoreSideWrite> &side = std::nullopt);
    /*! One key and what becomes of it: its new document, or none to remove it. */
    using Change = std::pair<QString, std::optional<QJsonObject>>;
    /*! Applies \a changes together; all undone when persisting fails. */
    bool commit(const QList<Change> &changes, QString *errorString);
    /*! Conflict or NotFound when \a key cannot be updated from \a version; nothing when it can. */
    std::optional<StoreResult> refuseUpdate(const QString &key, const QString &version) const;
    void notifyWatches(const QString &key);
    bool load(QString *errorString);
    bool persist(QString *errorString) const;

    /*! By key, in order: a prefix is one range, listed without visiting the others or sorting. */
    QMap<QString, Document> m_documents;
    quint64 m_lastVersion = 0;
    /*! The version each removed key had last. */
    QHash<QString, quint64> m_removedVersions;
    /*! Every key the persistence file once held had a version up to this. */
    quint64 m_loadedVersion = 0;
    QString m_persistencePath;
    QHash<StoreWatch *, QString> m_watchPrefixes;
};

} // namespace baton
