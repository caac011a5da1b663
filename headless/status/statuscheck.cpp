#include "statuscheck.h"

#include <batoninternal/durationtext.h>

#include <baton/leaseobserver.h>

#include <algorithm>

namespace baton::statuscheck {

QStringList whyNotLive(const QList<ObservedLease> &leases, const QStringList &named, const QString &emptyText,
                       const QDateTime &wall)
{
    QStringList problems;
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
            why = QStringLiteral("the lease of %1 expired (not renewed for %2, by its clock)")
                          .arg(r.holder, durationtext::format(renewedAgo));
        if (!why.isEmpty())
            problems.append(QStringLiteral("lease \"%1\": %2").arg(lease.name, why));
    }
    return problems;
}

QStringList notFound(const QList<ObservedLease> &all, const QStringList &named)
{
    constexpr qsizetype shown = 10;
    QStringList names;
    for (qsizetype i = 0; i < all.size() && i < shown; ++i)
        names.append(all.at(i).name);
    QString there = names.isEmpty() ? QStringLiteral("no leases") : QStringLiteral("leases: ") + names.join(QStringLiteral(", "));
    if (all.size() > shown)
        there += QStringLiteral(", ... (%1 in all)").arg(all.size());
    QStringList problems;
    QStringList told;
    for (const QString &name : named) {
        if (told.contains(name))
            continue;
        told.append(name);
        const bool found = std::any_of(all.cbegin(), all.cend(), [&](const ObservedLease &l) { return l.name == name; });
        if (!found)
            problems.append(QStringLiteral("lease \"%1\" not found (%2)").arg(name, there));
    }
    return problems;
}

} // namespace baton::statuscheck
