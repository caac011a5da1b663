#include "kubernetesleasesource.h"

#include "httpstream.h"
#include "kubeapiclient.h"
#include "kubelease.h"
#include "logging.h"

#include <QJsonArray>
#include <QUrlQuery>

namespace baton {

namespace {

const QString observerHint = QStringLiteral(
        "a read-only observer needs get, list and watch on leases: "
        "resources/kubernetes/observer/clusterrole.yaml");

} // namespace

KubernetesLeaseSource::KubernetesLeaseSource(const KubeClientConfig &config, bool allNamespaces,
                                             int timeoutMs, QObject *parent)
    : LeaseSource(parent)
    , m_config(config)
    , m_allNamespaces(allNamespaces)
    , m_api(new KubeApiClient(config, timeoutMs, this))
{
    m_retryTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, [this] {
        if (m_running && !m_watchForbidden)
            watchFrom(m_watchVersion);
    });
}

KubernetesLeaseSource::~KubernetesLeaseSource()
{
    delete m_stream;
    // Answers still on their way go nowhere: the client goes first.
    delete m_api;
}

bool KubernetesLeaseSource::setUp(QString *errorString)
{
    return m_api->setUp(errorString);
}

QString KubernetesLeaseSource::describe() const
{
    return m_allNamespaces
            ? QStringLiteral("Leases of all namespaces at %1").arg(m_config.server.toDisplayString())
            : QStringLiteral("Leases in namespace %1 at %2").arg(m_config.namespaceName,
                                                                 m_config.server.toDisplayString());
}

QString KubernetesLeaseSource::explain(const HttpResult &result, const QString &verb) const
{
    return m_api->explain(result, QStringLiteral("%1 %2").arg(verb, describe()), observerHint);
}

bool KubernetesLeaseSource::fromLease(const QJsonObject &lease, SourcedLease *sourced) const
{
    const QJsonObject meta = lease.value(QStringLiteral("metadata")).toObject();
    const QString name = meta.value(QStringLiteral("name")).toString();
    if (name.isEmpty())
        return false;
    sourced->name = m_allNamespaces
            ? meta.value(QStringLiteral("namespace")).toString() + QLatin1Char('/') + name
            : name;
    sourced->version = meta.value(QStringLiteral("resourceVersion")).toString();
    LeaseState state;
    QString why;
    sourced->valid = kubelease::decode(lease, &state, &why);
    // R1: shown as unreadable, never guessed at.
    sourced->record = sourced->valid ? state.record : LeaseRecord {};
    sourced->error = sourced->valid ? QString() : QStringLiteral("unusable Lease: ") + why;
    // O2: the stored history comes with every read of the Lease. A Lease no
    // participant of ours ever took (client-go's) has none: an empty history.
    QList<HistoryEntry> history;
    QString historyWhy;
    if (kubelease::decodeHistory(meta, &history, &historyWhy)) {
        sourced->history = history;
    } else {
        sourced->history.reset();
        sourced->historyError = QStringLiteral("annotation %1: %2").arg(leasehistory::kubernetesAnnotation, historyWhy);
    }
    return true;
}

bool KubernetesLeaseSource::isNodeHeartbeat(const QJsonObject &lease) const
{
    return m_allNamespaces
            && lease.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("namespace")).toString()
            == nodeHeartbeatNamespace;
}

void KubernetesLeaseSource::start()
{
    // The watch starts from the first list's resourceVersion: nothing falls between.
    m_running = true;
}

void KubernetesLeaseSource::stop()
{
    m_running = false;
    ++m_generation;
    m_retryTimer.stop();
    closeStream();
}

void KubernetesLeaseSource::closeStream()
{
    if (!m_stream)
        return;
    m_stream->abort();
    m_stream->deleteLater();
    m_stream = nullptr;
}

void KubernetesLeaseSource::list()
{
    if (!m_running)
        return;
    // A list restarts the watch from its own version: the two never overlap.
    closeStream();
    m_retryTimer.stop();
    const int generation = ++m_generation;
    m_api->send("GET", m_api->leasesUrl(m_allNamespaces ? QString() : m_config.namespaceName, {}), {},
                [this, generation](const HttpResult &result) {
        if (!m_running || generation != m_generation)
            return;
        if (!result.ok()) {
            const QString message = explain(result, QStringLiteral("listing"));
            qCWarning(lcKube).noquote() << QStringLiteral("observer: ") + message;
            Q_EMIT listFailed(message);
            return;
        }
        QList<SourcedLease> leases;
        const QJsonArray items = result.json.value(QStringLiteral("items")).toArray();
        for (const QJsonValue &item : items) {
            if (isNodeHeartbeat(item.toObject()))
                continue;
            SourcedLease lease;
            if (fromLease(item.toObject(), &lease))
                leases.append(lease);
            else
                qCWarning(lcKube).noquote() << QStringLiteral("observer: %1: a listed item has no "
                                                              "metadata.name; ignored")
                                                       .arg(describe());
        }
        m_watchVersion = result.json.value(QStringLiteral("metadata")).toObject()
                                 .value(QStringLiteral("resourceVersion")).toString();
        Q_EMIT listed(leases);
        if (m_running && !m_watchForbidden && generation == m_generation)
            watchFrom(m_watchVersion);
    });
}

void KubernetesLeaseSource::watchFrom(const QString &resourceVersion)
{
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("watch"), QStringLiteral("1"));
    query.addQueryItem(QStringLiteral("allowWatchBookmarks"), QStringLiteral("true"));
    query.addQueryItem(QStringLiteral("timeoutSeconds"), QString::number(KubeApiClient::kWatchTimeoutSeconds));
    if (!resourceVersion.isEmpty())
        query.addQueryItem(QStringLiteral("resourceVersion"), resourceVersion);
    const int generation = m_generation;
    m_api->openStream(m_api->leasesUrl(m_allNamespaces ? QString() : m_config.namespaceName, query), this,
                      [this, generation](HttpStream *stream, const QString &error) {
        if (!m_running || generation != m_generation) {
            delete stream;
            return;
        }
        if (!stream) {
            qCWarning(lcKube).noquote() << QStringLiteral("observer: %1: cannot watch: %2").arg(describe(), error);
            retryWatchLater();
            return;
        }
        closeStream();
        m_stream = stream;
        connect(m_stream, &HttpStream::message, this, &KubernetesLeaseSource::onWatchEvent);
        connect(m_stream, &HttpStream::finished, this, [this](const HttpError &streamError) {
            if (m_stream) {
                m_stream->deleteLater();
                m_stream = nullptr;
            }
            if (streamError.httpStatus == 403) {
                watchForbidden(streamError.serverMessage);
                return;
            }
            if (streamError.httpStatus == 401)
                m_api->invalidateCredentials();
            if (!streamError.ok())
                qCDebug(lcKube).noquote() << QStringLiteral("observer: %1: watch ended: %2")
                                                     .arg(describe(), streamError.message);
            retryWatchLater();
        });
    });
}

void KubernetesLeaseSource::watchForbidden(const QString &message)
{
    if (m_watchForbidden)
        return;
    m_watchForbidden = true;
    // B5: list alone is enough to observe; the watch only makes news faster.
    qCInfo(lcKube).noquote()
            << QStringLiteral("observer: %1: may not watch leases (%2); polling with list instead. "
                              "Grant watch (resources/kubernetes/observer/clusterrole.yaml) to see "
                              "changes at once")
                       .arg(describe(), message);
    Q_EMIT resynchronise();
}

void KubernetesLeaseSource::retryWatchLater()
{
    // A clean end (the server's timeout) resumes at once; failures back off.
    const int delay = m_watchFailures == 0 ? 0 : std::min(5000, 100 << std::min(m_watchFailures, 6));
    ++m_watchFailures;
    m_retryTimer.start(delay);
}

void KubernetesLeaseSource::onWatchEvent(const QJsonObject &event)
{
    m_watchFailures = 0;
    const QString type = event.value(QStringLiteral("type")).toString();
    const QJsonObject object = event.value(QStringLiteral("object")).toObject();
    if (type == QStringLiteral("ERROR")) {
        closeStream();
        if (object.value(QStringLiteral("code")).toInt() == 410) {
            // Our version left the server's history: only a new list can say what changed.
            qCDebug(lcKube).noquote() << QStringLiteral("observer: %1: watch expired (410); relisting")
                                                 .arg(describe());
            m_watchVersion.clear();
            Q_EMIT resynchronise();
        } else {
            qCWarning(lcKube).noquote() << QStringLiteral("observer: %1: the watch reported an error: %2")
                                                   .arg(describe(), object.value(QStringLiteral("message")).toString());
            retryWatchLater();
        }
        return;
    }
    const QString version = object.value(QStringLiteral("metadata")).toObject()
                                    .value(QStringLiteral("resourceVersion")).toString();
    if (!version.isEmpty())
        m_watchVersion = version;
    if (type == QStringLiteral("BOOKMARK") || isNodeHeartbeat(object))
        return;
    SourcedLease lease;
    if (!fromLease(object, &lease)) {
        qCWarning(lcKube).noquote() << QStringLiteral("observer: %1: a %2 event without metadata.name; ignored")
                                               .arg(describe(), type);
        return;
    }
    if (type == QStringLiteral("DELETED"))
        Q_EMIT removed(lease.name);
    else if (type == QStringLiteral("ADDED") || type == QStringLiteral("MODIFIED"))
        Q_EMIT changed(lease);
}

} // namespace baton
