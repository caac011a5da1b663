#include "statusformat.h"

#include <batoninternal/durationtext.h>
#include <batoninternal/eventrecord.h>

#include <baton/leaseobserver.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace baton::statusformat {

namespace {

/*! An age that keeps running, to a tenth of a second: 2345 -> "2.3s". */
QString age(qint64 ms)
{
    return durationtext::format((ms + 50) / 100 * 100);
}

QString gapText(qint64 gapMs)
{
    return gapMs >= 0 ? durationtext::format(gapMs) : QStringLiteral("-");
}

} // namespace

QString orNone(const QString &holder)
{
    return holder.isEmpty() ? QStringLiteral("(none)") : holder;
}

QString timeText(const QDateTime &time)
{
    return time.isValid() ? time.toUTC().toString(Qt::ISODateWithMs) : QString();
}

Columns historyColumns(bool wide)
{
    // "(none)" wide from the start: a watch's release row then does not shift the columns after it.
    const int holderWidth = int(orNone(QString()).size());
    QList<Columns::Column> columns {{QStringLiteral("TIME"), 24},
                                    {QStringLiteral("LEASE")},
                                    {QStringLiteral("FROM"), holderWidth},
                                    {QStringLiteral("TO"), holderWidth},
                                    {QStringLiteral("WHY"), int(QStringLiteral("first-acquire").size())},
                                    {QStringLiteral("GAP"), 0, true},
                                    {QStringLiteral("TRANS"), 5, true}};
    if (wide)
        columns.append({QStringLiteral("SOURCE")});
    return Columns(columns);
}

QStringList historyCells(const LeaseFailover &change)
{
    // A stored change's time is its new holder's clock, a seen one's this
    // observer's: -o wide says which, since they may disagree (F2).
    return {timeText(change.when), change.lease, orNone(change.from), orNone(change.to), change.why,
            gapText(change.gapMs), QString::number(change.transitions),
            change.recorded ? QStringLiteral("stored") : QStringLiteral("seen")};
}

QStringList history(const QList<LeaseFailover> &history, bool wide)
{
    Columns columns = historyColumns(wide);
    for (const LeaseFailover &change : history)
        columns.fit(historyCells(change));
    QStringList lines {columns.header()};
    for (const LeaseFailover &change : history)
        lines.append(columns.line(historyCells(change)));
    return lines;
}

QJsonObject changeRecord(const LeaseFailover &change, const QString &observerId)
{
    // When the change happened, not when it is printed: a history is read
    // long after. A stored change's mono is this observer's estimate.
    QJsonObject r {
            {QStringLiteral("v"), eventrecord::streamVersion},
            {QStringLiteral("ts"), timeText(change.when)},
            {QStringLiteral("mono"), double(change.mono)},
            {QStringLiteral("lease"), change.lease},
            {QStringLiteral("instance"), observerId},
            {QStringLiteral("event"), QStringLiteral("leader-changed")},
    };
    insertChange(&r, change);
    return r;
}

void insertChange(QJsonObject *record, const LeaseFailover &change)
{
    record->insert(QStringLiteral("from"), change.from);
    record->insert(QStringLiteral("to"), change.to);
    record->insert(QStringLiteral("why"), change.why);
    record->insert(QStringLiteral("transitions"), double(change.transitions));
    if (change.gapMs >= 0)
        record->insert(QStringLiteral("gapMs"), double(change.gapMs));
    record->insert(QStringLiteral("recorded"), change.recorded);
}

Columns leaseColumns(const std::optional<WideColumns> &wide)
{
    QList<Columns::Column> columns {{QStringLiteral("LEASE")},
                                    {QStringLiteral("HOLDER")},
                                    {QStringLiteral("SINCE"), 24},
                                    {QStringLiteral("RENEWED/LEASE"), 13},
                                    {QStringLiteral("TRANS"), 5, true}};
    // -o wide: what a kubectl user finds there, between the counts and the state.
    if (wide)
        columns += {{QStringLiteral("RENEW-TIME"), 24},
                    {QStringLiteral("DURATION"), 8},
                    {QStringLiteral("OBSERVED"), 8},
                    {QStringLiteral("SOURCE"), int(wide->source.size())}};
    columns.append({QStringLiteral("STATE")});
    return Columns(columns);
}

QString leaseState(const ObservedLease &lease, const QDateTime &nowWall)
{
    const LeaseRecord &r = lease.record;
    const qint64 renewedAgo = r.renewTime.isValid() ? r.renewTime.msecsTo(nowWall) : -1;
    if (!lease.valid)
        return QStringLiteral("unreadable: ") + lease.error;
    if (r.holder.isEmpty())
        return QStringLiteral("free");
    if (lease.expired)
        return QStringLiteral("EXPIRED");
    if (renewedAgo > r.leaseDurationMs)
        // The record's clock is another host's: a hint, not a verdict (F2).
        return QStringLiteral("stale? (by the holder's clock)");
    return QStringLiteral("held");
}

QStringList leaseCells(const ObservedLease &lease, const QDateTime &nowWall, const std::optional<WideColumns> &wide)
{
    const LeaseRecord &r = lease.record;
    const qint64 renewedAgo = r.renewTime.isValid() ? r.renewTime.msecsTo(nowWall) : -1;
    // While held: the last renewal against the lease it renews. A free
    // lease has no duration to show (a release writes a token 1 s).
    const bool held = lease.valid && !r.holder.isEmpty() && renewedAgo >= 0;
    QStringList cells {lease.name, orNone(r.holder),
                       r.acquireTime.isValid() ? timeText(r.acquireTime) : QStringLiteral("-"),
                       held ? QStringLiteral("%1/%2").arg(age(renewedAgo), durationtext::format(r.leaseDurationMs))
                            : QStringLiteral("-"),
                       QString::number(r.transitions)};
    if (wide)
        // OBSERVED: since this observer saw the record change, by its own
        // clock: what expiry is judged by (F2), unlike the holder's times.
        cells += {r.renewTime.isValid() ? timeText(r.renewTime) : QStringLiteral("-"),
                  lease.valid && !r.holder.isEmpty() ? durationtext::format(r.leaseDurationMs) : QStringLiteral("-"),
                  age(lease.sinceChangeMs(wide->nowMono)), wide->source};
    cells.append(leaseState(lease, nowWall));
    return cells;
}

QStringList table(const QList<ObservedLease> &leases, const QDateTime &nowWall, const QString &emptyText,
                  const std::optional<WideColumns> &wide)
{
    if (leases.isEmpty())
        return {emptyText.isEmpty() ? QStringLiteral("no leases (no cluster:* entries in the Registry)") : emptyText};
    Columns columns = leaseColumns(wide);
    QList<QStringList> rows;
    for (const ObservedLease &lease : leases)
        columns.fit(rows.emplace_back(leaseCells(lease, nowWall, wide)));
    QStringList lines {columns.header()};
    for (const QStringList &row : std::as_const(rows))
        lines.append(columns.line(row));
    return lines;
}

QJsonObject leaseRecord(const ObservedLease &lease, const QString &observerId, qint64 nowMono,
                        const QDateTime &nowWall)
{
    QJsonObject r {
            {QStringLiteral("v"), eventrecord::streamVersion},
            {QStringLiteral("ts"), timeText(nowWall)},
            {QStringLiteral("mono"), double(nowMono)},
            {QStringLiteral("lease"), lease.name},
            {QStringLiteral("instance"), observerId},
            {QStringLiteral("event"), QStringLiteral("lease")},
            {QStringLiteral("holder"), lease.record.holder},
            {QStringLiteral("acquireTime"), timeText(lease.record.acquireTime)},
            {QStringLiteral("renewTime"), timeText(lease.record.renewTime)},
            {QStringLiteral("leaseDurationMs"), double(lease.record.leaseDurationMs)},
            {QStringLiteral("transitions"), double(lease.record.transitions)},
            {QStringLiteral("sinceChangeMs"), double(lease.sinceChangeMs(nowMono))},
            {QStringLiteral("expired"), lease.expired},
    };
    if (!lease.record.holderIncarnation.isEmpty())
        r.insert(QStringLiteral("holderIncarnation"), lease.record.holderIncarnation);
    if (!lease.valid)
        r.insert(QStringLiteral("error"), lease.error);
    return r;
}

QString changeLine(const LeaseFailover &change)
{
    QString line = QStringLiteral("%1  %2: %3 -> %4 (%5")
                           .arg(timeText(change.when), change.lease, orNone(change.from), orNone(change.to),
                                change.why);
    if (change.gapMs > 0)
        line += QStringLiteral(", %1 without a leader").arg(durationtext::format(change.gapMs));
    return line + QLatin1Char(')');
}

QJsonObject list(const QJsonArray &items)
{
    return QJsonObject {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
                        {QStringLiteral("kind"), QStringLiteral("List")},
                        {QStringLiteral("items"), items}};
}

QByteArray jsonLine(const QJsonObject &record)
{
    return QJsonDocument(record).toJson(QJsonDocument::Compact) + '\n';
}

} // namespace baton::statusformat
