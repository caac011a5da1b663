#pragma once

#include <QCoreApplication>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QVariantMap>

#include <optional>

namespace baton {

/*! Where a connection's leases live. New kinds slot in here and in storeConfig(). */
enum class ConnectionKind { FileRegistry, Etcd, Kubernetes };

/*! One parameter of a connection kind, as the connection dialog shows it. */
struct ConnectionField
{
    enum class Type { Text, Folder, File, List, Number, Secret };
    QString key;
    QString label;
    Type type = Type::Text;
    QString placeholder;
    bool required = false;
};

/*!
 * A place the dashboard observes (O4): a kind, its parameters, and its
 * secrets. Parameters go to QSettings; secrets (an etcd password, a bearer
 * token) go to the system keychain only (R2) and are held here in memory
 * while the connection is open or edited.
 */
struct Connection
{
    Q_DECLARE_TR_FUNCTIONS(Connection)
public:
    QString id;
    QString name;
    ConnectionKind kind = ConnectionKind::FileRegistry;
    /*! Non-secret parameters, by ConnectionField::key. */
    QVariantMap parameters;
    /*! Secret parameters, by ConnectionField::key: never written to settings. */
    QHash<QString, QString> secrets;

    static QString kindKey(ConnectionKind kind);
    static std::optional<ConnectionKind> kindFromKey(const QString &key);
    static QString kindName(ConnectionKind kind);
    static QList<ConnectionKind> kinds();
    static QList<ConnectionField> fields(ConnectionKind kind);
    /*!
     * Whether this build can open the kind: a Registry store type that the
     * ServiceFactory knows, or Kubernetes (observed through
     * KubernetesLeaseProtocol, which every build has).
     */
    static bool isAvailable(ConnectionKind kind);
    /*! The Registry store type a kind opens, e.g. `Webda/FileStore`; empty for Kubernetes. */
    static QString storeType(ConnectionKind kind);
    /*! Whether the dashboard can take part in elections on the kind: it needs a Registry store. */
    static bool canJoin(ConnectionKind kind) { return !storeType(kind).isEmpty(); }

    /*!
     * The store's service configuration (B1 parameters), secrets
     * included: for the store only, never for logs or files.
     */
    QJsonObject storeConfig() const;
    /*! What the title bar and the status bar say: the name, or the folder. */
    QString displayName() const;
    /*! The first missing required field's label, or an empty string. */
    QString missingField() const;

    /*!
     * The Registry folder that `baton join` uses on this host when its
     * configuration names no Registry: `registry` in baton's data folder
     * (`BATON_DATA_DIR`, else `~/.local/share/baton`).
     */
    static QString thisHostRegistryFolder();
    /*! "This host": a file Registry connection to thisHostRegistryFolder(). */
    static Connection thisHost();
};

} // namespace baton
