#include "leaseobserver_p.h"

#include "logging.h"

#include <baton/clock.h>

#include <climits>

// LeaseObserverPrivate's expiry deadlines, by this observer's clock (F2).

namespace baton {

void LeaseObserverPrivate::schedule(const ObservedLease &lease)
{
    unschedule(lease.name);
    if (lease.expired || !lease.valid || lease.record.holder.isEmpty())
        return; // nobody holds it: nothing can run out
    m_deadlineOf.insert(lease.name, m_deadlines.emplace(lease.changedMono + lease.record.leaseDurationMs, lease.name));
}

void LeaseObserverPrivate::unschedule(const QString &name)
{
    const auto it = m_deadlineOf.constFind(name);
    if (it == m_deadlineOf.constEnd())
        return;
    m_deadlines.erase(*it);
    m_deadlineOf.erase(it);
}

void LeaseObserverPrivate::armExpiry()
{
    if (m_deadlines.empty() || !m_running) {
        m_expiryTimer.stop();
        return;
    }
    const qint64 earliest = m_deadlines.begin()->first;
    m_expiryTimer.start(int(qBound<qint64>(0, earliest - m_clock->monotonicMs(), qint64(INT_MAX))));
}

void LeaseObserverPrivate::checkExpiry()
{
    const qint64 now = m_clock->monotonicMs();
    QStringList expired;
    // Only the deadlines already past: the rest of the map is not looked at.
    while (!m_deadlines.empty() && m_deadlines.begin()->first <= now) {
        const QString name = m_deadlines.begin()->second;
        m_deadlineOf.remove(name);
        m_deadlines.erase(m_deadlines.begin());
        const auto it = m_leases.find(name);
        if (it == m_leases.end())
            continue;
        it->expired = true;
        expired.append(name);
    }
    for (const QString &name : std::as_const(expired)) {
        qCDebug(lcElection).noquote() << QStringLiteral("observer: %1: the lease of %2 expired unrenewed")
                                                .arg(name, m_leases.value(name).record.holder);
        Q_EMIT q->leaseExpired(name);
        Q_EMIT q->leaseChanged(name);
    }
    armExpiry();
}

} // namespace baton
