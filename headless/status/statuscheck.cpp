#include "statuscheck.h"

#include <batoninternal/durationtext.h>

#include <baton/leaseobserver.h>

#include <algorithm>
#include <optional>

namespace baton::statuscheck {

namespace {

struct Problem
{
    verdict::Severity severity;
    QString text;
};

/*! What is wrong with \a lease, if anything. */
std::optional<Problem> problemOf(const ObservedLease &lease, const QDateTime &wall)
{
    const LeaseRecord &r = lease.record;
    // One look has no clock of its own to judge by: the holder's renewal
    // time against its lease duration is the hint the table shows too.
    const qint64 renewedAgo = r.renewTime.isValid() ? r.renewTime.msecsTo(wall) : -1;
    const auto problem = [&](verdict::Severity severity, const QString &why) {
        return Problem {severity, QStringLiteral("lease \"%1\": %2").arg(lease.name, why)};
    };
    if (!lease.valid)
        return problem(verdict::Critical, QStringLiteral("unreadable: ") + lease.error);
    if (r.holder.isEmpty())
        return problem(verdict::Critical, QStringLiteral("no holder"));
    if (lease.expired || renewedAgo > r.leaseDurationMs)
        return problem(verdict::Critical, QStringLiteral("the lease of %1 expired (not renewed for %2, by its clock)")
                                                  .arg(r.holder, durationtext::format(renewedAgo)));
    // A renewal comes well within half the lease (a participant's renewal
    // interval is shorter): one later than that has been missed.
    if (renewedAgo > r.leaseDurationMs / 2)
        return problem(verdict::Warning, QStringLiteral("%1 renewed late: %2 ago, of a %3 lease (by its clock)")
                                                 .arg(r.holder, durationtext::format(renewedAgo),
                                                      durationtext::format(r.leaseDurationMs)));
    return std::nullopt;
}

QString counted(qsizetype n, const char *one, const char *many)
{
    return n == 1 ? QLatin1String(one) : QStringLiteral("%1 ").arg(n) + QLatin1String(many);
}

} // namespace

Verdict judge(const QList<ObservedLease> &shown, const QList<ObservedLease> &all, const QStringList &named,
              const QString &emptyText, const QDateTime &wall)
{
    QList<Problem> problems;
    for (const QString &missing : notFound(all, named))
        problems.append({verdict::Critical, missing});
    if (shown.isEmpty() && named.isEmpty())
        problems.append({verdict::Critical, emptyText});
    for (const ObservedLease &lease : shown)
        if (const std::optional<Problem> problem = problemOf(lease, wall))
            problems.append(*problem);
    if (problems.isEmpty())
        return {verdict::Ok, shown.size() == 1
                        ? QStringLiteral("lease \"%1\" held by %2").arg(shown.constFirst().name, shown.constFirst().record.holder)
                        : QStringLiteral("%1 leases, each with a live holder").arg(shown.size()),
                {}};
    // The worst first: a monitor may show only the first lines.
    std::stable_sort(problems.begin(), problems.end(),
                     [](const Problem &a, const Problem &b) { return a.severity > b.severity; });
    Verdict result {problems.constFirst().severity, problems.constFirst().text, {}};
    if (problems.size() == 1)
        return result;
    const qsizetype critical = std::count_if(problems.cbegin(), problems.cend(), [](const Problem &p) {
        return p.severity == verdict::Critical;
    });
    QStringList parts;
    if (critical > 0)
        parts.append(counted(critical, "1 lease without a live holder", "leases without a live holder"));
    if (problems.size() > critical)
        parts.append(counted(problems.size() - critical, "1 lease renewed late", "leases renewed late"));
    result.summary = parts.join(QStringLiteral(", "));
    for (const Problem &problem : std::as_const(problems))
        result.details.append(problem.text);
    return result;
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
