#include "etcdsettings.h"

#include "parameters.h"
#include "storesupport.h"

#include <QJsonArray>

namespace baton {

using namespace storesupport;

namespace {

constexpr int kDefaultTimeoutMs = 5000;
constexpr int kMaxTimeoutMs = 600000;
// Standing in for a secret in a refusal (R2): the rule is said, the value never.
const QJsonValue kHidden = QStringLiteral("(hidden)");

/*! The endpoints, or false with the refusal when the list is not what etcd URLs must be. */
bool readEndpoints(const QString &service, const QJsonValue &endpointsValue, QList<QUrl> *endpoints,
                   QString *errorString)
{
    const QString rule = QStringLiteral(
            "it must be a non-empty list of http:// or https:// URLs such as "
            "[\"http://127.0.0.1:2379\"], with no user name or password in them");
    if (!endpointsValue.isArray() || endpointsValue.toArray().isEmpty())
        return refuse(errorString, service, QStringLiteral("endpoints"), endpointsValue, rule);
    for (const QJsonValue &value : endpointsValue.toArray()) {
        const QUrl url(value.toString(), QUrl::StrictMode);
        const bool valid = value.isString() && url.isValid() && !url.host().isEmpty()
                && (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https"))
                && url.userInfo().isEmpty() && !url.hasQuery() && !url.hasFragment();
        if (!valid) {
            // The URL is not shown when it carries user info: it may hold a password.
            return refuse(errorString, service, QStringLiteral("endpoints"),
                          url.userInfo().isEmpty() ? value : kHidden, rule);
        }
        QUrl base = url;
        base.setPath(url.path().endsWith(QLatin1Char('/')) ? url.path().chopped(1) : url.path());
        endpoints->append(base);
    }
    return true;
}

} // namespace

QStringList EtcdSettings::parameterNames()
{
    return {QStringLiteral("endpoints"),   QStringLiteral("prefix"),
            QStringLiteral("username"),    QStringLiteral("password"),
            QStringLiteral("passwordFile"), QStringLiteral("timeout"),
            QStringLiteral("tls.ca"),      QStringLiteral("tls.cert"),
            QStringLiteral("tls.key"),     QStringLiteral("tls.insecureSkipVerify")};
}

bool EtcdSettings::read(const QString &service, const QJsonObject &parameters,
                        EtcdSettings *settings, QString *errorString)
{
    EtcdSettings read;
    read.service = service;
    if (!readEndpoints(service, parameters.value(QLatin1String("endpoints")), &read.endpoints,
                       errorString))
        return false;

    ParameterReader reader(service, parameters);
    read.prefix = reader.string(QStringLiteral("prefix"), {}, true);
    read.username = reader.string(QStringLiteral("username"));
    read.password = reader.secret(QStringLiteral("password"));
    read.passwordFile = reader.string(QStringLiteral("passwordFile"));
    read.timeoutMs = int(reader.duration(QStringLiteral("timeout"), kDefaultTimeoutMs, ParameterReader::kMinStoreTimeoutMs,
                                         kMaxTimeoutMs));
    const bool hasPassword = reader.has(QStringLiteral("password"))
            || reader.has(QStringLiteral("passwordFile"));
    if (reader.has(QStringLiteral("password")) && reader.has(QStringLiteral("passwordFile")))
        reader.refuseHidden(QStringLiteral("password"),
                            QStringLiteral("it is set together with \"passwordFile\": keep one"));
    if (reader.has(QStringLiteral("username")) && !hasPassword)
        reader.refuse(QStringLiteral("password"), QJsonValue::Undefined,
                      QStringLiteral("it (or \"passwordFile\") is required with username"));
    if (!reader.has(QStringLiteral("username")) && hasPassword)
        reader.refuse(QStringLiteral("username"), QJsonValue::Undefined,
                      reader.has(QStringLiteral("password"))
                              ? QStringLiteral("it is required with password")
                              : QStringLiteral("it is required with passwordFile"));

    reader.block(QStringLiteral("tls"),
                 QStringLiteral("{\"ca\": \"ca.pem\", \"cert\": \"client.pem\", "
                                "\"key\": \"client-key.pem\"}"));
    read.tls.caFile = reader.string(QStringLiteral("tls.ca"));
    read.tls.certFile = reader.string(QStringLiteral("tls.cert"));
    read.tls.keyFile = reader.string(QStringLiteral("tls.key"));
    read.tls.insecureSkipVerify = reader.boolean(QStringLiteral("tls.insecureSkipVerify"), false);
    read.tlsParameter = parameters.value(QLatin1String("tls"));
    if (!accept(errorString, reader))
        return false;
    *settings = std::move(read);
    return true;
}

} // namespace baton
