#pragma once

#include "httpclient.h"
#include "kubeconfig.h"
#include "leaseprotocol.h"

#include <QHash>
#include <QJsonObject>

class QUrlQuery;

namespace baton {

class KubeApiClient;

/*!
 * The `coordination.k8s.io/v1` Lease objects of one namespace, or of all
 * (B3, O2), for participants and observers alike, with the fields
 * client-go's LeaseLock writes, so `kubectl get lease` and a client-go
 * program read the same record: holderIdentity, leaseDurationSeconds (whole
 * seconds, rounded up), acquireTime and renewTime (MicroTime: UTC, six
 * fraction digits), leaseTransitions. Across all namespaces a lease is
 * named `namespace/name`.
 *
 * Writes are conditional on metadata.resourceVersion; a 409 is reported as
 * a Conflict (never retried here), with the winner's state from one GET.
 * An update is built from the object the API server returned at the version
 * it names (kept for the last few versions seen of each Lease, whichever of
 * a reply, a list or a watch brought it), so it keeps every label,
 * annotation, owner reference and field that other writers put there; at a
 * version it holds no object for, it reads the Lease first, and when the
 * Lease has moved on answers a Conflict without writing.
 *
 * An acquisition (a write that carries a holder change, O2) also keeps the
 * last historyLength changes in the annotation leasehistory::kubernetesAnnotation,
 * in the same conditional write, so history and holder never disagree; a
 * renewal carries the annotation unchanged, as it carries every other field.
 * After the write, a core/v1 Event `<identity> became leader` is posted on
 * the Lease as client-go's leader election records it; it never holds up or
 * fails the election (a 403 is logged once).
 *
 * Watches are KubeLeaseWatch: a LIST, then a WATCH from its resourceVersion.
 */
class KubernetesLeaseProtocol final : public LeaseProtocol
{
    Q_OBJECT
public:
    /*! \a allNamespaces: every namespace; else config.namespaceName. */
    KubernetesLeaseProtocol(const KubeClientConfig &config, bool allNamespaces, int timeoutMs,
                            QObject *parent = nullptr);
    ~KubernetesLeaseProtocol() override;

    /*! Applies the TLS settings of the configuration; false with a message when they are unusable. */
    bool setUp(QString *errorString);
    /*! How many changes a Lease's stored history keeps; 0 writes none (Events are still posted). */
    void setHistoryLength(int length) { m_historyLength = length; }

    QString describe() const override;
    QString describeLease(const QString &name) const override;
    void get(const QString &name, Callback done) override;
    void create(const QString &name, const LeaseRecord &record,
                const std::optional<HistoryEntry> &change, Callback done) override;
    void update(const QString &name, const LeaseRecord &record, const QString &version,
                const std::optional<HistoryEntry> &change, Callback done) override;
    void list(ListCallback done) override;
    LeaseWatch *watch(const QString &name, QObject *parent) override;

    /*!
     * The Lease object for \a record, as written (for tests of the wire
     * format); with \a change, its stored history has the change appended.
     */
    QJsonObject toLease(const QString &name, const LeaseRecord &record, const QString &version,
                        const std::optional<HistoryEntry> &change = std::nullopt) const;
    /*! Reads a Lease object; false with a message naming the field when it cannot be trusted (R1). */
    bool fromLease(const QJsonObject &lease, LeaseState *state, QString *errorString) const;
    /*! A Lease object as a list or watch reports it; false when it has no name to key it by. */
    bool toSourced(const QJsonObject &lease, SourcedLease *sourced) const;
    /*! Whether \a lease is a kubelet's heartbeat, left out across all namespaces. */
    bool isNodeHeartbeat(const QJsonObject &lease) const;
    /*! A MicroTime: UTC, exactly six fraction digits, `Z`. */
    static QString microTime(const QDateTime &time);
    /*! Whether \a name is a DNS-1123 subdomain, as the API requires of Lease names. */
    static bool isValidLeaseName(const QString &name);
    /*! The namespace of the kubelets' heartbeat Leases. */
    static inline const QString nodeHeartbeatNamespace = QStringLiteral("kube-node-lease");

    /*! What the watches of this protocol share. */
    KubeApiClient *api() const { return m_api; }
    bool allNamespaces() const { return m_allNamespaces; }
    /*! The Lease collection of this protocol's place, with \a query. */
    QUrl collectionUrl(const QUrlQuery &query) const;
    /*! Keeps \a lease as the server returned it at its version (for updates, R7). */
    void remember(const QJsonObject &lease);
    /*! The Lease \a name was deleted: no version before the deletion can be written again. */
    void forget(const QString &name);
    /*! A failed request in words, with the Role a participant or an observer needs. */
    QString explain(const HttpResult &result, const QString &what, bool observing) const;
    /*! The failed request as an error: a 401 is refused credentials; a 403 is not (B5). */
    LeaseReply failed(const HttpResult &result, const QString &what) const;
    /*!
     * A Lease the server returned, decoded and kept for the updates built
     * on its version (R7); unset when it cannot be trusted, and then
     * \a done has been answered with why (R1).
     */
    std::optional<LeaseState> accepted(const QJsonObject &lease, const Callback &done);

private:
    /*! The namespace and the name of the Lease \a name. */
    std::pair<QString, QString> locate(const QString &name) const;
    QUrl leaseUrl(const QString &name) const;
    QUrl namespaceUrl(const QString &name) const;
    void later(Callback done, LeaseReply reply);
    void sendUpdate(const QString &name, const LeaseRecord &record, const QString &version,
                    const std::optional<HistoryEntry> &change, Callback done);
    /*! The Lease as the server returned it at \a version, or an empty object when not kept. */
    QJsonObject seenAt(const QString &name, const QString &version) const;
    void writeReply(const QString &name, const HttpResult &result, const QString &verb,
                    const std::optional<HistoryEntry> &change, Callback done);
    QJsonObject withChangeRecorded(const QString &name, QJsonObject metadata,
                                   const HistoryEntry &change) const;
    void postLeaderEvent(const QString &name, const QJsonObject &lease, const QString &identity);

    KubeClientConfig m_config;
    bool m_allNamespaces;
    KubeApiClient *m_api;
    /*!
     * Each Lease as the server returned it at the last versions seen, oldest
     * first. Looked up by exact version, never "the latest": a watch that
     * lags or replays delivers older objects after newer replies, and
     * versions are opaque, so none can be told newer than another (R7).
     */
    QHash<QString, QList<QJsonObject>> m_seen;
    int m_historyLength = leasehistory::defaultLength;
    /*! The Role lacks create on events: said once, then no more tries. */
    bool m_eventsForbidden = false;
    /*! Keeps apart the names of two Events posted within one millisecond. */
    quint32 m_eventSerial = 0;
};

} // namespace baton
