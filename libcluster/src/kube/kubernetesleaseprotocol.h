#pragma once

#include "httpclient.h"
#include "kubeconfig.h"
#include "leaseprotocol.h"

#include <QJsonObject>
#include <QPointer>

namespace baton {

class HttpStream;
class KubeApiClient;

/*!
 * A lease kept in a `coordination.k8s.io/v1` Lease object (B3), with
 * the fields client-go's LeaseLock writes, so `kubectl get lease` and a
 * client-go program read the same record: holderIdentity,
 * leaseDurationSeconds (whole seconds, rounded up), acquireTime and
 * renewTime (MicroTime: UTC, six fraction digits), leaseTransitions.
 *
 * Writes are conditional on metadata.resourceVersion; a 409 is reported as
 * a Conflict (never retried here), with the winner's state from one GET.
 * An update is built from the object the API server returned at the version
 * it names (kept for the last few versions seen, whichever of a reply, the
 * list or the watch brought it), so it keeps every label, annotation, owner
 * reference and field that other writers put there; at a version it holds
 * no object for, it reads the Lease first, and when the Lease has moved on
 * answers a Conflict without writing.
 * Following the Lease (F8) is a LIST of that one name, then a streaming
 * WATCH from the list's resourceVersion with bookmarks, resumed from the
 * last version seen, relisted on 410 Gone. Where the service account may
 * not list or watch (B5), the 403 is logged once at info and the election
 * polls.
 *
 * An acquisition (a write that carries a holder change, O2) also keeps the
 * last historyLength changes in the annotation leasehistory::kubernetesAnnotation,
 * in the same conditional write, so history and holder never disagree; a
 * renewal carries the annotation unchanged, as it carries every other field.
 * After the write, a core/v1 Event `<identity> became leader` is posted on
 * the Lease as client-go's leader election records it; it never holds up or
 * fails the election (a 403 is logged once).
 */
class KubernetesLeaseBackend final : public LeaseBackend
{
    Q_OBJECT
public:
    KubernetesLeaseBackend(const KubeClientConfig &config, const QString &leaseName, int timeoutMs,
                           QObject *parent = nullptr);
    ~KubernetesLeaseBackend() override;

    /*! Applies the TLS settings of the configuration; false with a message when they are unusable. */
    bool setUp(QString *errorString);
    /*! How many changes the Lease's stored history keeps; 0 writes none (Events are still posted). */
    void setHistoryLength(int length) { m_historyLength = length; }

    QString describe() const override;
    void read(Callback done) override;
    void create(const LeaseRecord &record, const std::optional<HistoryEntry> &change,
                Callback done) override;
    void update(const LeaseRecord &record, const QString &version,
                const std::optional<HistoryEntry> &change, Callback done) override;
    bool startWatching() override;

    /*!
     * The Lease object for \a record, as written (for tests of the wire
     * format); with \a change, its stored history has the change appended.
     */
    QJsonObject toLease(const LeaseRecord &record, const QString &version,
                        const std::optional<HistoryEntry> &change = std::nullopt) const;
    /*! Reads a Lease object; false with a message naming the field when it cannot be trusted (R1). */
    bool fromLease(const QJsonObject &lease, LeaseState *state, QString *errorString) const;
    /*! A MicroTime: UTC, exactly six fraction digits, `Z`. */
    static QString microTime(const QDateTime &time);
    /*! Whether \a name is a DNS-1123 subdomain, as the API requires of Lease names. */
    static bool isValidLeaseName(const QString &name);

private:
    QString explain(const HttpResult &result, const QString &verb) const;
    void later(Callback done, LeaseReply reply);
    void sendUpdate(const LeaseRecord &record, const QString &version,
                    const std::optional<HistoryEntry> &change, Callback done);
    void remember(const QJsonObject &lease);
    /*! The Lease as the server returned it at \a version, or an empty object when not kept. */
    QJsonObject seenAt(const QString &version) const;
    void writeReply(const HttpResult &result, const QString &verb,
                    const std::optional<HistoryEntry> &change, Callback done);
    QJsonObject withChangeRecorded(QJsonObject metadata, const HistoryEntry &change) const;
    void postLeaderEvent(const QJsonObject &lease, const QString &identity);
    QUrl leaseUrl() const;
    QUrl collectionUrl() const;
    void list();
    void watchFrom(const QString &resourceVersion);
    void onWatchEvent(const QJsonObject &event);
    void retryWatchLater();
    void stopWatchingFor403(const QString &verb, const QString &message);

    KubeClientConfig m_config;
    QString m_name;
    KubeApiClient *m_api;
    /*!
     * The Lease as the server returned it at each of the last versions seen,
     * oldest first. Looked up by exact version, never "the latest": a watch
     * that lags or replays delivers older objects after newer replies, and
     * versions are opaque, so none can be told newer than another (R7).
     */
    QList<QJsonObject> m_seen;
    int m_historyLength = leasehistory::defaultLength;
    /*! The Role lacks create on events: said once, then no more tries. */
    bool m_eventsForbidden = false;
    /*! Keeps apart the names of two Events posted within one millisecond. */
    quint32 m_eventSerial = 0;

    bool m_watching = false;
    bool m_watchForbidden = false;
    QPointer<HttpStream> m_stream;
    QString m_watchVersion;
    int m_watchFailures = 0;
};

} // namespace baton
