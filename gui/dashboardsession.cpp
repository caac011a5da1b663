#include "dashboardsession.h"

#include "dashboardparticipant.h"
#include "failoverhistorymodel.h"
#include "guilogging.h"
#include "leaseactivity.h"
#include "leasefilterproxymodel.h"
#include <baton/leaseobserver.h>
#include "leasetablemodel.h"

#include <baton/store.h>

namespace baton {

DashboardSession::DashboardSession(QObject *parent)
    : QObject(parent)
{
    m_alertTimer.setSingleShot(true);
    m_alertTimer.setInterval(1000);
    connect(&m_alertTimer, &QTimer::timeout, this, &DashboardSession::flushAlerts);
}

DashboardSession::~DashboardSession()
{
    close();
}

bool DashboardSession::open(const Connection &connection, QString *errorString)
{
    close();
    if (!Connection::isAvailable(connection.kind)) {
        *errorString = tr("%1 connections are not available in this version of Baton yet.")
                               .arg(Connection::kindName(connection.kind));
        return false;
    }
    if (const QString missing = connection.missingField(); !missing.isEmpty()) {
        *errorString = tr("The connection \"%1\" needs a value for \"%2\".").arg(connection.displayName(), missing);
        return false;
    }
    LeaseSourceOptions source;
    if (connection.kind == ConnectionKind::Kubernetes) {
        source.kind = LeaseSourceOptions::Kind::Kubernetes;
        source.kubeconfigPath = connection.parameters.value(QStringLiteral("config")).toString().trimmed();
        source.kubeContext = connection.parameters.value(QStringLiteral("context")).toString().trimmed();
        source.namespaceName = connection.parameters.value(QStringLiteral("namespace")).toString().trimmed();
        // An empty namespace is the operator's "every namespace" (the field's
        // placeholder says so), not the context's namespace.
        source.allNamespaces = source.namespaceName.isEmpty();
        source.token = connection.secrets.value(QStringLiteral("token"));
    } else {
        source.kind = LeaseSourceOptions::Kind::StoreService;
        source.storeService = connection.storeConfig();
        // The dashboard may join through the store and its script writes
        // there; a connection only tested (Test connection) writes nothing.
        source.readOnly = m_observeOnly;
    }
    LeaseObserver *observer = LeaseObserver::open(source, this, errorString);
    if (!observer)
        return false;
    m_connection = connection;
    m_connection.secrets.clear(); // the store or the source has them; nothing else needs them
    m_title = connection.displayName().isEmpty() ? observer->describeSource() : connection.displayName();
    // describeSource() names the store or the server, never a credential (R2).
    qCInfo(lcGui).noquote() << QStringLiteral("opened %1 (%2)").arg(m_title, observer->describeSource());
    m_store = observer->store();
    startObserving(observer);
    return true;
}

void DashboardSession::attach(Store *store, const Clock *clock, const QString &title)
{
    close();
    m_store = store;
    m_title = title;
    startObserving(new LeaseObserver(store, clock, this));
}

void DashboardSession::startObserving(LeaseObserver *observer)
{
    m_observer = observer;
    m_leaseModel = new LeaseTableModel(m_observer, this);
    m_filterModel = new LeaseFilterProxyModel(this);
    m_filterModel->setSourceModel(m_leaseModel);
    m_historyModel = new FailoverHistoryModel(m_observer, this);
    m_activity = new LeaseActivity(m_observer, this);
    // Without a store (Kubernetes) the participant exists but cannot join.
    m_participant = new DashboardParticipant(m_store, this);
    connect(m_participant, &DashboardParticipant::stateChanged, this, [this] {
        m_leaseModel->setOwnInstanceId(m_participant->isJoined() ? m_participant->parameters().instanceId
                                                                 : QString());
    });
    connect(m_observer, &LeaseObserver::failover, this, &DashboardSession::onFailover);
    connect(m_observer, &LeaseObserver::handedOver, this,
            [this](int, const LeaseFailover &change) { onFailover(change); });
    connect(m_observer, &LeaseObserver::storedChangeSeen, this,
            [this](int, const LeaseFailover &change) { onFailover(change); });
    connect(m_observer, &LeaseObserver::leaseExpired, this, &DashboardSession::onExpired);
    connect(m_observer, &LeaseObserver::storeError, this, &DashboardSession::storeError);
    // The holders as the first list finds them, lease by lease while it is
    // read (a copy of 20,000 leases at ready() would freeze the window).
    connect(m_observer, &LeaseObserver::leaseChanged, this, [this](const QString &name) {
        if (m_observer->isReady())
            return;
        const auto lease = m_observer->lease(name);
        if (lease && !lease->record.holder.isEmpty())
            m_lastHolder.insert(name, lease->record.holder);
    });
    connect(m_observer, &LeaseObserver::leaseRemoved, this, [this](const QString &name) {
        if (!m_observer->isReady())
            m_lastHolder.remove(name);
    });
    m_observer->start();
    Q_EMIT opened();
}

void DashboardSession::close()
{
    if (!m_observer)
        return;
    m_alertTimer.stop();
    m_pendingAlerts.clear();
    m_pendingAlertLeases.clear();
    m_lastHolder.clear();
    // The participant first: its release (F5) still needs the store.
    delete m_participant;
    m_participant = nullptr;
    m_observer->stop();
    delete m_activity;
    delete m_historyModel;
    delete m_filterModel;
    delete m_leaseModel;
    delete m_observer; // and the store it opened
    m_activity = nullptr;
    m_historyModel = nullptr;
    m_filterModel = nullptr;
    m_leaseModel = nullptr;
    m_observer = nullptr;
    m_store = nullptr;
    m_connection = {};
    Q_EMIT closed();
}

void DashboardSession::onFailover(const LeaseFailover &change)
{
    const QString previous = change.from.isEmpty() ? m_lastHolder.value(change.lease) : change.from;
    if (!change.to.isEmpty())
        m_lastHolder.insert(change.lease, change.to);
    if (change.to.isEmpty()) {
        // A release: a handover is routine; a lease nobody takes is not.
        const QString version = m_observer->lease(change.lease).value_or(ObservedLease {}).version;
        const qint64 duration = m_observer->lease(change.lease).value_or(ObservedLease {}).record.leaseDurationMs;
        QPointer<LeaseObserver> observer(m_observer);
        const QString lease = change.lease;
        QTimer::singleShot(std::max<qint64>(duration, 0), this, [this, observer, lease, version] {
            if (!observer)
                return;
            const auto now = observer->lease(lease);
            if (now && now->version == version && now->record.holder.isEmpty())
                queueAlert(lease, tr("%1: no leader since the release, longer than the lease.").arg(lease));
        });
        return;
    }
    if (previous.isEmpty())
        return; // a lease seen for the first time
    const QString gap = change.gapMs > 0 ? tr(", %1 without a leader").arg(LeaseTableModel::formatDuration(change.gapMs))
                                         : QString();
    queueAlert(change.lease, tr("%1: %2 → %3 (%4%5)")
                                     .arg(change.lease, previous, change.to,
                                          FailoverHistoryModel::describeWhy(change.why), gap));
}

void DashboardSession::onExpired(const QString &lease)
{
    const auto observed = m_observer->lease(lease);
    queueAlert(lease, tr("%1: the lease of %2 ran out unrenewed; no leader.")
                              .arg(lease, observed ? observed->record.holder : QString()));
}

void DashboardSession::queueAlert(const QString &lease, const QString &text)
{
    m_pendingAlerts.append(text);
    m_pendingAlertLeases.append(lease);
    if (!m_alertTimer.isActive())
        m_alertTimer.start();
}

void DashboardSession::flushAlerts()
{
    if (m_pendingAlerts.isEmpty())
        return;
    const QStringList alerts = std::exchange(m_pendingAlerts, {});
    QStringList leases = std::exchange(m_pendingAlertLeases, {});
    leases.removeDuplicates();
    if (alerts.size() == 1) {
        Q_EMIT alert(tr("Baton"), alerts.first());
        return;
    }
    QStringList shown = alerts.mid(0, 3);
    if (alerts.size() > 3)
        shown.append(tr("… and %n more", nullptr, int(alerts.size() - 3)));
    Q_EMIT alert(tr("Baton: %n lease(s) changed", nullptr, int(leases.size())), shown.join(QLatin1Char('\n')));
}

} // namespace baton
