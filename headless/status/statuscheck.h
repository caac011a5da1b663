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
 * each; empty when they do. No lease at all, when none was \a named
 * (\a emptyText says so), is one reason; a lease named but not there is
 * notFound()'s, for every form of status.
 */
QStringList whyNotLive(const QList<ObservedLease> &leases, const QStringList &named, const QString &emptyText,
                       const QDateTime &wall);

/*!
 * The leases \a named that are not among \a all, as kubectl says NotFound:
 * `lease "x" not found (leases: a, b)`, one sentence each, naming the
 * leases there are (the first ten) so that a typo shows.
 */
QStringList notFound(const QList<ObservedLease> &all, const QStringList &named);

} // namespace statuscheck

} // namespace baton
