#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace baton::test::chaos {

/*! One instance's authority over the lease, as a checker reads the O5 stream (docs/reference/events.md). */
struct AuthorityInterval
{
    QString instance;
    qint64 token = 0;
    qint64 startMono = 0; // ms, CLOCK_BOOTTIME
    qint64 endMono = 0;
};

/*!
 * The authority intervals of one process's events. An interval runs from
 * `started-leading.mono` to the next `stopped-leading.validUntilMono`. If
 * the stream ends while leading (the process died), it ends at the F4
 * deadline of the last successful attempt (its start, `mono - latencyMs`,
 * plus `(leaseDuration + renewInterval) / 2`), or at \a diedMono when that
 * is earlier: both are moments after which it could no longer act.
 */
QList<AuthorityInterval> authorityIntervals(const QList<QJsonObject> &events, qint64 leaseMs,
                                            qint64 renewMs, qint64 diedMono = -1);

/*! One copy of the `--exec` command, from its lines in the shared log. */
struct CommandCopy
{
    QString instance;
    QString pid;
    QString token;
    qint64 firstNs = 0; // of its start and tick lines: its work
    qint64 lastNs = 0;
    int lines = 0;
    bool stopped = false; // it handled SIGTERM (not killed)
};

struct CommandLogCheck
{
    QList<CommandCopy> copies; // in order of their first line
    QStringList problems;      // one sentence each: interleaving, overlap, malformed
    int overlaps = 0;          // pairs of copies whose work overlapped
};

/*!
 * Reads the log written by chaos_worker. "No two commands at once": between
 * a copy's first and last work line no work line of another copy appears,
 * and the CLOCK_BOOTTIME ranges of copies do not overlap. "stop" lines
 * (the SIGTERM handler) are not work: a copy resumed after a freeze writes
 * its stop line after its successor started, by design of the freeze.
 */
CommandLogCheck checkCommandLog(const QByteArray &log);

/*! What the intervals of all processes say, together. */
struct AuthorityCheck
{
    QList<AuthorityInterval> intervals; // sorted by start
    QStringList problems;
    int overlaps = 0;
    int tokenRegressions = 0;
    int failovers = 0;        // consecutive intervals of different instances, before \a until
    qint64 longestGapMs = 0;  // without a leader, between the first start and \a until
    qint64 longestGapAt = 0;  // where it began
};

AuthorityCheck checkAuthority(QList<AuthorityInterval> intervals, qint64 until);

/*! Moments of [from, to] that no interval covers: the first one, or -1 when covered. */
qint64 firstUncovered(const QList<AuthorityInterval> &sortedIntervals, qint64 from, qint64 to);

/*! Copies of the command whose work overlaps an authority interval of another leadership (O3). */
QStringList commandsOutsideAuthority(const QList<CommandCopy> &copies,
                                     const QList<AuthorityInterval> &intervals);

} // namespace baton::test::chaos
