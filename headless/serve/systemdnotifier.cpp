#include "systemdnotifier.h"

#include <baton/clock.h>
#include <baton/clusterservice.h>

#include <systemd/sd-daemon.h>

#include <algorithm>

namespace baton {

SystemdNotifier::SystemdNotifier(QObject *parent, const Clock *clock)
    : QObject(parent)
    , m_clock(clock ? clock : &Clock::system())
    // sd_notify(3) sends nothing without it: neither is a STATUS= line made.
    , m_notifying(!qEnvironmentVariableIsEmpty("NOTIFY_SOCKET"))
{
    uint64_t watchdogUsec = 0;
    // 0 keeps WATCHDOG_USEC and WATCHDOG_PID in the environment: the --exec
    // command gets a copy of that environment, but WATCHDOG_PID names baton,
    // so the command never mistakes baton's watchdog for its own.
    if (sd_watchdog_enabled(0, &watchdogUsec) > 0 && watchdogUsec > 0) {
        m_watchdogMs = std::max<qint64>(1, qint64(watchdogUsec / 1000));
        // Half the interval, as sd_watchdog_enabled(3) advises: one late
        // tick of a busy loop is not yet a missed deadline.
        m_watchdog.setInterval(int(std::max<qint64>(1, m_watchdogMs / 2)));
        connect(&m_watchdog, &QTimer::timeout, this, [] { send("WATCHDOG=1"); });
        m_watchdog.start();
    }
    m_statusTimer.setSingleShot(true);
    connect(&m_statusTimer, &QTimer::timeout, this, &SystemdNotifier::sendStatus);
}

void SystemdNotifier::follow(ClusterService *cluster)
{
    const qsizetype index = m_clusters.size();
    m_clusters.append(cluster);
    m_parts.append(QString());
    if (!m_notifying)
        return;
    // Every record, not only leader changes: the holder seen before the
    // first attempt of a follower is known only once that attempt ends.
    connect(cluster, &ClusterService::electionEvent, this, [this, index] { updatePart(index); });
}

void SystemdNotifier::ready()
{
    m_ready = true;
    send("READY=1");
    if (!m_notifying)
        return;
    for (qsizetype i = 0; i < m_clusters.size(); ++i)
        m_parts[i] = describe(i);
    sendStatus();
}

void SystemdNotifier::stopping()
{
    if (m_stopping)
        return;
    m_stopping = true;
    m_statusTimer.stop();
    send("STOPPING=1\nSTATUS=stopping: stopping the command, releasing the lease");
}

QString SystemdNotifier::describe(qsizetype index)
{
    ++m_partsFormatted;
    const ClusterService *cluster = m_clusters.at(index);
    if (!cluster)
        return {};
    if (cluster->isLeader())
        return QStringLiteral("leading %1, token %2").arg(cluster->leaseName()).arg(cluster->fencingToken());
    if (!cluster->currentHolder().isEmpty())
        return QStringLiteral("following %1").arg(cluster->currentHolder());
    return QStringLiteral("no leader of %1 yet").arg(cluster->leaseName());
}

void SystemdNotifier::updatePart(qsizetype index)
{
    if (!m_ready || m_stopping)
        return;
    QString part = describe(index);
    if (part == m_parts.at(index))
        return; // a renewal changes nothing worth a message
    m_parts[index] = std::move(part);
    scheduleStatus();
}

void SystemdNotifier::scheduleStatus()
{
    if (m_statusTimer.isActive())
        return; // the line it sends will carry this change too
    const qint64 waitMs = m_lastStatusMono < 0
            ? 0
            : m_lastStatusMono + kStatusIntervalMs - m_clock->monotonicMs();
    // 0 still waits for the loop: the other elections' events of this turn
    // (a thousand acquisitions at once) join the same line.
    m_statusTimer.start(int(std::clamp<qint64>(waitMs, 0, kStatusIntervalMs)));
}

void SystemdNotifier::sendStatus()
{
    if (!m_ready || m_stopping)
        return;
    const qint64 now = m_clock->monotonicMs();
    if (m_lastStatusMono >= 0 && now - m_lastStatusMono < kStatusIntervalMs) {
        // The timer runs on another clock than the decision's (a suspend).
        scheduleStatus();
        return;
    }
    ++m_linesBuilt;
    QString status;
    for (const QString &part : std::as_const(m_parts)) {
        if (part.isEmpty())
            continue;
        if (!status.isEmpty())
            status += QStringLiteral("; ");
        status += part;
    }
    if (status == m_status)
        return; // parts that changed and changed back
    m_status = status;
    m_lastStatusMono = now;
    send("STATUS=" + status.toUtf8());
}

void SystemdNotifier::send(const QByteArray &state)
{
    // Failures are not ours to handle: without a listening systemd the
    // message has nowhere to go, and baton's work does not depend on it.
    sd_notify(0, state.constData());
}

} // namespace baton
