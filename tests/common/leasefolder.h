#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace baton::test {

/*! What a `baton` run by a test printed, and how it ended (-1: it did not end normally within 30 s). */
struct BatonRun
{
    int exitCode = -1;
    QString out;
    QString err;
    QString firstLine() const { return out.left(out.indexOf(QLatin1Char('\n'))); }
};

/*! Runs `baton` with \a arguments (\a environment added to this process's) to its end. */
BatonRun runBaton(const QStringList &arguments, const QStringList &environment = {});

/*! One lease record, as a participant would have left it. */
struct LeaseEntry
{
    QString lease;
    /*! Empty: free. */
    QString holder;
    qint64 renewedAgoMs = 0;
    /*! Acquired an hour ago, one transition. */
    qint64 leaseDurationMs = 60000;
};

/*!
 * Writes \a leases into the FileStore folder \a path (made if missing) as a
 * FileStore writes them: `cluster:LEASE.json`, replaced by a rename with a
 * new version. Returns \a path, or an empty string when it cannot.
 */
QString writeLeaseFolder(const QString &path, const QList<LeaseEntry> &leases);

} // namespace baton::test
