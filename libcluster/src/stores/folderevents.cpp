#include "folderevents.h"

#include "versionfolder.h"

#include <QFile>
#include <QFileSystemWatcher>
#include <QSocketNotifier>
#include <QTimer>

#include <cerrno>

#include <sys/inotify.h>
#include <unistd.h>

namespace baton {

FolderEvents::FolderEvents(QObject *parent)
    : QObject(parent)
{ }

namespace {
// How often a folder that went is looked for: a write through this store
// makes it again at once, and a change seen a second late costs no safety.
constexpr int kRearmIntervalMs = 1000;
}

FolderEvents::~FolderEvents()
{
    disarm();
}

void FolderEvents::disarm()
{
    // The notifier leaves the event dispatcher before its descriptor closes:
    // a number the kernel may hand out again is never polled for us. It may
    // be the sender of the signal being handled, hence deleteLater().
    if (m_notifier) {
        m_notifier->setEnabled(false);
        m_notifier->deleteLater();
        m_notifier = nullptr;
    }
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
}

bool FolderEvents::start(const QString &path, QString *errorString)
{
    if (m_fd >= 0 || m_fallback || m_rearm)
        return true;
    m_path = path;
    return arm(errorString);
}

bool FolderEvents::arm(QString *errorString)
{
    const QString &path = m_path;
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
    bool overflowed = false;
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
            if (event->mask & IN_Q_OVERFLOW)
                overflowed = true;
            else if (event->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))
                gone = true;
            else if (event->len > 0)
                names.append(QFile::decodeName(event->name));
        }
    }
    if (gone) {
        // The watch followed the folder's inode, not its path: a folder
        // made again, or moved back, would never be heard of.
        disarm();
        rearmWhenTheFolderIsBack();
    }
    if (gone || overflowed) {
        Q_EMIT lost();
        return;
    }
    if (!names.isEmpty())
        Q_EMIT namesChanged(names);
}

void FolderEvents::rearmWhenTheFolderIsBack()
{
    QString error;
    if (arm(&error))
        return;
    if (!m_rearm) {
        m_rearm = new QTimer(this);
        m_rearm->setInterval(kRearmIntervalMs);
        connect(m_rearm, &QTimer::timeout, this, [this] {
            QString notYet;
            if (!arm(&notYet))
                return;
            m_rearm->deleteLater();
            m_rearm = nullptr;
            // What was written while nobody watched is found by a listing.
            Q_EMIT lost();
        });
    }
    m_rearm->start();
}

} // namespace baton
