#pragma once

#include "versionfloor.h"
#include "versionfolder.h"

#include <baton/store.h>

#include <QHash>

#include <memory>
#include <optional>

namespace baton {

class FileStoreWatches;

/*!
 * `Webda/FileStore` (B1): a folder of JSON documents shared by the
 * processes of one host. Writes take no lock, so no process, however frozen,
 * can block another: each version of a record is a new file, written and
 * synced aside, then linked to the name of the next version, which only one
 * writer can create. The highest version is the record; older ones are
 * collected by whoever wrote a newer one. A removal is a version too (a
 * tombstone), so a key removed and created again never gets back a version
 * an old writer holds (F7).
 *
 * Parameters: `folder` (created owner-only when missing; when absent, the
 * application's data folder followed by `/registry`). The earlier layout's
 * `lockTimeout` is refused as unknown: writes take no lock.
 *
 * The folder holds, all owner-only:
 * - `<key>.<version>.json` per version of a key, the key percent-encoded
 *   (fileNameForKey(); `:` stays readable, `.` never does, so
 *   `cluster:leader.7.json` is version 7 of `cluster:leader`), holding the
 *   envelope `{"key": "cluster:leader", "version": "7", "document": {...}}`,
 *   or `{"key": ..., "version": "8", "removed": true}` for a removal; with
 *   `writer` (a UUID of the write) and `over` (the `writer` of the version
 *   it replaced), which the check after a write's link reads.
 *   A file that is not such an envelope is reported as BadReply naming it.
 * - `.tmp-XXXXXX` while a version is written, before it is linked; one left
 *   by a writer that died is removed after a minute by the next writer.
 * - `.lock/`, a folder made before the first write: the earlier layout
 *   locked a `.lock` file with QLockFile, which can neither create this
 *   name nor remove it as stale, so no process of it writes here again.
 * - createWith, updateWith: the folder has no write of two keys, so the
 *   side document (a lease's history) is written in the same call right
 *   after the record's version is won, before the answer. A crash between
 *   the two loses that side write, never the record.
 * - from the earlier layout: `<key>.json` is read as the key's record
 *   until a version file supersedes it, and the counter in `.sequence` is
 *   where a key with no file starts counting.
 */
class FileStore : public Store, public VersionFloor
{
    Q_OBJECT
public:
    FileStore(const QString &name, const QJsonObject &parameters, Application *application);
    /*! The parameters this type takes; the configuration refuses others (P1). */
    static QStringList parameterNames();
    ~FileStore() override;

    bool init(QString *errorString) override;
    QString folder() const;
    /*!
     * For observers (`baton status`), before init(): the folder must exist
     * and is never created, and a folder that may not be written is
     * accepted. A write then fails as the file system says.
     */
    void setReadOnly(bool readOnly) { m_readOnly = readOnly; }

    void get(const QString &key, Callback done) override;
    void create(const QString &key, const QJsonObject &document, Callback done) override;
    void update(const QString &key, const QJsonObject &document, const QString &version,
                Callback done) override;
    void createWith(const QString &key, const QJsonObject &document, const StoreSideWrite &side,
                    Callback done) override;
    void updateWith(const QString &key, const QJsonObject &document, const QString &version,
                    const StoreSideWrite &side, Callback done) override;
    void remove(const QString &key, const QString &version, Callback done) override;
    void list(const QString &prefix, Callback done) override;
    /*! Follows the names that change in the folder (FileStoreWatches). */
    StoreWatch *watch(const QString &prefix, QObject *parent) override;
    /*!
     * The key's highest version in the folder, a removal's included (F7).
     * Other processes may write the key before the caller's create: the
     * next create() of \a key through this store is then a Conflict, so
     * that what the caller derived from the floor still holds when it wins.
     */
    qint64 versionFloor(const QString &key) const override;

    /*! The file name of \a version of \a key: reversible, and safe for any key. */
    static QString fileNameForKey(const QString &key, quint64 version);
    /*! The key a file name of fileNameForKey() (or the earlier layout's) belongs to. */
    static QString keyForFileName(const QString &fileName);

private:
    using Head = VersionFolder::Head;
    /*! A write of a version that is a multiple of this lists the folder even when its names prove it. */
    static constexpr quint64 kListEveryVersions = 64;

    QString describe() const;
    void deliver(Callback done, StoreResult result);
    /*! Unavailable when init() has not succeeded or the folder has gone. */
    std::optional<StoreResult> refuseUnusable() const;
    /*! Checks that \a key fits in a file name; an Unavailable result otherwise. */
    std::optional<StoreResult> refuseKey(const QString &key) const;
    /*! refuseKey(), then earlierlayout::lockOutWriters(): what every write checks first. */
    std::optional<StoreResult> refuseWrite(const QString &key) const;
    /*!
     * Writes \a document (a removal when nullopt) as the version after \a head
     * and returns it, or Conflict when another writer won that version.
     */
    StoreResult writeNext(const QString &key, const Head &head,
                          const std::optional<QJsonObject> &document);
    StoreResult conflictWith(const QString &key, const QString &why) const;
    StoreResult createNow(const QString &key, const QJsonObject &document);
    StoreResult updateNow(const QString &key, const QJsonObject &document, const QString &version);
    /*! Writes \a side over whatever version its key has; a failure is logged. */
    void writeSideNow(const StoreSideWrite &side);

    /*! The folder's files, once init() has accepted the folder. */
    std::optional<VersionFolder> m_files;
    bool m_readOnly = false;
    FileStoreWatches *m_watches = nullptr;
    /*! key -> the floor versionFloor() last gave for it, until the key's next create(). */
    mutable QHash<QString, quint64> m_floorsGiven;
    /*! A version of a key that this store wrote, and the check after its link proved won. */
    struct OwnWrite
    {
        quint64 version = 0;
        QString writer;
    };
    /*! key -> this store's last write of it that won, which its next update reads by name. */
    QHash<QString, OwnWrite> m_ownWrites;
};

} // namespace baton
