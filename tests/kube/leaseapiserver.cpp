#include "leaseapiserver.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QRegularExpression>
#include <QSslServer>
#include <QSslSocket>
#include <QTcpServer>
#include <QTimer>
#include <QUrlQuery>

#include <utility>

namespace baton::test {

namespace {

const QString group = QStringLiteral("coordination.k8s.io");
const QString apiVersion = QStringLiteral("coordination.k8s.io/v1");
const QString base = QStringLiteral("/apis/coordination.k8s.io/v1");

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
    }
}

QString reasonFor(int status)
{
    switch (status) {
    case 400: return QStringLiteral("BadRequest");
    case 401: return QStringLiteral("Unauthorized");
    case 403: return QStringLiteral("Forbidden");
    case 404: return QStringLiteral("NotFound");
    case 405: return QStringLiteral("MethodNotAllowed");
    case 409: return QStringLiteral("Conflict");
    case 410: return QStringLiteral("Expired");
    case 422: return QStringLiteral("Invalid");
    case 429: return QStringLiteral("TooManyRequests");
    case 503: return QStringLiteral("ServiceUnavailable");
    default: return QStringLiteral("InternalError");
    }
}

/*! A Status object as the apiserver writes it (api-conventions: "Response Status Kind"). */
QJsonObject status(int code, const QString &message, const QString &reason = {},
                   const QJsonObject &details = {})
{
    QJsonObject s {{QStringLiteral("kind"), QStringLiteral("Status")},
                   {QStringLiteral("apiVersion"), QStringLiteral("v1")},
                   {QStringLiteral("metadata"), QJsonObject {}},
                   {QStringLiteral("status"), QStringLiteral("Failure")},
                   {QStringLiteral("message"), message},
                   {QStringLiteral("reason"), reason.isEmpty() ? reasonFor(code) : reason},
                   {QStringLiteral("code"), code}};
    if (!details.isEmpty())
        s.insert(QStringLiteral("details"), details);
    return s;
}

QJsonObject leaseDetails(const QString &name, const QString &kind = QStringLiteral("leases"))
{
    QJsonObject d {{QStringLiteral("group"), group}, {QStringLiteral("kind"), kind}};
    if (!name.isEmpty())
        d.insert(QStringLiteral("name"), name);
    return d;
}

bool isDnsSubdomain(const QString &name)
{
    static const QRegularExpression re(QStringLiteral(
            "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));
    return !name.isEmpty() && name.size() <= 253 && re.match(name).hasMatch();
}

const QString dnsSubdomainError = QStringLiteral(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
const QString qualifiedNameError = QStringLiteral(
        "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");

/*! apimachinery's IsQualifiedName(): its messages, none when \a value is one. */
QStringList qualifiedNameErrors(const QString &value)
{
    static const QRegularExpression namePart(QStringLiteral("^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"));
    QStringList errors;
    const QStringList parts = value.split(QLatin1Char('/'));
    if (parts.size() > 2)
        return {QStringLiteral("a qualified name ") + qualifiedNameError
                + QStringLiteral(" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")};
    const QString name = parts.last();
    if (parts.size() == 2) {
        const QString prefix = parts.first();
        if (prefix.isEmpty())
            errors << QStringLiteral("prefix part must be non-empty");
        else if (prefix.size() > 253)
            errors << QStringLiteral("prefix part must be no more than 253 characters");
        else if (!isDnsSubdomain(prefix))
            errors << QStringLiteral("prefix part ") + dnsSubdomainError;
    }
    if (name.isEmpty())
        errors << QStringLiteral("name part must be non-empty");
    else if (name.size() > 63)
        errors << QStringLiteral("name part must be no more than 63 characters");
    if (!namePart.match(name).hasMatch())
        errors << QStringLiteral("name part ") + qualifiedNameError;
    return errors;
}

bool isMicroTime(const QString &text)
{
    // Go's time.Parse with RFC3339Micro: exactly six fraction digits and a zone.
    static const QRegularExpression re(QStringLiteral(
            "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}(Z|[+-]\\d{2}:\\d{2})$"));
    return re.match(text).hasMatch()
            && QDateTime::fromString(text, Qt::ISODateWithMs).isValid();
}

bool isInt32(const QJsonValue &v)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    return d == double(qint64(d)) && d >= -2147483648.0 && d <= 2147483647.0;
}

QByteArray chunk(const QByteArray &data)
{
    return QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n";
}

} // namespace

/*! One accepted connection: its socket, what was read, and whether a watch owns it. */
class LeaseApiConnection
{
public:
    QPointer<QTcpSocket> socket;
    QByteArray buffer;
    bool streaming = false;
    bool busy = false; // an answer is on its way (delay): requests wait
    QString certificateUser;
    QTimer *watchTimeout = nullptr;
};

struct LeaseApiServer::Request
{
    QByteArray method;
    QString path;
    QUrlQuery query;
    QHash<QByteArray, QByteArray> headers;
    QByteArray body;
};

struct LeaseApiServer::Answer
{
    int status = 200;
    QJsonObject body;
};

LeaseApiServer::LeaseApiServer(QObject *parent)
    : QObject(parent)
    , m_bookmarkTimer(new QTimer(this))
{
    m_bookmarkTimer->setInterval(1000);
    connect(m_bookmarkTimer, &QTimer::timeout, this, &LeaseApiServer::sendBookmarks);
    m_bookmarkTimer->start();
}

LeaseApiServer::~LeaseApiServer()
{
    const QList<Watch> watches = m_watches;
    m_watches.clear();
    for (const Watch &w : watches) {
        if (w.connection->socket)
            w.connection->socket->abort();
    }
    // Connections still open, or whose delayed deletion has not come yet, end
    // with the server: nothing else owns them.
    qDeleteAll(std::exchange(m_connections, {}));
}

bool LeaseApiServer::setTls(const QString &certFile, const QString &keyFile,
                            const QString &clientCaFile, QString *errorString)
{
    QFile cert(certFile);
    QFile key(keyFile);
    if (!cert.open(QIODevice::ReadOnly) || !key.open(QIODevice::ReadOnly)) {
        *errorString = QStringLiteral("cannot read %1 or %2").arg(certFile, keyFile);
        return false;
    }
    m_certificateChain = QSslCertificate::fromData(cert.readAll());
    m_key = QSslKey(key.readAll(), QSsl::Ec);
    if (m_certificateChain.isEmpty() || m_key.isNull()) {
        *errorString = QStringLiteral("bad server certificate or key");
        return false;
    }
    if (!clientCaFile.isEmpty())
        m_clientCa = QSslCertificate::fromPath(clientCaFile);
    m_tls = true;
    return true;
}

bool LeaseApiServer::listen(QString *errorString, quint16 port)
{
    if (m_tls) {
        auto *server = new QSslServer(this);
        QSslConfiguration config = QSslConfiguration::defaultConfiguration();
        config.setLocalCertificateChain(m_certificateChain);
        config.setPrivateKey(m_key);
        config.setCaCertificates(m_clientCa);
        config.setPeerVerifyMode(QSslSocket::QueryPeer);
        server->setSslConfiguration(config);
        m_server = server;
    } else {
        m_server = new QTcpServer(this);
    }
    connect(m_server, &QTcpServer::pendingConnectionAvailable, this, [this] {
        while (QTcpSocket *socket = m_server->nextPendingConnection())
            incoming(socket);
    });
    if (!m_server->listen(QHostAddress::LocalHost, port)) {
        *errorString = m_server->errorString();
        return false;
    }
    return true;
}

QUrl LeaseApiServer::url() const
{
    QUrl u;
    u.setScheme(m_tls ? QStringLiteral("https") : QStringLiteral("http"));
    u.setHost(QStringLiteral("127.0.0.1"));
    u.setPort(m_server ? m_server->serverPort() : 0);
    return u;
}

void LeaseApiServer::addToken(const QString &token, const QString &user, const QStringList &verbs)
{
    m_tokens.insert(token, user);
    setVerbs(user, verbs);
}

void LeaseApiServer::addCertificateUser(const QString &user, const QStringList &verbs)
{
    setVerbs(user, verbs);
}

void LeaseApiServer::setVerbs(const QString &user, const QStringList &verbs)
{
    m_users[user] = User {user, QSet<QString>(verbs.begin(), verbs.end())};
}

void LeaseApiServer::removeToken(const QString &token)
{
    m_tokens.remove(token);
}

int LeaseApiServer::count(const QString &user, const QString &verb, bool denied) const
{
    return m_counters.value(user).value(denied ? QStringLiteral("denied-") + verb : verb);
}

QSet<QString> LeaseApiServer::verbsUsed(const QString &user) const
{
    QSet<QString> used;
    const QHash<QString, int> counts = m_counters.value(user);
    for (auto it = counts.begin(); it != counts.end(); ++it)
        if (!it.key().startsWith(QStringLiteral("denied-")) && it.value() > 0)
            used.insert(it.key());
    return used;
}

QJsonObject LeaseApiServer::counters() const
{
    QJsonObject all;
    for (auto it = m_counters.begin(); it != m_counters.end(); ++it) {
        QJsonObject verbs;
        for (auto v = it->begin(); v != it->end(); ++v)
            verbs.insert(v.key(), v.value());
        all.insert(it.key(), verbs);
    }
    return all;
}

void LeaseApiServer::resetCounters()
{
    m_counters.clear();
}

void LeaseApiServer::setHistoryLimit(int events)
{
    m_historyLimit = std::max(1, events);
    while (int(m_history.size()) > m_historyLimit) {
        m_compactedRv = m_history.front().rv;
        m_history.pop_front();
    }
}

void LeaseApiServer::compactHistory()
{
    m_history.clear();
    m_compactedRv = m_rv;
}

void LeaseApiServer::setBookmarkInterval(int ms)
{
    m_bookmarkTimer->setInterval(ms);
}

void LeaseApiServer::failNextRequests(int requests, int code)
{
    m_failRequests = requests;
    m_failStatus = code;
}

void LeaseApiServer::setResponseDelay(int ms)
{
    m_delayMs = ms;
}

void LeaseApiServer::holdAnswers(const QString &user, const QString &verb, int count)
{
    m_holdUser = user;
    m_holdVerb = verb;
    m_holdAnswers = count;
}

void LeaseApiServer::releaseHeldAnswers()
{
    const QList<HeldAnswer> held = std::exchange(m_heldAnswers, {});
    for (const HeldAnswer &answer : held)
        if (m_connections.contains(answer.connection))
            answer.send();
}

void LeaseApiServer::endAllWatches()
{
    const QList<Watch> watches = m_watches;
    for (const Watch &w : watches) {
        if (w.connection->socket)
            w.connection->socket->write("0\r\n\r\n");
        dropWatch(w.connection);
    }
}

QJsonObject LeaseApiServer::lease(const QString &ns, const QString &name) const
{
    auto it = m_objects.find({ns, name});
    return it == m_objects.end() ? QJsonObject {} : it->second;
}

QString LeaseApiServer::resourceVersion() const
{
    return QString::number(m_rv);
}

int LeaseApiServer::watchCount() const
{
    return int(m_watches.size());
}

QString LeaseApiServer::nextResourceVersion()
{
    return QString::number(++m_rv);
}

QJsonObject LeaseApiServer::putRaw(const QString &ns, const QString &name, const QJsonObject &object)
{
    QJsonObject stored = object;
    QJsonObject meta = stored.value(QStringLiteral("metadata")).toObject();
    meta.insert(QStringLiteral("name"), name);
    meta.insert(QStringLiteral("namespace"), ns);
    meta.insert(QStringLiteral("resourceVersion"), nextResourceVersion());
    stored.insert(QStringLiteral("metadata"), meta);
    const bool existed = m_objects.count({ns, name}) > 0;
    m_objects[{ns, name}] = stored;
    record(existed ? QStringLiteral("MODIFIED") : QStringLiteral("ADDED"), ns, name, stored);
    return stored;
}

QJsonObject LeaseApiServer::putConfigMapRaw(const QString &ns, const QString &name, const QJsonObject &object)
{
    QJsonObject stored = object;
    QJsonObject meta = stored.value(QStringLiteral("metadata")).toObject();
    meta.insert(QStringLiteral("name"), name);
    meta.insert(QStringLiteral("namespace"), ns);
    meta.insert(QStringLiteral("resourceVersion"), nextResourceVersion());
    stored.insert(QStringLiteral("metadata"), meta);
    m_configMaps[{ns, name}] = stored;
    return stored;
}

void LeaseApiServer::incoming(QTcpSocket *socket)
{
    auto *connection = new LeaseApiConnection;
    m_connections.insert(connection);
    connection->socket = socket;
    socket->setParent(this);
    if (auto *ssl = qobject_cast<QSslSocket *>(socket)) {
        const QSslCertificate peer = ssl->peerCertificate();
        // QueryPeer asks for a certificate without requiring one: accept it
        // as an identity only when the client CA issued it and it verified.
        if (!peer.isNull() && !m_clientCa.isEmpty() && ssl->sslHandshakeErrors().isEmpty()
            && peer.issuerDisplayName() == m_clientCa.first().subjectDisplayName())
            connection->certificateUser = peer.subjectInfo(QSslCertificate::CommonName).value(0);
    }
    connect(socket, &QTcpSocket::readyRead, this, [this, connection] {
        if (!connection->socket)
            return;
        connection->buffer += connection->socket->readAll();
        while (!connection->streaming && !connection->busy) {
            const qsizetype end = connection->buffer.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            Request request;
            const QList<QByteArray> lines = connection->buffer.left(end).split('\n');
            const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
            request.method = first.value(0);
            const QUrl target(QString::fromLatin1(first.value(1)));
            request.path = target.path();
            request.query = QUrlQuery(target);
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const qsizetype colon = lines[i].indexOf(':');
                if (colon > 0)
                    request.headers.insert(lines[i].left(colon).trimmed().toLower(),
                                           lines[i].mid(colon + 1).trimmed());
            }
            const qsizetype length = request.headers.value("content-length", "0").toLongLong();
            if (connection->buffer.size() < end + 4 + length)
                return;
            request.body = connection->buffer.mid(end + 4, length);
            connection->buffer.remove(0, end + 4 + length);
            handle(connection, request);
        }
    });
    connect(socket, &QTcpSocket::disconnected, this, [this, connection] {
        dropWatch(connection);
        if (connection->socket)
            connection->socket->deleteLater();
        // The connection object goes with its last queued answer, if any.
        QTimer::singleShot(m_delayMs + 50, this, [this, connection] {
            m_connections.remove(connection);
            delete connection;
        });
    });
    if (socket->bytesAvailable() > 0)
        QMetaObject::invokeMethod(socket, &QTcpSocket::readyRead, Qt::QueuedConnection);
}

void LeaseApiServer::handle(LeaseApiConnection *connection, const Request &request)
{
    ++m_requests;
    QString user;
    QString verb;
    bool streaming = false;
    Answer answer = dispatch(connection, request, &user, &verb, &streaming);
    if (streaming) {
        Q_EMIT requestHandled(user, verb, 200);
        return;
    }
    const QByteArray body = QJsonDocument(answer.body).toJson(QJsonDocument::Compact);
    const bool close = request.headers.value("connection").toLower() == "close";
    QByteArray out = "HTTP/1.1 " + QByteArray::number(answer.status) + ' '
            + reasonPhrase(answer.status) + "\r\nContent-Type: application/json\r\n"
            + "Content-Length: " + QByteArray::number(body.size()) + "\r\n"
            + (close ? "Connection: close\r\n" : "") + "\r\n" + body;
    auto send = [this, connection, out, close, user, verb, status = answer.status] {
        connection->busy = false;
        if (!connection->socket)
            return;
        connection->socket->write(out);
        if (close)
            connection->socket->disconnectFromHost();
        Q_EMIT requestHandled(user, verb, status);
        if (!connection->buffer.isEmpty())
            QMetaObject::invokeMethod(connection->socket, &QTcpSocket::readyRead,
                                      Qt::QueuedConnection);
    };
    if (m_holdAnswers > 0 && user == m_holdUser && verb == m_holdVerb) {
        --m_holdAnswers;
        connection->busy = true;
        m_heldAnswers.append({connection, send});
        Q_EMIT answerHeld(user, verb);
    } else if (m_delayMs > 0) {
        connection->busy = true;
        QTimer::singleShot(m_delayMs, connection->socket, send);
    } else {
        send();
    }
}

LeaseApiServer::Answer LeaseApiServer::dispatch(LeaseApiConnection *connection,
                                                const Request &request, QString *user,
                                                QString *verb, bool *streaming)
{
    // For the standalone server: the counters, for tests in another process.
    if (request.path == QStringLiteral("/_baton/counters"))
        return {200, counters()};

    if (m_failRequests > 0) {
        --m_failRequests;
        return {m_failStatus, status(m_failStatus, QStringLiteral("injected failure (test server)"))};
    }

    // Authentication: a bearer token, else a verified client certificate.
    const QByteArray authorization = request.headers.value("authorization");
    if (authorization.startsWith("Bearer ")) {
        const QString token = QString::fromUtf8(authorization.mid(7).trimmed());
        *user = m_tokens.value(token);
    } else if (authorization.isEmpty()) {
        *user = connection->certificateUser;
    }
    if (user->isEmpty() || !m_users.contains(*user))
        return {401, status(401, QStringLiteral("Unauthorized"))};

    // Routing: core/v1 ConfigMaps and Events, else Leases.
    if (request.path.startsWith(QStringLiteral("/api/v1/")) && request.path.contains(QStringLiteral("/configmaps")))
        return dispatchConfigMaps(request, *user, verb);
    if (request.path.startsWith(QStringLiteral("/api/v1/")))
        return dispatchEvents(request, *user, request.path, verb);
    QString ns;
    QString name;
    bool allNamespaces = false;
    const QString prefix = base + QStringLiteral("/namespaces/");
    if (request.path == base + QStringLiteral("/leases")) {
        allNamespaces = true;
    } else if (request.path.startsWith(prefix)) {
        const QStringList parts = request.path.mid(prefix.size()).split(QLatin1Char('/'));
        if (parts.size() < 2 || parts.size() > 3 || parts[1] != QStringLiteral("leases")
            || parts[0].isEmpty())
            return {404, status(404, QStringLiteral("the server could not find the requested resource"))};
        ns = parts[0];
        name = parts.value(2);
    } else {
        return {404, status(404, QStringLiteral("the server could not find the requested resource"))};
    }

    const QString watchParam = request.query.queryItemValue(QStringLiteral("watch"));
    const bool watch = watchParam == QStringLiteral("true") || watchParam == QStringLiteral("1");
    if (request.method == "GET")
        *verb = watch ? QStringLiteral("watch") : name.isEmpty() ? QStringLiteral("list") : QStringLiteral("get");
    else if (request.method == "POST" && name.isEmpty() && !allNamespaces)
        *verb = QStringLiteral("create");
    else if (request.method == "PUT" && !name.isEmpty())
        *verb = QStringLiteral("update");
    else if (request.method == "DELETE" && !name.isEmpty())
        *verb = QStringLiteral("delete");
    else
        return {405, status(405, QStringLiteral("the server does not allow this method on the requested resource"))};

    // Authorisation, with the apiserver's wording.
    if (!m_users.value(*user).verbs.contains(*verb)) {
        m_counters[*user][QStringLiteral("denied-") + *verb] += 1;
        const QString subject = name.isEmpty()
                ? QStringLiteral("leases.coordination.k8s.io")
                : QStringLiteral("leases.coordination.k8s.io \"%1\"").arg(name);
        const QString scope = allNamespaces ? QStringLiteral("at the cluster scope")
                                            : QStringLiteral("in the namespace \"%1\"").arg(ns);
        return {403, status(403,
                            QStringLiteral("%1 is forbidden: User \"%2\" cannot %3 resource \"leases\" "
                                           "in API group \"coordination.k8s.io\" %4")
                                    .arg(subject, *user, *verb, scope),
                            {}, leaseDetails(name))};
    }
    m_counters[*user][*verb] += 1;

    if (*verb == QStringLiteral("get"))
        return doGet(ns, name);
    if (*verb == QStringLiteral("list"))
        return doList(ns);
    if (*verb == QStringLiteral("create"))
        return doCreate(ns, request.body);
    if (*verb == QStringLiteral("update"))
        return doUpdate(ns, name, request.body);
    if (*verb == QStringLiteral("delete"))
        return doDelete(ns, name);
    Answer error;
    if (startWatch(connection, request, ns, name, &error)) {
        *streaming = true;
        return {};
    }
    return error;
}

QList<QJsonObject> LeaseApiServer::events(const QString &ns) const
{
    return m_events.value(ns);
}

LeaseApiServer::Answer LeaseApiServer::dispatchEvents(const Request &request, const QString &user,
                                                      const QString &path, QString *verb)
{
    static const QRegularExpression route(QStringLiteral("^/api/v1/namespaces/([^/]+)/events$"));
    const QRegularExpressionMatch m = route.match(path);
    if (!m.hasMatch())
        return {404, status(404, QStringLiteral("the server could not find the requested resource"))};
    const QString ns = m.captured(1);
    QString eventVerb;
    if (request.method == "POST")
        eventVerb = QStringLiteral("create");
    else if (request.method == "GET")
        eventVerb = QStringLiteral("list");
    else
        return {405, status(405, QStringLiteral("the server does not allow this method on the requested resource"))};
    // Told apart from the verbs on leases, which the tests count.
    *verb = QStringLiteral("events/") + eventVerb;
    if (m_eventsForbidden) {
        m_counters[user][QStringLiteral("denied-") + *verb] += 1;
        // The core group is "": the apiserver names it so.
        return {403, status(403,
                            QStringLiteral("events is forbidden: User \"%1\" cannot %2 resource \"events\" in "
                                           "API group \"\" in the namespace \"%3\"")
                                    .arg(user, eventVerb, ns),
                            {}, QJsonObject {{QStringLiteral("kind"), QStringLiteral("events")}})};
    }
    m_counters[user][*verb] += 1;
    return eventVerb == QStringLiteral("create") ? doCreateEvent(ns, request.body) : doListEvents(ns, request.query);
}

LeaseApiServer::Answer LeaseApiServer::doCreateEvent(const QString &ns, const QByteArray &body)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    if (!doc.isObject())
        return {400, status(400, QStringLiteral("the body of the request was in an unknown format: %1")
                                         .arg(parseError.errorString()))};
    QJsonObject event = doc.object();
    if (event.value(QStringLiteral("kind")).toString(QStringLiteral("Event")) != QStringLiteral("Event")
        || event.value(QStringLiteral("apiVersion")).toString(QStringLiteral("v1")) != QStringLiteral("v1"))
        return {400, status(400, QStringLiteral("the API version in the data (%1) does not match the expected "
                                                "API version (v1)")
                                         .arg(event.value(QStringLiteral("apiVersion")).toString()))};
    QJsonObject meta = event.value(QStringLiteral("metadata")).toObject();
    const QString name = meta.value(QStringLiteral("name")).toString();
    const QString metaNs = meta.value(QStringLiteral("namespace")).toString();
    if (!metaNs.isEmpty() && metaNs != ns)
        return {400, status(400, QStringLiteral("the namespace of the provided object does not match the "
                                                "namespace sent on the request"))};
    QJsonArray causes;
    auto invalid = [&causes](const QString &field, const QString &message) {
        causes.append(QJsonObject {{QStringLiteral("reason"), QStringLiteral("FieldValueInvalid")},
                                   {QStringLiteral("message"), message},
                                   {QStringLiteral("field"), field}});
    };
    if (!isDnsSubdomain(name))
        invalid(QStringLiteral("metadata.name"),
                QStringLiteral("Invalid value: \"%1\": a lowercase RFC 1123 subdomain must consist of lower "
                               "case alphanumeric characters, '-' or '.', and must start and end with an "
                               "alphanumeric character")
                        .arg(name));
    const QString involvedNs = event.value(QStringLiteral("involvedObject")).toObject()
                                       .value(QStringLiteral("namespace")).toString();
    if (involvedNs != ns)
        invalid(QStringLiteral("involvedObject.namespace"),
                QStringLiteral("Invalid value: \"%1\": does not match event.namespace").arg(involvedNs));
    const QString type = event.value(QStringLiteral("type")).toString();
    if (type != QStringLiteral("Normal") && type != QStringLiteral("Warning"))
        invalid(QStringLiteral("type"), QStringLiteral("Unsupported value: \"%1\": supported values: "
                                                       "\"Normal\", \"Warning\"")
                                                .arg(type));
    if (!causes.isEmpty()) {
        QStringList parts;
        for (const QJsonValue &c : std::as_const(causes))
            parts << c[QStringLiteral("field")].toString() + QStringLiteral(": ") + c[QStringLiteral("message")].toString();
        return {422, status(422, QStringLiteral("Event \"%1\" is invalid: %2").arg(name, parts.join(QStringLiteral(", "))),
                            {}, QJsonObject {{QStringLiteral("name"), name},
                                             {QStringLiteral("kind"), QStringLiteral("Event")},
                                             {QStringLiteral("causes"), causes}})};
    }
    const QList<QJsonObject> existing = m_events.value(ns);
    for (const QJsonObject &e : existing)
        if (e[QStringLiteral("metadata")][QStringLiteral("name")].toString() == name)
            return {409, status(409, QStringLiteral("events \"%1\" already exists").arg(name),
                                QStringLiteral("AlreadyExists"),
                                QJsonObject {{QStringLiteral("name"), name}, {QStringLiteral("kind"), QStringLiteral("events")}})};
    meta.insert(QStringLiteral("namespace"), ns);
    meta.insert(QStringLiteral("uid"), QStringLiteral("00000000-0000-4000-9000-%1")
                                               .arg(++m_uidCounter, 12, 10, QLatin1Char('0')));
    meta.insert(QStringLiteral("creationTimestamp"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
    meta.insert(QStringLiteral("resourceVersion"), nextResourceVersion());
    event.insert(QStringLiteral("metadata"), meta);
    event.insert(QStringLiteral("kind"), QStringLiteral("Event"));
    event.insert(QStringLiteral("apiVersion"), QStringLiteral("v1"));
    m_events[ns].append(event);
    return {201, event};
}

LeaseApiServer::Answer LeaseApiServer::doListEvents(const QString &ns, const QUrlQuery &query) const
{
    // Only the selector leader election's readers use: involvedObject.name=X.
    QString involvedName;
    const QString selector = query.queryItemValue(QStringLiteral("fieldSelector"), QUrl::FullyDecoded);
    for (const QString &term : selector.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString field = term.section(QLatin1Char('='), 0, 0);
        if (field != QStringLiteral("involvedObject.name"))
            return {400, status(400, QStringLiteral("field label not supported: %1").arg(field))};
        involvedName = term.section(QLatin1Char('='), 1);
    }
    QJsonArray items;
    for (const QJsonObject &e : m_events.value(ns))
        if (involvedName.isEmpty() || e[QStringLiteral("involvedObject")][QStringLiteral("name")].toString() == involvedName)
            items.append(e);
    return {200,
            QJsonObject {{QStringLiteral("kind"), QStringLiteral("EventList")},
                         {QStringLiteral("apiVersion"), QStringLiteral("v1")},
                         {QStringLiteral("metadata"), QJsonObject {{QStringLiteral("resourceVersion"), resourceVersion()}}},
                         {QStringLiteral("items"), items}}};
}

QJsonObject LeaseApiServer::configMap(const QString &ns, const QString &name) const
{
    auto it = m_configMaps.find({ns, name});
    return it == m_configMaps.end() ? QJsonObject() : it->second;
}

QList<QJsonObject> LeaseApiServer::configMaps(const QString &ns) const
{
    QList<QJsonObject> found;
    for (const auto &[key, object] : m_configMaps)
        if (key.first == ns)
            found.append(object);
    return found;
}

LeaseApiServer::Answer LeaseApiServer::dispatchConfigMaps(const Request &request, const QString &user, QString *verb)
{
    static const QRegularExpression route(QStringLiteral("^/api/v1/namespaces/([^/]+)/configmaps(?:/([^/]+))?$"));
    const QRegularExpressionMatch m = route.match(request.path);
    if (!m.hasMatch())
        return {404, status(404, QStringLiteral("the server could not find the requested resource"))};
    const QString ns = m.captured(1);
    const QString name = m.captured(2);
    QString mapVerb;
    if (request.method == "GET")
        mapVerb = name.isEmpty() ? QStringLiteral("list") : QStringLiteral("get");
    else if (request.method == "POST" && name.isEmpty())
        mapVerb = QStringLiteral("create");
    else if (request.method == "PUT" && !name.isEmpty())
        mapVerb = QStringLiteral("update");
    else if (request.method == "DELETE" && !name.isEmpty())
        mapVerb = QStringLiteral("delete");
    else
        return {405, status(405, QStringLiteral("the server does not allow this method on the requested resource"))};
    // A Role grants configmaps apart from leases: the user's verbs name them so.
    *verb = QStringLiteral("configmaps/") + mapVerb;
    const QJsonObject details {{QStringLiteral("name"), name}, {QStringLiteral("kind"), QStringLiteral("configmaps")}};
    if (!m_users.value(user).verbs.contains(*verb)) {
        m_counters[user][QStringLiteral("denied-") + *verb] += 1;
        const QString subject = name.isEmpty() ? QStringLiteral("configmaps")
                                               : QStringLiteral("configmaps \"%1\"").arg(name);
        return {403, status(403,
                            QStringLiteral("%1 is forbidden: User \"%2\" cannot %3 resource \"configmaps\" in "
                                           "API group \"\" in the namespace \"%4\"")
                                    .arg(subject, user, mapVerb, ns),
                            {}, details)};
    }
    m_counters[user][*verb] += 1;
    const auto notFound = [&] {
        return Answer {404, status(404, QStringLiteral("configmaps \"%1\" not found").arg(name), {}, details)};
    };
    const auto conflict = [&](const QString &why) {
        return Answer {409, status(409, QStringLiteral("Operation cannot be fulfilled on configmaps \"%1\": %2")
                                                .arg(name, why),
                                   QStringLiteral("Conflict"), details)};
    };
    auto it = m_configMaps.find({ns, name});
    if (mapVerb == QStringLiteral("get"))
        return it == m_configMaps.end() ? notFound() : Answer {200, it->second};
    if (mapVerb == QStringLiteral("list"))
        return doListConfigMaps(ns, request.query);
    if (mapVerb == QStringLiteral("delete")) {
        if (it == m_configMaps.end())
            return notFound();
        const QString precondition = QJsonDocument::fromJson(request.body).object()
                                             .value(QStringLiteral("preconditions")).toObject()
                                             .value(QStringLiteral("resourceVersion")).toString();
        const QString current = it->second[QStringLiteral("metadata")][QStringLiteral("resourceVersion")].toString();
        if (!precondition.isEmpty() && precondition != current)
            return conflict(QStringLiteral("the ResourceVersion in the precondition (%1) does not match the "
                                           "ResourceVersion in record (%2). The object might have been modified")
                                    .arg(precondition, current));
        m_configMaps.erase(it);
        nextResourceVersion();
        return {200, QJsonObject {{QStringLiteral("kind"), QStringLiteral("Status")},
                                  {QStringLiteral("apiVersion"), QStringLiteral("v1")},
                                  {QStringLiteral("metadata"), QJsonObject {}},
                                  {QStringLiteral("status"), QStringLiteral("Success")},
                                  {QStringLiteral("details"), details}}};
    }
    // create and update: the body is a ConfigMap.
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(request.body, &parseError);
    if (!doc.isObject())
        return {400, status(400, QStringLiteral("the body of the request was in an unknown format: %1")
                                         .arg(parseError.errorString()))};
    QJsonObject object = doc.object();
    QJsonObject meta = object.value(QStringLiteral("metadata")).toObject();
    const QString sentName = meta.value(QStringLiteral("name")).toString();
    if (!meta.value(QStringLiteral("namespace")).toString(ns).isEmpty()
        && meta.value(QStringLiteral("namespace")).toString(ns) != ns)
        return {400, status(400, QStringLiteral("the namespace of the provided object does not match the "
                                                "namespace sent on the request"))};
    const QJsonValue data = object.value(QStringLiteral("data"));
    if (!data.isUndefined() && !data.isNull()) {
        bool strings = data.isObject();
        for (const QJsonValue &value : data.toObject())
            strings = strings && value.isString();
        if (!strings)
            return {400, status(400, QStringLiteral("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: "
                                                    "data must map keys to strings"))};
    }
    if (!isDnsSubdomain(sentName))
        return {422, status(422,
                            QStringLiteral("ConfigMap \"%1\" is invalid: metadata.name: Invalid value: \"%1\": a "
                                           "lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                                           "characters, '-' or '.', and must start and end with an alphanumeric "
                                           "character")
                                    .arg(sentName),
                            {}, QJsonObject {{QStringLiteral("name"), sentName},
                                             {QStringLiteral("kind"), QStringLiteral("ConfigMap")}})};
    meta.insert(QStringLiteral("namespace"), ns);
    object.insert(QStringLiteral("kind"), QStringLiteral("ConfigMap"));
    object.insert(QStringLiteral("apiVersion"), QStringLiteral("v1"));
    if (mapVerb == QStringLiteral("create")) {
        if (m_configMaps.count({ns, sentName}))
            return {409, status(409, QStringLiteral("configmaps \"%1\" already exists").arg(sentName),
                                QStringLiteral("AlreadyExists"),
                                QJsonObject {{QStringLiteral("name"), sentName},
                                             {QStringLiteral("kind"), QStringLiteral("configmaps")}})};
        meta.insert(QStringLiteral("uid"), QStringLiteral("00000000-0000-4000-a000-%1")
                                                   .arg(++m_uidCounter, 12, 10, QLatin1Char('0')));
        meta.insert(QStringLiteral("creationTimestamp"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
        meta.insert(QStringLiteral("resourceVersion"), nextResourceVersion());
        object.insert(QStringLiteral("metadata"), meta);
        m_configMaps[{ns, sentName}] = object;
        return {201, object};
    }
    if (sentName != name)
        return {400, status(400, QStringLiteral("the name of the object (%1) does not match the name on the URL (%2)")
                                         .arg(sentName, name))};
    // ConfigMaps, unlike Leases, are not created by an update.
    if (it == m_configMaps.end())
        return notFound();
    const QJsonObject currentMeta = it->second.value(QStringLiteral("metadata")).toObject();
    const QString sent = meta.value(QStringLiteral("resourceVersion")).toString();
    // An update without a resourceVersion is unconditional, as ConfigMaps allow.
    if (!sent.isEmpty() && sent != currentMeta.value(QStringLiteral("resourceVersion")).toString())
        return conflict(QStringLiteral("the object has been modified; please apply your changes to the latest "
                                       "version and try again"));
    for (const QString &key : {QStringLiteral("uid"), QStringLiteral("creationTimestamp")})
        meta.insert(key, currentMeta.value(key));
    meta.insert(QStringLiteral("resourceVersion"), nextResourceVersion());
    object.insert(QStringLiteral("metadata"), meta);
    it->second = object;
    return {200, object};
}

LeaseApiServer::Answer LeaseApiServer::doListConfigMaps(const QString &ns, const QUrlQuery &query) const
{
    // Equality terms only (k=v, k==v), joined by commas: what the clients here send.
    QList<QPair<QString, QString>> wanted;
    const QString selector = query.queryItemValue(QStringLiteral("labelSelector"), QUrl::FullyDecoded);
    for (const QString &term : selector.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        if (term.contains(QStringLiteral("!=")) || !term.contains(QLatin1Char('=')))
            return {400, status(400, QStringLiteral("unable to parse requirement: %1 (this test server knows "
                                                    "equality only)")
                                             .arg(term))};
        QString key = term.section(QLatin1Char('='), 0, 0).trimmed();
        QString value = term.section(QLatin1Char('='), 1).trimmed();
        if (value.startsWith(QLatin1Char('=')))
            value.remove(0, 1);
        wanted.append({key, value});
    }
    QJsonArray items;
    for (const auto &[key, object] : m_configMaps) {
        if (key.first != ns)
            continue;
        const QJsonObject labels = object[QStringLiteral("metadata")][QStringLiteral("labels")].toObject();
        bool match = true;
        for (const auto &[label, value] : wanted)
            match = match && labels.contains(label) && labels.value(label).toString() == value;
        if (match)
            items.append(object);
    }
    return {200,
            QJsonObject {{QStringLiteral("kind"), QStringLiteral("ConfigMapList")},
                         {QStringLiteral("apiVersion"), QStringLiteral("v1")},
                         {QStringLiteral("metadata"), QJsonObject {{QStringLiteral("resourceVersion"), resourceVersion()}}},
                         {QStringLiteral("items"), items}}};
}

LeaseApiServer::Answer LeaseApiServer::doGet(const QString &ns, const QString &name) const
{
    auto it = m_objects.find({ns, name});
    if (it == m_objects.end())
        return {404, status(404, QStringLiteral("leases.coordination.k8s.io \"%1\" not found").arg(name),
                            {}, leaseDetails(name))};
    return {200, it->second};
}

LeaseApiServer::Answer LeaseApiServer::doList(const QString &ns) const
{
    QJsonArray items;
    for (const auto &[key, object] : m_objects)
        if (ns.isEmpty() || key.first == ns)
            items.append(object);
    return {200,
            QJsonObject {{QStringLiteral("kind"), QStringLiteral("LeaseList")},
                         {QStringLiteral("apiVersion"), apiVersion},
                         {QStringLiteral("metadata"),
                          QJsonObject {{QStringLiteral("resourceVersion"), resourceVersion()}}},
                         {QStringLiteral("items"), items}}};
}

namespace {

/*!
 * Decodes and validates a Lease as the apiserver does: decoding errors
 * (types, MicroTime) are 400; validation errors are 422 with causes.
 * Returns the object to store (known fields only), or sets \a error.
 */
bool decodeLease(const QByteArray &body, const QString &ns, const QString &urlName,
                 QJsonObject *lease, QJsonObject *errorBody, int *errorStatus)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    auto badRequest = [&](const QString &message) {
        *errorStatus = 400;
        *errorBody = status(400, message);
        return false;
    };
    if (!doc.isObject())
        return badRequest(QStringLiteral("the body of the request was in an unknown format: %1")
                                  .arg(parseError.errorString()));
    const QJsonObject in = doc.object();
    if (in.value(QStringLiteral("kind")).toString(QStringLiteral("Lease")) != QStringLiteral("Lease")
        || in.value(QStringLiteral("apiVersion")).toString(apiVersion) != apiVersion)
        return badRequest(QStringLiteral("the API version in the data (%1) does not match the expected "
                                         "API version (%2)")
                                  .arg(in.value(QStringLiteral("apiVersion")).toString(), apiVersion));
    const QJsonObject meta = in.value(QStringLiteral("metadata")).toObject();
    const QString name = meta.value(QStringLiteral("name")).toString();
    if (!urlName.isEmpty() && name != urlName)
        return badRequest(QStringLiteral("the name of the object (%1) does not match the name on the URL (%2)")
                                  .arg(name, urlName));
    const QString metaNs = meta.value(QStringLiteral("namespace")).toString();
    if (!metaNs.isEmpty() && metaNs != ns)
        return badRequest(QStringLiteral("the namespace of the provided object does not match the "
                                         "namespace sent on the request"));

    const QJsonObject spec = in.value(QStringLiteral("spec")).toObject();
    QJsonObject outSpec;
    auto decodeError = [&](const QString &field, const QString &why) {
        return badRequest(QStringLiteral("Lease in version \"v1\" cannot be handled as a Lease: %1: %2")
                                  .arg(field, why));
    };
    for (auto it = spec.begin(); it != spec.end(); ++it) {
        const QString key = it.key();
        const QJsonValue v = it.value();
        if (v.isNull())
            continue;
        if (key == QStringLiteral("holderIdentity") || key == QStringLiteral("strategy")
            || key == QStringLiteral("preferredHolder")) {
            if (!v.isString())
                return decodeError(QStringLiteral("spec.") + key, QStringLiteral("expects a string"));
        } else if (key == QStringLiteral("leaseDurationSeconds")
                   || key == QStringLiteral("leaseTransitions")) {
            if (!isInt32(v))
                return decodeError(QStringLiteral("spec.") + key, QStringLiteral("expects an int32"));
        } else if (key == QStringLiteral("acquireTime") || key == QStringLiteral("renewTime")) {
            if (!v.isString() || !isMicroTime(v.toString()))
                return decodeError(QStringLiteral("spec.") + key,
                                   QStringLiteral("parsing time \"%1\" as \"2006-01-02T15:04:05.000000Z07:00\": "
                                                  "cannot parse")
                                           .arg(v.toString()));
        } else {
            continue; // unknown fields are dropped, as the apiserver does
        }
        outSpec.insert(key, v);
    }

    QJsonArray causes;
    auto invalid = [&causes](const QString &field, const QString &message) {
        causes.append(QJsonObject {{QStringLiteral("reason"), QStringLiteral("FieldValueInvalid")},
                                   {QStringLiteral("message"), message},
                                   {QStringLiteral("field"), field}});
    };
    if (name.isEmpty()) {
        causes.append(QJsonObject {{QStringLiteral("reason"), QStringLiteral("FieldValueRequired")},
                                   {QStringLiteral("message"), QStringLiteral("Required value: name or generateName is required")},
                                   {QStringLiteral("field"), QStringLiteral("metadata.name")}});
    } else if (!isDnsSubdomain(name)) {
        invalid(QStringLiteral("metadata.name"),
                QStringLiteral("Invalid value: \"%1\": a lowercase RFC 1123 subdomain must consist of lower "
                               "case alphanumeric characters, '-' or '.', and must start and end with an "
                               "alphanumeric character (e.g. 'example.com', regex used for validation is "
                               "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
                        .arg(name));
    }
    if (outSpec.contains(QStringLiteral("leaseDurationSeconds"))
        && outSpec.value(QStringLiteral("leaseDurationSeconds")).toInt() <= 0)
        invalid(QStringLiteral("spec.leaseDurationSeconds"),
                QStringLiteral("Invalid value: %1: must be greater than 0")
                        .arg(outSpec.value(QStringLiteral("leaseDurationSeconds")).toInt()));
    if (outSpec.contains(QStringLiteral("leaseTransitions"))
        && outSpec.value(QStringLiteral("leaseTransitions")).toInt() < 0)
        invalid(QStringLiteral("spec.leaseTransitions"),
                QStringLiteral("Invalid value: %1: must be greater than or equal to 0")
                        .arg(outSpec.value(QStringLiteral("leaseTransitions")).toInt()));
    // ValidateLeaseSpec of coordinated leader election (1.31): a strategy is
    // a built-in one or a qualified name, and preferredHolder needs one.
    const QJsonValue strategy = outSpec.value(QStringLiteral("strategy"));
    if (strategy.isString()) {
        const QString text = strategy.toString();
        if (!text.contains(QLatin1Char('/'))) {
            if (text != QStringLiteral("OldestEmulationVersion"))
                causes.append(QJsonObject {
                        {QStringLiteral("reason"), QStringLiteral("FieldValueNotSupported")},
                        {QStringLiteral("message"),
                         QStringLiteral("Unsupported value: \"%1\": supported values: \"OldestEmulationVersion\"")
                                 .arg(text)},
                        {QStringLiteral("field"), QStringLiteral("spec.strategy")}});
        } else {
            for (const QString &why : qualifiedNameErrors(text))
                invalid(QStringLiteral("spec.strategy"), QStringLiteral("Invalid value: \"%1\": %2").arg(text, why));
        }
    }
    if (!outSpec.value(QStringLiteral("preferredHolder")).toString().isEmpty() && strategy.toString().isEmpty())
        causes.append(QJsonObject {{QStringLiteral("reason"), QStringLiteral("FieldValueForbidden")},
                                   {QStringLiteral("message"),
                                    QStringLiteral("Forbidden: may only be specified if `strategy` is defined")},
                                   {QStringLiteral("field"), QStringLiteral("spec.preferredHolder")}});
    if (!causes.isEmpty()) {
        QStringList parts;
        for (const QJsonValue &c : causes)
            parts << c[QStringLiteral("field")].toString() + QStringLiteral(": ")
                            + c[QStringLiteral("message")].toString();
        QJsonObject details = leaseDetails(name, QStringLiteral("Lease"));
        details.insert(QStringLiteral("causes"), causes);
        *errorStatus = 422;
        *errorBody = status(422,
                            QStringLiteral("Lease.coordination.k8s.io \"%1\" is invalid: %2")
                                    .arg(name, parts.join(QStringLiteral(", "))),
                            {}, details);
        return false;
    }

    QJsonObject outMeta {{QStringLiteral("name"), name}, {QStringLiteral("namespace"), ns}};
    for (const QString &key : {QStringLiteral("labels"), QStringLiteral("annotations")})
        if (meta.value(key).isObject())
            outMeta.insert(key, meta.value(key));
    for (const QString &key : {QStringLiteral("ownerReferences"), QStringLiteral("finalizers")})
        if (meta.value(key).isArray())
            outMeta.insert(key, meta.value(key));
    if (meta.contains(QStringLiteral("resourceVersion")))
        outMeta.insert(QStringLiteral("resourceVersion"), meta.value(QStringLiteral("resourceVersion")));
    *lease = QJsonObject {{QStringLiteral("kind"), QStringLiteral("Lease")},
                          {QStringLiteral("apiVersion"), apiVersion},
                          {QStringLiteral("metadata"), outMeta},
                          {QStringLiteral("spec"), outSpec}};
    return true;
}

} // namespace

LeaseApiServer::Answer LeaseApiServer::doCreate(const QString &ns, const QByteArray &body)
{
    QJsonObject lease;
    Answer error;
    if (!decodeLease(body, ns, {}, &lease, &error.body, &error.status))
        return error;
    QJsonObject meta = lease.value(QStringLiteral("metadata")).toObject();
    const QString name = meta.value(QStringLiteral("name")).toString();
    if (m_objects.count({ns, name}))
        return {409, status(409, QStringLiteral("leases.coordination.k8s.io \"%1\" already exists").arg(name),
                            QStringLiteral("AlreadyExists"), leaseDetails(name))};
    meta.insert(QStringLiteral("uid"), QStringLiteral("00000000-0000-4000-8000-%1")
                                               .arg(++m_uidCounter, 12, 10, QLatin1Char('0')));
    meta.insert(QStringLiteral("creationTimestamp"),
                QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
    meta.insert(QStringLiteral("resourceVersion"), nextResourceVersion());
    lease.insert(QStringLiteral("metadata"), meta);
    m_objects[{ns, name}] = lease;
    record(QStringLiteral("ADDED"), ns, name, lease);
    return {201, lease};
}

LeaseApiServer::Answer LeaseApiServer::doUpdate(const QString &ns, const QString &name,
                                                const QByteArray &body)
{
    QJsonObject lease;
    Answer error;
    if (!decodeLease(body, ns, name, &lease, &error.body, &error.status))
        return error;
    QJsonObject meta = lease.value(QStringLiteral("metadata")).toObject();
    auto it = m_objects.find({ns, name});
    if (it == m_objects.end()) {
        // Leases allow create on update; the version sent is not checked.
        meta.remove(QStringLiteral("resourceVersion"));
        lease.insert(QStringLiteral("metadata"), meta);
        return doCreate(ns, QJsonDocument(lease).toJson());
    }
    const QString sent = meta.value(QStringLiteral("resourceVersion")).toString();
    if (sent.isEmpty()) {
        QJsonObject details = leaseDetails(name, QStringLiteral("Lease"));
        details.insert(QStringLiteral("causes"),
                       QJsonArray {QJsonObject {{QStringLiteral("reason"), QStringLiteral("FieldValueInvalid")},
                                                {QStringLiteral("message"),
                                                 QStringLiteral("Invalid value: 0x0: must be specified for an update")},
                                                {QStringLiteral("field"), QStringLiteral("metadata.resourceVersion")}}});
        return {422, status(422,
                            QStringLiteral("Lease.coordination.k8s.io \"%1\" is invalid: metadata.resourceVersion: "
                                           "Invalid value: 0x0: must be specified for an update")
                                    .arg(name),
                            {}, details)};
    }
    const QJsonObject current = it->second;
    const QJsonObject currentMeta = current.value(QStringLiteral("metadata")).toObject();
    if (sent != currentMeta.value(QStringLiteral("resourceVersion")).toString())
        return {409, status(409,
                            QStringLiteral("Operation cannot be fulfilled on leases.coordination.k8s.io \"%1\": "
                                           "the object has been modified; please apply your changes to the "
                                           "latest version and try again")
                                    .arg(name),
                            QStringLiteral("Conflict"), leaseDetails(name))};
    QJsonObject next = currentMeta;
    // What the client may set is replaced by what it sent, absent or not:
    // an update that leaves out another writer's labels removes them.
    for (const QString &key : {QStringLiteral("labels"), QStringLiteral("annotations"),
                               QStringLiteral("ownerReferences"), QStringLiteral("finalizers")}) {
        if (meta.contains(key))
            next.insert(key, meta.value(key));
        else
            next.remove(key);
    }
    if (next == currentMeta && lease.value(QStringLiteral("spec")) == current.value(QStringLiteral("spec")))
        return {200, current}; // nothing changed: same version, no event
    next.insert(QStringLiteral("resourceVersion"), nextResourceVersion());
    lease.insert(QStringLiteral("metadata"), next);
    it->second = lease;
    record(QStringLiteral("MODIFIED"), ns, name, lease);
    return {200, lease};
}

LeaseApiServer::Answer LeaseApiServer::doDelete(const QString &ns, const QString &name)
{
    auto it = m_objects.find({ns, name});
    if (it == m_objects.end())
        return doGet(ns, name);
    QJsonObject gone = it->second;
    m_objects.erase(it);
    QJsonObject meta = gone.value(QStringLiteral("metadata")).toObject();
    meta.insert(QStringLiteral("resourceVersion"), nextResourceVersion());
    gone.insert(QStringLiteral("metadata"), meta);
    record(QStringLiteral("DELETED"), ns, name, gone);
    QJsonObject ok {{QStringLiteral("kind"), QStringLiteral("Status")},
                    {QStringLiteral("apiVersion"), QStringLiteral("v1")},
                    {QStringLiteral("metadata"), QJsonObject {}},
                    {QStringLiteral("status"), QStringLiteral("Success")},
                    {QStringLiteral("details"), leaseDetails(name)}};
    return {200, ok};
}

bool LeaseApiServer::startWatch(LeaseApiConnection *connection, const Request &request,
                                const QString &ns, const QString &name, Answer *error)
{
    Watch watch;
    watch.connection = connection;
    watch.ns = ns;
    watch.name = name;
    watch.bookmarks = request.query.queryItemValue(QStringLiteral("allowWatchBookmarks"))
            == QStringLiteral("true");
    const QString selector = request.query.queryItemValue(QStringLiteral("fieldSelector"),
                                                          QUrl::FullyDecoded);
    if (!selector.isEmpty()) {
        for (const QString &term : selector.split(QLatin1Char(','))) {
            const QString field = term.section(QLatin1Char('='), 0, 0);
            const QString value = term.section(QLatin1Char('='), 1).remove(QLatin1Char('='));
            if (field == QStringLiteral("metadata.name")) {
                watch.name = value;
            } else if (field == QStringLiteral("metadata.namespace")) {
                watch.ns = value;
            } else {
                *error = {400, status(400, QStringLiteral("field label not supported: %1").arg(field))};
                return false;
            }
        }
    }
    const QString rvText = request.query.queryItemValue(QStringLiteral("resourceVersion"));
    bool numeric = true;
    const qint64 from = rvText.isEmpty() ? 0 : rvText.toLongLong(&numeric);
    if (!numeric) {
        *error = {400, status(400, QStringLiteral("invalid resource version: %1").arg(rvText))};
        return false;
    }
    auto matches = [&watch](const QString &objectNs, const QString &objectName) {
        return (watch.ns.isEmpty() || watch.ns == objectNs)
                && (watch.name.isEmpty() || watch.name == objectName);
    };

    QByteArray out;
    bool expired = false;
    if (from == 0) {
        // No version: the current state as synthetic ADDED events, then changes.
        for (const auto &[key, object] : m_objects)
            if (matches(key.first, key.second))
                out += chunk(QJsonDocument(QJsonObject {{QStringLiteral("type"), QStringLiteral("ADDED")},
                                                        {QStringLiteral("object"), object}})
                                     .toJson(QJsonDocument::Compact)
                             + '\n');
    } else if (from < m_compactedRv) {
        expired = true;
        const QJsonObject gone = status(
                410, QStringLiteral("too old resource version: %1 (%2)").arg(from).arg(m_compactedRv + 1),
                QStringLiteral("Expired"));
        out += chunk(QJsonDocument(QJsonObject {{QStringLiteral("type"), QStringLiteral("ERROR")},
                                                {QStringLiteral("object"), gone}})
                             .toJson(QJsonDocument::Compact)
                     + '\n');
        out += "0\r\n\r\n";
    } else {
        for (const Event &e : m_history)
            if (e.rv > from && matches(e.ns, e.name))
                out += chunk(QJsonDocument(QJsonObject {{QStringLiteral("type"), e.type},
                                                        {QStringLiteral("object"), e.object}})
                                     .toJson(QJsonDocument::Compact)
                             + '\n');
    }
    const QByteArray head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                            "Transfer-Encoding: chunked\r\n\r\n";
    connection->streaming = !expired;
    auto send = [connection, data = head + out] {
        if (connection->socket)
            connection->socket->write(data);
    };
    if (m_delayMs > 0)
        QTimer::singleShot(m_delayMs, connection->socket, send);
    else
        send();
    if (expired)
        return true;
    m_watches.append(watch);
    bool timeoutOk = false;
    const int timeoutSeconds = request.query.queryItemValue(QStringLiteral("timeoutSeconds")).toInt(&timeoutOk);
    if (timeoutOk && timeoutSeconds > 0) {
        connection->watchTimeout = new QTimer(connection->socket);
        connection->watchTimeout->setSingleShot(true);
        connect(connection->watchTimeout, &QTimer::timeout, this, [this, connection] {
            if (connection->socket)
                connection->socket->write("0\r\n\r\n");
            dropWatch(connection);
        });
        connection->watchTimeout->start(timeoutSeconds * 1000);
    }
    Q_EMIT watchStarted();
    return true;
}

void LeaseApiServer::record(const QString &type, const QString &ns, const QString &name,
                            const QJsonObject &object)
{
    Event event {m_rv, type, ns, name, object};
    m_history.push_back(event);
    while (int(m_history.size()) > m_historyLimit) {
        m_compactedRv = m_history.front().rv;
        m_history.pop_front();
    }
    const QByteArray line = chunk(QJsonDocument(QJsonObject {{QStringLiteral("type"), type},
                                                             {QStringLiteral("object"), object}})
                                          .toJson(QJsonDocument::Compact)
                                  + '\n');
    for (const Watch &w : std::as_const(m_watches))
        if ((w.ns.isEmpty() || w.ns == ns) && (w.name.isEmpty() || w.name == name))
            sendOnWatch(w.connection, line);
}

void LeaseApiServer::sendOnWatch(LeaseApiConnection *connection, const QByteArray &line)
{
    if (!connection->socket)
        return;
    if (m_holdWatchEvents) {
        m_heldEvents.push_back({connection, line});
        return;
    }
    if (m_delayMs > 0)
        QTimer::singleShot(m_delayMs, connection->socket,
                           [connection, line] { connection->socket->write(line); });
    else
        connection->socket->write(line);
}

void LeaseApiServer::holdWatchEvents()
{
    m_holdWatchEvents = true;
}

void LeaseApiServer::releaseWatchEvents(int count)
{
    const bool holding = std::exchange(m_holdWatchEvents, false);
    while (!m_heldEvents.empty() && count != 0) {
        const HeldEvent held = m_heldEvents.front();
        m_heldEvents.pop_front();
        --count;
        sendOnWatch(held.connection, held.line);
    }
    m_holdWatchEvents = holding;
}

void LeaseApiServer::stopHoldingWatchEvents()
{
    releaseWatchEvents(-1);
    m_holdWatchEvents = false;
}

bool LeaseApiServer::replayWatchEvent(const QString &resourceVersion)
{
    const qint64 rv = resourceVersion.toLongLong();
    for (const Event &e : m_history) {
        if (e.rv != rv)
            continue;
        const QByteArray line = chunk(QJsonDocument(QJsonObject {{QStringLiteral("type"), e.type},
                                                                 {QStringLiteral("object"), e.object}})
                                              .toJson(QJsonDocument::Compact)
                                      + '\n');
        for (const Watch &w : std::as_const(m_watches))
            if ((w.ns.isEmpty() || w.ns == e.ns) && (w.name.isEmpty() || w.name == e.name))
                sendOnWatch(w.connection, line);
        return true;
    }
    return false;
}

void LeaseApiServer::sendBookmarks()
{
    const QByteArray line = chunk(
            QJsonDocument(QJsonObject {{QStringLiteral("type"), QStringLiteral("BOOKMARK")},
                                       {QStringLiteral("object"),
                                        QJsonObject {{QStringLiteral("kind"), QStringLiteral("Lease")},
                                                     {QStringLiteral("apiVersion"), apiVersion},
                                                     {QStringLiteral("metadata"),
                                                      QJsonObject {{QStringLiteral("resourceVersion"),
                                                                    resourceVersion()}}}}}})
                    .toJson(QJsonDocument::Compact)
            + '\n');
    // A lagging watch cache does not bookmark past the events it has sent.
    if (m_holdWatchEvents)
        return;
    for (const Watch &w : std::as_const(m_watches))
        if (w.bookmarks && w.connection->socket)
            w.connection->socket->write(line);
}

void LeaseApiServer::dropWatch(LeaseApiConnection *connection)
{
    const qsizetype before = m_watches.size();
    m_watches.removeIf([connection](const Watch &w) { return w.connection == connection; });
    // What a watch that ended was still owed goes with it.
    std::erase_if(m_heldEvents, [connection](const HeldEvent &h) { return h.connection == connection; });
    connection->streaming = false;
    if (connection->watchTimeout) {
        connection->watchTimeout->deleteLater();
        connection->watchTimeout = nullptr;
    }
    if (m_watches.size() != before)
        Q_EMIT watchEnded();
}

} // namespace baton::test
