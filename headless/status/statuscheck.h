#pragma once

#include "verdict.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

namespace baton {

struct ObservedLease;

/*! `baton status --check`: the policy of its verdict, apart from the looking. */
namespace statuscheck {

/*! A verdict as verdict::tell() prints it. */
struct Verdict
{
    verdict::Severity severity = verdict::Ok;
    QString summary;
    QStringList details;
};

/*!
 * The verdict on the leases \a shown (all, or those \a named, of \a all):
 * CRITICAL when one has no holder, is unreadable or expired (by this
 * observer's clock, or not renewed within its duration by the holder's),
 * or a lease named is not there (notFound()), or there is no lease at all
 * and none was named (\a emptyText says so); WARNING when a holder renewed
 * late: more than half its lease ago, by its clock; else OK. One problem
 * is the summary; several are counted there and told one a line after it.
 */
Verdict judge(const QList<ObservedLease> &shown, const QList<ObservedLease> &all, const QStringList &named,
              const QString &emptyText, const QDateTime &wall);

/*!
 * The leases \a named that are not among \a all, as kubectl says NotFound:
 * `lease "x" not found (leases: a, b)`, one sentence each, naming the
 * leases there are (the first ten) so that a typo shows.
 */
QStringList notFound(const QList<ObservedLease> &all, const QStringList &named);

} // namespace statuscheck

} // namespace baton
