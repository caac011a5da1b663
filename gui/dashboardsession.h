#pragma once

#include "connection.h"

#include <baton/store.h>

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTimer>

#include <memory>

namespace baton {

class Clock;
class DashboardParticipant;
class FailoverHistoryModel;
class LeaseActivity;
struct LeaseFailover;
class LeaseFilterProxyModel;
class LeaseObserver;
class LeaseTableModel;


/*!
 * One open connection of the dashboard, with no widget in it: the store,
 * the LeaseObserver on it, the models the windows show, the dashboard's own
 * participation, and the alerts (O4): a failover, and a lease left
 * without a holder past its duration.
 *
 * Alerts are coalesced over alertInterval(): a store where a thousand leases
 * fail over at once gives one notification, not a thousand.
 */
class DashboardSession : public QObject
{
    Q_OBJECT
public:
    explicit DashboardSession(QObject *parent = nullptr);
    ~DashboardSession() override;

    /*!
     * Opens \a connection (its secrets already loaded) and starts observing,
     * through LeaseObserver::open(): a Registry kind through its store, a
     * Kubernetes connection through its Lease objects (no store, so no
     * joining). False with \a errorString when the kind is not available,
     * the store refuses or the kubeconfig cannot be used.
     */
    bool open(const Connection &connection, QString *errorString);
    /*!
     * Opens connections to read them only (Test connection): a file
     * Registry whose folder is missing is refused instead of created.
     */
    void setObserveOnly(bool observeOnly) { m_observeOnly = observeOnly; }
    /*! Observes a store the caller owns, on \a clock (the demo and the tests). */
    void attach(Store *store, const Clock *clock, const QString &title);
    void close();

    bool isOpen() const { return m_observer != nullptr; }
    QString title() const { return m_title; }
    QString connectionId() const { return m_connection.id; }
    /*! The Registry store; null on a Kubernetes connection. */
    Store *store() const { return m_store; }
    LeaseObserver *observer() const { return m_observer; }
    LeaseTableModel *leaseModel() const { return m_leaseModel; }
    LeaseFilterProxyModel *filterModel() const { return m_filterModel; }
    FailoverHistoryModel *historyModel() const { return m_historyModel; }
    LeaseActivity *activity() const { return m_activity; }
    DashboardParticipant *participant() const { return m_participant; }

    void setAlertInterval(int ms) { m_alertTimer.setInterval(ms); }
    int alertInterval() const { return m_alertTimer.interval(); }

Q_SIGNALS:
    void opened();
    void closed();
    /*! Something an operator should hear about, in the current language. */
    void alert(const QString &title, const QString &message);
    void storeError(const QString &message);

private:
    /*! Models \a observer (a child of this session) and starts it. */
    void startObserving(LeaseObserver *observer);
    void onFailover(const LeaseFailover &change);
    void onExpired(const QString &lease);
    void queueAlert(const QString &lease, const QString &text);
    void flushAlerts();

    Connection m_connection;
    QString m_title;
    /*! The observer's store (it owns the ones it opened), or the attached one. */
    QPointer<Store> m_store;
    LeaseObserver *m_observer = nullptr;
    LeaseTableModel *m_leaseModel = nullptr;
    LeaseFilterProxyModel *m_filterModel = nullptr;
    FailoverHistoryModel *m_historyModel = nullptr;
    LeaseActivity *m_activity = nullptr;
    DashboardParticipant *m_participant = nullptr;
    /*! The last holder seen per lease, so a take-up after a release names who left. */
    QHash<QString, QString> m_lastHolder;
    bool m_observeOnly = false;
    QStringList m_pendingAlerts;
    QStringList m_pendingAlertLeases;
    QTimer m_alertTimer;
};

} // namespace baton
