#pragma once

#include <baton/clusterservice.h>
#include <baton/store.h>

#include <QObject>
#include <QPointer>

namespace baton {



/*!
 * The dashboard taking part in one election (O4): a cluster service on
 * the connection's store, with the parameters the operator entered, built
 * as StoreClusterService does (the lease is `cluster:<leaseName>`, B2).
 * Stepping down stops it cleanly (F5: deregister, then release), so another
 * participant takes over at once.
 */
class DashboardParticipant : public QObject
{
    Q_OBJECT
public:
    struct Parameters
    {
        QString leaseName;
        QString instanceId;
        qint64 leaseDurationMs = 15000;
        qint64 renewIntervalMs = 5000;
    };

    /*! \a store may be null: the connection has no Registry and canJoin() is false. */
    explicit DashboardParticipant(Store *store, QObject *parent = nullptr);
    ~DashboardParticipant() override;

    /*! A default instance id: `<host>-dashboard-<pid>`. */
    static QString defaultInstanceId();

    /*! Joins; false with \a errorString (P1's wording) when the parameters are refused. */
    bool join(const Parameters &parameters, QString *errorString);
    /*! Stops leading and releases (F5); stateChanged() follows when done. */
    void stepDown();

    /*! False without a store (a Kubernetes connection): join() then refuses. */
    bool canJoin() const { return m_store != nullptr; }
    bool isJoined() const { return m_cluster != nullptr; }
    bool isStopping() const { return m_stopping; }
    bool isLeader() const;
    Parameters parameters() const { return m_parameters; }
    ElectionTimings timings() const;

Q_SIGNALS:
    void stateChanged();
    void leadershipChanged(bool leading);

private:
    QPointer<Store> m_store;
    QPointer<ClusterService> m_cluster;
    Parameters m_parameters;
    bool m_stopping = false;
};

} // namespace baton
