#pragma once

#include <baton/store.h>

#include <QDir>
#include <QHash>
#include <QPointer>

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
 * Parameters: `folder` (created owner-only when missing), `lockTimeout`
 * (milliseconds, default 2000).
 */
class FileStore : public Store
{
    Q_OBJECT
public:
    FileStore(const QString &name, const QJsonObject &parameters, Application *application);
    ~FileStore() override;

    bool init(QString *errorString) override;
    QString folder() const;

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
    void deliver(Callback done, StoreResult result);
    void rescan();

    QDir m_folder;
    int m_lockTimeoutMs = 2000;
    QFileSystemWatcher *m_watcher = nullptr;
    QList<QPointer<StoreWatch>> m_watches;
    QHash<StoreWatch *, QString> m_watchPrefixes;
    QHash<QString, QString> m_seenVersions;
};

} // namespace baton
