// What a write does to the folder: a version written aside, linked under its
// name, the folder synced, and the versions it made old collected.

#include "versionfolder.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>

#include <cerrno>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

namespace baton {

namespace {

// A temporary file is linked milliseconds after it is made. One this old was
// left by a writer that died; removing a live writer's only fails its link,
// so this age is tidiness, not safety, and the wall clock is good enough.
constexpr qint64 kAbandonedTemporaryAgeMs = 60000;

} // namespace

bool VersionFolder::writeTemporary(const QByteArray &data, QString *path,
                                   QString *errorString) const
{
    // mkstemp() makes the file 0600 whatever the umask (R2).
    QByteArray name = QFile::encodeName(filePath(QString(kTemporaryPrefix) + QStringLiteral("XXXXXX")));
    const int fd = ::mkstemp(name.data());
    if (fd < 0) {
        *errorString = QStringLiteral("%1: cannot create a file in %2: %3")
                               .arg(describe(), m_path, systemError(errno));
        return false;
    }
    *path = QFile::decodeName(name);
    qsizetype written = 0;
    while (written < data.size()) {
        const ssize_t n = ::write(fd, data.constData() + written, size_t(data.size() - written));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        written += n;
    }
    // Synced before it gets its name: a power cut never leaves a version
    // whose name exists and whose content does not.
    const bool ok = written == data.size() && ::fsync(fd) == 0;
    const int error = errno;
    ::close(fd);
    if (!ok) {
        *errorString = QStringLiteral("%1: cannot write %2: %3")
                               .arg(describe(), *path, systemError(error));
        ::unlink(name.constData());
    }
    return ok;
}

VersionFolder::Link VersionFolder::linkVersion(const QString &temporary, const QString &key,
                                               quint64 version, QString *errorString) const
{
    // link() never replaces a name: of all the writers of this version,
    // exactly one creates it, whoever else is frozen where.
    const QString target = filePath(fileName(key, version));
    const int linked = ::link(QFile::encodeName(temporary).constData(),
                              QFile::encodeName(target).constData());
    const int linkError = errno;
    ::unlink(QFile::encodeName(temporary).constData());
    if (linked == 0) {
        noteVersion(key, version);
        return Link::Created;
    }
    if (linkError == EEXIST)
        return Link::Taken;
    *errorString = QStringLiteral("%1: cannot create %2: %3")
                           .arg(describe(), target, systemError(linkError));
    return Link::Failed;
}

bool VersionFolder::sync(QString *errorString) const
{
    const QByteArray folder = QFile::encodeName(m_path);
    const int fd = ::open(folder.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const bool ok = fd >= 0 && ::fsync(fd) == 0;
    const int error = errno;
    if (fd >= 0)
        ::close(fd);
    if (!ok) {
        *errorString = QStringLiteral("%1: cannot sync folder %2: %3")
                               .arg(describe(), m_path, systemError(error));
    }
    return ok;
}

void VersionFolder::collect(quint64 version, const Listed &listed) const
{
    // From the listing that proved the write won: a version below it linked
    // since then is a frozen writer's, lost, and the next write collects it.
    // Lowest first, and no further once a removal fails (gone already is
    // not a failure): a version is never collected while one below it is
    // still there, which readOwnNewest() relies on.
    for (auto it = listed.files.versions.cbegin();
         it != listed.files.versions.cend() && it.key() < version; ++it) {
        if (::unlink(QFile::encodeName(filePath(it.value())).constData()) != 0 && errno != ENOENT)
            break;
    }

    const QDateTime abandoned = QDateTime::currentDateTime().addMSecs(-kAbandonedTemporaryAgeMs);
    for (const QString &temporary : listed.temporaries) {
        const QFileInfo info(filePath(temporary));
        if (info.exists() && info.lastModified() < abandoned)
            QFile::remove(info.absoluteFilePath());
    }
}

bool VersionFolder::provedWonByNames(const QString &key, quint64 version, const Head &over) const
{
    if (over.version == 0 || over.version + 1 != version || over.writer.isEmpty())
        return false;
    const Head still = readVersionFile(key, over.version, fileName(key, over.version));
    return still.version == over.version && still.writer == over.writer;
}

void VersionFolder::collectOverByNames(const QString &key, const Head &over) const
{
    // The earlier layout's file is version 0, below every other.
    if (over.version == 0 || QFileInfo::exists(filePath(fileName(key, over.version - 1)))
        || QFileInfo::exists(filePath(fileName(key, 0))))
        return;
    ::unlink(QFile::encodeName(filePath(fileName(key, over.version))).constData());
}

} // namespace baton
