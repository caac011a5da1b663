#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

namespace baton {

class ClusterService;

/*!
 * Tells systemd how `baton join` is doing, through sd_notify(3) (a unit
 * with `Type=notify`; without NOTIFY_SOCKET every call is a no-op):
 *
 * - `READY=1` once the elections have started: units ordered after this one
 *   start when baton takes part, not merely when its process exists;
 * - `STATUS=` whenever a followed election changes ("leading billing-cron,
 *   token 7", "following node-b"), which `systemctl status` shows;
 * - `WATCHDOG=1` from a timer of the event loop at half of `WatchdogSec=`:
 *   a loop that no longer runs (the thing that also stops renewals and the
 *   `--exec` supervision) stops the pings, and systemd kills the process;
 * - `STOPPING=1` when the clean stop begins.
 */
class SystemdNotifier : public QObject
{
    Q_OBJECT
public:
    explicit SystemdNotifier(QObject *parent = nullptr);

    /*! Reports the state of \a cluster's election in STATUS=. */
    void follow(ClusterService *cluster);
    /*! The elections have started: READY=1 and the first STATUS=. */
    void ready();
    /*! The clean stop has begun: STOPPING=1. */
    void stopping();

    /*! The watchdog interval systemd asked for, in milliseconds; 0: none. */
    qint64 watchdogIntervalMs() const { return m_watchdogMs; }

private:
    void sendStatus();
    static void send(const QByteArray &state);

    QList<QPointer<ClusterService>> m_clusters;
    QTimer m_watchdog;
    qint64 m_watchdogMs = 0;
    QString m_status;
    bool m_ready = false;
    bool m_stopping = false;
};

} // namespace baton
