#pragma once

#include "connection.h"

#include <QObject>

#include <functional>
#include <optional>

class QSettings;

namespace baton {

class SecretStore;

/*!
 * The saved connections: kinds and parameters in QSettings, secrets in the
 * system keychain under `connection/<id>/<field>` (O4, R2). Also
 * remembers the last connection opened, which the dashboard reopens at
 * start.
 *
 * Settings layout: `connections/<id>/name`, `connections/<id>/kind`,
 * `connections/<id>/parameters/<field>`, `lastConnection`.
 */
class ConnectionRepository : public QObject
{
    Q_OBJECT
public:
    ConnectionRepository(QSettings *settings, SecretStore *secrets, QObject *parent = nullptr);

    using Done = std::function<void(bool ok, const QString &errorString)>;

    /*! Every saved connection, by name; without secrets. */
    QList<Connection> connections() const;
    std::optional<Connection> connection(const QString &id) const;

    /*!
     * Saves \a connection (a new id when empty, returned). Secrets with a
     * value are written to the keychain; an empty secret leaves the stored
     * one unchanged, and the names in \a clearSecrets are removed. \a done
     * runs once, when the keychain has answered.
     */
    QString save(Connection connection, Done done, const QStringList &clearSecrets = {});
    void remove(const QString &id, Done done);
    /*! Reads the secrets of \a connection from the keychain into a copy of it. */
    void loadSecrets(const Connection &connection,
                     std::function<void(const Connection &connection, const QString &errorString)> done);

    QString lastConnectionId() const;
    void setLastConnectionId(const QString &id);

    static QString secretKey(const QString &id, const QString &field);

Q_SIGNALS:
    void changed();

private:
    QSettings *m_settings;
    SecretStore *m_secrets;
};

} // namespace baton
