#pragma once

#include <QList>
#include <QString>

namespace baton {

struct LeaseFailover;

/*! `baton status --history FILE.csv|FILE.json`: the holder changes, written to a file on exit. */
namespace historyexport {

/*! Whether \a path names a format the export writes (.csv or .json). */
bool isExportName(const QString &path);
/*!
 * Writes \a history to \a path, CSV or JSON by its name, owner-only and
 * whole or not at all; false, and why in \a error, when it could not.
 */
bool write(const QString &path, const QList<LeaseFailover> &history, QString *error);

} // namespace historyexport

} // namespace baton
