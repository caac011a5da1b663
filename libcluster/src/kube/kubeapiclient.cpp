#include "kubeapiclient.h"

#include "httpstream.h"
#include "kubeconnection.h"

#include <QJsonArray>
#include <QPointer>
#include <QUrlQuery>

namespace baton {

KubeApiClient::KubeApiClient(const KubeClientConfig &config, int timeoutMs, QObject *parent)
    : QObject(parent)
    , m_config(config)
    , m_timeoutMs(timeoutMs)
    , m_connection(KubeConnection::forConfig(config, timeoutMs))
{
}

KubeApiClient::~KubeApiClient() = default;

bool KubeApiClient::setUp(QString *errorString)
{
    return m_connection->setUp(errorString);
}

QUrl KubeApiClient::apiUrl(const QString &path) const
{
    QUrl url = m_config.server;
    QString base = url.path();
    if (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    url.setPath(base + path);
    return url;
}

QUrl KubeApiClient::leasesUrl(const QString &namespaceName, const QUrlQuery &query) const
{
    QUrl url = apiUrl(namespaceName.isEmpty()
                              ? QStringLiteral("/apis/coordination.k8s.io/v1/leases")
                              : QStringLiteral("/apis/coordination.k8s.io/v1/namespaces/%1/leases").arg(namespaceName));
    if (!query.isEmpty())
        url.setQuery(query);
    return url;
}

QUrl KubeApiClient::eventsUrl(const QString &namespaceName) const
{
    return apiUrl(QStringLiteral("/api/v1/namespaces/%1/events").arg(namespaceName));
}

QUrl KubeApiClient::configMapsUrl(const QString &namespaceName) const
{
    return apiUrl(QStringLiteral("/api/v1/namespaces/%1/configmaps").arg(namespaceName));
}

void KubeApiClient::send(const QByteArray &method, const QUrl &url, const QJsonObject &body, Callback done)
{
    m_connection->send(method, url, body,
                       [self = QPointer<KubeApiClient>(this), done = std::move(done)](const HttpResult &result) {
                           if (self)
                               done(result);
                       });
}

void KubeApiClient::openStream(const QUrl &url, QObject *parent, StreamCallback done)
{
    m_connection->openStream(url, parent,
                             [self = QPointer<KubeApiClient>(this), done = std::move(done)](
                                     HttpStream *stream, const QString &error) {
                                 if (self) {
                                     done(stream, error);
                                     return;
                                 }
                                 delete stream;
                             });
}

void KubeApiClient::invalidateCredentials()
{
    m_connection->invalidateCredentials();
}

QString KubeApiClient::explain(const HttpResult &result, const QString &what, const QString &forbiddenHint) const
{
    if (result.error.kind != HttpError::Kind::HttpStatus)
        return QStringLiteral("%1: %2").arg(what, result.error.message);
    const QJsonObject status = result.json;
    const QString message = status.value(QStringLiteral("message")).toString(result.error.serverMessage);
    switch (result.error.httpStatus) {
    case 401:
        return QStringLiteral("%1: 401 Unauthorized: the API server refused the credentials of %2; "
                              "check the token, client certificate or exec plugin of its user")
                .arg(what, m_config.source);
    case 403:
        return QStringLiteral("%1: 403 Forbidden: %2 (%3)").arg(what, message, forbiddenHint);
    case 422: {
        QStringList causes;
        const QJsonArray list = status.value(QStringLiteral("details")).toObject().value(QStringLiteral("causes")).toArray();
        for (const QJsonValue &cause : list)
            causes << QStringLiteral("%1: %2").arg(cause[QStringLiteral("field")].toString(),
                                                   cause[QStringLiteral("message")].toString());
        return QStringLiteral("%1: 422 Invalid: %2%3")
                .arg(what, message,
                     causes.isEmpty() ? QString() : QStringLiteral(" [") + causes.join(QStringLiteral("; ")) + QLatin1Char(']'));
    }
    default:
        return QStringLiteral("%1: HTTP %2 %3: %4")
                .arg(what)
                .arg(result.error.httpStatus)
                .arg(status.value(QStringLiteral("reason")).toString(), message);
    }
}

} // namespace baton
