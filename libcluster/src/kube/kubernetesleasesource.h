#pragma once

#include "kubeconfig.h"
#include "leasesource.h"

#include <QPointer>
#include <QTimer>

namespace baton {

class HttpStream;
class KubeApiClient;
struct HttpResult;

/*!
 * The `coordination.k8s.io/v1` Lease objects of one namespace, or of all
 * (O2), for a LeaseObserver: a LIST, then a WATCH from the list's
 * resourceVersion with bookmarks, resumed from the last resourceVersion
 * seen when the server ends it, and a new list on 410 Gone. Named `name`
 * in one namespace, `namespace/name` across all. A Lease that cannot be
 * trusted is an error entry (R1), decoded as the election decodes it.
 * Each Lease read carries its stored history, the annotation
 * leasehistory::kubernetesAnnotation the participants write (O2).
 *
 * Across all namespaces, the node heartbeats of `kube-node-lease` (one Lease
 * per node, renewed every ten seconds, no election) are left out; asking for
 * that namespace by name shows them.
 *
 * Uses only get, list and watch (B5: the observer ClusterRole). Where
 * watch is forbidden, the 403 is logged once at info and isWatching()
 * turns false: the observer polls with LIST.
 */
class KubernetesLeaseSource final : public LeaseSource
{
    Q_OBJECT
public:
    /*! \a allNamespaces: every namespace; else config.namespaceName. */
    KubernetesLeaseSource(const KubeClientConfig &config, bool allNamespaces, int timeoutMs,
                          QObject *parent = nullptr);
    ~KubernetesLeaseSource() override;

    /*! Applies the TLS settings of the configuration; false with a message when they are unusable. */
    bool setUp(QString *errorString);

    QString describe() const override;
    void start() override;
    void stop() override;
    void list() override;
    bool isWatching() const override { return !m_watchForbidden; }

    /*! A Lease object as the observer keeps it; false when it has no name to key it by. */
    bool fromLease(const QJsonObject &lease, SourcedLease *sourced) const;

    /*! The namespace of the kubelets' heartbeat Leases. */
    static inline const QString nodeHeartbeatNamespace = QStringLiteral("kube-node-lease");

private:
    bool isNodeHeartbeat(const QJsonObject &lease) const;
    void watchFrom(const QString &resourceVersion);
    void onWatchEvent(const QJsonObject &event);
    void closeStream();
    void retryWatchLater();
    void watchForbidden(const QString &message);
    QString explain(const HttpResult &result, const QString &verb) const;

    KubeClientConfig m_config;
    bool m_allNamespaces;
    KubeApiClient *m_api;
    QPointer<HttpStream> m_stream;
    QTimer m_retryTimer;
    QString m_watchVersion;
    int m_watchFailures = 0;
    bool m_running = false;
    bool m_watchForbidden = false;
    /*! Bumped by each list and stop: answers to an older one are dropped. */
    int m_generation = 0;
};

} // namespace baton
