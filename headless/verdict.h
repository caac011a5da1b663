#pragma once

#include <QString>
#include <QStringList>

/*!
 * The verdict of `baton check` and `baton status --check`, as monitoring
 * plugins (Nagios, Icinga) give theirs: an exit status, and on stdout a
 * first line "OK - ...", "WARNING - ...", "CRITICAL - ..." or
 * "UNKNOWN - ...", which is all a monitor shows, then one line per detail.
 */
namespace baton::verdict {

/*! The exit statuses of the convention, in order of gravity. */
enum Severity { Ok = 0, Warning = 1, Critical = 2, Unknown = 3 };

/*! "OK", "WARNING", "CRITICAL" or "UNKNOWN". */
QString word(Severity severity);

/*! Prints "WORD - \a summary", then each of \a details on its line; returns \a severity as the exit status. */
int tell(Severity severity, const QString &summary, const QStringList &details = {});

} // namespace baton::verdict
