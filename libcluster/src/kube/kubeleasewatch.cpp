#include "kubeleasewatch.h"

#include "httpstream.h"
#include "kubeapiclient.h"
#include "kubernetesleaseprotocol.h"
#include "logging.h"

#include <QJsonArray>
#include <QUrlQuery>

#include <algorithm>

namespace baton {

KubeLeaseWatch::KubeLeaseWatch(KubernetesLeaseProtocol *protocol, const QString &name, QObject *parent)
    : LeaseWatch(parent)
    , m_protocol(protocol)
    , m_name(name)
{
    m_retryTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, [this] {
        if (m_watchForbidden)
            return;
        if (m_watchVersion.isEmpty())
            list();
        else
            watchFrom(m_watchVersion);
    });
    // The stream starts from a list's version: nothing falls between.
    list();
}

KubeLeaseWatch::~KubeLeaseWatch()
{
    delete m_stream;
}

QString KubeLeaseWatch::who() const
{
    if (!m_protocol)
        return {};
    return m_name.isEmpty() ? QStringLiteral("observer: ") + m_protocol->describe()
                            : m_protocol->describeLease(m_name);
}

void KubeLeaseWatch::closeStream()
{
    if (!m_stream)
        return;
    m_stream->abort();
    m_stream->deleteLater();
    m_stream = nullptr;
}

void KubeLeaseWatch::list()
{
    if (!m_protocol || m_listing)
        return;
    m_listing = true;
    // A list restarts the watch from its own version: the two never overlap.
    closeStream();
    m_retryTimer.stop();
    ++m_generation;
    QUrlQuery query;
    if (!m_name.isEmpty())
        query.addQueryItem(QStringLiteral("fieldSelector"), QStringLiteral("metadata.name=") + m_name);
    m_protocol->api()->send("GET", m_protocol->collectionUrl(query), {},
                            [self = QPointer<KubeLeaseWatch>(this)](const HttpResult &result) {
        if (self)
            self->onListed(result);
    });
}

void KubeLeaseWatch::onListed(const HttpResult &result)
{
    m_listing = false;
    if (!m_protocol)
        return;
    if (!result.ok()) {
        const QString message = m_protocol->explain(
                result, QStringLiteral("listing %1").arg(m_name.isEmpty() ? m_protocol->describe()
                                                                          : m_protocol->describeLease(m_name)),
                m_name.isEmpty());
        if (m_name.isEmpty()) {
            qCWarning(lcKube).noquote() << QStringLiteral("observer: ") + message;
        } else if (result.error.httpStatus == 403) {
            watchForbidden(QStringLiteral("list"), result.error.serverMessage);
        } else {
            // A participant's watch lists again by itself; the election polls meanwhile.
            qCDebug(lcKube).noquote() << message;
            m_watchVersion.clear();
            retryWatchLater();
        }
        Q_EMIT listFailed(message);
        return;
    }
    QList<SourcedLease> leases;
    const QJsonArray items = result.json.value(QStringLiteral("items")).toArray();
    for (const QJsonValue &item : items) {
        const QJsonObject lease = item.toObject();
        if (m_protocol->isNodeHeartbeat(lease))
            continue;
        SourcedLease sourced;
        if (!m_protocol->toSourced(lease, &sourced)) {
            qCWarning(lcKube).noquote() << QStringLiteral("%1: a listed item has no metadata.name; ignored")
                                                   .arg(who());
            continue;
        }
        if (!m_name.isEmpty() && sourced.name != m_name)
            continue;
        if (!m_name.isEmpty() && sourced.valid)
            m_protocol->remember(lease);
        leases.append(sourced);
    }
    m_watchVersion = result.json.value(QStringLiteral("metadata")).toObject()
                             .value(QStringLiteral("resourceVersion")).toString();
    const int generation = m_generation;
    Q_EMIT listed(leases);
    if (m_protocol && !m_watchForbidden && generation == m_generation)
        watchFrom(m_watchVersion);
}

void KubeLeaseWatch::watchFrom(const QString &resourceVersion)
{
    if (!m_protocol)
        return;
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("watch"), QStringLiteral("1"));
    query.addQueryItem(QStringLiteral("allowWatchBookmarks"), QStringLiteral("true"));
    if (!m_name.isEmpty())
        query.addQueryItem(QStringLiteral("fieldSelector"), QStringLiteral("metadata.name=") + m_name);
    query.addQueryItem(QStringLiteral("timeoutSeconds"), QString::number(KubeApiClient::kWatchTimeoutSeconds));
    if (!resourceVersion.isEmpty())
        query.addQueryItem(QStringLiteral("resourceVersion"), resourceVersion);
    const int generation = m_generation;
    m_protocol->api()->openStream(m_protocol->collectionUrl(query), this,
                                  [this, generation](HttpStream *stream, const QString &error) {
        if (generation != m_generation) {
            delete stream;
            return;
        }
        if (!stream) {
            qCWarning(lcKube).noquote() << QStringLiteral("%1: cannot watch: %2").arg(who(), error);
            retryWatchLater();
            return;
        }
        closeStream();
        m_stream = stream;
        connect(m_stream, &HttpStream::message, this, &KubeLeaseWatch::onWatchEvent);
        connect(m_stream, &HttpStream::finished, this, [this](const HttpError &streamError) {
            if (m_stream) {
                m_stream->deleteLater();
                m_stream = nullptr;
            }
            if (streamError.httpStatus == 403) {
                watchForbidden(QStringLiteral("watch"), streamError.serverMessage);
                return;
            }
            if (streamError.httpStatus == 401 && m_protocol)
                m_protocol->api()->invalidateCredentials();
            if (!streamError.ok())
                qCDebug(lcKube).noquote() << QStringLiteral("%1: watch ended: %2").arg(who(), streamError.message);
            retryWatchLater();
        });
    });
}

void KubeLeaseWatch::watchForbidden(const QString &verb, const QString &message)
{
    if (m_watchForbidden)
        return;
    m_watchForbidden = true;
    if (m_name.isEmpty()) {
        // B5: list alone is enough to observe; the watch only makes news faster.
        qCInfo(lcKube).noquote()
                << QStringLiteral("%1: may not watch leases (%2); polling with list instead. "
                                  "Grant watch (resources/kubernetes/observer/clusterrole.yaml) to see "
                                  "changes at once")
                           .arg(who(), message);
        Q_EMIT resynchronise();
        return;
    }
    // B5: a participant needs only get, create and update; polling is fine.
    qCInfo(lcKube).noquote()
            << QStringLiteral("%1: may not %2 leases (%3); following the Lease by polling. Grant "
                              "list and watch for handovers in milliseconds")
                       .arg(who(), verb, message);
}

void KubeLeaseWatch::retryWatchLater()
{
    // A clean end (the server's timeout) resumes at once; failures back off.
    const int delay = m_watchFailures == 0 ? 0 : std::min(5000, 100 << std::min(m_watchFailures, 6));
    ++m_watchFailures;
    m_retryTimer.start(delay);
}

void KubeLeaseWatch::onWatchEvent(const QJsonObject &event)
{
    m_watchFailures = 0;
    const QString type = event.value(QStringLiteral("type")).toString();
    const QJsonObject object = event.value(QStringLiteral("object")).toObject();
    if (type == QStringLiteral("ERROR")) {
        closeStream();
        if (object.value(QStringLiteral("code")).toInt() == 410) {
            // Our version left the server's history: only a new list can say what changed.
            qCDebug(lcKube).noquote() << QStringLiteral("%1: watch expired (410); relisting").arg(who());
            m_watchVersion.clear();
            if (m_name.isEmpty())
                Q_EMIT resynchronise();
            else
                list();
        } else {
            qCWarning(lcKube).noquote() << QStringLiteral("%1: the watch reported an error: %2")
                                                   .arg(who(), object.value(QStringLiteral("message")).toString());
            retryWatchLater();
        }
        return;
    }
    const QString version = object.value(QStringLiteral("metadata")).toObject()
                                    .value(QStringLiteral("resourceVersion")).toString();
    if (!version.isEmpty())
        m_watchVersion = version;
    if (type == QStringLiteral("BOOKMARK") || !m_protocol || m_protocol->isNodeHeartbeat(object))
        return;
    SourcedLease lease;
    if (!m_protocol->toSourced(object, &lease)) {
        qCWarning(lcKube).noquote() << QStringLiteral("%1: a %2 event without metadata.name; ignored")
                                               .arg(who(), type);
        return;
    }
    if (!m_name.isEmpty() && lease.name != m_name)
        return;
    if (type == QStringLiteral("DELETED")) {
        if (!m_name.isEmpty())
            m_protocol->forget(m_name);
        Q_EMIT removed(lease.name);
    } else if (type == QStringLiteral("ADDED") || type == QStringLiteral("MODIFIED")) {
        if (!m_name.isEmpty() && lease.valid)
            m_protocol->remember(object);
        Q_EMIT changed(lease);
    }
}

} // namespace baton
