#include "connectionrepository.h"

#include <batoninternal/privatefiles.h>
#include "secretstore.h"

#include <QPointer>
#include <QSettings>
#include <QUuid>

#include <algorithm>
#include <memory>

namespace baton {

namespace {

/*! Counts the keychain answers and calls \a done once, after the last. */
struct Pending
{
    int outstanding = 0;
    bool ok = true;
    QStringList errors;
    ConnectionRepository::Done done;

    void finishOne(bool success, const QString &error)
    {
        if (!success) {
            ok = false;
            errors.append(error);
        }
        if (--outstanding == 0 && done)
            done(ok, errors.join(QLatin1String("; ")));
    }
};

} // namespace

ConnectionRepository::ConnectionRepository(QSettings *settings, SecretStore *secrets, QObject *parent)
    : QObject(parent)
    , m_settings(settings)
    , m_secrets(secrets)
{
    // R2: the connections' hosts and user names are nobody else's business;
    // QSettings would create its file with the umask's mode, and keeps the
    // mode of the file it rewrites.
    if (m_settings)
        privatefiles::prepareFile(m_settings->fileName());
}

QString ConnectionRepository::secretKey(const QString &id, const QString &field)
{
    return QStringLiteral("connection/%1/%2").arg(id, field);
}

QList<Connection> ConnectionRepository::connections() const
{
    m_settings->beginGroup(QStringLiteral("connections"));
    const QStringList ids = m_settings->childGroups();
    m_settings->endGroup();
    QList<Connection> all;
    for (const QString &id : ids)
        if (const auto c = connection(id))
            all.append(*c);
    std::sort(all.begin(), all.end(), [](const Connection &a, const Connection &b) {
        return a.name.localeAwareCompare(b.name) < 0;
    });
    return all;
}

std::optional<Connection> ConnectionRepository::connection(const QString &id) const
{
    if (id.isEmpty())
        return std::nullopt;
    m_settings->beginGroup(QStringLiteral("connections/") + id);
    const auto kind = Connection::kindFromKey(m_settings->value(QStringLiteral("kind")).toString());
    std::optional<Connection> result;
    if (kind) {
        Connection c;
        c.id = id;
        c.kind = *kind;
        c.name = m_settings->value(QStringLiteral("name")).toString();
        m_settings->beginGroup(QStringLiteral("parameters"));
        const QStringList keys = m_settings->childKeys();
        for (const QString &key : keys)
            c.parameters.insert(key, m_settings->value(key));
        m_settings->endGroup();
        result = c;
    }
    m_settings->endGroup();
    return result;
}

QString ConnectionRepository::save(Connection connection, Done done, const QStringList &clearSecrets)
{
    if (connection.id.isEmpty())
        connection.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    const QString group = QStringLiteral("connections/") + connection.id;
    m_settings->remove(group);
    m_settings->beginGroup(group);
    m_settings->setValue(QStringLiteral("name"), connection.name);
    m_settings->setValue(QStringLiteral("kind"), Connection::kindKey(connection.kind));
    const QList<ConnectionField> fields = Connection::fields(connection.kind);
    for (const ConnectionField &field : fields) {
        // R2: a secret field never reaches the settings file, even if a
        // caller left it among the parameters.
        if (field.type == ConnectionField::Type::Secret)
            continue;
        const QVariant value = connection.parameters.value(field.key);
        if (!value.toString().isEmpty())
            m_settings->setValue(QStringLiteral("parameters/") + field.key, value);
    }
    m_settings->endGroup();
    m_settings->sync();

    auto pending = std::make_shared<Pending>();
    pending->done = std::move(done);
    pending->outstanding = 1; // released below, after every job has started
    for (const ConnectionField &field : fields) {
        if (field.type != ConnectionField::Type::Secret)
            continue;
        const QString value = connection.secrets.value(field.key);
        const QString key = secretKey(connection.id, field.key);
        if (!value.isEmpty()) {
            ++pending->outstanding;
            m_secrets->write(key, value, [pending](bool ok, const QString &error) { pending->finishOne(ok, error); });
        } else if (clearSecrets.contains(field.key)) {
            ++pending->outstanding;
            m_secrets->remove(key, [pending](bool ok, const QString &error) { pending->finishOne(ok, error); });
        }
    }
    Q_EMIT changed();
    // done never runs inside this call, secrets or not.
    QMetaObject::invokeMethod(this, [pending] { pending->finishOne(true, {}); }, Qt::QueuedConnection);
    return connection.id;
}

void ConnectionRepository::remove(const QString &id, Done done)
{
    const std::optional<Connection> c = connection(id);
    m_settings->remove(QStringLiteral("connections/") + id);
    if (lastConnectionId() == id)
        m_settings->remove(QStringLiteral("lastConnection"));
    m_settings->sync();
    auto pending = std::make_shared<Pending>();
    pending->done = std::move(done);
    pending->outstanding = 1;
    if (c) {
        const QList<ConnectionField> fields = Connection::fields(c->kind);
        for (const ConnectionField &field : fields) {
            if (field.type != ConnectionField::Type::Secret)
                continue;
            ++pending->outstanding;
            m_secrets->remove(secretKey(id, field.key),
                              [pending](bool ok, const QString &error) { pending->finishOne(ok, error); });
        }
    }
    Q_EMIT changed();
    // done never runs inside this call, secrets or not.
    QMetaObject::invokeMethod(this, [pending] { pending->finishOne(true, {}); }, Qt::QueuedConnection);
}

void ConnectionRepository::loadSecrets(const Connection &connection,
                                       std::function<void(const Connection &, const QString &)> done)
{
    struct Loading
    {
        Connection connection;
        int outstanding = 1;
        QStringList errors;
        std::function<void(const Connection &, const QString &)> done;
        void finishOne()
        {
            if (--outstanding == 0)
                done(connection, errors.join(QLatin1String("; ")));
        }
    };
    auto loading = std::make_shared<Loading>();
    loading->connection = connection;
    loading->done = std::move(done);
    const QList<ConnectionField> fields = Connection::fields(connection.kind);
    for (const ConnectionField &field : fields) {
        if (field.type != ConnectionField::Type::Secret)
            continue;
        ++loading->outstanding;
        const QString name = field.key;
        m_secrets->read(secretKey(connection.id, name),
                        [loading, name](bool ok, const QString &value, const QString &error) {
                            if (ok && !value.isEmpty())
                                loading->connection.secrets.insert(name, value);
                            else if (!ok)
                                loading->errors.append(error);
                            loading->finishOne();
                        });
    }
    // The callback never runs inside this call (as the keychain jobs do).
    QMetaObject::invokeMethod(this, [loading] { loading->finishOne(); }, Qt::QueuedConnection);
}

QString ConnectionRepository::lastConnectionId() const
{
    return m_settings->value(QStringLiteral("lastConnection")).toString();
}

void ConnectionRepository::setLastConnectionId(const QString &id)
{
    m_settings->setValue(QStringLiteral("lastConnection"), id);
}

} // namespace baton
