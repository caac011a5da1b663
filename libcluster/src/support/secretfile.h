#pragma once

#include <QObject>
#include <QString>

class QFileSystemWatcher;

namespace baton {

/*!
 * A secret kept in a file of its own (a systemd credential, a mounted
 * Kubernetes Secret), so that it is never written in the configuration:
 * read at start, and again whenever the file changes. The value never
 * appears in a message; only the file's name does.
 */
class SecretFile : public QObject
{
    Q_OBJECT
public:
    explicit SecretFile(QObject *parent = nullptr);

    /*!
     * Where \a configured points: as written when absolute, else in
     * `$CREDENTIALS_DIRECTORY` when it is set (systemd's LoadCredential=),
     * else against the working folder.
     */
    static QString resolve(const QString &configured);

    /*!
     * Reads \a path (one trailing newline is dropped) and follows it.
     * Returns false with the rule it breaks in \a errorString: it must exist,
     * be readable and not be empty. A file that others may read is accepted
     * with a warning in \a warning.
     */
    bool open(const QString &path, QString *errorString, QString *warning);

    /*!
     * Checks \a path as open() does, for a reader that reads it itself (the
     * Kubernetes token file): same rules, same messages, no value kept.
     */
    static bool check(const QString &path, QString *errorString, QString *warning);

    /*! The value of \a path, with open()'s rules and messages, and no watch. */
    static bool read(const QString &path, QString *value, QString *errorString);

    QString path() const { return m_path; }
    QString value() const { return m_value; }

Q_SIGNALS:
    /*! The file holds another value now; value() has it. */
    void changed();

private:
    void reread();

    QString m_path;
    QString m_value;
    QFileSystemWatcher *m_watcher = nullptr;
};

} // namespace baton
