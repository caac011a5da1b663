#pragma once

#include "etcdsettings.h"

#include <baton/store.h>

#include <QDeadlineTimer>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QSet>
#include <QUrl>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>

namespace baton {

class HttpClient;
class HttpStream;
class SecretFile;

/*!
 * Requests to one etcd cluster over its JSON API (the gRPC gateway), for
 * the etcd store and its watch: the twin of KubeApiClient. It knows the
 * endpoints and moves to the next one when a request fails to reach the
 * current one (refused, timed out, TLS, 5xx), giving each attempt its share
 * of what is left of the deadline, so an answer, good or bad, always comes
 * within it. With a username it authenticates first, and once more when
 * etcd answers "invalid auth token". The password and the token are never
 * logged nor put in a message (R2). It reads no key and no value: what a
 * request means is its caller's business.
 */
class EtcdClient : public QObject
{
    Q_OBJECT
public:
    /*! Why a request got no answer, as the Store reports it (Unavailable, BadReply). */
    using Failure = std::optional<StoreResult>;
    using ReplyHandler = std::function<void(const QJsonObject &json, const Failure &failure)>;
    /*! The endpoint and token a stream was opened with, for reporting its failures. */
    struct StreamOrigin
    {
        int endpoint = -1;
        QByteArray token;
    };
    /*! A stream opened, or why none could be (authentication failed). */
    using StreamHandler =
            std::function<void(HttpStream *stream, const StreamOrigin &origin, const Failure &failed)>;

    /*! \a description names the store in every message: `Webda/EtcdStore "Registry"`. */
    EtcdClient(const QString &description, QObject *parent);
    ~EtcdClient() override;

    /*! Opens the password file and the TLS files; false with a refusal naming the parameter (P1). */
    bool setUp(const EtcdSettings &settings, QString *errorString);

    QString description() const { return m_description; }
    int timeoutMs() const { return m_timeoutMs; }
    /*! How many times this client authenticated (tests of the re-authentication). */
    int authentications() const { return m_authentications; }
    /*! The newest revision an answer or a watch event reported (0: none yet). */
    qint64 knownRevision() const { return m_knownRevision; }
    void noteRevision(qint64 revision) { m_knownRevision = std::max(m_knownRevision, revision); }

    /*!
     * POSTs \a body to \a path. \a done runs exactly once, on a later turn,
     * by \a deadline. When \a refused is set, it takes instead of \a done a
     * failure that is etcd refusing what was sent (an HTTP status).
     */
    void call(const QString &path, const QJsonObject &body, ReplyHandler done,
              QDeadlineTimer deadline, ReplyHandler refused = {});
    /*! As above, within the configured timeout. */
    void call(const QString &path, const QJsonObject &body, ReplyHandler done);
    /*!
     * call() in two halves, for the path every renewal takes (one frame of
     * ours less on it): request() makes what send() sends, once.
     */
    struct Request;
    using RequestPtr = std::shared_ptr<Request>;
    static RequestPtr request(const QString &path, const QJsonObject &body, ReplyHandler done,
                              QDeadlineTimer deadline, ReplyHandler refused = {});
    /*! As request() with a body already written as compact JSON. */
    static RequestPtr requestWritten(const QString &path, QByteArray json, ReplyHandler done,
                                     QDeadlineTimer deadline, ReplyHandler refused = {});
    void send(const RequestPtr &request);
    /*!
     * Opens a streaming POST (a watch) on the current endpoint, owned by
     * \a parent, once a token is there; \a body is asked for then, so that
     * it says what is wanted at that time. \a done runs once, unless this
     * client or \a parent is destroyed first.
     */
    void openStream(const QString &path, std::function<QJsonObject()> body, QObject *parent,
                    StreamHandler done);

    /*!
     * Requests made from now until releaseRequests(\a holder) wait: a watch
     * being set up holds them, so that it sees every write made after it
     * was asked for.
     */
    void holdRequests(const QObject *holder);
    void releaseRequests(const QObject *holder);

    /*! etcd ended or refused a stream with \a serverMessage: a token it calls invalid is dropped. */
    void streamRefused(const StreamOrigin &origin, const QString &serverMessage);
    /*!
     * etcd never confirmed a stream: with credentials, its token may have
     * expired (etcd 3.4 answers such a stream with silence), so it is dropped.
     */
    void streamUnconfirmed(const StreamOrigin &origin);
    /*! The stream's endpoint failed: the next request goes to the next endpoint. */
    void streamFailed(const StreamOrigin &origin, const QString &why);

    /*! \a text with any secret masked (R2): the belt to the braces of never writing one. */
    QString redact(QString text) const;
    /*! \a error's message; a TLS failure also names the TLS files, so the operator knows which. */
    QString explainFailure(const HttpError &error) const;

private:
    bool hasCredentials() const { return !m_username.isEmpty(); }
    QUrl endpointUrl(int endpoint, const QString &path) const;
    void onAnswer(const RequestPtr &request, int endpoint, const QByteArray &token,
                  const HttpResult &result);
    void finish(const RequestPtr &request, const Failure &failure);
    void authenticate();
    /*! Runs \a then once a token is there (or failed); at once when none is needed. */
    void withToken(std::function<void(const Failure &)> then);
    void endpointFailed(int endpoint, const QString &why);
    void invalidateToken(const QByteArray &token);
    /*! The TLS files in use, and whether a client certificate is among them. */
    QString tlsNotes() const;
    /*! The TLS files in use, or that the system's CAs are. */
    QString tlsFiles() const;

    QString m_description;
    HttpClient *m_http = nullptr;
    SecretFile *m_passwordFile = nullptr;
    QList<QUrl> m_endpoints;
    int m_current = 0;
    QString m_username;
    QString m_password;
    QByteArray m_token;
    bool m_authenticating = false;
    int m_authentications = 0;
    QList<std::function<void(const Failure &)>> m_tokenWaiters;
    /*! "tls.ca FILE, tls.cert FILE, tls.key FILE" as configured, for TLS failures. */
    QString m_tlsFiles;
    bool m_usesHttps = false;
    bool m_hasClientCertificate = false;
    int m_timeoutMs = 5000;
    QSet<const QObject *> m_holders;
    QList<RequestPtr> m_held;
    qint64 m_knownRevision = 0;
};

} // namespace baton
