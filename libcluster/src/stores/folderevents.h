#pragma once

#include <QObject>
#include <QStringList>

class QFileSystemWatcher;
class QSocketNotifier;
class QTimer;

namespace baton {

/*!
 * The names that change in one folder, as the kernel tells them (inotify):
 * a watch then reads the files named and nothing else, however many the
 * folder holds. QFileSystemWatcher only says that the folder changed,
 * which costs a listing and a read of every file per change.
 */
class FolderEvents : public QObject
{
    Q_OBJECT
public:
    explicit FolderEvents(QObject *parent = nullptr);
    ~FolderEvents() override;

    /*! Follows \a path from now on; false, with \a errorString, when it cannot. */
    bool start(const QString &path, QString *errorString);

Q_SIGNALS:
    /*! Files of the folder created, linked, moved in or out, written or removed, in order. */
    void namesChanged(const QStringList &names);
    /*!
     * Changes were not told (the kernel's queue overflowed), or the folder
     * itself went or came back: any file may have changed.
     */
    void lost();

private:
    bool arm(QString *errorString);
    void disarm();
    void readEvents();
    void rearmWhenTheFolderIsBack();

    QString m_path;
    int m_fd = -1;
    QSocketNotifier *m_notifier = nullptr;
    /*! Where inotify cannot be had: every change told as lost. */
    QFileSystemWatcher *m_fallback = nullptr;
    /*! While the folder is gone: looks for it again, since nothing tells when it is made. */
    QTimer *m_rearm = nullptr;
};

} // namespace baton
