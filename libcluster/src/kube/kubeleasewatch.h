#pragma once

#include "leaseprotocol.h"

#include <QPointer>
#include <QTimer>

namespace baton {

class HttpStream;
class KubernetesLeaseProtocol;
struct HttpResult;

/*!
 * A KubernetesLeaseProtocol's watch, of one Lease (a participant's) or of
 * every Lease of its place (an observer's): a LIST, then a streaming WATCH
 * from the list's resourceVersion with bookmarks, resumed from the last
 * version seen when the server ends it; on 410 Gone a new list (one Lease)
 * or resynchronise() (all). It lists at once when made, since the stream
 * starts from a list; list() lists again and restarts the stream from it.
 *
 * Where the service account may not list or watch (B5), the 403 is logged
 * once at info and isWatching() turns false: the caller polls. Across all
 * namespaces the kubelets' heartbeats (`kube-node-lease`) are left out.
 */
class KubeLeaseWatch final : public LeaseWatch
{
    Q_OBJECT
public:
    /*! \a name empty: every Lease of \a protocol's place. */
    KubeLeaseWatch(KubernetesLeaseProtocol *protocol, const QString &name, QObject *parent);
    ~KubeLeaseWatch() override;

    void list() override;
    bool isWatching() const override { return !m_watchForbidden; }

private:
    /*! Who speaks in messages: the Lease, or the observer of the place. */
    QString who() const;
    void onListed(const HttpResult &result);
    void watchFrom(const QString &resourceVersion);
    void onWatchEvent(const QJsonObject &event);
    void closeStream();
    void retryWatchLater();
    void watchForbidden(const QString &verb, const QString &message);

    QPointer<KubernetesLeaseProtocol> m_protocol;
    QString m_name;
    QPointer<HttpStream> m_stream;
    QTimer m_retryTimer;
    QString m_watchVersion;
    int m_watchFailures = 0;
    bool m_listing = false;
    bool m_watchForbidden = false;
    /*! Bumped by each list: a stream opened for an older one is dropped. */
    int m_generation = 0;
};

} // namespace baton
