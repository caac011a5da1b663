#pragma once

#include <QDeadlineTimer>
#include <QHash>
#include <QTimer>

#include <deque>
#include <optional>
#include <vector>

#include "httperror.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPair>
#include <QSslConfiguration>
#include <QUrl>

#include <functional>

class QNetworkAccessManager;
class QNetworkReply;
class QNetworkRequest;

namespace baton {

class HttpStream;

/*! TLS settings of one client; file paths, read once by HttpClient::setTls(). */
struct HttpTlsOptions
{
    /*! PEM CA bundle; empty: the system's CAs. */
    QString caFile;
    /*! PEM client certificate and its unencrypted PEM key (RSA or EC). */
    QString certFile;
    QString keyFile;
    /*! Turns certificate verification off (R3: the owner warns at start). */
    bool insecureSkipVerify = false;
};

/*! The answer to one JSON request. */
struct HttpResult
{
    HttpError error;
    int httpStatus = 0;
    QJsonObject json;

    bool ok() const { return error.ok(); }
};

/*!
 * The one HTTP helper over QNetworkAccessManager that the etcd store (and a
 * Kubernetes backend) speak through (DESIGN: "One HTTP helper"): JSON in and
 * out, a timeout per request, a reply size limit, no redirect to another
 * host or from https to http, TLS from files, and every failure mapped into
 * one HttpError. Nothing blocks: results come through callbacks on later
 * event-loop turns, never from inside the call.
 */
class HttpClient : public QObject
{
    Q_OBJECT
public:
    using Headers = QList<QPair<QByteArray, QByteArray>>;
    using Callback = std::function<void(const HttpResult &)>;
    static constexpr qint64 kDefaultMaxReplyBytes = 4 * 1024 * 1024;

    explicit HttpClient(QObject *parent = nullptr);
    ~HttpClient() override;

    /*! Reads the files of \a options; false with a message naming the file when one is unusable. */
    bool setTls(const HttpTlsOptions &options, QString *errorString);
    /*!
     * The TLS configuration as built by the caller (Kubernetes: CA and
     * client certificate from inline data, or from an exec plugin). Open
     * connections made with another configuration are dropped.
     */
    void setSslConfiguration(const QSslConfiguration &ssl);
    QSslConfiguration sslConfiguration() const
    {
        if (!m_ssl)
            m_ssl = QSslConfiguration::defaultConfiguration();
        return *m_ssl;
    }
    /*! The name the server certificate must carry, when not the URL's host (kubeconfig `tls-server-name`). */
    void setPeerVerifyName(const QString &name) { m_peerVerifyName = name; }
    void setMaxReplyBytes(qint64 bytes) { m_maxReplyBytes = bytes; }
    qint64 maxReplyBytes() const { return m_maxReplyBytes; }

    /*!
     * POSTs \a body to \a url. \a done runs exactly once, on a later turn,
     * unless this client is destroyed first; with an error when no complete
     * JSON object came back within \a timeoutMs.
     */
    void postJson(const QUrl &url, const QJsonObject &body, const Headers &headers, int timeoutMs,
                  Callback done);
    /*!
     * As postJson() with any \a method (GET, PUT, ...); no body when \a body
     * is empty and the method is GET or DELETE. For an HTTP status error,
     * HttpResult::json holds the error body when it is a JSON object (a
     * Kubernetes Status).
     */
    void sendJson(const QByteArray &method, const QUrl &url, const QJsonObject &body,
                  const Headers &headers, int timeoutMs, Callback done);
    /*!
     * As sendJson() with a body its caller wrote as compact JSON (none when
     * empty): an etcd txn of a thousand renewals is written as bytes, not
     * built as objects first.
     */
    void sendWritten(const QByteArray &method, const QUrl &url, const QByteArray &written,
                     const Headers &headers, int timeoutMs, Callback done);
    /*!
     * POSTs \a body and reads the answer as a stream of JSON objects (a
     * watch). The stream has no timeout: its owner decides how long silence
     * may last.
     */
    HttpStream *postStream(const QUrl &url, const QJsonObject &body, const Headers &headers,
                           QObject *parent);
    /*! As postStream() with a GET (a Kubernetes watch). */
    HttpStream *getStream(const QUrl &url, const Headers &headers, QObject *parent);

    /*!
     * Requests sent and not yet answered, streams aside. Past
     * kMaxRequestsInFlight, postJson() and sendJson() keep the request in
     * this client until one is answered, its timeout counting from the call.
     */
    int requestsInFlight() const { return m_requestsInFlight; }
    /*! Requests kept in this client, in the order they were made, for a request in flight to end. */
    int requestsWaiting() const { return int(m_waiting.size()); }
    static constexpr int kConnectionsPerManager = 6;
    static constexpr int kMaxManagers = 8;
    static constexpr int kStreamsOnFirstManager = 2;
    // Beyond one per connection, a few more per connection wait inside Qt,
    // so that a connection freed takes its next request on Qt's HTTP thread
    // at once, not after this thread has heard that it is free.
    static constexpr int kMaxRequestsInFlight = 4 * kConnectionsPerManager * kMaxManagers;

    /*! The method of \a reply, for messages: GET, POST, PUT... */
    static QString methodOf(const QNetworkReply *reply);
    /*! A URL for messages: no user info, no query. */
    static QString describeUrl(const QUrl &url);
    /*!
     * Maps a finished \a reply. \a body is what was read of it; \a cause
     * says why it was aborted, when this side aborted it.
     */
    static HttpError mapError(QNetworkReply *reply, const QByteArray &body, HttpError::Kind cause,
                              const QString &causeMessage);
    /*! Whether a redirect from \a from to \a to stays on the same host and is not a downgrade. */
    static bool isSafeRedirect(const QUrl &from, const QUrl &to);

private:
    QNetworkRequest makeRequest(const QUrl &url, const Headers &headers) const;
    /*!
     * The manager for the next request. Qt 6.4 opens at most six
     * connections per host and manager, and etcd serves one request at a
     * time per connection: a process in hundreds of elections (P3)
     * would queue its renewals behind each other for longer than a
     * renewInterval. Beyond six in flight, another manager takes them (up
     * to kMaxManagers, each with its own six connections).
     */
    QNetworkAccessManager *managerForRequest();
    /*!
     * The manager for a new stream. A stream holds its connection for as
     * long as it lasts, and Qt queues a seventh request to a host behind
     * six that never end: the first manager serves the first
     * kStreamsOnFirstManager streams beside the requests (an etcd store's
     * watches), the rest go six to a manager of their own (a thousand
     * Kubernetes Lease watches of one process).
     */
    QNetworkAccessManager *managerForStream();
    enum class ReplyKind { Request, Stream };
    void track(QNetworkAccessManager *manager, QNetworkReply *reply, ReplyKind kind);
    /*! Sends what waits, in order, while connections are free. */
    void sendWaiting();
    /*! Fails what waited past its timeout; then sends what it can. */
    void failWaitedOut();

    /*!
     * A request made while every connection of every manager is busy. It
     * waits here, a few hundred bytes, rather than as a QNetworkReply
     * queued inside Qt (kilobytes each): a process starting a thousand
     * elections makes thousands of requests at once, and the heap they
     * took stays with the process after they are answered.
     */
    struct Waiting
    {
        QByteArray method;
        QUrl url;
        QByteArray body;
        Headers headers;
        int timeoutMs = 0;
        QDeadlineTimer deadline;
        Callback done;
    };
    /*! Answers \a waiting, on a later turn, that its timeout passed. */
    void failWaiting(Waiting waiting);
    std::deque<Waiting> m_waiting;
    int m_requestsInFlight = 0;
    /*! sendWaiting() is sending the first that waits: sendWritten() sends it. */
    bool m_sendingWaiting = false;
    QTimer m_waitBound;

    QNetworkAccessManager *m_network;
    std::vector<QNetworkAccessManager *> m_managers; // [0] is m_network, which also serves streams
    std::vector<QNetworkAccessManager *> m_streamManagers;
    QHash<QNetworkAccessManager *, int> m_streams;
    QHash<QNetworkAccessManager *, int> m_inFlight;
    // Made on first use: the default configuration loads the TLS backend
    // (OpenSSL, about 4 MB resident) that a plain-HTTP etcd never needs.
    mutable std::optional<QSslConfiguration> m_ssl;
    QString m_peerVerifyName;
    qint64 m_maxReplyBytes = kDefaultMaxReplyBytes;
};

} // namespace baton
