#pragma once

#include <baton/store.h>

#include <QHash>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

struct dirent;

namespace baton {

/*!
 * The files of a FileStore folder (B1): one file per version of a key,
 * `<key>.<version>.json`, each created by exactly one writer. It names,
 * lists, reads, writes and collects those files; what a get, a create or a
 * removal means is FileStore's. Messages start with the store's description.
 */
class VersionFolder
{
public:
    /*! The files of one key in the folder. */
    struct KeyFiles
    {
        /*! version -> file name; version 0 is the earlier layout's `<key>.json`. */
        QMap<quint64, QString> versions;
    };
    /*! A key's record as its highest version file says. */
    struct Head
    {
        /*! Ok with the record; NotFound when there is none or it was removed; an error. */
        StoreResult result;
        /*! The highest version, a removal's included; 0 when the key has no file. */
        quint64 version = 0;
        /*! The `writer` of that version's envelope: which write made it (may be empty). */
        QString writer {};
    };
    /*! What linking a written version to its name came to. */
    enum class Link {
        /*! The name is ours: no other writer created it first. */
        Created,
        /*! Another writer created that version first. */
        Taken,
        /*! The file system refused; the message says why. */
        Failed,
    };

    VersionFolder(const QString &path, const QString &description);

    QString path() const { return m_path; }
    QString filePath(const QString &fileName) const;
    /*! How messages name the store: `Webda/FileStore "Registry"`. */
    QString describe() const { return m_description; }

    /*! The file name of \a version of \a key: reversible, and safe for any key. */
    static QString fileName(const QString &key, quint64 version);
    /*! Splits `<key>.<version>.json` (or the earlier `<key>.json`, version 0). */
    static bool parseFileName(const QString &fileName, QString *key, quint64 *version);
    /*! The text of errno value \a error. */
    static QString systemError(int error);

    /*! A key's files as one listing showed them, and the temporary files beside them. */
    struct Listed
    {
        KeyFiles files;
        QStringList temporaries;
    };

    /*!
     * The version files in the folder, by key, of the keys under \a prefix;
     * with \a temporaries, the names of the temporary files too.
     */
    QHash<QString, KeyFiles> listFiles(const QString &prefix, QString *errorString,
                                       QStringList *temporaries = nullptr) const;
    /*! The record of \a key, from \a files when given, else from the folder. */
    Head readHead(const QString &key, const KeyFiles *files = nullptr) const;
    /*!
     * The record of \a key when \a version, written by \a writer, is still
     * its newest, read by names without listing the folder: nullopt when
     * the names say otherwise (that file gone or another writer's, a file
     * of the version after it, or the earlier layout's file), and
     * readHead() must tell. Only for a version whose write the check after
     * its link proved won: collection removes the lowest versions first and
     * stops at one it cannot remove, so while that file is there no version
     * above it was collected, and the version after it is the only place a
     * newer record can be.
     */
    std::optional<Head> readOwnNewest(const QString &key, quint64 version,
                                      const QString &writer) const;
    /*!
     * The version file of \a version of \a key, read by its name: NotFound
     * with version 0 when there is no such file.
     */
    Head readVersion(const QString &key, quint64 version) const;
    /*!
     * The highest version of \a key in the folder (0: none), and in \a listed
     * what the listing showed; false, with \a errorString, when the folder
     * cannot be listed.
     */
    bool newestVersion(const QString &key, quint64 *version, QString *errorString,
                       Listed *listed = nullptr) const;

    /*!
     * Whether the write of \a version of \a key, just linked over \a over
     * (the head the write read, with its writer), won, proved by names
     * without listing the folder: \a over's file is still there, by
     * \a over's writer. Collection removes the lowest versions first and
     * stops at one it cannot remove, so no version above \a over was ever
     * collected: \a version's name was free because nobody had made it, and
     * any newer version was written over this one. A file of \a over by
     * another writer is a frozen writer's late link, made after \a over was
     * collected. False when the names cannot tell: a listing must
     * (newestVersion()).
     */
    bool provedWonByNames(const QString &key, quint64 version, const Head &over) const;
    /*!
     * After provedWonByNames(): removes \a over's file, when no version
     * below it is left (the lowest first, as collect() does); else nothing,
     * and a later collect() from a listing removes them all.
     */
    void collectOverByNames(const QString &key, const Head &over) const;

    /*!
     * The `over` of the envelope of \a version of \a key: the `writer` of
     * the version it was written over. Empty when that file is gone.
     */
    QString writtenOver(const QString &key, quint64 version) const;

    /*! Writes \a data, synced, to a new owner-only temporary file; its path in \a path. */
    bool writeTemporary(const QByteArray &data, QString *path, QString *errorString) const;
    /*!
     * Gives \a temporary the name of \a version of \a key unless that name
     * exists, and removes \a temporary either way.
     */
    Link linkVersion(const QString &temporary, const QString &key, quint64 version,
                     QString *errorString) const;
    /*! Syncs the folder itself, so that the names in it survive a power cut. */
    bool sync(QString *errorString) const;
    /*!
     * Removes the versions below \a version, lowest first and none above
     * one it cannot remove, and the abandoned temporary files, of those
     * \a listed (by newestVersion()) shows.
     */
    void collect(quint64 version, const Listed &listed) const;

private:
    /*! The names of files written aside, before a write links them under a version's name. */
    static constexpr QLatin1String kTemporaryPrefix { ".tmp-" };

    /*!
     * listFiles(), or only \a prefix's own files when \a exact: the names of
     * other keys are skipped unread.
     */
    QHash<QString, KeyFiles> listNames(const QString &prefix, bool exact, QString *errorString,
                                       QStringList *temporaries) const;
    /*! Whether \a entry of \a folder is a file, or a link to one. */
    static bool isFile(const QByteArray &folder, const struct dirent &entry);
    Head readVersionFile(const QString &key, quint64 version, const QString &fileName) const;
    /*!
     * The versions of \a key found by their names, from the highest this
     * folder has seen of it up: for a listing that showed none, as POSIX
     * lets a listing during a rename miss both the new name and the old.
     */
    KeyFiles probeVersions(const QString &key) const;
    /*!
     * The files of \a key as the folder lists them, listed again while
     * none shows of a key this folder has seen.
     */
    KeyFiles listKey(const QString &key, QString *errorString,
                     QStringList *temporaries = nullptr) const;
    /*! Keeps \a version as the highest seen of \a key, where probeVersions() starts. */
    void noteVersion(const QString &key, quint64 version) const;

    QString m_path;
    QString m_description;
    /*!
     * key -> the highest version this folder has read or linked. A key's
     * files never all go (its highest version, a removal's included, is
     * kept), so versions from there up are where the record is.
     */
    mutable QHash<QString, quint64> m_seen;
};

} // namespace baton
