#include "secretfile.h"

#include <batoninternal/secrets.h>

#include "logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>

namespace baton {

SecretFile::SecretFile(QObject *parent)
    : QObject(parent)
{
}

QString SecretFile::resolve(const QString &configured)
{
    if (QDir::isAbsolutePath(configured))
        return configured;
    const QString credentials = qEnvironmentVariable("CREDENTIALS_DIRECTORY");
    if (!credentials.isEmpty())
        return QDir(credentials).filePath(configured);
    return QFileInfo(configured).absoluteFilePath();
}

bool SecretFile::read(const QString &path, QString *value, QString *errorString)
{
    QFile file(path);
    if (!file.exists()) {
        *errorString = QStringLiteral("the file %1 does not exist").arg(path);
        return false;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        *errorString = QStringLiteral("the file %1 cannot be read: %2").arg(path, file.errorString());
        return false;
    }
    QByteArray content = file.readAll();
    // Editors and `echo` end the file with a newline that is not part of the secret.
    if (content.endsWith('\n'))
        content.chop(1);
    if (content.endsWith('\r'))
        content.chop(1);
    if (content.isEmpty()) {
        *errorString = QStringLiteral("the file %1 is empty").arg(path);
        return false;
    }
    *value = QString::fromUtf8(content);
    return true;
}

bool SecretFile::check(const QString &path, QString *errorString, QString *warning)
{
    QString value;
    if (!read(path, &value, errorString))
        return false;
    if (QFileInfo(path).permissions() & (QFileDevice::ReadOther | QFileDevice::ReadGroup))
        *warning = QStringLiteral("the file %1 may be read by other users: make it readable by its "
                                  "owner only (chmod 600)")
                           .arg(path);
    return true;
}

bool SecretFile::open(const QString &path, QString *errorString, QString *warning)
{
    m_path = path;
    if (!check(m_path, errorString, warning) || !read(m_path, &m_value, errorString))
        return false;
    const QFileInfo info(m_path);
    delete m_watcher;
    m_watcher = new QFileSystemWatcher(this);
    // The folder too: a Kubernetes Secret or a rotated credential is
    // replaced by a rename, which ends the watch of the file itself.
    m_watcher->addPath(m_path);
    m_watcher->addPath(info.absolutePath());
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &SecretFile::reread);
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, &SecretFile::reread);
    return true;
}

void SecretFile::reread()
{
    if (!m_watcher->files().contains(m_path) && QFile::exists(m_path))
        m_watcher->addPath(m_path);
    QString value;
    QString error;
    if (!read(m_path, &value, &error)) {
        // Mid-rotation, or removed: the secret read last goes on serving.
        qCWarning(lcConfig).noquote() << error << "(the secret read before is kept)";
        return;
    }
    if (value == m_value)
        return;
    m_value = value;
    qCInfo(lcConfig).noquote() << "read the secret in" << m_path << "again: it changed";
    Q_EMIT changed();
}

bool secrets::readConfiguredFile(const QString &configured, QString *value, QString *errorString)
{
    return SecretFile::read(SecretFile::resolve(configured), value, errorString);
}

} // namespace baton
