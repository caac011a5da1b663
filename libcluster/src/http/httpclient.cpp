#include "httpclient.h"

#include "boundedread.h"
#include "httpstream.h"
#include "logging.h"

#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QScopedValueRollback>
#include <QSslError>
#include <QTimer>

#include <memory>

namespace baton {

namespace {

using Kind = HttpError::Kind;

/*! A reply's property: it reported certificate errors before its handshake failed. */
constexpr char kCertificateRejected[] = "baton.certificateRejected";

// What a server's error body says, short enough for a log line.
QString serverMessageOf(const QByteArray &body)
{
    const QJsonObject json = QJsonDocument::fromJson(body).object();
    for (const char *field : { "message", "error" }) {
        const QJsonValue value = json.value(QLatin1String(field));
        if (value.isString() && !value.toString().isEmpty())
            return value.toString().left(500);
        // grpc-gateway streams put {"error": {"message": ...}} in the body.
        if (value.isObject()) {
            const QString nested = value.toObject().value(QLatin1String("message")).toString();
            if (!nested.isEmpty())
                return nested.left(500);
        }
    }
    QString text = QString::fromUtf8(body.left(200)).simplified();
    return text;
}

QString describeKind(QNetworkReply::NetworkError error)
{
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
        return QStringLiteral("connection refused");
    case QNetworkReply::RemoteHostClosedError:
        return QStringLiteral("connection closed by the server");
    case QNetworkReply::HostNotFoundError:
        return QStringLiteral("host not found");
    default:
        return {};
    }
}

} // namespace

HttpClient::HttpClient(QObject *parent)
    : QObject(parent)
    , m_network(new QNetworkAccessManager(this))
{
    // Redirects are checked one by one (isSafeRedirect), never followed blindly.
    m_network->setRedirectPolicy(QNetworkRequest::UserVerifiedRedirectPolicy);
    m_managers.push_back(m_network);
    m_waitBound.setSingleShot(true);
    connect(&m_waitBound, &QTimer::timeout, this, &HttpClient::failWaitedOut);
}

QNetworkAccessManager *HttpClient::managerForRequest()
{
    QNetworkAccessManager *least = m_network;
    for (QNetworkAccessManager *manager : m_managers) {
        if (m_inFlight.value(manager) < kConnectionsPerManager)
            return manager;
        if (m_inFlight.value(manager) < m_inFlight.value(least))
            least = manager;
    }
    if (m_managers.size() >= size_t(kMaxManagers))
        return least;
    auto *manager = new QNetworkAccessManager(this);
    manager->setRedirectPolicy(QNetworkRequest::UserVerifiedRedirectPolicy);
    m_managers.push_back(manager);
    return manager;
}

QNetworkAccessManager *HttpClient::managerForStream()
{
    if (m_streams.value(m_network) < kStreamsOnFirstManager)
        return m_network;
    for (QNetworkAccessManager *manager : m_streamManagers) {
        if (m_streams.value(manager) < kConnectionsPerManager)
            return manager;
    }
    auto *manager = new QNetworkAccessManager(this);
    manager->setRedirectPolicy(QNetworkRequest::UserVerifiedRedirectPolicy);
    m_streamManagers.push_back(manager);
    return manager;
}

void HttpClient::track(QNetworkAccessManager *manager, QNetworkReply *reply, ReplyKind kind)
{
    ++m_inFlight[manager];
    // Streams last as long as their owners want: they hold no place among
    // the requests in flight.
    if (kind == ReplyKind::Request)
        ++m_requestsInFlight;
    else
        ++m_streams[manager];
    connect(reply, &QObject::destroyed, this, [this, manager, kind] {
        --m_inFlight[manager];
        if (kind == ReplyKind::Request) {
            --m_requestsInFlight;
            sendWaiting();
        } else {
            --m_streams[manager];
        }
    });
    // Only the signal tells a refused certificate from a failed handshake:
    // the reply's error is SslHandshakeFailedError for both.
    connect(reply, &QNetworkReply::sslErrors, reply, [reply](const QList<QSslError> &errors) {
        if (!errors.isEmpty())
            reply->setProperty(kCertificateRejected, true);
    });
}

HttpClient::~HttpClient() = default;

void HttpClient::setSslConfiguration(const QSslConfiguration &ssl)
{
    if (m_ssl && ssl == *m_ssl)
        return;
    m_ssl = ssl;
    // A kept-alive connection would go on with the old client certificate.
    for (QNetworkAccessManager *manager : m_managers)
        manager->clearConnectionCache();
    for (QNetworkAccessManager *manager : m_streamManagers)
        manager->clearConnectionCache();
}

QString HttpClient::methodOf(const QNetworkReply *reply)
{
    switch (reply->operation()) {
    case QNetworkAccessManager::GetOperation:
        return QStringLiteral("GET");
    case QNetworkAccessManager::PutOperation:
        return QStringLiteral("PUT");
    case QNetworkAccessManager::PostOperation:
        return QStringLiteral("POST");
    case QNetworkAccessManager::DeleteOperation:
        return QStringLiteral("DELETE");
    case QNetworkAccessManager::HeadOperation:
        return QStringLiteral("HEAD");
    default:
        return QString::fromLatin1(
                reply->request().attribute(QNetworkRequest::CustomVerbAttribute).toByteArray());
    }
}

QString HttpClient::describeUrl(const QUrl &url)
{
    return url.toDisplayString(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment);
}

bool HttpClient::isSafeRedirect(const QUrl &from, const QUrl &to)
{
    const QUrl target = from.resolved(to);
    return target.host() == from.host() && target.port(-1) == from.port(-1)
            && !(from.scheme() == QLatin1String("https")
                 && target.scheme() != QLatin1String("https"));
}

QNetworkRequest HttpClient::makeRequest(const QUrl &url, const Headers &headers) const
{
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
    request.setRawHeader("Accept", "application/json");
    for (const auto &header : headers)
        request.setRawHeader(header.first, header.second);
    if (url.scheme() == QLatin1String("https")) {
        request.setSslConfiguration(sslConfiguration());
        if (!m_peerVerifyName.isEmpty())
            request.setPeerVerifyName(m_peerVerifyName);
    }
    return request;
}

HttpError HttpClient::mapError(QNetworkReply *reply, const QByteArray &body, Kind cause,
                               const QString &causeMessage)
{
    HttpError error;
    const QString where = QStringLiteral("%1 %2").arg(methodOf(reply), describeUrl(reply->request().url()));
    const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    error.httpStatus = status.isValid() ? status.toInt() : 0;
    if (cause != Kind::None) {
        error.kind = cause;
        error.message = QStringLiteral("%1: %2").arg(where, causeMessage);
        return error;
    }
    const QNetworkReply::NetworkError networkError = reply->error();
    error.connectionRefused = networkError == QNetworkReply::ConnectionRefusedError;
    switch (networkError) {
    case QNetworkReply::NoError:
        break;
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::RemoteHostClosedError:
    case QNetworkReply::HostNotFoundError:
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
    case QNetworkReply::ProxyConnectionRefusedError:
    case QNetworkReply::ProxyConnectionClosedError:
    case QNetworkReply::ProxyNotFoundError:
        error.kind = Kind::Connection;
        break;
    case QNetworkReply::TimeoutError:
    case QNetworkReply::OperationCanceledError: // Qt's own transfer timeout
    case QNetworkReply::ProxyTimeoutError:
        error.kind = Kind::Timeout;
        break;
    case QNetworkReply::SslHandshakeFailedError:
        error.kind = Kind::Tls;
        break;
    case QNetworkReply::TooManyRedirectsError:
    case QNetworkReply::InsecureRedirectError:
        error.kind = Kind::Redirect;
        break;
    default:
        error.kind = error.httpStatus != 0 ? Kind::HttpStatus : Kind::Network;
        break;
    }
    if (error.kind == Kind::None && error.httpStatus != 0
        && (error.httpStatus < 200 || error.httpStatus > 299)) {
        error.kind = Kind::HttpStatus;
    }
    if (error.kind == Kind::None)
        return error;
    if (error.kind == Kind::HttpStatus) {
        error.serverMessage = serverMessageOf(body);
        error.serverCode = QJsonDocument::fromJson(body).object().value(QLatin1String("code")).toInt();
        error.message = QStringLiteral("%1: HTTP %2%3")
                                .arg(where)
                                .arg(error.httpStatus)
                                .arg(error.serverMessage.isEmpty()
                                             ? QString()
                                             : QStringLiteral(": ") + error.serverMessage);
        return error;
    }
    QString why = describeKind(networkError);
    if (why.isEmpty())
        why = error.kind == Kind::Timeout ? QStringLiteral("timed out") : reply->errorString();
    if (error.kind == Kind::Tls) {
        why = QStringLiteral("TLS error: %1").arg(reply->errorString());
        error.certificateRejected = reply->property(kCertificateRejected).toBool();
    }
    error.message = QStringLiteral("%1: %2").arg(where, why);
    return error;
}

void HttpClient::postJson(const QUrl &url, const QJsonObject &body, const Headers &headers,
                          int timeoutMs, Callback done)
{
    sendJson("POST", url, body, headers, timeoutMs, std::move(done));
}

void HttpClient::sendJson(const QByteArray &method, const QUrl &url, const QJsonObject &body,
                          const Headers &headers, int timeoutMs, Callback done)
{
    const bool noBody = body.isEmpty() && (method == "GET" || method == "DELETE");
    sendWritten(method, url, noBody ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact),
                headers, timeoutMs, std::move(done));
}

void HttpClient::sendWritten(const QByteArray &method, const QUrl &url, const QByteArray &written,
                             const Headers &headers, int timeoutMs, Callback done)
{
    // Sent from here when nothing waits before it (one function on a
    // renewal's path, not two); else it waits its turn.
    if (!m_sendingWaiting && (!m_waiting.empty() || m_requestsInFlight >= kMaxRequestsInFlight)) {
        const QDeadlineTimer deadline(std::max(timeoutMs, 0));
        if (!m_waitBound.isActive() || deadline.remainingTime() < m_waitBound.remainingTime())
            m_waitBound.start(int(deadline.remainingTime()));
        m_waiting.push_back({method, url, written, headers, timeoutMs, deadline, std::move(done)});
        return;
    }
    QNetworkRequest request = makeRequest(url, headers);
    request.setTransferTimeout(timeoutMs);
    QNetworkReply *reply = nullptr;
    QNetworkAccessManager *manager = managerForRequest();
    if (method == "GET")
        reply = manager->get(request);
    else if (method == "DELETE" && written.isEmpty())
        reply = manager->deleteResource(request);
    else
        reply = manager->sendCustomRequest(request, method, written);
    track(manager, reply, ReplyKind::Request);

    struct State
    {
        QByteArray body;
        Kind cause = Kind::None;
        QString causeMessage;
    };
    auto state = std::make_shared<State>();
    const qint64 limit = m_maxReplyBytes;
    auto abortWith = [reply, state](Kind kind, const QString &why) {
        if (state->cause != Kind::None)
            return;
        state->cause = kind;
        state->causeMessage = why;
        if (reply->isRunning())
            reply->abort();
    };

    // The whole request, not only each silence, is bounded by the timeout.
    auto *deadline = new QTimer(reply);
    deadline->setSingleShot(true);
    connect(deadline, &QTimer::timeout, reply, [abortWith, timeoutMs] {
        abortWith(Kind::Timeout, QStringLiteral("no answer within %1 ms").arg(timeoutMs));
    });
    deadline->start(timeoutMs);

    connect(reply, &QNetworkReply::redirected, reply, [reply, url, abortWith](const QUrl &to) {
        if (isSafeRedirect(url, to)) {
            Q_EMIT reply->redirectAllowed();
            return;
        }
        abortWith(Kind::Redirect, QStringLiteral("refused a redirect to %1 (another host, or "
                                                 "https to http)")
                                          .arg(describeUrl(url.resolved(to))));
    });
    connect(reply, &QNetworkReply::metaDataChanged, reply, [reply, limit, abortWith] {
        const QVariant length = reply->header(QNetworkRequest::ContentLengthHeader);
        if (length.isValid() && length.toLongLong() > limit) {
            abortWith(Kind::TooLarge, QStringLiteral("the reply announces %1 bytes, more than "
                                                     "the limit of %2")
                                              .arg(length.toLongLong())
                                              .arg(limit));
        }
    });
    connect(reply, &QNetworkReply::readyRead, reply, [reply, state, limit, abortWith] {
        state->body += readUpTo(reply, limit + 1 - state->body.size());
        if (state->body.size() > limit) {
            abortWith(Kind::TooLarge,
                      QStringLiteral("the reply is larger than the limit of %1 bytes").arg(limit));
        }
    });
    connect(reply, &QNetworkReply::finished, this,
            [reply, state, limit, done = std::move(done)] {
                reply->deleteLater();
                if (state->cause == Kind::None && state->body.size() <= limit)
                    state->body += readUpTo(reply, limit + 1 - state->body.size());
                HttpResult result;
                result.error = mapError(reply, state->body, state->cause, state->causeMessage);
                result.httpStatus = result.error.httpStatus;
                if (result.ok()) {
                    QJsonParseError parseError;
                    const QJsonDocument json = QJsonDocument::fromJson(state->body, &parseError);
                    if (parseError.error != QJsonParseError::NoError || !json.isObject()) {
                        result.error.kind = Kind::NotJson;
                        result.error.message
                                = QStringLiteral("%1 %2: the reply is not a JSON object (%3)")
                                          .arg(methodOf(reply), describeUrl(reply->request().url()),
                                               parseError.error != QJsonParseError::NoError
                                                       ? QStringLiteral("%1 at offset %2")
                                                                 .arg(parseError.errorString())
                                                                 .arg(parseError.offset)
                                                       : QStringLiteral("another JSON value"));
                    } else {
                        result.json = json.object();
                    }
                }
                if (result.error.kind == Kind::HttpStatus)
                    result.json = QJsonDocument::fromJson(state->body).object();
                if (!result.ok())
                    qCDebug(lcHttp).noquote() << result.error.message;
                if (done)
                    done(result);
            });
}

void HttpClient::sendWaiting()
{
    const QScopedValueRollback sending(m_sendingWaiting, true);
    while (!m_waiting.empty() && m_requestsInFlight < kMaxRequestsInFlight) {
        Waiting next = std::move(m_waiting.front());
        m_waiting.pop_front();
        if (next.deadline.hasExpired())
            failWaiting(std::move(next));
        else
            sendWritten(next.method, next.url, next.body, next.headers,
                     int(std::max<qint64>(1, next.deadline.remainingTime())), std::move(next.done));
    }
    if (m_waiting.empty())
        m_waitBound.stop();
}

void HttpClient::failWaitedOut()
{
    for (auto it = m_waiting.begin(); it != m_waiting.end();) {
        if (it->deadline.hasExpired()) {
            failWaiting(std::move(*it));
            it = m_waiting.erase(it);
        } else {
            ++it;
        }
    }
    sendWaiting();
    if (m_waiting.empty())
        return;
    qint64 soonest = m_waiting.front().deadline.remainingTime();
    for (const Waiting &waiting : m_waiting)
        soonest = std::min(soonest, waiting.deadline.remainingTime());
    m_waitBound.start(int(std::max<qint64>(0, soonest)));
}

void HttpClient::failWaiting(Waiting waiting)
{
    // The timeout counts from sendJson(): a request that waited it out
    // fails as one that was sent and never answered.
    HttpResult result;
    result.error.kind = HttpError::Kind::Timeout;
    result.error.message = QStringLiteral("%1 %2: no answer within %3 ms (it waited behind %4 requests "
                                          "in flight)")
                                   .arg(QString::fromLatin1(waiting.method), describeUrl(waiting.url))
                                   .arg(waiting.timeoutMs)
                                   .arg(kMaxRequestsInFlight);
    qCDebug(lcHttp).noquote() << result.error.message;
    QMetaObject::invokeMethod(this, [done = std::move(waiting.done), result] { done(result); },
                              Qt::QueuedConnection);
}

HttpStream *HttpClient::postStream(const QUrl &url, const QJsonObject &body,
                                   const Headers &headers, QObject *parent)
{
    QNetworkAccessManager *manager = managerForStream();
    QNetworkReply *reply = manager->post(makeRequest(url, headers),
                                         QJsonDocument(body).toJson(QJsonDocument::Compact));
    track(manager, reply, ReplyKind::Stream);
    return new HttpStream(reply, m_maxReplyBytes, parent);
}

HttpStream *HttpClient::getStream(const QUrl &url, const Headers &headers, QObject *parent)
{
    QNetworkAccessManager *manager = managerForStream();
    QNetworkReply *reply = manager->get(makeRequest(url, headers));
    track(manager, reply, ReplyKind::Stream);
    return new HttpStream(reply, m_maxReplyBytes, parent);
}

} // namespace baton
