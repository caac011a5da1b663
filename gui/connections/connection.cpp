#include "connection.h"

#include <QDir>
#include <QStandardPaths>

#include <baton/servicefactory.h>

#include <QJsonArray>

namespace baton {

QString Connection::kindKey(ConnectionKind kind)
{
    switch (kind) {
    case ConnectionKind::FileRegistry:
        return QStringLiteral("file");
    case ConnectionKind::Etcd:
        return QStringLiteral("etcd");
    case ConnectionKind::Kubernetes:
        return QStringLiteral("kubernetes");
    }
    return {};
}

std::optional<ConnectionKind> Connection::kindFromKey(const QString &key)
{
    for (ConnectionKind kind : kinds())
        if (kindKey(kind) == key)
            return kind;
    return std::nullopt;
}

QString Connection::kindName(ConnectionKind kind)
{
    switch (kind) {
    case ConnectionKind::FileRegistry:
        return tr("File Registry (folder)");
    case ConnectionKind::Etcd:
        return tr("etcd");
    case ConnectionKind::Kubernetes:
        return tr("Kubernetes namespace");
    }
    return {};
}

QList<ConnectionKind> Connection::kinds()
{
    return {ConnectionKind::FileRegistry, ConnectionKind::Etcd, ConnectionKind::Kubernetes};
}

QList<ConnectionField> Connection::fields(ConnectionKind kind)
{
    using T = ConnectionField::Type;
    switch (kind) {
    case ConnectionKind::FileRegistry:
        return {{QStringLiteral("folder"), tr("Folder"), T::Folder,
                 tr("the Registry folder shared by the participants"), true}};
    case ConnectionKind::Etcd:
        return {{QStringLiteral("endpoints"), tr("Endpoints"), T::List,
                 tr("https://127.0.0.1:2379, one or more, comma-separated"), true},
                {QStringLiteral("prefix"), tr("Key prefix"), T::Text, tr("optional"), false},
                {QStringLiteral("username"), tr("User name"), T::Text, tr("optional"), false},
                {QStringLiteral("password"), tr("Password"), T::Secret, tr("kept in the system keychain"), false},
                {QStringLiteral("tls.ca"), tr("CA certificate"), T::File, tr("PEM file; empty: system CAs"), false},
                {QStringLiteral("tls.cert"), tr("Client certificate"), T::File, tr("PEM file, optional"), false},
                {QStringLiteral("tls.key"), tr("Client key"), T::File, tr("PEM file, optional"), false},
                {QStringLiteral("timeout"), tr("Timeout (ms)"), T::Number, tr("empty: 5000"), false}};
    case ConnectionKind::Kubernetes:
        return {{QStringLiteral("config"), tr("Kubeconfig"), T::File, tr("empty: KUBECONFIG, then ~/.kube/config"), false},
                {QStringLiteral("context"), tr("Context"), T::Text, tr("empty: the current context"), false},
                {QStringLiteral("namespace"), tr("Namespace"), T::Text, tr("empty: all namespaces"), false},
                {QStringLiteral("token"), tr("Bearer token"), T::Secret,
                 tr("optional, overrides the kubeconfig; kept in the system keychain"), false}};
    }
    return {};
}

QString Connection::storeType(ConnectionKind kind)
{
    switch (kind) {
    case ConnectionKind::FileRegistry:
        return QStringLiteral("Webda/FileStore");
    case ConnectionKind::Etcd:
        return QStringLiteral("Webda/EtcdStore");
    case ConnectionKind::Kubernetes:
        return {};
    }
    return {};
}

bool Connection::isAvailable(ConnectionKind kind)
{
    if (kind == ConnectionKind::Kubernetes)
        return true;
    const QString type = storeType(kind);
    return !type.isEmpty() && !ServiceFactory::resolve(type).isEmpty();
}

QJsonObject Connection::storeConfig() const
{
    QJsonObject config {{QStringLiteral("type"), storeType(kind)}};
    QJsonObject tls;
    const QList<ConnectionField> all = fields(kind);
    for (const ConnectionField &field : all) {
        QJsonValue value;
        if (field.type == ConnectionField::Type::Secret) {
            const QString secret = secrets.value(field.key);
            if (secret.isEmpty())
                continue;
            value = secret;
        } else {
            const QString text = parameters.value(field.key).toString().trimmed();
            if (text.isEmpty())
                continue;
            if (field.type == ConnectionField::Type::List) {
                QJsonArray list;
                const QStringList parts = text.split(QLatin1Char(','), Qt::SkipEmptyParts);
                for (const QString &part : parts)
                    list.append(part.trimmed());
                value = list;
            } else if (field.type == ConnectionField::Type::Number) {
                // Not a number: passed as typed, so that the store refuses it
                // naming the parameter (R1) rather than silently using a default.
                bool ok = false;
                const qint64 number = text.toLongLong(&ok);
                value = ok ? QJsonValue(number) : QJsonValue(text);
            } else {
                value = text;
            }
        }
        if (field.key.startsWith(QLatin1String("tls.")))
            tls.insert(field.key.mid(4), value);
        else
            config.insert(field.key, value);
    }
    if (!tls.isEmpty())
        config.insert(QStringLiteral("tls"), tls);
    return config;
}

QString Connection::displayName() const
{
    if (!name.isEmpty())
        return name;
    switch (kind) {
    case ConnectionKind::FileRegistry:
        return parameters.value(QStringLiteral("folder")).toString();
    case ConnectionKind::Etcd:
        return parameters.value(QStringLiteral("endpoints")).toString();
    case ConnectionKind::Kubernetes:
        return parameters.value(QStringLiteral("context")).toString();
    }
    return {};
}

QString Connection::missingField() const
{
    const QList<ConnectionField> all = fields(kind);
    for (const ConnectionField &field : all)
        if (field.required && field.type != ConnectionField::Type::Secret
            && parameters.value(field.key).toString().trimmed().isEmpty())
            return field.label;
    return {};
}

QString Connection::thisHostRegistryFolder()
{
    // The same folder as Application::dataFolder() in `baton join`, which
    // runs with the application name "baton" and no organisation; the
    // dashboard sets an organisation, so its own data folder differs.
    QString data = qEnvironmentVariable("BATON_DATA_DIR");
    if (data.isEmpty())
        data = QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation))
                       .filePath(QStringLiteral("baton"));
    return QDir(data).filePath(QStringLiteral("registry"));
}

Connection Connection::thisHost()
{
    Connection connection;
    connection.name = tr("This host");
    connection.kind = ConnectionKind::FileRegistry;
    connection.parameters.insert(QStringLiteral("folder"), thisHostRegistryFolder());
    return connection;
}

} // namespace baton
