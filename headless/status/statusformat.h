#pragma once

#include "columns.h"

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
 * the history table, a holder change, and the JSON records
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

/*! The columns of the lease table; with \a wide, the `-o wide` ones before STATE. */
Columns leaseColumns(const std::optional<WideColumns> &wide);
/*! One lease's cells in leaseColumns(). */
QStringList leaseCells(const ObservedLease &lease, const QDateTime &nowWall, const std::optional<WideColumns> &wide);
/*! STATE: held, free, EXPIRED, stale? or unreadable, with what is wrong. */
QString leaseState(const ObservedLease &lease, const QDateTime &nowWall);
/*!
 * One table line per lease; the header first. For people. \a emptyText
 * when there is none; with \a wide, the `-o wide` columns before STATE.
 */
QStringList table(const QList<ObservedLease> &leases, const QDateTime &nowWall,
                  const QString &emptyText = QString(), const std::optional<WideColumns> &wide = std::nullopt);
/*!
 * The columns of `--history`; with \a wide, a SOURCE column says whether
 * the change was read from the stored history (its time by the new
 * holder's clock) or seen by this observer.
 */
Columns historyColumns(bool wide);
/*! One holder change's cells in historyColumns() (SOURCE last, unused without wide). */
QStringList historyCells(const LeaseFailover &change);
/*! `--history`: one line per holder change, oldest first; the header first. */
QStringList history(const QList<LeaseFailover> &history, bool wide);
/*! One holder change for people: when, the lease, from -> to, why and the time without a leader. */
QString changeLine(const LeaseFailover &change);

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
