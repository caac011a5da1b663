#include "kubeapiclient.h"

#include "httpstream.h"
#include "kubecredentials.h"

#include <QJsonArray>
#include <QPointer>
#include <QSslCertificate>
#include <QSslKey>
#include <QTimer>
#include <QUrlQuery>

namespace baton {

KubeApiClient::KubeApiClient(const KubeClientConfig &config, int timeoutMs, QObject *parent)
    : QObject(parent)
    , m_config(config)
    , m_timeoutMs(timeoutMs)
    , m_http(new HttpClient(this))
    , m_credentials(new KubeCredentials(config, nullptr, this))
{
}

KubeApiClient::~KubeApiClient()
{
    // Answers still on their way go nowhere: the HTTP client goes first.
    delete m_http;
}

bool KubeApiClient::setUp(QString *errorString)
{
    QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
    if (!m_config.caPem.isEmpty()) {
        const QList<QSslCertificate> cas = QSslCertificate::fromData(m_config.caPem);
        if (cas.isEmpty()) {
            *errorString = QStringLiteral("%1: the certificate authority holds no PEM certificate")
                                   .arg(m_config.source);
            return false;
        }
        ssl.setCaCertificates(cas); // only the cluster's CA, as kubectl does
    }
    if (m_config.insecureSkipTlsVerify)
        ssl.setPeerVerifyMode(QSslSocket::VerifyNone);
    m_baseSsl = ssl;
    m_http->setSslConfiguration(ssl);
    if (!m_config.tlsServerName.isEmpty())
        m_http->setPeerVerifyName(m_config.tlsServerName);
    KubeCredential fromConfig;
    fromConfig.clientCertPem = m_config.clientCertPem;
    fromConfig.clientKeyPem = m_config.clientKeyPem;
    return applyCredential(fromConfig, errorString);
}

bool KubeApiClient::applyCredential(const KubeCredential &credential, QString *errorString)
{
    if (credential.clientCertPem == m_appliedCert)
        return true;
    QSslConfiguration ssl = m_baseSsl;
    if (!credential.clientCertPem.isEmpty()) {
        const QList<QSslCertificate> certs = QSslCertificate::fromData(credential.clientCertPem);
        QSslKey key(credential.clientKeyPem, QSsl::Rsa);
        if (key.isNull())
            key = QSslKey(credential.clientKeyPem, QSsl::Ec);
        if (certs.isEmpty() || key.isNull()) {
            // Never the key itself (R2).
            *errorString = QStringLiteral("%1: the client certificate or key is not an unencrypted "
                                          "PEM certificate and RSA or EC key")
                                   .arg(m_config.source);
            return false;
        }
        ssl.setLocalCertificate(certs.first());
        ssl.setPrivateKey(key);
    }
    m_http->setSslConfiguration(ssl);
    m_appliedCert = credential.clientCertPem;
    return true;
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
    sendWith(method, url, body, std::move(done), false);
}

void KubeApiClient::sendWith(const QByteArray &method, const QUrl &url, const QJsonObject &body,
                             Callback done, bool retriedAfter401)
{
    m_credentials->get([this, method, url, body, done = std::move(done),
                        retriedAfter401](const KubeCredential &credential, const QString &error) {
        HttpResult failed;
        failed.error.kind = HttpError::Kind::Network;
        if (!error.isEmpty()) {
            failed.error.message = error;
            QTimer::singleShot(0, this, [done, failed] { done(failed); });
            return;
        }
        if (!applyCredential(credential, &failed.error.message)) {
            QTimer::singleShot(0, this, [done, failed] { done(failed); });
            return;
        }
        HttpClient::Headers headers;
        if (!credential.authorization.isEmpty())
            headers.append({"Authorization", credential.authorization});
        QUrl withTimeout = url;
        QUrlQuery query(url);
        query.addQueryItem(QStringLiteral("timeout"), QStringLiteral("%1s").arg((m_timeoutMs + 999) / 1000));
        withTimeout.setQuery(query);
        m_http->sendJson(method, withTimeout, body, headers, m_timeoutMs,
                         [this, method, url, body, done, retriedAfter401](const HttpResult &result) {
                             if (result.error.httpStatus == 401) {
                                 // A token may have rotated or expired: fetch a
                                 // fresh one, once, before giving up.
                                 m_credentials->invalidate();
                                 if (!retriedAfter401
                                     && (m_config.exec || !m_config.tokenFile.isEmpty())) {
                                     sendWith(method, url, body, done, true);
                                     return;
                                 }
                             }
                             done(result);
                         });
    });
}

void KubeApiClient::openStream(const QUrl &url, QObject *parent, StreamCallback done)
{
    m_credentials->get([this, url, parent = QPointer<QObject>(parent),
                        done = std::move(done)](const KubeCredential &credential, const QString &error) {
        QString tlsError;
        if (!error.isEmpty() || !applyCredential(credential, &tlsError)) {
            done(nullptr, error.isEmpty() ? tlsError : error);
            return;
        }
        if (!parent)
            return;
        HttpClient::Headers headers;
        if (!credential.authorization.isEmpty())
            headers.append({"Authorization", credential.authorization});
        done(m_http->getStream(url, headers, parent), QString());
    });
}

void KubeApiClient::invalidateCredentials()
{
    m_credentials->invalidate();
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
