#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTimer>

namespace baton {

class Clock;
class ClusterService;

/*!
 * Tells systemd how `baton join` is doing, through sd_notify(3) (a unit
 * with `Type=notify`; without NOTIFY_SOCKET every call is a no-op):
 *
 * - `READY=1` once the elections have started: units ordered after this one
 *   start when baton takes part, not merely when its process exists;
 * - `STATUS=` when a followed election changes ("leading billing-cron,
 *   token 7", "following node-b"), which `systemctl status` shows; at most
 *   once a second, and not made at all without NOTIFY_SOCKET;
 * - `WATCHDOG=1` from a timer of the event loop at half of `WatchdogSec=`:
 *   a loop that no longer runs (the thing that also stops renewals and the
 *   `--exec` supervision) stops the pings, and systemd kills the process;
 * - `STOPPING=1` when the clean stop begins.
 *
 * One process may take part in a thousand elections: an event of one costs
 * the formatting of that election's part of the line, never the others'.
 */
class SystemdNotifier : public QObject
{
    Q_OBJECT
public:
    /*! The least time between two STATUS= lines, by the boot clock. */
    static constexpr qint64 kStatusIntervalMs = 1000;

    /*! \a clock decides when the next STATUS= may go (the system's when null). */
    explicit SystemdNotifier(QObject *parent = nullptr, const Clock *clock = nullptr);

    /*! Reports the state of \a cluster's election in STATUS=. */
    void follow(ClusterService *cluster);
    /*! The elections have started: READY=1 and the first STATUS=. */
    void ready();
    /*! The clean stop has begun: STOPPING=1. */
    void stopping();

    /*! The watchdog interval systemd asked for, in milliseconds; 0: none. */
    qint64 watchdogIntervalMs() const { return m_watchdogMs; }
    /*! Whether NOTIFY_SOCKET named a listener when this was made. */
    bool isNotifying() const { return m_notifying; }

    /*! How many times one election's part of STATUS= was formatted. */
    quint64 statusPartsFormatted() const { return m_partsFormatted; }
    /*! How many STATUS= lines were put together from the parts. */
    quint64 statusLinesBuilt() const { return m_linesBuilt; }

private:
    /*! The election at \a index had an event: its part only is made again. */
    void updatePart(qsizetype index);
    QString describe(qsizetype index);
    /*! A part changed: the line goes once kStatusIntervalMs passed since the last one. */
    void scheduleStatus();
    void sendStatus();
    static void send(const QByteArray &state);

    const Clock *m_clock;
    QList<QPointer<ClusterService>> m_clusters;
    /*! One a followed election, in the order followed; empty for one gone. */
    QStringList m_parts;
    QTimer m_watchdog;
    QTimer m_statusTimer;
    qint64 m_watchdogMs = 0;
    /*! Boot clock of the last STATUS= line; -1 before the first. */
    qint64 m_lastStatusMono = -1;
    QString m_status;
    quint64 m_partsFormatted = 0;
    quint64 m_linesBuilt = 0;
    bool m_notifying = false;
    bool m_ready = false;
    bool m_stopping = false;
};

} // namespace baton
