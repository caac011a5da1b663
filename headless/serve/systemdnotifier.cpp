#include "systemdnotifier.h"

#include <baton/clusterservice.h>

#include <QStringList>

#include <systemd/sd-daemon.h>

namespace baton {

SystemdNotifier::SystemdNotifier(QObject *parent)
    : QObject(parent)
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
}

void SystemdNotifier::follow(ClusterService *cluster)
{
    m_clusters.append(cluster);
    // Every record, not only leader changes: the holder seen before the
    // first attempt of a follower is known only once that attempt ends.
    connect(cluster, &ClusterService::electionEvent, this, &SystemdNotifier::sendStatus);
}

void SystemdNotifier::ready()
{
    m_ready = true;
    send("READY=1");
    sendStatus();
}

void SystemdNotifier::stopping()
{
    if (m_stopping)
        return;
    m_stopping = true;
    send("STOPPING=1\nSTATUS=stopping: stopping the command, releasing the lease");
}

void SystemdNotifier::sendStatus()
{
    if (!m_ready || m_stopping)
        return;
    QStringList parts;
    for (const QPointer<ClusterService> &cluster : std::as_const(m_clusters)) {
        if (!cluster)
            continue;
        if (cluster->isLeader())
            parts.append(QStringLiteral("leading %1, token %2").arg(cluster->leaseName()).arg(cluster->fencingToken()));
        else if (!cluster->currentHolder().isEmpty())
            parts.append(QStringLiteral("following %1").arg(cluster->currentHolder()));
        else
            parts.append(QStringLiteral("no leader of %1 yet").arg(cluster->leaseName()));
    }
    const QString status = parts.join(QStringLiteral("; "));
    if (status == m_status)
        return; // a renewal changes nothing worth a message
    m_status = status;
    send("STATUS=" + status.toUtf8());
}

void SystemdNotifier::send(const QByteArray &state)
{
    // Failures are not ours to handle: without a listening systemd the
    // message has nowhere to go, and baton's work does not depend on it.
    sd_notify(0, state.constData());
}

} // namespace baton
