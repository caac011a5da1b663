#pragma once

#include <baton/store.h>

#include <QElapsedTimer>
#include <QHash>
#include <QSet>

#include <functional>
#include <memory>
#include <optional>

class QFileSystemWatcher;

namespace baton {

/*!
 * `Webda/FileStore` (SPEC B1): a folder of JSON documents, one file a key,
 * shared by the processes of one host. A conditional write reads, compares
 * and writes under a lock file, and writes atomically (a new file renamed
 * over the old), so a reader never sees half a document and two writers
 * never both win. A process killed while holding the lock does not block
 * the others: the lock of a dead process is taken over.
 *
 * Parameters: `folder` (created owner-only when missing; when absent, the
 * application's data folder followed by `/registry`), `lockTimeout`
 * (milliseconds, default 2000).
 *
 * The folder holds, all owner-only:
 * - `<key>.json` per key, the key percent-encoded (fileNameForKey(); `:`
 *   stays readable, so `cluster:leader` is `cluster:leader.json`), holding
 *   the envelope `{"key": "cluster:leader", "version": "7", "document": {...}}`.
 *   A file that is not such an envelope is reported as BadReply naming it.
 * - `.lock`, the QLockFile every write takes (rewrites and removals alike).
 *   A lock whose process is dead is taken over at once; a lock older than
 *   10 s is taken over too (its holder is hung), which is the one case where
 *   a writer frozen in the middle of its few-millisecond critical section
 *   could still write after a newer writer.
 * - `.sequence`, the decimal counter that versions come from, so a key
 *   removed and created again never gets back a version an old writer holds.
 *
 * Reads (get, list) take no lock: files are replaced by rename, never
 * rewritten in place.
 */
class FileStore : public Store
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
    void remove(const QString &key, const QString &version, Callback done) override;
    void list(const QString &prefix, Callback done) override;
    /*! Follows the folder with QFileSystemWatcher. */
    StoreWatch *watch(const QString &prefix, QObject *parent) override;

    /*! The file name for a key: reversible, and safe for any key. */
    static QString fileNameForKey(const QString &key);
    static QString keyForFileName(const QString &fileName);

private:
    struct WatchState
    {
        QString prefix;
        /*! key -> version this watch last reported (or started from). */
        QHash<QString, QString> seen;
    };
    struct Scan
    {
        QHash<QString, StoreEntry> entries;
        /*! Keys whose file could not be read: neither changed nor removed. */
        QSet<QString> unreadable;
        QStringList errors;
    };

    QString describe() const;
    void deliver(Callback done, StoreResult result);
    /*! Unavailable when init() has not succeeded or the folder has gone. */
    std::optional<StoreResult> refuseUnusable() const;
    /*! Checks that \a key fits in a file name; an Unavailable result otherwise. */
    std::optional<StoreResult> refuseKey(const QString &key) const;
    StoreResult readEntry(const QString &key) const;
    StoreResult readFile(const QString &fileName, const QString &key) const;
    /*! Runs \a work holding the lock file, or reports why the lock could not be taken. */
    /*! A write waiting for the lock file. */
    struct LockedWrite
    {
        std::function<StoreResult()> work;
        Callback done;
        QElapsedTimer since;
    };
    /*! Runs \a work under the lock file, then delivers its result to \a done. */
    void underLock(std::function<StoreResult()> work, Callback done);
    void tryLockedWrite(const std::shared_ptr<LockedWrite> &attempt);
    /*! One try; false when the lock is busy and there is time left to try again. */
    bool tryUnderLock(const std::function<StoreResult()> &work, StoreResult *result, bool lastTry);
    /*! Writes \a document as the new version of \a key; the caller holds the lock. */
    StoreResult writeEntry(const QString &key, const QJsonObject &document,
                           const QString &currentVersion);
    std::optional<quint64> nextVersion(const QString &currentVersion, StoreResult *refusal);
    bool writeFileAtomically(const QString &fileName, const QByteArray &data,
                             QString *errorString) const;
    Scan scan(const QString &prefix) const;
    void scheduleRescan();
    void rescan();

    QString m_folder;
    int m_lockTimeoutMs = 2000;
    bool m_readOnly = false;
    QFileSystemWatcher *m_watcher = nullptr;
    bool m_rescanPending = false;
    QHash<StoreWatch *, WatchState> m_watches;
    /*! Unreadable-file messages already logged, so a watch warns once per problem. */
    QSet<QString> m_warnedUnreadable;
};

} // namespace baton
