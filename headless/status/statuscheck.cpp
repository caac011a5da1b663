#include "statuscheck.h"

#include <baton/leaseobserver.h>

#include <algorithm>

namespace baton::statuscheck {

QStringList whyNotLive(const QList<ObservedLease> &leases, const QStringList &named, const QString &emptyText,
                       const QDateTime &wall)
{
    QStringList problems;
    for (const QString &name : named) {
        const bool found = std::any_of(leases.cbegin(), leases.cend(),
                                       [&](const ObservedLease &l) { return l.name == name; });
        if (!found) {
            problems.append(QStringLiteral("lease \"%1\": not found").arg(name));
        }
    }
    if (leases.isEmpty() && named.isEmpty())
        problems.append(emptyText);
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
        if (!why.isEmpty())
            problems.append(QStringLiteral("lease \"%1\": %2").arg(lease.name, why));
    }
    return problems;
}

} // namespace baton::statuscheck
