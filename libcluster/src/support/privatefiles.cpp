#include <batoninternal/privatefiles.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <sys/stat.h>

namespace baton::privatefiles {

bool makeFolder(const QString &path)
{
    const QFileInfo info(path);
    if (info.isDir())
        return true;
    const QString absolute = info.absoluteFilePath();
    const QString parent = QFileInfo(absolute).absolutePath();
    if (parent != absolute && !makeFolder(parent))
        return false;
    // mkdir with the mode, not chmod after: no moment where it is open to others.
    return QDir().mkdir(absolute, kFolder) || QFileInfo(absolute).isDir();
}

bool prepareFile(const QString &path)
{
    if (QFileInfo::exists(path))
        return true;
    if (!makeFolder(QFileInfo(path).absolutePath()))
        return false;
    QFile file(path);
    // NewOnly: if another process created it meanwhile, that one is kept.
    return file.open(QIODevice::WriteOnly | QIODevice::NewOnly, kFile) || QFileInfo::exists(path);
}

bool openForWriting(QSaveFile &file)
{
    const bool existed = QFileInfo::exists(file.fileName());
    // QSaveFile makes a new file's temporary copy with the umask's mode and
    // sets ours only afterwards: under umask 077 there is no moment where
    // another user could open it. (An existing file's copy is 0600 already
    // until QSaveFile gives it that file's mode.) The umask is the process's:
    // exports are written from the main thread, where nothing else makes files.
    const mode_t previous = ::umask(077);
    const bool opened = file.open(QIODevice::WriteOnly);
    ::umask(previous);
    if (!opened)
        return false;
    return existed || file.setPermissions(kFile);
}

} // namespace baton::privatefiles
