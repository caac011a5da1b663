#include "privatefiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

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
    if (!file.open(QIODevice::WriteOnly))
        return false;
    return existed || file.setPermissions(kFile);
}

} // namespace baton::privatefiles
