#include "dashboardparticipant.h"

#include "guilogging.h"

#include <batoninternal/storelease.h>

#include <baton/store.h>

#include <QCoreApplication>
#include <QSysInfo>

namespace baton {

DashboardParticipant::DashboardParticipant(Store *store, QObject *parent)
    : QObject(parent)
    , m_store(store)
{
}

DashboardParticipant::~DashboardParticipant()
{
    // Closing the dashboard while joined: stop (release) on the way out.
    if (m_cluster && !m_stopping)
        m_cluster->stop();
}

QString DashboardParticipant::defaultInstanceId()
{
    QString host = qEnvironmentVariable("HOSTNAME");
    if (host.isEmpty())
        host = QSysInfo::machineHostName();
    return QStringLiteral("%1-dashboard-%2").arg(host).arg(QCoreApplication::applicationPid());
}

bool DashboardParticipant::join(const Parameters &parameters, QString *errorString)
{
    if (m_cluster) {
        *errorString = tr("Already taking part in \"%1\": step down first.").arg(m_parameters.leaseName);
        return false;
    }
    if (!canJoin()) {
        *errorString = tr("This connection has no Registry store to take part through.");
        return false;
    }
    ClusterService *cluster = createStoreElection(
            m_store, QStringLiteral("dashboard"),
            {{QStringLiteral("leaseName"), parameters.leaseName},
             {QStringLiteral("instanceId"), parameters.instanceId},
             {QStringLiteral("leaseDuration"), double(parameters.leaseDurationMs)},
             {QStringLiteral("renewInterval"), double(parameters.renewIntervalMs)}});
    if (!cluster->init(errorString)) {
        delete cluster;
        return false;
    }
    cluster->setParent(this);
    m_cluster = cluster;
    m_parameters = parameters;
    m_stopping = false;
    connect(cluster, &ClusterService::leadershipChanged, this, [this](bool leading) {
        Q_EMIT leadershipChanged(leading);
        Q_EMIT stateChanged();
    });
    qCInfo(lcGui).noquote() << QStringLiteral("joined the election of %1 as %2")
                                       .arg(parameters.leaseName, parameters.instanceId);
    Q_EMIT stateChanged();
    return true;
}

void DashboardParticipant::stepDown()
{
    if (!m_cluster || m_stopping)
        return;
    m_stopping = true;
    ClusterService *cluster = m_cluster;
    connect(cluster, &Service::stopped, this, [this, cluster] {
        qCInfo(lcGui).noquote() << QStringLiteral("stepped down from %1").arg(m_parameters.leaseName);
        cluster->deleteLater();
        m_cluster = nullptr;
        m_stopping = false;
        Q_EMIT stateChanged();
    });
    cluster->stop();
    Q_EMIT stateChanged();
}

bool DashboardParticipant::isLeader() const
{
    return m_cluster && m_cluster->isLeader();
}

ElectionTimings DashboardParticipant::timings() const
{
    return ElectionTimings::forParameters(m_parameters.leaseDurationMs, m_parameters.renewIntervalMs);
}

} // namespace baton
