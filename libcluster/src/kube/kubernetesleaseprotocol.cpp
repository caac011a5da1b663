#include "kubernetesleaseprotocol.h"

#include "kubeapiclient.h"
#include "kubelease.h"
#include "kubeleasewatch.h"
#include "logging.h"

#include <QJsonArray>
#include <QTimer>
#include <QUrlQuery>

namespace baton {

namespace {

// Versions whose object is kept: more than a watch lags behind in practice;
// a version that fell out costs one GET before its update.
constexpr qsizetype keptVersions = 16;

QString versionOf(const QJsonObject &lease)
{
    return lease.value(QStringLiteral("metadata")).toObject()
            .value(QStringLiteral("resourceVersion")).toString();
}

QString keyOf(const QJsonObject &lease)
{
    const QJsonObject meta = lease.value(QStringLiteral("metadata")).toObject();
    return meta.value(QStringLiteral("namespace")).toString() + QLatin1Char('/')
            + meta.value(QStringLiteral("name")).toString();
}

} // namespace

KubernetesLeaseProtocol::KubernetesLeaseProtocol(const KubeClientConfig &config, bool allNamespaces,
                                                 int timeoutMs, QObject *parent)
    : LeaseProtocol(parent)
    , m_config(config)
    , m_allNamespaces(allNamespaces)
    , m_api(new KubeApiClient(config, timeoutMs, this))
{
}

KubernetesLeaseProtocol::~KubernetesLeaseProtocol()
{
    // Answers still on their way go nowhere: the client goes first.
    delete m_api;
    m_api = nullptr;
}

bool KubernetesLeaseProtocol::setUp(QString *errorString)
{
    return m_api->setUp(errorString);
}

QString KubernetesLeaseProtocol::describe() const
{
    return m_allNamespaces
            ? QStringLiteral("Leases of all namespaces at %1").arg(m_config.server.toDisplayString())
            : QStringLiteral("Leases in namespace %1 at %2").arg(m_config.namespaceName,
                                                                 m_config.server.toDisplayString());
}

QString KubernetesLeaseProtocol::describeLease(const QString &name) const
{
    const auto [ns, lease] = locate(name);
    return QStringLiteral("Lease %1/%2 at %3").arg(ns, lease, m_config.server.toDisplayString());
}

std::pair<QString, QString> KubernetesLeaseProtocol::locate(const QString &name) const
{
    const qsizetype slash = name.indexOf(QLatin1Char('/'));
    if (m_allNamespaces && slash > 0)
        return {name.left(slash), name.mid(slash + 1)};
    return {m_config.namespaceName, name};
}

QUrl KubernetesLeaseProtocol::collectionUrl(const QUrlQuery &query) const
{
    return m_api->leasesUrl(m_allNamespaces ? QString() : m_config.namespaceName, query);
}

QUrl KubernetesLeaseProtocol::namespaceUrl(const QString &name) const
{
    return m_api->leasesUrl(locate(name).first, {});
}

QUrl KubernetesLeaseProtocol::leaseUrl(const QString &name) const
{
    QUrl url = namespaceUrl(name);
    url.setPath(url.path() + QLatin1Char('/') + locate(name).second);
    return url;
}

void KubernetesLeaseProtocol::later(Callback done, LeaseReply reply)
{
    QTimer::singleShot(0, this, [done = std::move(done), reply = std::move(reply)] { done(reply); });
}

QString KubernetesLeaseProtocol::explain(const HttpResult &result, const QString &what,
                                         bool observing) const
{
    return m_api->explain(result, what,
                          observing ? QStringLiteral("a read-only observer needs get, list and watch on "
                                                     "leases: resources/kubernetes/observer/clusterrole.yaml")
                                    : QStringLiteral("a participant needs get, create and update on "
                                                     "leases: resources/kubernetes/participant/role.yaml"));
}

LeaseReply KubernetesLeaseProtocol::failed(const HttpResult &result, const QString &what) const
{
    // A 401 is who we are refused, as client-go takes it; a 403 is what this
    // account may do, which a Role granted meanwhile mends without a restart.
    const bool refused = result.error.kind == HttpError::Kind::HttpStatus
            && result.error.httpStatus == 401;
    return LeaseReply::error(explain(result, what, false), refused ? LeaseReply::ErrorKind::CredentialsRefused
                                                                   : LeaseReply::ErrorKind::Other);
}

std::optional<LeaseState> KubernetesLeaseProtocol::accepted(const QJsonObject &lease,
                                                           const Callback &done)
{
    LeaseState state;
    QString error;
    if (!fromLease(lease, &state, &error)) {
        done(LeaseReply::error(error));
        return std::nullopt;
    }
    remember(lease);
    return state;
}

void KubernetesLeaseProtocol::get(const QString &name, Callback done)
{
    m_api->send("GET", leaseUrl(name), {}, [this, name, done = std::move(done)](const HttpResult &result) {
        if (result.ok()) {
            if (const std::optional<LeaseState> state = accepted(result.json, done))
                done(LeaseReply::ok(*state));
        } else if (result.error.httpStatus == 404) {
            done(LeaseReply::ok(LeaseState {}));
        } else {
            done(failed(result, QStringLiteral("reading %1").arg(describeLease(name))));
        }
    });
}

void KubernetesLeaseProtocol::remember(const QJsonObject &lease)
{
    const QString version = versionOf(lease);
    if (version.isEmpty())
        return;
    // The server returns one object per version, whichever request brought it.
    QList<QJsonObject> &seen = m_seen[keyOf(lease)];
    seen.removeIf([&version](const QJsonObject &kept) { return versionOf(kept) == version; });
    seen.append(lease);
    while (seen.size() > keptVersions)
        seen.removeFirst();
}

void KubernetesLeaseProtocol::forget(const QString &name)
{
    const auto [ns, lease] = locate(name);
    m_seen.remove(ns + QLatin1Char('/') + lease);
}

QJsonObject KubernetesLeaseProtocol::seenAt(const QString &name, const QString &version) const
{
    if (version.isEmpty())
        return {};
    const auto [ns, lease] = locate(name);
    const QList<QJsonObject> seen = m_seen.value(ns + QLatin1Char('/') + lease);
    for (auto it = seen.crbegin(); it != seen.crend(); ++it)
        if (versionOf(*it) == version)
            return *it;
    return {};
}

void KubernetesLeaseProtocol::writeReply(const QString &name, const HttpResult &result,
                                         const QString &verb, const std::optional<HistoryEntry> &change,
                                         Callback done)
{
    if (result.ok()) {
        const std::optional<LeaseState> state = accepted(result.json, done);
        if (!state)
            return;
        if (change)
            postLeaderEvent(name, result.json, change->to);
        done(LeaseReply::ok(*state));
        return;
    }
    if (result.error.httpStatus != 409) {
        done(failed(result, QStringLiteral("%1 %2").arg(verb, describeLease(name))));
        return;
    }
    // A lost race (B3): never retried here. One GET says who won.
    get(name, [done](const LeaseReply &winner) {
        done(winner.outcome == LeaseReply::Outcome::Ok ? LeaseReply::conflict(winner.state)
                                                       : LeaseReply::conflict());
    });
}

void KubernetesLeaseProtocol::create(const QString &name, const LeaseRecord &record,
                                     const std::optional<HistoryEntry> &change, Callback done)
{
    m_api->send("POST", namespaceUrl(name), toLease(name, record, {}, change),
                [this, name, change, done = std::move(done)](const HttpResult &result) {
                    writeReply(name, result, QStringLiteral("creating"), change, done);
                });
}

void KubernetesLeaseProtocol::update(const QString &name, const LeaseRecord &record,
                                     const QString &version, const std::optional<HistoryEntry> &change,
                                     Callback done)
{
    if (version.isEmpty()) {
        // A PUT without a version would be unconditional: never sent (B3).
        later(std::move(done), LeaseReply::error(QStringLiteral("%1: an update needs the version read")
                                                         .arg(describeLease(name))));
        return;
    }
    if (seenAt(name, version).isEmpty()) {
        // R7: a bare object would erase what other writers put on the Lease
        // (labels, annotations, the stored history): read it first.
        get(name, [this, name, record, version, change, done = std::move(done)](const LeaseReply &current) {
            if (current.outcome != LeaseReply::Outcome::Ok) {
                done(current);
                return;
            }
            if (!current.state.exists || current.state.version != version) {
                // The conditional write could only lose the race (B3).
                done(LeaseReply::conflict(current.state));
                return;
            }
            sendUpdate(name, record, version, change, done);
        });
        return;
    }
    sendUpdate(name, record, version, change, std::move(done));
}

void KubernetesLeaseProtocol::sendUpdate(const QString &name, const LeaseRecord &record,
                                         const QString &version,
                                         const std::optional<HistoryEntry> &change, Callback done)
{
    m_api->send("PUT", leaseUrl(name), toLease(name, record, version, change),
                [this, name, version, change, done = std::move(done)](const HttpResult &result) {
        if (result.ok() && versionOf(result.json) == version) {
            // The API server stores nothing for an update identical to
            // the object: no new version, no watch event, so the
            // followers' clocks keep running from the last change. A
            // renewal that changed nothing must not extend the leader's
            // authority past theirs.
            done(LeaseReply::error(
                    QStringLiteral("%1: the API server kept resourceVersion %2: an update "
                                   "identical to the stored Lease renews nothing")
                            .arg(describeLease(name), version)));
            return;
        }
        writeReply(name, result, QStringLiteral("updating"), change, done);
    });
}

void KubernetesLeaseProtocol::list(ListCallback done)
{
    m_api->send("GET", collectionUrl({}), {}, [this, done = std::move(done)](const HttpResult &result) {
        if (!result.ok()) {
            const QString message = explain(result, QStringLiteral("listing %1").arg(describe()), true);
            qCWarning(lcKube).noquote() << QStringLiteral("observer: ") + message;
            done({}, message);
            return;
        }
        QList<SourcedLease> leases;
        const QJsonArray items = result.json.value(QStringLiteral("items")).toArray();
        for (const QJsonValue &item : items) {
            if (isNodeHeartbeat(item.toObject()))
                continue;
            SourcedLease lease;
            if (toSourced(item.toObject(), &lease))
                leases.append(lease);
            else
                qCWarning(lcKube).noquote() << QStringLiteral("observer: %1: a listed item has no "
                                                              "metadata.name; ignored")
                                                       .arg(describe());
        }
        done(leases, QString());
    });
}

LeaseWatch *KubernetesLeaseProtocol::watch(const QString &name, QObject *parent)
{
    return new KubeLeaseWatch(this, name, parent);
}

} // namespace baton
