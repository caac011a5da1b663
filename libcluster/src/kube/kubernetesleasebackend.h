#pragma once

#include "httpclient.h"
#include "kubeconfig.h"
#include "leasebackend.h"

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
    /*! The last Lease seen: its other fields (labels, strategy...) survive our updates. */
    QJsonObject m_lastObject;
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
