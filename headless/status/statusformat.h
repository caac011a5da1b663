#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

class QJsonArray;
class QJsonObject;

namespace baton {

struct LeaseFailover;
struct ObservedLease;

/*!
 * What `baton status` prints, line by line: the table (and `-o wide`),
 * the history table, the watch lines, and the JSON records
 * (docs/reference/events.md). No observer and no output here: the command decides
 * what to print and when, this says how it reads.
 */
namespace statusformat {

/*! What `-o wide` adds: the observer's clock reading and what it observes. */
struct WideColumns
{
    qint64 nowMono = 0;
    QString source;
};

/*!
 * One table line per lease; the header first. For people. \a emptyText
 * when there is none; with \a wide, the `-o wide` columns before STATE.
 */
QStringList table(const QList<ObservedLease> &leases, const QDateTime &nowWall,
                  const QString &emptyText = QString(), const std::optional<WideColumns> &wide = std::nullopt);
/*!
 * `--history`: one line per holder change, oldest first; the header
 * first. With \a wide, a SOURCE column says whether the change was read
 * from the stored history (its time by the new holder's clock) or seen
 * by this observer.
 */
QStringList history(const QList<LeaseFailover> &history, bool wide);
/*! `--watch`: one holder change as it is seen. */
QString changeLine(const LeaseFailover &change);
/*! `--watch`: a lease its holder stopped renewing. */
QString expiredLine(const QString &lease, const QString &holder, qint64 leaseDurationMs, const QDateTime &nowWall);

/*! A `leader-changed` record (docs/reference/events.md) of one row of the history. */
QJsonObject changeRecord(const LeaseFailover &change, const QString &observerId);
/*! The fields of a leader-changed record (O5) that say what changed. */
void insertChange(QJsonObject *record, const LeaseFailover &change);
/*! The `lease` snapshot record (docs/reference/events.md). */
QJsonObject leaseRecord(const ObservedLease &lease, const QString &observerId, qint64 nowMono,
                        const QDateTime &nowWall);
/*!
 * `-o json` and `-o yaml` of the leases: \a items in kubectl's generic
 * `List` (`apiVersion: v1`, `kind: List`), so that `.items[]` reads them as
 * it reads `kubectl get -o json`.
 */
QJsonObject list(const QJsonArray &items);
/*! One record as a line of `-o jsonl`, its newline included. */
QByteArray jsonLine(const QJsonObject &record);

/*! A holder for people: "(none)" when there is none. */
QString orNone(const QString &holder);
/*! A time as the records and tables write it: UTC, ISO 8601 with milliseconds; empty when unknown. */
QString timeText(const QDateTime &time);

} // namespace statusformat

} // namespace baton
