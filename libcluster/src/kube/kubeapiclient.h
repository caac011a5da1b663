#pragma once

#include "httpclient.h"
#include "kubeconfig.h"
#include "kubeconnection.h"

#include <QObject>

#include <functional>
#include <memory>

class QUrlQuery;

namespace baton {

class HttpStream;

/*!
 * Requests to one Kubernetes API server, for every Kubernetes client of
 * the library (the election's Lease backend, the observer's Lease source):
 * TLS from the resolved configuration, fresh credentials for each request
 * (KubeCredentials), one retry with a fresh credential after a 401 where
 * the credential can change (exec plugin, token file), client-go's
 * `?timeout=` on each request. Over the one HTTP helper; nothing blocks.
 *
 * The HTTP client, the TLS settings and the credentials are those of a
 * KubeConnection shared by the clients of this thread with the same
 * configuration; this object is its owner's handle on it: the answers to
 * its requests go nowhere once it is destroyed.
 *
 * Messages name the server and the configuration's source, never a token
 * or a key (R2): tokens travel in headers only.
 */
class KubeApiClient : public QObject
{
    Q_OBJECT
public:
    using Callback = KubeConnection::Callback;
    using StreamCallback = KubeConnection::StreamCallback;

    /*!
     * How long the server keeps a watch open (`?timeoutSeconds=`) before it
     * ends the stream and the watcher resumes; client-go picks 5 to 10 minutes.
     */
    static constexpr int kWatchTimeoutSeconds = 300;

    KubeApiClient(const KubeClientConfig &config, int timeoutMs, QObject *parent = nullptr);
    ~KubeApiClient() override;

    /*! Applies the TLS settings of the configuration; false with a message when they are unusable. */
    bool setUp(QString *errorString);

    const KubeClientConfig &config() const { return m_config; }
    int timeoutMs() const { return m_timeoutMs; }

    /*! The Lease collection of \a namespaceName, or of all namespaces when it is empty. */
    QUrl leasesUrl(const QString &namespaceName, const QUrlQuery &query) const;
    /*! The core/v1 Event collection of \a namespaceName, where the Lease's leader changes are told. */
    QUrl eventsUrl(const QString &namespaceName) const;
    /*! The core/v1 ConfigMap collection of \a namespaceName (scheduled runs' records). */
    QUrl configMapsUrl(const QString &namespaceName) const;

    /*! One request; \a done runs exactly once on a later turn, unless this client is destroyed first. */
    void send(const QByteArray &method, const QUrl &url, const QJsonObject &body, Callback done);
    /*!
     * Opens a streaming GET (a watch) owned by \a parent. \a done runs once,
     * unless this client or \a parent is destroyed first.
     */
    void openStream(const QUrl &url, QObject *parent, StreamCallback done);
    /*! The server refused the last credential (401 on a stream): fetch a new one next time. */
    void invalidateCredentials();

    /*!
     * A failed request in words: \a what (`listing Leases in ns`), the
     * status, the Status message; \a forbiddenHint follows a 403 (which
     * Role the caller needs).
     */
    QString explain(const HttpResult &result, const QString &what, const QString &forbiddenHint) const;

private:
    /*! The server's URL with \a path under its own path (a server behind a proxy prefix). */
    QUrl apiUrl(const QString &path) const;

    KubeClientConfig m_config;
    int m_timeoutMs;
    std::shared_ptr<KubeConnection> m_connection;
};

} // namespace baton
