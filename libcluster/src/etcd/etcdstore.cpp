#include "etcdstore.h"

#include "etcdcodec.h"
#include "etcdsharedwatch.h"
#include "etcdwatch.h"
#include "etcdwatchhub.h"
#include "httpclient.h"
#include "httpstream.h"
#include "jsonutil.h"
#include "logging.h"
#include "secretfile.h"
#include "storesupport.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>

namespace baton {

using namespace storesupport;
using Status = StoreResult::Status;

namespace {

const QString kTypeName = QStringLiteral("Webda/EtcdStore");
constexpr int kDefaultTimeoutMs = 5000;
constexpr int kMaxTimeoutMs = 600000;
const QString kInvalidToken = QStringLiteral("invalid auth token");
// etcd's answer to a txn with more operations than its --max-txn-ops.
const QString kTooManyOperations = QStringLiteral("too many operations in txn request");
// Standing in for a secret in a refusal (R2): the rule is said, the value never.
const QJsonValue kHidden = QStringLiteral("(hidden)");

QString b64(const QByteArray &bytes)
{
    return etcdcodec::encodeBytes(bytes);
}

QByteArray compact(const QJsonObject &document)
{
    return QJsonDocument(document).toJson(QJsonDocument::Compact);
}

/*! A version as etcd compares it, or nullopt when it cannot be a mod_revision. */
std::optional<qint64> parseVersion(const QString &version)
{
    bool ok = false;
    const qint64 value = version.toLongLong(&ok);
    if (!ok || value <= 0 || QString::number(value) != version)
        return std::nullopt;
    return value;
}

QJsonObject txn(const QJsonObject &compare, const QJsonObject &success, const QJsonObject &failure)
{
    return QJsonObject { { QStringLiteral("compare"), QJsonArray { compare } },
                         { QStringLiteral("success"), QJsonArray { success } },
                         { QStringLiteral("failure"), QJsonArray { failure } } };
}

/*!
 * Whether a txn applied and, when it did, the revision it made; false, with
 * \a why, when the answer does not say.
 */
bool readTxnOutcome(const QJsonObject &json, bool *succeeded, qint64 *revision, QString *why)
{
    if (!etcdcodec::optionalBool(json.value(QLatin1String("succeeded")), succeeded)) {
        *why = QStringLiteral("\"succeeded\" is not a boolean");
        return false;
    }
    if (*succeeded
        && (!etcdcodec::revision(
                    json.value(QLatin1String("header")).toObject().value(QLatin1String("revision")),
                    revision)
            || *revision <= 0)) {
        *why = QStringLiteral("no header.revision");
        return false;
    }
    return true;
}

QJsonObject rangeOp(const QByteArray &key)
{
    return QJsonObject { { QStringLiteral("request_range"),
                           QJsonObject { { QStringLiteral("key"), b64(key) } } } };
}

} // namespace

EtcdStore::EtcdStore(const QString &name, const QJsonObject &parameters, Application *application)
    : Store(name, parameters, application)
{
}

EtcdStore::~EtcdStore() = default;

QString EtcdStore::describe() const
{
    return describeService(*this, kTypeName);
}

QStringList EtcdStore::parameterNames()
{
    return {QStringLiteral("endpoints"),   QStringLiteral("prefix"),
            QStringLiteral("username"),    QStringLiteral("password"),
            QStringLiteral("passwordFile"), QStringLiteral("timeout"),
            QStringLiteral("tls.ca"),      QStringLiteral("tls.cert"),
            QStringLiteral("tls.key"),     QStringLiteral("tls.insecureSkipVerify")};
}

bool EtcdStore::init(QString *errorString)
{
    const QString service = describeForParameters(*this, kTypeName);
    const QJsonObject params = parameters();

    const QJsonValue endpointsValue = params.value(QLatin1String("endpoints"));
    const QString endpointsRule = QStringLiteral(
            "it must be a non-empty list of http:// or https:// URLs such as "
            "[\"http://127.0.0.1:2379\"], with no user name or password in them");
    if (!endpointsValue.isArray() || endpointsValue.toArray().isEmpty())
        return refuse(errorString, service, QStringLiteral("endpoints"), endpointsValue, endpointsRule);
    QList<QUrl> endpoints;
    for (const QJsonValue &value : endpointsValue.toArray()) {
        const QUrl url(value.toString(), QUrl::StrictMode);
        const bool valid = value.isString() && url.isValid() && !url.host().isEmpty()
                && (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https"))
                && url.userInfo().isEmpty() && !url.hasQuery() && !url.hasFragment();
        if (!valid) {
            // The URL is not shown when it carries user info: it may hold a password.
            return refuse(errorString, service, QStringLiteral("endpoints"),
                          url.userInfo().isEmpty() ? value : kHidden, endpointsRule);
        }
        QUrl base = url;
        base.setPath(url.path().endsWith(QLatin1Char('/')) ? url.path().chopped(1) : url.path());
        endpoints.append(base);
    }

    ParameterReader reader(service, params);
    const QString prefix = reader.string(QStringLiteral("prefix"), {}, true);
    const QString username = reader.string(QStringLiteral("username"));
    const QString password = reader.secret(QStringLiteral("password"));
    const QString passwordFile = reader.string(QStringLiteral("passwordFile"));
    const int timeoutMs = int(reader.duration(QStringLiteral("timeout"), kDefaultTimeoutMs, 1,
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

    HttpTlsOptions tls;
    reader.block(QStringLiteral("tls"),
                 QStringLiteral("{\"ca\": \"ca.pem\", \"cert\": \"client.pem\", "
                                "\"key\": \"client-key.pem\"}"));
    tls.caFile = reader.string(QStringLiteral("tls.ca"));
    tls.certFile = reader.string(QStringLiteral("tls.cert"));
    tls.keyFile = reader.string(QStringLiteral("tls.key"));
    tls.insecureSkipVerify = reader.boolean(QStringLiteral("tls.insecureSkipVerify"), false);
    if (!accept(errorString, reader))
        return false;

    SecretFile *secret = nullptr;
    if (!passwordFile.isEmpty()) {
        secret = new SecretFile(this);
        QString error;
        QString warning;
        if (!secret->open(SecretFile::resolve(passwordFile), &error, &warning)) {
            delete secret;
            return refuse(errorString, service, QStringLiteral("passwordFile"), passwordFile,
                          error);
        }
        if (!warning.isEmpty())
            qCWarning(lcEtcd).noquote() << service << "parameter \"passwordFile\":" << warning;
    }

    auto *http = new HttpClient(this);
    QString tlsError;
    if (!http->setTls(tls, &tlsError)) {
        delete http;
        delete secret;
        return refuse(errorString, service, QStringLiteral("tls"), params.value(QLatin1String("tls")),
                      tlsError);
    }
    if (tls.insecureSkipVerify) {
        qCWarning(lcEtcd).noquote()
                << service
                << "does NOT verify the TLS certificates of its endpoints "
                   "(tls.insecureSkipVerify is true): anyone on the path can impersonate etcd";
    }

    QStringList tlsFiles;
    for (const auto &[field, file] : { std::pair { "tls.ca", tls.caFile },
                                       std::pair { "tls.cert", tls.certFile },
                                       std::pair { "tls.key", tls.keyFile } }) {
        if (!file.isEmpty())
            tlsFiles.append(QStringLiteral("%1 %2").arg(QLatin1String(field), file));
    }

    delete m_http;
    m_http = http;
    m_tlsFiles = tlsFiles.join(QStringLiteral(", "));
    m_usesHttps = std::any_of(endpoints.cbegin(), endpoints.cend(), [](const QUrl &url) {
        return url.scheme() == QLatin1String("https");
    });
    m_hasClientCertificate = !tls.certFile.isEmpty();
    m_endpoints = endpoints;
    m_current = 0;
    m_prefix = prefix.toUtf8();
    m_username = username;
    m_password = secret ? secret->value() : password;
    delete m_passwordFile;
    m_passwordFile = secret;
    // A new password is used from the next authentication on; the token in
    // hand is dropped, so that the next request proves the new one works.
    if (secret)
        connect(secret, &SecretFile::changed, this, [this] {
            m_password = m_passwordFile->value();
            m_token.clear();
        });
    m_timeoutMs = timeoutMs;
    m_initialised = true;
    return true;
}

QByteArray EtcdStore::fullKey(const QString &key) const
{
    return m_prefix + key.toUtf8();
}

QString EtcdStore::redact(QString text) const
{
    // Neither should ever reach a message; this is the belt to those braces.
    if (m_password.size() >= 4)
        text.replace(m_password, QStringLiteral("(hidden)"));
    if (m_token.size() >= 4)
        text.replace(QString::fromLatin1(m_token), QStringLiteral("(hidden)"));
    return text;
}

StoreResult EtcdStore::badReply(const QString &operation, const QString &key,
                                const QString &why) const
{
    return failure(Status::BadReply,
                   redact(QStringLiteral("%1: %2 \"%3\": etcd answered something this client "
                                         "cannot read: %4")
                                  .arg(describe(), operation, key, why)));
}

QString EtcdStore::explainFailure(const HttpError &error) const
{
    // A failed handshake, or a connection the server dropped during it (an
    // etcd with --client-cert-auth refusing the client's certificate), says
    // nothing of which file is wrong: the operator is told which were used.
    // Without a client certificate, such an etcd may also just go silent
    // or hang up, depending on when its refusal arrives.
    const bool tlsFailure = error.kind == HttpError::Kind::Tls
            || error.kind == HttpError::Kind::Network
            || (!m_hasClientCertificate
                && (error.kind == HttpError::Kind::Timeout
                    || error.kind == HttpError::Kind::Connection));
    if (!m_usesHttps || !tlsFailure)
        return error.message;
    return QStringLiteral("%1 (%2)").arg(error.message, tlsNotes());
}

QString EtcdStore::tlsNotes() const
{
    QStringList notes;
    notes.append(m_tlsFiles.isEmpty() ? QStringLiteral("no tls files: the system's CAs")
                                      : QStringLiteral("TLS files: ") + m_tlsFiles);
    if (!m_hasClientCertificate) {
        notes.append(QStringLiteral("no client certificate (tls.cert, tls.key): an etcd that "
                                    "requires one refuses the connection"));
    }
    return notes.join(QStringLiteral("; "));
}

void EtcdStore::deliver(Callback done, StoreResult result)
{
    result.errorString = redact(result.errorString);
    deliverLater(this, std::move(done), std::move(result));
}

QUrl EtcdStore::endpointUrl(int endpoint, const QString &path) const
{
    QUrl url = m_endpoints.at(endpoint);
    url.setPath(url.path() + path);
    return url;
}

void EtcdStore::call(const QString &path, const QJsonObject &body, ReplyHandler done)
{
    call(path, body, std::move(done), QDeadlineTimer(m_timeoutMs));
}

void EtcdStore::call(const QString &path, const QJsonObject &body, ReplyHandler done,
                     QDeadlineTimer deadline, ReplyHandler refused)
{
    auto request = std::make_shared<Request>();
    request->path = path;
    request->body = body;
    request->done = std::move(done);
    request->refused = std::move(refused);
    request->deadline = deadline;
    if (!m_initialised) {
        finish(request, {},
               failure(Status::Unavailable,
                       QStringLiteral("%1 is not initialised (init() not called or refused)")
                               .arg(describe())));
        return;
    }
    if (!m_startingWatches.isEmpty()) {
        m_held.append(request);
        return;
    }
    send(request);
}

void EtcdStore::finish(const RequestPtr &request, const QJsonObject &json, const Failure &failure)
{
    // Always on a later turn: a request can fail before any I/O.
    QMetaObject::invokeMethod(
            this, [request, json, failure] { request->done(json, failure); }, Qt::QueuedConnection);
}

void EtcdStore::withToken(std::function<void(const Failure &)> then)
{
    if (!hasCredentials() || !m_token.isEmpty()) {
        then(std::nullopt);
        return;
    }
    m_tokenWaiters.append(std::move(then));
    authenticate();
}

void EtcdStore::authenticate()
{
    if (m_authenticating)
        return;
    m_authenticating = true;
    auto request = std::make_shared<Request>();
    request->path = QStringLiteral("/v3/auth/authenticate");
    request->body = QJsonObject { { QStringLiteral("name"), m_username },
                                  { QStringLiteral("password"), m_password } };
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
                                          .arg(describe(), m_username));
            } else {
                m_token = token.toString().toLatin1();
                ++m_authentications;
                qCDebug(lcEtcd).noquote() << describe() << "authenticated as" << m_username;
            }
        } else {
            outcome->errorString = redact(QStringLiteral("%1: authentication as \"%2\" failed: %3")
                                                  .arg(describe(), m_username,
                                                       outcome->errorString));
            qCWarning(lcEtcd).noquote() << outcome->errorString;
        }
        const auto waiters = std::exchange(m_tokenWaiters, {});
        for (const auto &waiter : waiters)
            waiter(outcome);
    };
    send(request);
}

void EtcdStore::invalidateToken(const QByteArray &token)
{
    // Only the token that failed: another request may have renewed it already.
    if (!token.isEmpty() && token == m_token) {
        qCInfo(lcEtcd).noquote() << describe() << "etcd refused the auth token; authenticating again";
        m_token.clear();
    }
}

void EtcdStore::endpointFailed(int endpoint, const QString &why)
{
    if (endpoint != m_current || m_endpoints.size() < 2)
        return;
    m_current = (m_current + 1) % int(m_endpoints.size());
    qCInfo(lcEtcd).noquote() << redact(QStringLiteral("%1: %2; next endpoint: %3")
                                               .arg(describe(), why,
                                                    HttpClient::describeUrl(m_endpoints.at(m_current))));
}

void EtcdStore::send(const RequestPtr &request)
{
    if (!request->isAuthentication && hasCredentials() && m_token.isEmpty()) {
        withToken([this, request](const Failure &failed) {
            if (failed)
                finish(request, {}, failed);
            else
                send(request);
        });
        return;
    }
    const qint64 remaining = request->deadline.remainingTime();
    const int endpointsLeft = std::max(1, int(m_endpoints.size()) - request->attempts);
    if (remaining <= 0 || request->attempts >= m_endpoints.size()) {
        // Over HTTPS, an etcd that drops the handshake can leave a request
        // with no error at all until its time is up: the TLS files are
        // still the likeliest cause, and said.
        const QString last = !request->lastError.isEmpty() ? request->lastError
                : m_usesHttps                               ? tlsNotes()
                                                            : QStringLiteral("no answer");
        finish(request, {},
               failure(Status::Unavailable,
                       redact(QStringLiteral("%1: no endpoint answered within %2 ms (last: %3)")
                                      .arg(describe())
                                      .arg(m_timeoutMs)
                                      .arg(last))));
        return;
    }
    // Each endpoint left gets its share of the time left, so that a hung
    // first endpoint leaves time for the others and the total stays within
    // the timeout.
    const int attemptMs = int(std::max<qint64>(1, remaining / endpointsLeft));
    const int endpoint = m_current;
    const QByteArray token = request->isAuthentication ? QByteArray() : m_token;
    HttpClient::Headers headers;
    if (!token.isEmpty())
        headers.append({ QByteArrayLiteral("Authorization"), token });
    ++request->attempts;
    m_http->postJson(endpointUrl(endpoint, request->path), request->body, headers, attemptMs,
                     [this, request, endpoint, token](const HttpResult &result) {
        if (result.ok()) {
            qint64 revision = 0;
            if (etcdcodec::revision(result.json.value(QLatin1String("header")).toObject().value(
                                            QLatin1String("revision")),
                                    &revision))
                m_knownRevision = std::max(m_knownRevision, revision);
            request->done(result.json, std::nullopt);
            return;
        }
        const HttpError &error = result.error;
        if (error.kind == HttpError::Kind::HttpStatus
            && error.serverMessage.contains(kInvalidToken) && hasCredentials()
            && !request->isAuthentication && !request->reauthenticated) {
            request->reauthenticated = true;
            --request->attempts; // the endpoint answered: not a failed attempt
            invalidateToken(token);
            send(request);
            return;
        }
        if (error.isTransient()) {
            request->lastError = explainFailure(error);
            endpointFailed(endpoint, error.message);
            send(request);
            return;
        }
        const bool unreadable = error.kind == HttpError::Kind::NotJson
                || error.kind == HttpError::Kind::TooLarge || error.kind == HttpError::Kind::Redirect;
        const StoreResult answer = failure(unreadable ? Status::BadReply : Status::Unavailable,
                                           redact(QStringLiteral("%1: %2").arg(describe(),
                                                                               explainFailure(error))));
        const bool refusal = error.kind == HttpError::Kind::HttpStatus;
        if (refusal && request->refused)
            request->refused({}, answer);
        else
            request->done({}, answer);
    });
}

void EtcdStore::reportCurrent(const QString &operation, const QString &key, const QString &version,
                              Callback done)
{
    // A version etcd could never have issued: the write cannot apply, and
    // what is there now says whether that is a Conflict or a NotFound.
    get(key, [this, operation, key, version, done = std::move(done)](const StoreResult &current) {
        if (current.ok()) {
            done(conflict(current.entry, QStringLiteral("%1: %2 \"%3\": it has version %4, not %5")
                                                 .arg(describe(), operation, key,
                                                      current.entry.version, version)));
            return;
        }
        done(current);
    });
}

void EtcdStore::get(const QString &key, Callback done)
{
    call(QStringLiteral("/v3/kv/range"), QJsonObject { { QStringLiteral("key"), b64(fullKey(key)) } },
         [this, key, done = std::move(done)](const QJsonObject &json, const Failure &failed) {
        if (failed) {
            deliver(done, *failed);
            return;
        }
        QJsonArray kvs;
        QString why;
        if (!etcdcodec::kvsOf(json, &kvs, &why)) {
            deliver(done, badReply(QStringLiteral("get"), key, why));
            return;
        }
        if (kvs.isEmpty()) {
            deliver(done, failure(Status::NotFound,
                                  QStringLiteral("%1: no key \"%2\"").arg(describe(), key)));
            return;
        }
        StoreEntry entry;
        if (!etcdcodec::decodeKv(kvs.first(), m_prefix, &entry, &why)) {
            deliver(done, badReply(QStringLiteral("get"), key, why));
            return;
        }
        deliver(done, success(entry));
    });
}

void EtcdStore::putIf(const QString &operation, const QString &key, const QJsonObject &document,
                      const QJsonObject &compare, LostRace lost, Callback done)
{
    // One transaction: the put when the comparison holds, else a read of the
    // key, so that a lost race costs no second request.
    const QByteArray full = fullKey(key);
    const QJsonObject body = txn(
            compare,
            QJsonObject { { QStringLiteral("request_put"),
                            QJsonObject { { QStringLiteral("key"), b64(full) },
                                          { QStringLiteral("value"), b64(compact(document)) } } } },
            rangeOp(full));
    call(QStringLiteral("/v3/kv/txn"), body,
         [this, operation, key, document, lost = std::move(lost), done = std::move(done)](
                 const QJsonObject &json, const Failure &failed) {
        if (failed) {
            deliver(done, *failed);
            return;
        }
        bool succeeded = false;
        qint64 revision = 0;
        QString unreadable;
        if (!readTxnOutcome(json, &succeeded, &revision, &unreadable)) {
            deliver(done, badReply(operation, key, unreadable));
            return;
        }
        if (succeeded) {
            deliver(done, success(StoreEntry { key, document, QString::number(revision) }));
            return;
        }
        const QJsonObject range = json.value(QLatin1String("responses")).toArray().at(0).toObject()
                                          .value(QLatin1String("response_range")).toObject();
        QJsonArray kvs;
        QString why;
        if (!etcdcodec::kvsOf(range, &kvs, &why)) {
            deliver(done, badReply(operation, key, why));
            return;
        }
        std::optional<StoreEntry> current;
        if (!kvs.isEmpty()) {
            StoreEntry entry;
            if (!etcdcodec::decodeKv(kvs.first(), m_prefix, &entry, &why)) {
                deliver(done, badReply(operation, key, why));
                return;
            }
            current = entry;
        }
        deliver(done, lost(current));
    });
}

void EtcdStore::create(const QString &key, const QJsonObject &document, Callback done)
{
    const QJsonObject compare { { QStringLiteral("key"), b64(fullKey(key)) },
                                { QStringLiteral("target"), QStringLiteral("CREATE") },
                                { QStringLiteral("create_revision"), QStringLiteral("0") } };
    putIf(QStringLiteral("create"), key, document, compare,
          [this, key](const std::optional<StoreEntry> &current) {
              if (!current)
                  return badReply(QStringLiteral("create"), key,
                                  QStringLiteral("a failed create carries no current value"));
              return conflict(*current, QStringLiteral("%1: key \"%2\" already exists")
                                                .arg(describe(), key));
          },
          std::move(done));
}

void EtcdStore::update(const QString &key, const QJsonObject &document, const QString &version,
                       Callback done)
{
    const std::optional<qint64> revision = parseVersion(version);
    if (!revision) {
        reportCurrent(QStringLiteral("update"), key, version, std::move(done));
        return;
    }
    m_updates.enqueue({ key, document, *revision, std::move(done), QDeadlineTimer(m_timeoutMs) });
    sendUpdates();
}

void EtcdStore::sendUpdates()
{
    for (;;) {
        QList<EtcdUpdateQueue::Update> expired;
        // An update with less than half its timeout left would shorten the
        // transaction of every update it joins to its own deadline.
        QList<EtcdUpdateQueue::Update> batch = m_updates.takeBatch(&expired, minimumSendMs());
        for (const EtcdUpdateQueue::Update &update : std::as_const(expired)) {
            deliver(update.done,
                    failure(Status::Unavailable,
                            QStringLiteral("%1: update \"%2\": etcd had not answered earlier "
                                           "updates within %3 ms of its %4 ms timeout, so this "
                                           "one was never sent")
                                    .arg(describe(), update.key)
                                    .arg(m_timeoutMs - minimumSendMs())
                                    .arg(m_timeoutMs)));
        }
        if (batch.isEmpty())
            return;
        sendUpdateBatch(std::move(batch));
    }
}

void EtcdStore::sendUpdateBatch(QList<EtcdUpdateQueue::Update> batch)
{
    // As putIf(), with one comparison, put and read per update: the reads
    // tell, when the txn fails, which comparison failed.
    QJsonArray compares;
    QJsonArray puts;
    QJsonArray reads;
    QDeadlineTimer deadline(QDeadlineTimer::Forever);
    for (const EtcdUpdateQueue::Update &update : std::as_const(batch)) {
        const QByteArray full = fullKey(update.key);
        compares.append(QJsonObject { { QStringLiteral("key"), b64(full) },
                                      { QStringLiteral("target"), QStringLiteral("MOD") },
                                      { QStringLiteral("mod_revision"),
                                        QString::number(update.revision) } });
        puts.append(QJsonObject {
                { QStringLiteral("request_put"),
                  QJsonObject { { QStringLiteral("key"), b64(full) },
                                { QStringLiteral("value"), b64(compact(update.document)) } } } });
        reads.append(rangeOp(full));
        deadline = std::min(deadline, update.deadline);
    }
    const QJsonObject body { { QStringLiteral("compare"), compares },
                             { QStringLiteral("success"), puts },
                             { QStringLiteral("failure"), reads } };
    call(QStringLiteral("/v3/kv/txn"), body,
         [this, batch](const QJsonObject &json, const Failure &failed) mutable {
             m_updates.batchDone();
             settleUpdates(std::move(batch), json, failed);
             sendUpdates();
         },
         deadline,
         [this, batch](const QJsonObject &, const Failure &refusal) mutable {
             m_updates.batchDone();
             settleRefusedUpdates(std::move(batch), *refusal);
             sendUpdates();
         });
}

void EtcdStore::settleRefusedUpdates(QList<EtcdUpdateQueue::Update> batch,
                                     const StoreResult &refusal)
{
    if (batch.size() == 1) {
        deliver(batch.constFirst().done, refusal);
        return;
    }
    if (refusal.errorString.contains(kTooManyOperations)) {
        m_updates.shrinkBelow(batch.size());
        m_updates.requeue(std::move(batch));
        return;
    }
    // One update etcd will not take (a key outside the user's role, a value
    // over --max-request-bytes) must not fail the others that shared its txn.
    qCDebug(lcEtcd).noquote() << describe() << "etcd refused a txn of" << batch.size()
                              << "updates; sending it again in halves";
    m_updates.requeueSplit(std::move(batch));
}

void EtcdStore::settleUpdates(QList<EtcdUpdateQueue::Update> batch, const QJsonObject &json,
                              const Failure &failed)
{
    const QString operation = QStringLiteral("update");
    auto answerAll = [&](const std::function<StoreResult(const EtcdUpdateQueue::Update &)> &answer) {
        for (const EtcdUpdateQueue::Update &update : std::as_const(batch))
            deliver(update.done, answer(update));
    };
    if (failed) {
        answerAll([&](const EtcdUpdateQueue::Update &) { return *failed; });
        return;
    }
    bool succeeded = false;
    qint64 revision = 0;
    QString unreadable;
    if (!readTxnOutcome(json, &succeeded, &revision, &unreadable)) {
        answerAll([&](const EtcdUpdateQueue::Update &update) {
            return badReply(operation, update.key, unreadable);
        });
        return;
    }
    if (succeeded) {
        answerAll([&](const EtcdUpdateQueue::Update &update) {
            return success(StoreEntry { update.key, update.document, QString::number(revision) });
        });
        return;
    }
    // One failed comparison fails the whole txn. The updates whose key still
    // has the version they named lost only because they shared it: they go
    // again. When none really lost (no real etcd answers that), each is
    // answered with what it read, so that nothing goes round for ever.
    const QJsonArray responses = json.value(QLatin1String("responses")).toArray();
    std::vector<std::optional<StoreResult>> answers(batch.size());
    std::vector<StoreResult> ownVersion(batch.size());
    bool anyLost = false;
    for (qsizetype i = 0; i < batch.size(); ++i) {
        const EtcdUpdateQueue::Update &update = batch.at(i);
        const QJsonObject range = responses.at(i).toObject().value(QLatin1String("response_range"))
                                          .toObject();
        QJsonArray kvs;
        QString why;
        StoreEntry current;
        if (!etcdcodec::kvsOf(range, &kvs, &why)) {
            answers[i] = badReply(operation, update.key, why);
        } else if (kvs.isEmpty()) {
            answers[i] = failure(Status::NotFound, QStringLiteral("%1: no key \"%2\" to update")
                                                           .arg(describe(), update.key));
        } else if (!etcdcodec::decodeKv(kvs.first(), m_prefix, &current, &why)) {
            answers[i] = badReply(operation, update.key, why);
        } else {
            StoreResult lost = conflict(current, QStringLiteral("%1: key \"%2\" has version %3, not %4")
                                                         .arg(describe(), update.key,
                                                              current.version,
                                                              QString::number(update.revision)));
            if (current.version == QString::number(update.revision))
                ownVersion[i] = std::move(lost);
            else
                answers[i] = std::move(lost);
        }
        anyLost = anyLost || answers[i].has_value();
    }
    QList<EtcdUpdateQueue::Update> again;
    for (qsizetype i = 0; i < batch.size(); ++i) {
        if (answers[i])
            deliver(batch.at(i).done, *answers[i]);
        else if (anyLost)
            again.append(std::move(batch[i]));
        else
            deliver(batch.at(i).done, ownVersion[i]);
    }
    if (!again.isEmpty())
        m_updates.requeue(std::move(again));
}

void EtcdStore::remove(const QString &key, const QString &version, Callback done)
{
    const QByteArray full = fullKey(key);
    const QJsonObject deleteRange { { QStringLiteral("key"), b64(full) },
                                    { QStringLiteral("prev_kv"), true } };
    auto removedEntry = [this, key](const QJsonObject &deleteResponse, StoreResult *result) {
        qint64 deleted = 0;
        if (!etcdcodec::revision(deleteResponse.value(QLatin1String("deleted")), &deleted, 0)) {
            *result = badReply(QStringLiteral("remove"), key,
                               QStringLiteral("\"deleted\" is not a count"));
            return;
        }
        if (deleted == 0) {
            *result = failure(Status::NotFound, QStringLiteral("%1: no key \"%2\" to remove")
                                                        .arg(describe(), key));
            return;
        }
        const QJsonValue previous = deleteResponse.value(QLatin1String("prev_kvs")).toArray().at(0);
        StoreEntry entry;
        QString why;
        if (previous.isUndefined()) {
            *result = StoreResult(); // removed; what it held, etcd did not say
            result->entry.key = key;
            return;
        }
        if (!etcdcodec::decodeKv(previous, m_prefix, &entry, &why)) {
            // Removed all the same: an unconditional remove clears an unreadable value.
            *result = StoreResult();
            result->entry.key = key;
            return;
        }
        *result = success(entry);
    };

    if (version.isEmpty()) {
        call(QStringLiteral("/v3/kv/deleterange"), deleteRange,
             [this, removedEntry, done = std::move(done)](const QJsonObject &json,
                                                          const Failure &failed) {
            if (failed) {
                deliver(done, *failed);
                return;
            }
            StoreResult result;
            removedEntry(json, &result);
            deliver(done, result);
        });
        return;
    }
    const std::optional<qint64> revision = parseVersion(version);
    if (!revision) {
        reportCurrent(QStringLiteral("remove"), key, version, std::move(done));
        return;
    }
    const QJsonObject body = txn(
            QJsonObject { { QStringLiteral("key"), b64(full) },
                          { QStringLiteral("target"), QStringLiteral("MOD") },
                          { QStringLiteral("mod_revision"), QString::number(*revision) } },
            QJsonObject { { QStringLiteral("request_delete_range"), deleteRange } }, rangeOp(full));
    call(QStringLiteral("/v3/kv/txn"), body,
         [this, key, version, removedEntry, done = std::move(done)](const QJsonObject &json,
                                                                    const Failure &failed) {
        if (failed) {
            deliver(done, *failed);
            return;
        }
        const QString operation = QStringLiteral("remove");
        bool succeeded = false;
        if (!etcdcodec::optionalBool(json.value(QLatin1String("succeeded")), &succeeded)) {
            deliver(done, badReply(operation, key, QStringLiteral("\"succeeded\" is not a boolean")));
            return;
        }
        const QJsonObject response
                = json.value(QLatin1String("responses")).toArray().at(0).toObject();
        if (succeeded) {
            StoreResult result;
            removedEntry(response.value(QLatin1String("response_delete_range")).toObject(), &result);
            deliver(done, result);
            return;
        }
        QJsonArray kvs;
        QString why;
        if (!etcdcodec::kvsOf(response.value(QLatin1String("response_range")).toObject(), &kvs,
                              &why)) {
            deliver(done, badReply(operation, key, why));
            return;
        }
        if (kvs.isEmpty()) {
            deliver(done, failure(Status::NotFound, QStringLiteral("%1: no key \"%2\" to remove")
                                                            .arg(describe(), key)));
            return;
        }
        StoreEntry current;
        if (!etcdcodec::decodeKv(kvs.first(), m_prefix, &current, &why)) {
            deliver(done, badReply(operation, key, why));
            return;
        }
        deliver(done, conflict(current, QStringLiteral("%1: key \"%2\" has version %3, not %4")
                                                .arg(describe(), key, current.version, version)));
    });
}

void EtcdStore::list(const QString &prefix, Callback done)
{
    const QByteArray full = fullKey(prefix);
    const QJsonObject body {
        // An empty key with range_end "\0" would be one key; "\0" to "\0" is all.
        { QStringLiteral("key"), b64(full.isEmpty() ? QByteArray(1, '\0') : full) },
        { QStringLiteral("range_end"), b64(etcdcodec::prefixRangeEnd(full)) },
    };
    call(QStringLiteral("/v3/kv/range"), body,
         [this, prefix, done = std::move(done)](const QJsonObject &json, const Failure &failed) {
        if (failed) {
            deliver(done, *failed);
            return;
        }
        QJsonArray kvs;
        QString why;
        if (!etcdcodec::kvsOf(json, &kvs, &why)) {
            deliver(done, badReply(QStringLiteral("list"), prefix, why));
            return;
        }
        StoreResult result;
        QStringList errors;
        for (const QJsonValue &kv : std::as_const(kvs)) {
            StoreEntry entry;
            if (etcdcodec::decodeKv(kv, m_prefix, &entry, &why))
                result.entries.append(entry);
            else
                errors.append(why);
        }
        std::sort(result.entries.begin(), result.entries.end(),
                  [](const StoreEntry &a, const StoreEntry &b) { return a.key < b.key; });
        // The readable entries are still listed, as FileStore does: one bad
        // value must not hide every other lease, nor be silently absent.
        if (!errors.isEmpty()) {
            result.status = Status::BadReply;
            result.errorString = badReply(QStringLiteral("list"), prefix,
                                          errors.join(QStringLiteral("; ")))
                                         .errorString;
        }
        deliver(done, result);
    });
}

StoreWatch *EtcdStore::watch(const QString &prefix, QObject *parent)
{
    if (!m_initialised)
        return nullptr;
    // A key of a kind ("cluster:<name>") shares the stream over its kind;
    // the kind itself, or a prefix without one, has a stream of its own.
    const qsizetype colon = prefix.indexOf(QLatin1Char(':'));
    if (colon < 0 || colon + 1 == prefix.size())
        return new EtcdWatch(this, prefix, parent);
    const QString kind = prefix.left(colon + 1);
    QPointer<EtcdWatchHub> &hub = m_hubs[kind];
    if (!hub || hub->retiring())
        hub = new EtcdWatchHub(this, prefix);
    return new EtcdSharedWatch(hub, prefix, m_knownRevision, parent);
}

HttpStream *EtcdStore::openStream(const QString &path, const QJsonObject &body, QObject *parent,
                                  int *endpoint, QByteArray *token)
{
    *endpoint = m_current;
    *token = m_token;
    HttpClient::Headers headers;
    if (!m_token.isEmpty())
        headers.append({ QByteArrayLiteral("Authorization"), m_token });
    return m_http->postStream(endpointUrl(m_current, path), body, headers, parent);
}

void EtcdStore::watchStarting(EtcdWatch *watch)
{
    m_startingWatches.insert(watch);
}

void EtcdStore::watchStarted(EtcdWatch *watch)
{
    if (!m_startingWatches.remove(watch) || !m_startingWatches.isEmpty())
        return;
    const QList<RequestPtr> held = std::exchange(m_held, {});
    for (const RequestPtr &request : held)
        send(request);
}

} // namespace baton
