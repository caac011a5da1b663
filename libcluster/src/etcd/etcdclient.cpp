#include "etcdclient.h"

#include "etcdcodec.h"
#include "httpstream.h"
#include "logging.h"
#include "secretfile.h"
#include "storesupport.h"

#include <QPointer>

#include <functional>

namespace baton {

using namespace storesupport;
using Status = StoreResult::Status;

namespace {

const QString kInvalidToken = QStringLiteral("invalid auth token");
const QString kHidden = QStringLiteral("(hidden)");

HttpClient::Headers authorization(const QByteArray &token)
{
    HttpClient::Headers headers;
    if (!token.isEmpty())
        headers.append({ QByteArrayLiteral("Authorization"), token });
    return headers;
}

/*!
 * etcd's answer to an authentication that reached it and was refused: the
 * gRPC gateway maps InvalidArgument ("authentication failed, invalid user
 * ID or password", for an unknown user too) to 400 and Unauthenticated to
 * 401, each with the gRPC code in the body. Read from the code, never from
 * the words, which etcd versions change.
 */
bool credentialsRefused(const HttpError &error)
{
    constexpr int grpcInvalidArgument = 3;
    constexpr int grpcUnauthenticated = 16;
    return error.kind == HttpError::Kind::HttpStatus && error.httpStatus >= 400
        && error.httpStatus < 500
        && (error.serverCode == grpcInvalidArgument || error.serverCode == grpcUnauthenticated);
}

} // namespace

struct EtcdClient::Request
{
    QString path;
    /*! Compact JSON. */
    QByteArray body;
    ReplyHandler done;
    ReplyHandler refused;
    QDeadlineTimer deadline;
    int attempts = 0;
    bool reauthenticated = false;
    bool isAuthentication = false;
    /*! What each failed attempt met, in order: `POST http://a:2379/...: connection refused`. */
    QStringList failures;
};

EtcdClient::EtcdClient(const QString &description, QObject *parent)
    : QObject(parent)
    , m_description(description)
{
}

EtcdClient::~EtcdClient() = default;

bool EtcdClient::setUp(const EtcdSettings &settings, QString *errorString)
{
    auto *http = new HttpClient(this);
    QString tlsError;
    if (!http->setTls(settings.tls, &tlsError)) {
        delete http;
        return refuse(errorString, settings.service, QStringLiteral("tls"), settings.tlsParameter,
                      tlsError);
    }
    SecretFile *secret = nullptr;
    if (!settings.passwordFile.isEmpty()) {
        secret = new SecretFile(this);
        QString error;
        QString warning;
        if (!secret->open(SecretFile::resolve(settings.passwordFile), &error, &warning)) {
            delete secret;
            delete http;
            return refuse(errorString, settings.service, QStringLiteral("passwordFile"),
                          settings.passwordFile, error);
        }
        if (!warning.isEmpty())
            qCWarning(lcEtcd).noquote() << settings.service << "parameter \"passwordFile\":" << warning;
        // A new password is used from the next authentication on; the token in
        // hand is dropped, so that the next request proves the new one works.
        connect(secret, &SecretFile::changed, this, [this] {
            m_password = m_passwordFile->value();
            m_token.clear();
        });
    }
    if (settings.tls.insecureSkipVerify) {
        qCWarning(lcEtcd).noquote()
                << settings.service
                << "does NOT verify the TLS certificates of its endpoints "
                   "(tls.insecureSkipVerify is true): anyone on the path can impersonate etcd";
    }
    QStringList tlsFiles;
    for (const auto &[field, file] : { std::pair { "tls.ca", settings.tls.caFile },
                                       std::pair { "tls.cert", settings.tls.certFile },
                                       std::pair { "tls.key", settings.tls.keyFile } }) {
        if (!file.isEmpty())
            tlsFiles.append(QStringLiteral("%1 %2").arg(QLatin1String(field), file));
    }
    m_http = http;
    m_passwordFile = secret;
    m_tlsFiles = tlsFiles.join(QStringLiteral(", "));
    m_usesHttps = std::any_of(settings.endpoints.cbegin(), settings.endpoints.cend(),
                              [](const QUrl &url) { return url.scheme() == QLatin1String("https"); });
    m_hasClientCertificate = !settings.tls.certFile.isEmpty();
    m_endpoints = settings.endpoints;
    m_username = settings.username;
    m_password = secret ? secret->value() : settings.password;
    m_timeoutMs = settings.timeoutMs;
    return true;
}

QString EtcdClient::redact(QString text) const
{
    if (m_password.size() >= 4)
        text.replace(m_password, kHidden);
    if (m_token.size() >= 4)
        text.replace(QString::fromLatin1(m_token), kHidden);
    return text;
}

QString EtcdClient::explainFailure(const HttpError &error) const
{
    if (!m_usesHttps)
        return error.message;
    if (error.certificateRejected) {
        return QStringLiteral("%1 (the server's certificate is not trusted: name the CA that "
                              "signed it in tls.ca, as etcdctl's --cacert; %2)")
                .arg(error.message, tlsFiles());
    }
    // A failed handshake, or a connection the server dropped during it (an
    // etcd with --client-cert-auth refusing the client's certificate), says
    // nothing of which file is wrong: the operator is told which were used.
    // Without a client certificate, such an etcd may also just go silent
    // or hang up, depending on when its refusal arrives.
    const bool tlsFailure = error.kind == HttpError::Kind::Tls
            || error.kind == HttpError::Kind::Network
            || (!m_hasClientCertificate
                && (error.kind == HttpError::Kind::Timeout
                    || (error.kind == HttpError::Kind::Connection && !error.connectionRefused)));
    if (!tlsFailure)
        return error.message;
    return QStringLiteral("%1 (%2)").arg(error.message, tlsNotes());
}

QString EtcdClient::tlsFiles() const
{
    return m_tlsFiles.isEmpty() ? QStringLiteral("no tls files: the system's CAs")
                                : QStringLiteral("TLS files: ") + m_tlsFiles;
}

QString EtcdClient::tlsNotes() const
{
    QStringList notes {tlsFiles()};
    if (!m_hasClientCertificate) {
        notes.append(QStringLiteral("no client certificate (tls.cert, tls.key): an etcd that "
                                    "requires one refuses the connection"));
    }
    return notes.join(QStringLiteral("; "));
}

QUrl EtcdClient::endpointUrl(int endpoint, const QString &path) const
{
    QUrl url = m_endpoints.at(endpoint);
    url.setPath(url.path() + path);
    return url;
}

void EtcdClient::call(const QString &path, const QJsonObject &body, ReplyHandler done)
{
    call(path, body, std::move(done), QDeadlineTimer(m_timeoutMs));
}

void EtcdClient::call(const QString &path, const QJsonObject &body, ReplyHandler done,
                      QDeadlineTimer deadline, ReplyHandler refused)
{
    send(request(path, body, std::move(done), deadline, std::move(refused)));
}

EtcdClient::RequestPtr EtcdClient::request(const QString &path, const QJsonObject &body,
                                           ReplyHandler done, QDeadlineTimer deadline,
                                           ReplyHandler refused)
{
    return requestWritten(path, QJsonDocument(body).toJson(QJsonDocument::Compact), std::move(done),
                          deadline, std::move(refused));
}

EtcdClient::RequestPtr EtcdClient::requestWritten(const QString &path, QByteArray json,
                                                  ReplyHandler done, QDeadlineTimer deadline,
                                                  ReplyHandler refused)
{
    auto request = std::make_shared<Request>();
    request->path = path;
    request->body = std::move(json);
    request->done = std::move(done);
    request->refused = std::move(refused);
    request->deadline = deadline;
    return request;
}

void EtcdClient::holdRequests(const QObject *holder)
{
    m_holders.insert(holder);
}

void EtcdClient::releaseRequests(const QObject *holder)
{
    if (!m_holders.remove(holder) || !m_holders.isEmpty())
        return;
    const QList<RequestPtr> held = std::exchange(m_held, {});
    for (const RequestPtr &request : held)
        send(request);
}

void EtcdClient::finish(const RequestPtr &request, const Failure &failure)
{
    // Always on a later turn: a request can fail before any I/O.
    QMetaObject::invokeMethod(
            this, [request, failure] { request->done({}, failure); }, Qt::QueuedConnection);
}

void EtcdClient::withToken(std::function<void(const Failure &)> then)
{
    if (!hasCredentials() || !m_token.isEmpty()) {
        then(std::nullopt);
        return;
    }
    m_tokenWaiters.append(std::move(then));
    authenticate();
}

void EtcdClient::authenticate()
{
    if (m_authenticating)
        return;
    m_authenticating = true;
    auto request = std::make_shared<Request>();
    request->path = QStringLiteral("/v3/auth/authenticate");
    request->body = QJsonDocument(QJsonObject { { QStringLiteral("name"), m_username },
                                                { QStringLiteral("password"), m_password } })
                            .toJson(QJsonDocument::Compact);
    request->deadline = QDeadlineTimer(m_timeoutMs);
    request->isAuthentication = true;
    request->done = [this](const QJsonObject &json, const Failure &failed) {
        m_authenticating = false;
        Failure outcome = failed;
        if (!outcome) {
            const QJsonValue token = json.value(QLatin1String("token"));
            if (!token.isString() || token.toString().isEmpty()) {
                outcome = failure(Status::BadReply,
                                  QStringLiteral("%1: authentication as \"%2\": the answer has no "
                                                 "\"token\" string")
                                          .arg(m_description, m_username));
            } else {
                m_token = token.toString().toLatin1();
                ++m_authentications;
                qCDebug(lcEtcd).noquote() << m_description << "authenticated as" << m_username;
            }
        } else {
            // The store names itself once, first.
            QString why = outcome->errorString;
            if (why.startsWith(m_description + QStringLiteral(": ")))
                why = why.mid(m_description.size() + 2);
            const QString fix = outcome->status != Status::CredentialsRefused ? QString()
                    : m_passwordFile ? QStringLiteral("; check the store's \"username\" and the "
                                                      "password in \"passwordFile\"")
                                     : QStringLiteral("; check the store's \"username\" and "
                                                      "\"password\"");
            outcome->errorString = redact(QStringLiteral("%1: authentication as \"%2\" failed: %3%4")
                                                  .arg(m_description, m_username, why, fix));
            qCWarning(lcEtcd).noquote() << outcome->errorString;
        }
        const auto waiters = std::exchange(m_tokenWaiters, {});
        for (const auto &waiter : waiters)
            waiter(outcome);
    };
    send(request);
}

void EtcdClient::invalidateToken(const QByteArray &token)
{
    // Only the token that failed: another request may have renewed it already.
    if (!token.isEmpty() && token == m_token) {
        qCInfo(lcEtcd).noquote() << m_description
                                 << "etcd refused the auth token; authenticating again";
        m_token.clear();
    }
}

void EtcdClient::endpointFailed(int endpoint, const QString &why)
{
    if (endpoint != m_current || m_endpoints.size() < 2)
        return;
    m_current = (m_current + 1) % int(m_endpoints.size());
    qCInfo(lcEtcd).noquote() << redact(QStringLiteral("%1: %2; next endpoint: %3")
                                               .arg(m_description, why,
                                                    HttpClient::describeUrl(m_endpoints.at(m_current))));
}

void EtcdClient::streamRefused(const StreamOrigin &origin, const QString &serverMessage)
{
    if (serverMessage.contains(kInvalidToken))
        invalidateToken(origin.token);
}

void EtcdClient::streamUnconfirmed(const StreamOrigin &origin)
{
    invalidateToken(origin.token);
}

void EtcdClient::streamFailed(const StreamOrigin &origin, const QString &why)
{
    endpointFailed(origin.endpoint, why);
}

void EtcdClient::openStream(const QString &path, std::function<QJsonObject()> body,
                            QObject *parent, StreamHandler done)
{
    QPointer<QObject> guard(parent);
    withToken([this, path, body = std::move(body), guard, done = std::move(done)](
                      const Failure &failed) {
        if (!guard)
            return;
        if (failed) {
            done(nullptr, {}, failed);
            return;
        }
        const StreamOrigin origin { m_current, m_token };
        done(m_http->postStream(endpointUrl(m_current, path), body(), authorization(m_token),
                                guard),
             origin, std::nullopt);
    });
}

void EtcdClient::send(const RequestPtr &request)
{
    // A request made while a watch is being set up waits for it (a retry
    // is already ordered after that watch); the authentication that a held
    // request may wait for goes at once.
    if (!request->isAuthentication && request->attempts == 0 && !m_holders.isEmpty()) {
        m_held.append(request);
        return;
    }
    if (!request->isAuthentication && hasCredentials() && m_token.isEmpty()) {
        withToken([this, request](const Failure &failed) {
            if (failed)
                finish(request, failed);
            else
                send(request);
        });
        return;
    }
    const qint64 remaining = request->deadline.remainingTime();
    const int endpointsLeft = std::max(1, int(m_endpoints.size()) - request->attempts);
    if (remaining <= 0 || request->attempts >= m_endpoints.size()) {
        // Each endpoint tried says what it met; an endpoint not tried in
        // time is why the time is named. Over HTTPS, an etcd that drops the
        // handshake can leave a request with no error at all until its time
        // is up: the TLS files are still the likeliest cause, and said.
        QStringList met = request->failures;
        if (met.isEmpty())
            met.append(m_usesHttps ? QStringLiteral("no answer (%1)").arg(tlsNotes())
                                   : QStringLiteral("no answer"));
        const QString what = request->attempts >= m_endpoints.size()
                ? QStringLiteral("no endpoint answered")
                : QStringLiteral("no endpoint answered within %1 ms").arg(m_timeoutMs);
        finish(request, failure(Status::Unavailable,
                                redact(QStringLiteral("%1: %2: %3")
                                               .arg(m_description, what,
                                                    met.join(QStringLiteral("; "))))));
        return;
    }
    // Each endpoint left gets its share of the time left, so that a hung
    // first endpoint leaves time for the others and the total stays within
    // the timeout.
    const int attemptMs = int(std::max<qint64>(1, remaining / endpointsLeft));
    const int endpoint = m_current;
    const QByteArray token = request->isAuthentication ? QByteArray() : m_token;
    ++request->attempts;
    // sendWritten, not its postJson wrapper, and the answer bound straight
    // to onAnswer: a frame less each way on every renewal's path.
    m_http->sendWritten("POST", endpointUrl(endpoint, request->path), request->body,
                        authorization(token), attemptMs,
                        std::bind_front(&EtcdClient::onAnswer, this, request, endpoint, token));
}

void EtcdClient::onAnswer(const RequestPtr &request, int endpoint, const QByteArray &token,
                          const HttpResult &result)
{
    if (result.ok()) {
        qint64 revision = 0;
        if (etcdcodec::revision(result.json.value(QLatin1String("header")).toObject().value(
                                        QLatin1String("revision")),
                                &revision))
            noteRevision(revision);
        request->done(result.json, std::nullopt);
        return;
    }
    const HttpError &error = result.error;
    if (error.kind == HttpError::Kind::HttpStatus && error.serverMessage.contains(kInvalidToken)
        && hasCredentials() && !request->isAuthentication && !request->reauthenticated) {
        request->reauthenticated = true;
        --request->attempts; // the endpoint answered: not a failed attempt
        invalidateToken(token);
        send(request);
        return;
    }
    if (error.isTransient()) {
        request->failures.append(explainFailure(error));
        endpointFailed(endpoint, error.message);
        send(request);
        return;
    }
    const bool unreadable = error.kind == HttpError::Kind::NotJson
            || error.kind == HttpError::Kind::TooLarge || error.kind == HttpError::Kind::Redirect;
    const Status status = unreadable ? Status::BadReply
            : request->isAuthentication && credentialsRefused(error) ? Status::CredentialsRefused
                                                                     : Status::Unavailable;
    const StoreResult answer = failure(status,
                                       redact(QStringLiteral("%1: %2").arg(m_description,
                                                                           explainFailure(error))));
    if (error.kind == HttpError::Kind::HttpStatus && request->refused)
        request->refused({}, answer);
    else
        request->done({}, answer);
}

} // namespace baton
