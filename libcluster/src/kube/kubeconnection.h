#pragma once

#include "httpclient.h"
#include "kubeconfig.h"

#include <QByteArray>
#include <QObject>
#include <QSslConfiguration>

#include <functional>
#include <memory>

namespace baton {

class HttpStream;
class KubeCredentials;
struct KubeCredential;

/*!
 * What the Kubernetes clients of one thread that speak to one API server
 * as one user share: the HTTP client (its network managers, their HTTP
 * threads and connections), the TLS settings and the credentials (an exec
 * plugin runs once for all of them, not once per Lease). A process in a
 * thousand elections on one kubeconfig would otherwise hold a thousand of
 * each (issue: Kubernetes at scale).
 *
 * forConfig() hands out the one of this thread for a configuration, alive
 * while a KubeApiClient holds it. Configurations share only when every
 * field that reaches the wire is equal (server, CA, TLS, user, credentials
 * and the request timeout); the namespace is not one of them, it only
 * names URLs. Callbacks here run on a later turn; KubeApiClient drops the
 * answers its owner no longer waits for.
 */
class KubeConnection : public QObject
{
    Q_OBJECT
public:
    using Callback = HttpClient::Callback;
    /*! A stream opened, or why none could be (credentials, TLS). */
    using StreamCallback = std::function<void(HttpStream *stream, const QString &errorString)>;

    static std::shared_ptr<KubeConnection> forConfig(const KubeClientConfig &config, int timeoutMs);
    /*! How many live in this thread (for tests of the sharing). */
    static int countInThisThread();

    ~KubeConnection() override;

    /*! Applies the TLS settings once; each later call gives the first one's outcome. */
    bool setUp(QString *errorString);

    void send(const QByteArray &method, const QUrl &url, const QJsonObject &body, Callback done);
    /*! As KubeApiClient::openStream(): \a done is not called once \a parent is gone. */
    void openStream(const QUrl &url, QObject *parent, StreamCallback done);
    void invalidateCredentials();

private:
    KubeConnection(const KubeClientConfig &config, int timeoutMs);
    void sendWith(const QByteArray &method, const QUrl &url, const QJsonObject &body, Callback done,
                  bool retriedAfter401);
    bool applyCredential(const KubeCredential &credential, QString *errorString);

    KubeClientConfig m_config;
    int m_timeoutMs;
    HttpClient *m_http;
    KubeCredentials *m_credentials;
    QSslConfiguration m_baseSsl;
    QByteArray m_appliedCert;
    enum class SetUp { NotYet, Done, Failed };
    SetUp m_setUp = SetUp::NotYet;
    QString m_setUpError;
};

} // namespace baton
