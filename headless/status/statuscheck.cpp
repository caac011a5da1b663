#include "statuscommand.h"

#include <baton/clock.h>
#include <baton/leaseobserver.h>

#include <cstdio>

namespace baton {

namespace {

void complain(const QString &text)
{
    std::fprintf(stderr, "baton status: %s\n", qPrintable(text));
}

} // namespace

bool StatusCommand::everyLeaseHasALiveHolder(const QList<ObservedLease> &leases) const
{
    const QDateTime wall = m_observer->clock().wallNow();
    bool live = true;
    for (const QString &name : std::as_const(m_options.leases)) {
        const bool found = std::any_of(leases.cbegin(), leases.cend(),
                                       [&](const ObservedLease &l) { return l.name == name; });
        if (!found) {
            complain(QStringLiteral("lease \"%1\": not found").arg(name));
            live = false;
        }
    }
    if (leases.isEmpty() && m_options.leases.isEmpty()) {
        complain(m_emptyText);
        live = false;
    }
    for (const ObservedLease &lease : leases) {
        const LeaseRecord &r = lease.record;
        // One look has no clock of its own to judge by: the holder's renewal
        // time against its lease duration is the hint the table shows too.
        const qint64 renewedAgo = r.renewTime.isValid() ? r.renewTime.msecsTo(wall) : -1;
        QString why;
        if (!lease.valid)
            why = QStringLiteral("unreadable: ") + lease.error;
        else if (r.holder.isEmpty())
            why = QStringLiteral("no holder");
        else if (lease.expired || renewedAgo > r.leaseDurationMs)
            why = QStringLiteral("the lease of %1 expired (not renewed for %2 ms, by its clock)")
                          .arg(r.holder)
                          .arg(renewedAgo);
        if (!why.isEmpty()) {
            complain(QStringLiteral("lease \"%1\": %2").arg(lease.name, why));
            live = false;
        }
    }
    return live;
}

} // namespace baton
