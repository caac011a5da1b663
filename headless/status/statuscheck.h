#pragma once

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

namespace baton {

struct ObservedLease;

/*! `baton status --check`: the policy of its exit status, apart from the looking. */
namespace statuscheck {

/*!
 * Why the \a leases seen do not all have a live holder, one sentence
 * each; empty when they do. A lease \a named but not seen is one reason,
 * no lease at all (\a emptyText says so) another.
 */
QStringList whyNotLive(const QList<ObservedLease> &leases, const QStringList &named, const QString &emptyText,
                       const QDateTime &wall);

} // namespace statuscheck

} // namespace baton
