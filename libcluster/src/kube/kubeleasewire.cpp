// KubernetesLeaseProtocol's wire format: the Lease object it writes and
// reads, and the Event it posts on a change of holder.
#include "kubernetesleaseprotocol.h"

#include "kubeapiclient.h"
#include "kubelease.h"
#include "logging.h"

#include <QJsonDocument>
#include <QSysInfo>

namespace baton {

namespace {

const QString eventReason = QStringLiteral("LeaderElection");
const QString eventComponent = QStringLiteral("baton");

/*! metav1.Time, the type of an Event's first and last timestamps: whole seconds, UTC. */
QString kubeTime(const QDateTime &time)
{
    return time.toUTC().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss")) + QLatin1Char('Z');
}

} // namespace

bool KubernetesLeaseProtocol::isValidLeaseName(const QString &name)
{
    return kubelease::isValidName(name);
}

QString KubernetesLeaseProtocol::microTime(const QDateTime &time)
{
    return kubelease::microTime(time);
}

QJsonObject KubernetesLeaseProtocol::withChangeRecorded(const QString &name, QJsonObject metadata,
                                                        const HistoryEntry &change) const
{
    QList<HistoryEntry> previous;
    QString why;
    if (!kubelease::decodeHistory(metadata, &previous, &why)) {
        // O2: a history we cannot read is no reason to refuse the lease.
        qCWarning(lcKube).noquote()
                << QStringLiteral("%1: annotation %2 ignored (%3); the stored history starts again "
                                  "from this change")
                           .arg(describeLease(name), leasehistory::kubernetesAnnotation, why);
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

QJsonObject KubernetesLeaseProtocol::toLease(const QString &name, const LeaseRecord &record,
                                             const QString &version,
                                             const std::optional<HistoryEntry> &change) const
{
    // Start from the object the server returned at this version, so that
    // labels, annotations, owner references and fields of newer API
    // versions that other writers put there survive our write (R7).
    const QJsonObject last = seenAt(name, version);
    const bool known = !last.isEmpty();
    const auto [ns, leaseName] = locate(name);
    QJsonObject meta {{QStringLiteral("name"), leaseName}, {QStringLiteral("namespace"), ns}};
    QJsonObject spec;
    if (known) {
        meta = last.value(QStringLiteral("metadata")).toObject();
        spec = last.value(QStringLiteral("spec")).toObject();
    }
    if (!version.isEmpty())
        meta.insert(QStringLiteral("resourceVersion"), version);
    if (change && m_historyLength > 0)
        meta = withChangeRecorded(name, meta, *change);
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
    spec = kubelease::withSuccessor(spec, record);
    return {{QStringLiteral("apiVersion"), kubelease::apiVersion},
            {QStringLiteral("kind"), QStringLiteral("Lease")},
            {QStringLiteral("metadata"), meta},
            {QStringLiteral("spec"), spec}};
}

bool KubernetesLeaseProtocol::fromLease(const QJsonObject &lease, LeaseState *state,
                                        QString *errorString) const
{
    QString why;
    if (kubelease::decode(lease, state, &why))
        return true;
    const QJsonObject meta = lease.value(QStringLiteral("metadata")).toObject();
    const QString name = m_allNamespaces
            ? meta.value(QStringLiteral("namespace")).toString() + QLatin1Char('/')
                    + meta.value(QStringLiteral("name")).toString()
            : meta.value(QStringLiteral("name")).toString();
    *errorString = QStringLiteral("%1: unusable Lease: %2").arg(describeLease(name), why);
    return false;
}

bool KubernetesLeaseProtocol::toSourced(const QJsonObject &lease, SourcedLease *sourced) const
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

bool KubernetesLeaseProtocol::isNodeHeartbeat(const QJsonObject &lease) const
{
    return m_allNamespaces
            && lease.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("namespace")).toString()
            == nodeHeartbeatNamespace;
}

void KubernetesLeaseProtocol::postLeaderEvent(const QString &name, const QJsonObject &lease,
                                              const QString &identity)
{
    if (m_eventsForbidden)
        return;
    // As client-go's event recorder writes it, so that `kubectl describe
    // lease` and `kubectl get events` show the change: named
    // <object>.<time in hex>, on the Lease by kind, name and uid.
    const auto [ns, leaseName] = locate(name);
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const qint64 nanos = now.toMSecsSinceEpoch() * 1000000 + qint64(m_eventSerial++ % 1000000);
    const QJsonObject meta = lease.value(QStringLiteral("metadata")).toObject();
    QJsonObject involved {{QStringLiteral("kind"), QStringLiteral("Lease")},
                          {QStringLiteral("apiVersion"), kubelease::apiVersion},
                          {QStringLiteral("namespace"), ns},
                          {QStringLiteral("name"), leaseName}};
    for (const QString &key : {QStringLiteral("uid"), QStringLiteral("resourceVersion")})
        if (meta.value(key).isString())
            involved.insert(key, meta.value(key));
    const QJsonObject event {
            {QStringLiteral("apiVersion"), QStringLiteral("v1")},
            {QStringLiteral("kind"), QStringLiteral("Event")},
            {QStringLiteral("metadata"),
             QJsonObject {{QStringLiteral("name"), leaseName + QLatin1Char('.') + QString::number(nanos, 16)},
                          {QStringLiteral("namespace"), ns}}},
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
    m_api->send("POST", m_api->eventsUrl(ns), event, [this, name](const HttpResult &result) {
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
                               .arg(describeLease(name), result.json.value(QStringLiteral("message"))
                                                        .toString(result.error.serverMessage));
            return;
        }
        qCWarning(lcKube).noquote() << m_api->explain(result,
                                                      QStringLiteral("posting the leader Event of %1").arg(describeLease(name)),
                                                      QStringLiteral("a participant needs create on events"));
    });
}

} // namespace baton
