#include "kubernetesleaseprotocol.h"

#include "httpstream.h"
#include "jsonutil.h"
#include "kubeapiclient.h"
#include "kubelease.h"
#include "logging.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSysInfo>
#include <QTimer>
#include <QUrlQuery>

#include <cmath>

namespace baton {

namespace {

const QString eventReason = QStringLiteral("LeaderElection");
const QString eventComponent = QStringLiteral("baton");

// Versions whose object is kept: more than a watch lags behind in practice;
// a version that fell out costs one GET before its update.
constexpr qsizetype keptVersions = 16;

QString versionOf(const QJsonObject &lease)
{
    return lease.value(QStringLiteral("metadata")).toObject()
            .value(QStringLiteral("resourceVersion")).toString();
}

/*! metav1.Time, the type of an Event's first and last timestamps: whole seconds, UTC. */
QString kubeTime(const QDateTime &time)
{
    return time.toUTC().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss")) + QLatin1Char('Z');
}

} // namespace

KubernetesLeaseBackend::KubernetesLeaseBackend(const KubeClientConfig &config,
                                               const QString &leaseName, int timeoutMs,
                                               QObject *parent)
    : LeaseBackend(parent)
    , m_config(config)
    , m_name(leaseName)
    , m_api(new KubeApiClient(config, timeoutMs, this))
{
}

KubernetesLeaseBackend::~KubernetesLeaseBackend()
{
    delete m_stream;
    // Answers still on their way go nowhere: the client goes first.
    delete m_api;
}

bool KubernetesLeaseBackend::setUp(QString *errorString)
{
    return m_api->setUp(errorString);
}

QString KubernetesLeaseBackend::describe() const
{
    return QStringLiteral("Lease %1/%2 at %3").arg(m_config.namespaceName, m_name,
                                                   m_config.server.toDisplayString());
}

bool KubernetesLeaseBackend::isValidLeaseName(const QString &name)
{
    return kubelease::isValidName(name);
}

QString KubernetesLeaseBackend::microTime(const QDateTime &time)
{
    return kubelease::microTime(time);
}

QUrl KubernetesLeaseBackend::collectionUrl() const
{
    return m_api->leasesUrl(m_config.namespaceName, {});
}

QUrl KubernetesLeaseBackend::leaseUrl() const
{
    QUrl url = collectionUrl();
    url.setPath(url.path() + QLatin1Char('/') + m_name);
    return url;
}

QJsonObject KubernetesLeaseBackend::withChangeRecorded(QJsonObject metadata, const HistoryEntry &change) const
{
    QList<HistoryEntry> previous;
    QString why;
    if (!kubelease::decodeHistory(metadata, &previous, &why)) {
        // O2: a history we cannot read is no reason to refuse the lease.
        qCWarning(lcKube).noquote()
                << QStringLiteral("%1: annotation %2 ignored (%3); the stored history starts again "
                                  "from this change")
                           .arg(describe(), leasehistory::kubernetesAnnotation, why);
        previous.clear();
    }
    QJsonObject annotations = metadata.value(QStringLiteral("annotations")).toObject();
    const QJsonObject document =
            leasehistory::encodeWithin(leasehistory::appended(previous, change, m_historyLength));
    annotations.insert(leasehistory::kubernetesAnnotation,
                       QString::fromUtf8(QJsonDocument(document).toJson(QJsonDocument::Compact)));
    metadata.insert(QStringLiteral("annotations"), annotations);
    return metadata;
}

QJsonObject KubernetesLeaseBackend::toLease(const LeaseRecord &record, const QString &version,
                                            const std::optional<HistoryEntry> &change) const
{
    // Start from the object the server returned at this version, so that
    // labels, annotations, owner references and fields of newer API
    // versions that other writers put there survive our write (R7).
    const QJsonObject last = seenAt(version);
    const bool known = !last.isEmpty();
    QJsonObject meta {{QStringLiteral("name"), m_name},
                      {QStringLiteral("namespace"), m_config.namespaceName}};
    QJsonObject spec;
    if (known) {
        meta = last.value(QStringLiteral("metadata")).toObject();
        spec = last.value(QStringLiteral("spec")).toObject();
    }
    if (!version.isEmpty())
        meta.insert(QStringLiteral("resourceVersion"), version);
    if (change && m_historyLength > 0)
        meta = withChangeRecorded(meta, *change);
    meta = kubelease::withIncarnation(meta, record);
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
    return {{QStringLiteral("apiVersion"), kubelease::apiVersion},
            {QStringLiteral("kind"), QStringLiteral("Lease")},
            {QStringLiteral("metadata"), meta},
            {QStringLiteral("spec"), spec}};
}

bool KubernetesLeaseBackend::fromLease(const QJsonObject &lease, LeaseState *state,
                                       QString *errorString) const
{
    QString why;
    if (kubelease::decode(lease, state, &why))
        return true;
    *errorString = QStringLiteral("%1: unusable Lease: %2").arg(describe(), why);
    return false;
}

void KubernetesLeaseBackend::later(Callback done, LeaseReply reply)
{
    QTimer::singleShot(0, this, [done = std::move(done), reply = std::move(reply)] { done(reply); });
}

QString KubernetesLeaseBackend::explain(const HttpResult &result, const QString &verb) const
{
    return m_api->explain(result, QStringLiteral("%1 %2").arg(verb, describe()),
                          QStringLiteral("a participant needs get, create and update on leases: "
                                         "resources/kubernetes/participant/role.yaml"));
}

void KubernetesLeaseBackend::read(Callback done)
{
    m_api->send("GET", leaseUrl(), {}, [this, done = std::move(done)](const HttpResult &result) {
        if (result.ok()) {
            LeaseState state;
            QString error;
            if (!fromLease(result.json, &state, &error)) {
                done(LeaseReply::error(error));
                return;
            }
            remember(result.json);
            done(LeaseReply::ok(state));
        } else if (result.error.httpStatus == 404) {
            done(LeaseReply::ok(LeaseState {}));
        } else {
            done(LeaseReply::error(explain(result, QStringLiteral("reading"))));
        }
    });
}

void KubernetesLeaseBackend::remember(const QJsonObject &lease)
{
    const QString version = versionOf(lease);
    if (version.isEmpty())
        return;
    // The server returns one object per version, whichever request brought it.
    m_seen.removeIf([&version](const QJsonObject &seen) { return versionOf(seen) == version; });
    m_seen.append(lease);
    while (m_seen.size() > keptVersions)
        m_seen.removeFirst();
}

QJsonObject KubernetesLeaseBackend::seenAt(const QString &version) const
{
    if (version.isEmpty())
        return {};
    for (auto it = m_seen.crbegin(); it != m_seen.crend(); ++it)
        if (versionOf(*it) == version)
            return *it;
    return {};
}

void KubernetesLeaseBackend::writeReply(const HttpResult &result, const QString &verb,
                                        const std::optional<HistoryEntry> &change, Callback done)
{
    if (result.ok()) {
        LeaseState state;
        QString error;
        if (!fromLease(result.json, &state, &error)) {
            done(LeaseReply::error(error));
            return;
        }
        remember(result.json);
        if (change)
            postLeaderEvent(result.json, change->to);
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

void KubernetesLeaseBackend::postLeaderEvent(const QJsonObject &lease, const QString &identity)
{
    if (m_eventsForbidden)
        return;
    // As client-go's event recorder writes it, so that `kubectl describe
    // lease` and `kubectl get events` show the change: named
    // <object>.<time in hex>, on the Lease by kind, name and uid.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const qint64 nanos = now.toMSecsSinceEpoch() * 1000000 + qint64(m_eventSerial++ % 1000000);
    const QJsonObject meta = lease.value(QStringLiteral("metadata")).toObject();
    QJsonObject involved {{QStringLiteral("kind"), QStringLiteral("Lease")},
                          {QStringLiteral("apiVersion"), kubelease::apiVersion},
                          {QStringLiteral("namespace"), m_config.namespaceName},
                          {QStringLiteral("name"), m_name}};
    for (const QString &key : {QStringLiteral("uid"), QStringLiteral("resourceVersion")})
        if (meta.value(key).isString())
            involved.insert(key, meta.value(key));
    const QJsonObject event {
            {QStringLiteral("apiVersion"), QStringLiteral("v1")},
            {QStringLiteral("kind"), QStringLiteral("Event")},
            {QStringLiteral("metadata"),
             QJsonObject {{QStringLiteral("name"), m_name + QLatin1Char('.') + QString::number(nanos, 16)},
                          {QStringLiteral("namespace"), m_config.namespaceName}}},
            {QStringLiteral("involvedObject"), involved},
            {QStringLiteral("reason"), eventReason},
            {QStringLiteral("message"), identity + QStringLiteral(" became leader")},
            {QStringLiteral("type"), QStringLiteral("Normal")},
            {QStringLiteral("source"),
             QJsonObject {{QStringLiteral("component"), eventComponent},
                          {QStringLiteral("host"), QSysInfo::machineHostName()}}},
            {QStringLiteral("firstTimestamp"), kubeTime(now)},
            {QStringLiteral("lastTimestamp"), kubeTime(now)},
            {QStringLiteral("count"), 1}};
    m_api->send("POST", m_api->eventsUrl(m_config.namespaceName), event, [this](const HttpResult &result) {
        if (result.ok())
            return;
        // The Event is for people: the election never waits for it, nor fails with it.
        if (result.error.httpStatus == 403) {
            if (m_eventsForbidden)
                return;
            m_eventsForbidden = true;
            qCWarning(lcKube).noquote()
                    << QStringLiteral("%1: may not create events (%2); leader changes are not recorded as "
                                      "Events from now on, the election goes on. Grant create on events "
                                      "(resources/kubernetes/participant/role.yaml)")
                               .arg(describe(), result.json.value(QStringLiteral("message"))
                                                        .toString(result.error.serverMessage));
            return;
        }
        qCWarning(lcKube).noquote() << m_api->explain(result,
                                                      QStringLiteral("posting the leader Event of %1").arg(describe()),
                                                      QStringLiteral("a participant needs create on events"));
    });
}

void KubernetesLeaseBackend::create(const LeaseRecord &record, const std::optional<HistoryEntry> &change,
                                    Callback done)
{
    m_api->send("POST", collectionUrl(), toLease(record, {}, change),
         [this, change, done = std::move(done)](const HttpResult &result) {
             writeReply(result, QStringLiteral("creating"), change, done);
         });
}

void KubernetesLeaseBackend::update(const LeaseRecord &record, const QString &version,
                                    const std::optional<HistoryEntry> &change, Callback done)
{
    if (version.isEmpty()) {
        // A PUT without a version would be unconditional: never sent (B3).
        later(std::move(done), LeaseReply::error(QStringLiteral("%1: an update needs the version read").arg(describe())));
        return;
    }
    if (seenAt(version).isEmpty()) {
        // R7: a bare object would erase what other writers put on the Lease
        // (labels, annotations, the stored history): read it first.
        read([this, record, version, change, done = std::move(done)](const LeaseReply &current) {
            if (current.outcome != LeaseReply::Outcome::Ok) {
                done(current);
                return;
            }
            if (!current.state.exists || current.state.version != version) {
                // The conditional write could only lose the race (B3).
                done(LeaseReply::conflict(current.state));
                return;
            }
            sendUpdate(record, version, change, done);
        });
        return;
    }
    sendUpdate(record, version, change, std::move(done));
}

void KubernetesLeaseBackend::sendUpdate(const LeaseRecord &record, const QString &version,
                                        const std::optional<HistoryEntry> &change, Callback done)
{
    m_api->send("PUT", leaseUrl(), toLease(record, version, change),
         [this, version, change, done = std::move(done)](const HttpResult &result) {
             const QString stored = result.json.value(QStringLiteral("metadata")).toObject()
                                            .value(QStringLiteral("resourceVersion")).toString();
             if (result.ok() && stored == version) {
                 // The API server stores nothing for an update identical to
                 // the object: no new version, no watch event, so the
                 // followers' clocks keep running from the last change. A
                 // renewal that changed nothing must not extend the leader's
                 // authority past theirs.
                 done(LeaseReply::error(
                         QStringLiteral("%1: the API server kept resourceVersion %2: an update "
                                        "identical to the stored Lease renews nothing")
                                 .arg(describe(), version)));
                 return;
             }
             writeReply(result, QStringLiteral("updating"), change, done);
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
    m_api->send("GET", url, {}, [this](const HttpResult &result) {
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
            remember(item.toObject());
        }
        if (state.exists || items.isEmpty())
            Q_EMIT changed(state);
        m_watchVersion = result.json.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("resourceVersion")).toString();
        watchFrom(m_watchVersion);
    });
}

void KubernetesLeaseBackend::watchFrom(const QString &resourceVersion)
{
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("watch"), QStringLiteral("1"));
    query.addQueryItem(QStringLiteral("allowWatchBookmarks"), QStringLiteral("true"));
    query.addQueryItem(QStringLiteral("fieldSelector"), QStringLiteral("metadata.name=") + m_name);
    query.addQueryItem(QStringLiteral("timeoutSeconds"), QString::number(KubeApiClient::kWatchTimeoutSeconds));
    if (!resourceVersion.isEmpty())
        query.addQueryItem(QStringLiteral("resourceVersion"), resourceVersion);
    m_api->openStream(m_api->leasesUrl(m_config.namespaceName, query), this,
                      [this](HttpStream *stream, const QString &error) {
        if (!stream) {
            qCWarning(lcKube).noquote() << QStringLiteral("%1: cannot watch: %2").arg(describe(), error);
            retryWatchLater();
            return;
        }
        delete m_stream;
        m_stream = stream;
        connect(m_stream, &HttpStream::message, this, &KubernetesLeaseBackend::onWatchEvent);
        connect(m_stream, &HttpStream::finished, this, [this](const HttpError &streamError) {
            if (m_stream)
                m_stream->deleteLater();
            if (streamError.httpStatus == 403) {
                stopWatchingFor403(QStringLiteral("watch"), streamError.serverMessage);
                return;
            }
            if (streamError.httpStatus == 401)
                m_api->invalidateCredentials();
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
        // No version before the deletion can be written again.
        m_seen.clear();
        Q_EMIT changed(LeaseState {});
        return;
    }
    LeaseState state;
    QString error;
    if (!fromLease(object, &state, &error)) {
        qCWarning(lcKube).noquote() << error;
        return;
    }
    remember(object);
    Q_EMIT changed(state);
}

} // namespace baton
