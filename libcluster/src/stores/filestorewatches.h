#pragma once

#include "versionfolder.h"

#include <baton/store.h>

#include <QHash>
#include <QMap>
#include <QPointer>
#include <QSet>

#include <optional>

namespace baton {

class FolderEvents;

/*! What a listing of a FileStore folder found under a prefix. */
struct FolderScan
{
    QHash<QString, StoreEntry> entries;
    /*! key -> why its file could not be read: neither changed nor removed. */
    QHash<QString, QString> unreadable;
    /*! Every message: the listing's, and the unreadable files'. */
    QStringList errors;
};

/*! Lists \a files under \a prefix and reads the record of each key. */
FolderScan scanFolder(const VersionFolder &files, const QString &prefix);

/*!
 * The watches of one FileStore (B1). The folder's changes come as names
 * (FolderEvents): a change reads the keys it names, by those names, and
 * tells the watches whose prefix they are under; only changes the kernel
 * could not tell cost a listing of the folder and a read of every record.
 */
class FileStoreWatches : public QObject
{
    Q_OBJECT
public:
    FileStoreWatches(const VersionFolder &files, QObject *parent);

    /*! A watch of the keys under \a prefix, owned by \a parent; nullptr when the folder cannot be followed. */
    StoreWatch *add(const QString &prefix, QObject *parent);

private:
    struct WatchState
    {
        QString prefix;
        /*! key -> version this watch last reported (or started from). */
        QHash<QString, QString> seen;
    };
    struct Change
    {
        QPointer<StoreWatch> watch;
        StoreEntry entry;
        bool removed = false;
    };

    void remove(StoreWatch *watch);
    /*! The watches whose prefix \a key is under: a lookup per prefix length, not per watch. */
    QList<StoreWatch *> watchesOf(const QString &key) const;
    void namesChanged(const QStringList &names);
    void schedule();
    void readChanges();
    /*!
     * The record of \a key after the folder named its version \a named;
     * nullopt when that cannot have changed it.
     */
    std::optional<VersionFolder::Head> readChanged(const QString &key, quint64 named) const;
    /*! What \a head of \a key changes for the watches under which it is, into \a changes. */
    void compare(const QString &key, const VersionFolder::Head &head, QList<Change> *changes);
    /*! Warns of \a error of \a key once, until the key reads again. */
    void warnUnreadable(const QString &key, const QString &error);
    /*! Lists and reads every record, as when the folder's changes were lost. */
    void rescan(QList<Change> *changes);
    void emitChanges(const QList<Change> &changes);

    const VersionFolder &m_files;
    FolderEvents *m_events = nullptr;
    QHash<StoreWatch *, WatchState> m_watches;
    QHash<QString, QList<StoreWatch *>> m_byPrefix;
    /*! prefix length -> how many watches have a prefix of it. */
    QMap<qsizetype, int> m_prefixLengths;
    /*! key -> the highest version the watches have read of it. */
    QHash<QString, quint64> m_known;
    /*! key -> the highest version a change named, until it is read. */
    QHash<QString, quint64> m_named;
    /*! Keys whose earlier layout's file changed: read as a whole, as a get does. */
    QSet<QString> m_readWhole;
    bool m_lost = false;
    bool m_scheduled = false;
    /*! key -> the unreadable-file message already logged, so a watch warns once per problem. */
    QHash<QString, QString> m_warned;
};

} // namespace baton
