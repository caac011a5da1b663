#include "kubernetesleasebackend.h"

#include "httpstream.h"
#include "jsonutil.h"
#include "kubecredentials.h"
#include "logging.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSslCertificate>
#include <QSslKey>
#include <QTimer>
#include <QUrlQuery>

#include <cmath>

namespace baton {

namespace {

const QString apiVersion = QStringLiteral("coordination.k8s.io/v1");
// client-go picks 5 to 10 minutes; the server ends the stream, we resume.
constexpr int watchTimeoutSeconds = 300;

bool parseTime(const QJsonValue &value, QDateTime *time)
{
    if (value.isUndefined() || value.isNull()) {
        *time = {};
        return true;
    }
    // RFC 3339 with any number of fraction digits: MicroTime has six, Time none.
    static const QRegularExpression re(QStringLiteral(
            "^(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2})(?:\\.(\\d{1,9}))?(Z|[+-]\\d{2}:\\d{2})$"));
    const QRegularExpressionMatch m = re.match(value.toString());
    if (!value.isString() || !m.hasMatch())
        return false;
    const QString millis = (m.captured(2) + QStringLiteral("000")).left(3);
    *time = QDateTime::fromString(m.captured(1) + QLatin1Char('.') + millis + m.captured(3),
                                  Qt::ISODateWithMs);
    return time->isValid();
}

} // namespace

KubernetesLeaseBackend::KubernetesLeaseBackend(const KubeClientConfig &config,
                                               const QString &leaseName, int timeoutMs,
                                               QObject *parent)
    : LeaseBackend(parent)
    , m_config(config)
    , m_name(leaseName)
    , m_timeoutMs(timeoutMs)
    , m_http(new HttpClient(this))
    , m_credentials(new KubeCredentials(config, nullptr, this))
{
}

KubernetesLeaseBackend::~KubernetesLeaseBackend()
{
    delete m_stream;
    // Answers still on their way go nowhere: the client goes first.
    delete m_http;
}

bool KubernetesLeaseBackend::setUp(QString *errorString)
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

bool KubernetesLeaseBackend::applyCredential(const KubeCredential &credential, QString *errorString)
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

QString KubernetesLeaseBackend::describe() const
{
    return QStringLiteral("Lease %1/%2 at %3").arg(m_config.namespaceName, m_name,
                                                   m_config.server.toDisplayString());
}

bool KubernetesLeaseBackend::isValidLeaseName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral(
            "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));
    return !name.isEmpty() && name.size() <= 253 && re.match(name).hasMatch();
}

QString KubernetesLeaseBackend::microTime(const QDateTime &time)
{
    // Our clock has milliseconds; MicroTime wants exactly six digits.
    return time.toUTC().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzz")) + QStringLiteral("000Z");
}

QUrl KubernetesLeaseBackend::collectionUrl() const
{
    QUrl url = m_config.server;
    QString path = url.path();
    if (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    url.setPath(path + QStringLiteral("/apis/coordination.k8s.io/v1/namespaces/%1/leases")
                               .arg(m_config.namespaceName));
    return url;
}

QUrl KubernetesLeaseBackend::leaseUrl() const
{
    QUrl url = collectionUrl();
    url.setPath(url.path() + QLatin1Char('/') + m_name);
    return url;
}

QJsonObject KubernetesLeaseBackend::toLease(const LeaseRecord &record, const QString &version) const
{
    // Start from the object we last saw at this version, so that labels,
    // annotations and fields of newer API versions survive our write.
    const bool known = !version.isEmpty()
            && m_lastObject.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("resourceVersion")).toString()
                    == version;
    QJsonObject meta {{QStringLiteral("name"), m_name},
                      {QStringLiteral("namespace"), m_config.namespaceName}};
    QJsonObject spec;
    if (known) {
        const QJsonObject lastMeta = m_lastObject.value(QStringLiteral("metadata")).toObject();
        for (const QString &key : {QStringLiteral("labels"), QStringLiteral("annotations")})
            if (lastMeta.contains(key))
                meta.insert(key, lastMeta.value(key));
        spec = m_lastObject.value(QStringLiteral("spec")).toObject();
    }
    if (!version.isEmpty())
        meta.insert(QStringLiteral("resourceVersion"), version);
    // Whole seconds, rounded up: a holder never claims less than it was given.
    const qint64 seconds = std::max<qint64>(1, (record.leaseDurationMs + 999) / 1000);
    spec.insert(QStringLiteral("holderIdentity"), record.holder); // "" written explicitly on release
    spec.insert(QStringLiteral("leaseDurationSeconds"), double(seconds));
    if (record.acquireTime.isValid())
        spec.insert(QStringLiteral("acquireTime"), microTime(record.acquireTime));
    else
        spec.remove(QStringLiteral("acquireTime"));
    if (record.renewTime.isValid())
        spec.insert(QStringLiteral("renewTime"), microTime(record.renewTime));
    else
        spec.remove(QStringLiteral("renewTime"));
    spec.insert(QStringLiteral("leaseTransitions"), double(record.transitions));
    return {{QStringLiteral("apiVersion"), apiVersion},
            {QStringLiteral("kind"), QStringLiteral("Lease")},
            {QStringLiteral("metadata"), meta},
            {QStringLiteral("spec"), spec}};
}

bool KubernetesLeaseBackend::fromLease(const QJsonObject &lease, LeaseState *state,
                                       QString *errorString) const
{
    auto bad = [&](const QString &field, const QString &why) {
        *errorString = QStringLiteral("%1: unusable Lease: %2 %3").arg(describe(), field, why);
        return false;
    };
    const QJsonObject meta = lease.value(QStringLiteral("metadata")).toObject();
    const QString version = meta.value(QStringLiteral("resourceVersion")).toString();
    if (version.isEmpty())
        return bad(QStringLiteral("metadata.resourceVersion"), QStringLiteral("is missing"));
    const QJsonValue specValue = lease.value(QStringLiteral("spec"));
    if (!specValue.isObject())
        return bad(QStringLiteral("spec"), QStringLiteral("is missing"));
    const QJsonObject spec = specValue.toObject();
    LeaseRecord record;
    const QJsonValue holder = spec.value(QStringLiteral("holderIdentity"));
    if (!holder.isUndefined() && !holder.isNull() && !holder.isString())
        return bad(QStringLiteral("spec.holderIdentity"), QStringLiteral("is not a string"));
    record.holder = holder.toString();
    // R1: a duration we cannot trust makes no one leader, and no lease free.
    const QJsonValue duration = spec.value(QStringLiteral("leaseDurationSeconds"));
    if (duration.isUndefined() || duration.isNull())
        return bad(QStringLiteral("spec.leaseDurationSeconds"), QStringLiteral("is missing"));
    if (!jsonutil::isInteger(duration) || duration.toDouble() <= 0)
        return bad(QStringLiteral("spec.leaseDurationSeconds"),
                   QStringLiteral("is %1; it must be a positive whole number").arg(jsonutil::describe(duration)));
    record.leaseDurationMs = qint64(duration.toDouble()) * 1000;
    const QJsonValue transitions = spec.value(QStringLiteral("leaseTransitions"));
    if (!transitions.isUndefined() && !transitions.isNull()) {
        if (!jsonutil::isInteger(transitions) || transitions.toDouble() < 0)
            return bad(QStringLiteral("spec.leaseTransitions"),
                       QStringLiteral("is %1; it must be a whole number, 0 or more")
                               .arg(jsonutil::describe(transitions)));
        record.transitions = qint64(transitions.toDouble());
    }
    for (const auto &[field, target] : {std::pair {QStringLiteral("acquireTime"), &record.acquireTime},
                                        std::pair {QStringLiteral("renewTime"), &record.renewTime}}) {
        if (!parseTime(spec.value(field), target))
            return bad(QStringLiteral("spec.") + field,
                       QStringLiteral("is %1, not an RFC 3339 time").arg(jsonutil::describe(spec.value(field))));
    }
    state->exists = true;
    state->record = record;
    state->version = version;
    return true;
}

void KubernetesLeaseBackend::later(Callback done, LeaseReply reply)
{
    QTimer::singleShot(0, this, [done = std::move(done), reply = std::move(reply)] { done(reply); });
}

void KubernetesLeaseBackend::send(const QByteArray &method, const QUrl &url, const QJsonObject &body,
                                  Sent done, bool retriedAfter401)
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
                                     send(method, url, body, done, true);
                                     return;
                                 }
                             }
                             done(result);
                         });
    });
}

QString KubernetesLeaseBackend::explain(const HttpResult &result, const QString &verb) const
{
    const QString what = QStringLiteral("%1 %2").arg(verb, describe());
    if (result.error.kind != HttpError::Kind::HttpStatus)
        return QStringLiteral("%1: %2").arg(what, result.error.message);
    const QJsonObject status = result.json;
    const QString message = status.value(QStringLiteral("message")).toString(result.error.serverMessage);
    switch (result.error.httpStatus) {
    case 401:
        return QStringLiteral("%1: 401 Unauthorized: the API server refused the credentials of %2")
                .arg(what, m_config.source);
    case 403:
        return QStringLiteral("%1: 403 Forbidden: %2 (a participant needs get, create and update on "
                              "leases: resources/kubernetes/participant-role.yaml)")
                .arg(what, message);
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

void KubernetesLeaseBackend::read(Callback done)
{
    send("GET", leaseUrl(), {}, [this, done = std::move(done)](const HttpResult &result) {
        if (result.ok()) {
            LeaseState state;
            QString error;
            if (!fromLease(result.json, &state, &error)) {
                done(LeaseReply::error(error));
                return;
            }
            m_lastObject = result.json;
            done(LeaseReply::ok(state));
        } else if (result.error.httpStatus == 404) {
            done(LeaseReply::ok(LeaseState {}));
        } else {
            done(LeaseReply::error(explain(result, QStringLiteral("reading"))));
        }
    });
}

void KubernetesLeaseBackend::writeReply(const HttpResult &result, const QString &verb, Callback done)
{
    if (result.ok()) {
        LeaseState state;
        QString error;
        if (!fromLease(result.json, &state, &error)) {
            done(LeaseReply::error(error));
            return;
        }
        m_lastObject = result.json;
        done(LeaseReply::ok(state));
        return;
    }
    if (result.error.httpStatus != 409) {
        done(LeaseReply::error(explain(result, verb)));
        return;
    }
    // A lost race (B3): never retried here. One GET says who won.
    read([done](const LeaseReply &winner) {
        done(winner.outcome == LeaseReply::Outcome::Ok ? LeaseReply::conflict(winner.state)
                                                       : LeaseReply::conflict());
    });
}

void KubernetesLeaseBackend::create(const LeaseRecord &record, Callback done)
{
    send("POST", collectionUrl(), toLease(record, {}),
         [this, done = std::move(done)](const HttpResult &result) {
             writeReply(result, QStringLiteral("creating"), done);
         });
}

void KubernetesLeaseBackend::update(const LeaseRecord &record, const QString &version, Callback done)
{
    if (version.isEmpty()) {
        // A PUT without a version would be unconditional: never sent (B3).
        later(std::move(done), LeaseReply::error(QStringLiteral("%1: an update needs the version read").arg(describe())));
        return;
    }
    send("PUT", leaseUrl(), toLease(record, version),
         [this, done = std::move(done)](const HttpResult &result) {
             writeReply(result, QStringLiteral("updating"), done);
         });
}

bool KubernetesLeaseBackend::startWatching()
{
    if (m_watching)
        return true;
    m_watching = true;
    list();
    return true;
}

void KubernetesLeaseBackend::stopWatchingFor403(const QString &verb, const QString &message)
{
    if (m_watchForbidden)
        return;
    m_watchForbidden = true;
    // B5: a participant needs only get, create and update; polling is fine.
    qCInfo(lcKube).noquote()
            << QStringLiteral("%1: may not %2 leases (%3); following the Lease by polling. Grant "
                              "list and watch for handovers in milliseconds")
                       .arg(describe(), verb, message);
}

void KubernetesLeaseBackend::retryWatchLater()
{
    // Back off while the server fails; the election polls meanwhile.
    const int delay = std::min(5000, 100 << std::min(m_watchFailures, 6));
    ++m_watchFailures;
    QTimer::singleShot(delay, this, [this] {
        if (m_watchForbidden)
            return;
        if (m_watchVersion.isEmpty())
            list();
        else
            watchFrom(m_watchVersion);
    });
}

void KubernetesLeaseBackend::list()
{
    QUrl url = collectionUrl();
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("fieldSelector"), QStringLiteral("metadata.name=") + m_name);
    url.setQuery(query);
    send("GET", url, {}, [this](const HttpResult &result) {
        if (result.error.httpStatus == 403) {
            stopWatchingFor403(QStringLiteral("list"), result.error.serverMessage);
            return;
        }
        if (!result.ok()) {
            qCDebug(lcKube).noquote() << explain(result, QStringLiteral("listing"));
            m_watchVersion.clear();
            retryWatchLater();
            return;
        }
        LeaseState state;
        const QJsonArray items = result.json.value(QStringLiteral("items")).toArray();
        for (const QJsonValue &item : items) {
            if (item[QStringLiteral("metadata")][QStringLiteral("name")].toString() != m_name)
                continue;
            QString error;
            if (!fromLease(item.toObject(), &state, &error)) {
                qCWarning(lcKube).noquote() << error;
                state = {};
                break;
            }
            m_lastObject = item.toObject();
        }
        if (state.exists || items.isEmpty())
            Q_EMIT changed(state);
        m_watchVersion = result.json.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("resourceVersion")).toString();
        watchFrom(m_watchVersion);
    });
}

void KubernetesLeaseBackend::watchFrom(const QString &resourceVersion)
{
    m_credentials->get([this, resourceVersion](const KubeCredential &credential, const QString &error) {
        QString tlsError;
        if (!error.isEmpty() || !applyCredential(credential, &tlsError)) {
            qCWarning(lcKube).noquote() << QStringLiteral("%1: cannot watch: %2")
                                                   .arg(describe(), error.isEmpty() ? tlsError : error);
            retryWatchLater();
            return;
        }
        QUrl url = collectionUrl();
        QUrlQuery query;
        query.addQueryItem(QStringLiteral("watch"), QStringLiteral("1"));
        query.addQueryItem(QStringLiteral("allowWatchBookmarks"), QStringLiteral("true"));
        query.addQueryItem(QStringLiteral("fieldSelector"), QStringLiteral("metadata.name=") + m_name);
        query.addQueryItem(QStringLiteral("timeoutSeconds"), QString::number(watchTimeoutSeconds));
        if (!resourceVersion.isEmpty())
            query.addQueryItem(QStringLiteral("resourceVersion"), resourceVersion);
        url.setQuery(query);
        HttpClient::Headers headers;
        if (!credential.authorization.isEmpty())
            headers.append({"Authorization", credential.authorization});
        delete m_stream;
        m_stream = m_http->getStream(url, headers, this);
        connect(m_stream, &HttpStream::message, this, &KubernetesLeaseBackend::onWatchEvent);
        connect(m_stream, &HttpStream::finished, this, [this](const HttpError &streamError) {
            if (m_stream)
                m_stream->deleteLater();
            if (streamError.httpStatus == 403) {
                stopWatchingFor403(QStringLiteral("watch"), streamError.serverMessage);
                return;
            }
            if (streamError.httpStatus == 401)
                m_credentials->invalidate();
            if (streamError.httpStatus >= 400)
                qCDebug(lcKube).noquote() << QStringLiteral("%1: watch ended: %2").arg(describe(), streamError.message);
            retryWatchLater();
        });
    });
}

void KubernetesLeaseBackend::onWatchEvent(const QJsonObject &event)
{
    m_watchFailures = 0;
    const QString type = event.value(QStringLiteral("type")).toString();
    const QJsonObject object = event.value(QStringLiteral("object")).toObject();
    if (type == QStringLiteral("ERROR")) {
        const int code = object.value(QStringLiteral("code")).toInt();
        if (m_stream) {
            m_stream->abort();
            m_stream->deleteLater();
        }
        if (code == 410) {
            // Our version left the server's history: list again.
            qCDebug(lcKube).noquote() << QStringLiteral("%1: watch expired (410); relisting").arg(describe());
            m_watchVersion.clear();
            list();
        } else {
            qCWarning(lcKube).noquote() << QStringLiteral("%1: the watch reported an error: %2")
                                                   .arg(describe(), object.value(QStringLiteral("message")).toString());
            retryWatchLater();
        }
        return;
    }
    const QString version = object.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("resourceVersion")).toString();
    if (!version.isEmpty())
        m_watchVersion = version;
    if (type == QStringLiteral("BOOKMARK"))
        return;
    if (object.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("name")).toString() != m_name)
        return;
    if (type == QStringLiteral("DELETED")) {
        m_lastObject = {};
        Q_EMIT changed(LeaseState {});
        return;
    }
    LeaseState state;
    QString error;
    if (!fromLease(object, &state, &error)) {
        qCWarning(lcKube).noquote() << error;
        return;
    }
    m_lastObject = object;
    Q_EMIT changed(state);
}

} // namespace baton
