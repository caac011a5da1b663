#include "kubeconnection.h"

#include "httpclient.h"
#include "httpstream.h"
#include "kubecredentials.h"

#include <QCryptographicHash>
#include <QDataStream>
#include <QHash>
#include <QPointer>
#include <QSslCertificate>
#include <QSslKey>
#include <QTimer>
#include <QUrlQuery>

#include <algorithm>

namespace baton {

namespace {

/*!
 * Every field of \a config that reaches the wire, and the timeout, as a
 * digest: two clients share a connection only when all are equal, and the
 * registry keeps no second copy of a token or a key.
 */
QByteArray sharingKey(const KubeClientConfig &config, int timeoutMs)
{
    QByteArray fields;
    QDataStream out(&fields, QIODevice::WriteOnly);
    out << config.server << config.caPem << config.insecureSkipTlsVerify << config.tlsServerName
        << config.clientCertPem << config.clientKeyPem << config.token << config.tokenFile
        << config.inCluster << config.source << qint32(timeoutMs) << config.exec.has_value();
    if (const std::optional<KubeExecConfig> &exec = config.exec) {
        out << exec->apiVersion << exec->command << exec->args << exec->provideClusterInfo << exec->origin
            << qint32(exec->env.size());
        for (const auto &[name, value] : exec->env)
            out << name << value;
    }
    return QCryptographicHash::hash(fields, QCryptographicHash::Sha256);
}

// Per thread: a connection's HTTP client lives in the thread that made it.
thread_local QHash<QByteArray, std::weak_ptr<KubeConnection>> connections;

} // namespace

std::shared_ptr<KubeConnection> KubeConnection::forConfig(const KubeClientConfig &config, int timeoutMs)
{
    const QByteArray key = sharingKey(config, timeoutMs);
    if (std::shared_ptr<KubeConnection> shared = connections.value(key).lock())
        return shared;
    connections.removeIf([](const auto &entry) { return entry.value().expired(); });
    std::shared_ptr<KubeConnection> made(new KubeConnection(config, timeoutMs));
    connections.insert(key, made);
    return made;
}

int KubeConnection::countInThisThread()
{
    return int(std::count_if(connections.cbegin(), connections.cend(),
                             [](const std::weak_ptr<KubeConnection> &c) { return !c.expired(); }));
}

KubeConnection::KubeConnection(const KubeClientConfig &config, int timeoutMs)
    : m_config(config)
    , m_timeoutMs(timeoutMs)
    , m_http(new HttpClient(this))
    , m_credentials(new KubeCredentials(config, nullptr, this))
{
}

KubeConnection::~KubeConnection()
{
    // Answers still on their way go nowhere: the HTTP client goes first.
    delete m_http;
}

bool KubeConnection::setUp(QString *errorString)
{
    if (m_setUp != SetUp::NotYet) {
        if (m_setUp == SetUp::Failed)
            *errorString = m_setUpError;
        return m_setUp == SetUp::Done;
    }
    QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
    if (!m_config.caPem.isEmpty()) {
        const QList<QSslCertificate> cas = QSslCertificate::fromData(m_config.caPem);
        if (cas.isEmpty()) {
            m_setUpError = QStringLiteral("%1: the certificate authority holds no PEM certificate")
                                   .arg(m_config.source);
            m_setUp = SetUp::Failed;
            *errorString = m_setUpError;
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
    const bool applied = applyCredential(fromConfig, &m_setUpError);
    m_setUp = applied ? SetUp::Done : SetUp::Failed;
    if (!applied)
        *errorString = m_setUpError;
    return applied;
}

bool KubeConnection::applyCredential(const KubeCredential &credential, QString *errorString)
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

void KubeConnection::send(const QByteArray &method, const QUrl &url, const QJsonObject &body, Callback done)
{
    sendWith(method, url, body, std::move(done), false);
}

void KubeConnection::sendWith(const QByteArray &method, const QUrl &url, const QJsonObject &body,
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

void KubeConnection::openStream(const QUrl &url, QObject *parent, StreamCallback done)
{
    m_credentials->get([this, url, parent = QPointer<QObject>(parent),
                        done = std::move(done)](const KubeCredential &credential, const QString &error) {
        // Whoever asked may be gone by the time a credential came (an exec
        // plugin takes its time): its callback would reach a dead object.
        if (!parent)
            return;
        QString tlsError;
        if (!error.isEmpty() || !applyCredential(credential, &tlsError)) {
            done(nullptr, error.isEmpty() ? tlsError : error);
            return;
        }
        HttpClient::Headers headers;
        if (!credential.authorization.isEmpty())
            headers.append({"Authorization", credential.authorization});
        done(m_http->getStream(url, headers, parent), QString());
    });
}

void KubeConnection::invalidateCredentials()
{
    m_credentials->invalidate();
}

} // namespace baton
