#include "folderevents.h"

#include "versionfolder.h"

#include <QFile>
#include <QFileSystemWatcher>
#include <QSocketNotifier>

#include <cerrno>

#include <sys/inotify.h>
#include <unistd.h>

namespace baton {

FolderEvents::FolderEvents(QObject *parent)
    : QObject(parent)
{ }

FolderEvents::~FolderEvents()
{
    // The notifier leaves the event dispatcher before its descriptor closes:
    // a number the kernel may hand out again is never polled for us.
    delete m_notifier;
    if (m_fd >= 0)
        ::close(m_fd);
}

bool FolderEvents::start(const QString &path, QString *errorString)
{
    if (m_fd >= 0)
        return true;
    if (m_fallback)
        return true;
    const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) {
        // Out of inotify instances: QFileSystemWatcher polls instead, and
        // says only that the folder changed, so every change is a loss.
        m_fallback = new QFileSystemWatcher(this);
        connect(m_fallback, &QFileSystemWatcher::directoryChanged, this, &FolderEvents::lost);
        if (m_fallback->addPath(path))
            return true;
        *errorString = VersionFolder::systemError(errno);
        delete m_fallback;
        m_fallback = nullptr;
        return false;
    }
    // A version is linked complete (IN_CREATE); an earlier layout's file is
    // renamed into place (IN_MOVED_TO); a file written in place by hand is
    // read again once it is closed (IN_CLOSE_WRITE).
    constexpr uint32_t kMask = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE
            | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
    if (::inotify_add_watch(fd, QFile::encodeName(path).constData(), kMask) < 0) {
        *errorString = VersionFolder::systemError(errno);
        ::close(fd);
        return false;
    }
    m_fd = fd;
    m_notifier = new QSocketNotifier(qintptr(m_fd), QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &FolderEvents::readEvents);
    return true;
}

void FolderEvents::readEvents()
{
    QStringList names;
    bool gone = false;
    alignas(struct inotify_event) char buffer[64 * 1024];
    for (;;) {
        const ssize_t length = ::read(m_fd, buffer, sizeof buffer);
        if (length < 0 && errno == EINTR)
            continue;
        if (length <= 0)
            break; // EAGAIN: all read
        for (ssize_t at = 0; at < length;) {
            const auto *event = reinterpret_cast<const struct inotify_event *>(buffer + at);
            at += ssize_t(sizeof(struct inotify_event) + event->len);
            if (event->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))
                gone = true;
            else if (event->len > 0)
                names.append(QFile::decodeName(event->name));
        }
    }
    if (gone) {
        Q_EMIT lost();
        return;
    }
    if (!names.isEmpty())
        Q_EMIT namesChanged(names);
}

} // namespace baton
