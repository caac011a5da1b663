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

QStringList history(const QList<LeaseFailover> &history, bool wide)
{
    int leaseWidth = 5;
    int fromWidth = 4;
    int toWidth = 2;
    int gapWidth = 3;
    for (const LeaseFailover &change : history) {
        gapWidth = std::max(gapWidth, int(gapText(change.gapMs).size()));
        leaseWidth = std::max(leaseWidth, int(change.lease.size()));
        fromWidth = std::max(fromWidth, int(orNone(change.from).size()));
        toWidth = std::max(toWidth, int(orNone(change.to).size()));
    }
    const int whyWidth = int(QStringLiteral("first-acquire").size());
    auto line = [&](const QString &time, const QString &lease, const QString &from, const QString &to,
                    const QString &why, const QString &gap, const QString &transitions,
                    const QString &source) {
        QString text = QStringLiteral("%1  %2  %3  %4  %5  %6  %7")
                               .arg(time, -24)
                               .arg(lease, -leaseWidth)
                               .arg(from, -fromWidth)
                               .arg(to, -toWidth)
                               .arg(why, -whyWidth)
                               .arg(gap, gapWidth)
                               .arg(transitions, 5);
        if (wide)
            text += QStringLiteral("  ") + source;
        return text;
    };
    QStringList lines {line(QStringLiteral("TIME"), QStringLiteral("LEASE"), QStringLiteral("FROM"),
                            QStringLiteral("TO"), QStringLiteral("WHY"), QStringLiteral("GAP"),
                            QStringLiteral("TRANS"), QStringLiteral("SOURCE"))};
    for (const LeaseFailover &change : history)
        // A stored change's time is its new holder's clock, a seen one's
        // this observer's: -o wide says which, since they may disagree (F2).
        lines.append(line(timeText(change.when), change.lease, orNone(change.from), orNone(change.to),
                          change.why,
                          gapText(change.gapMs),
                          QString::number(change.transitions),
                          change.recorded ? QStringLiteral("stored") : QStringLiteral("seen")));
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

QStringList table(const QList<ObservedLease> &leases, const QDateTime &nowWall, const QString &emptyText,
                  const std::optional<WideColumns> &wide)
{
    if (leases.isEmpty())
        return {emptyText.isEmpty() ? QStringLiteral("no leases (no cluster:* entries in the Registry)") : emptyText};
    int nameWidth = 5;
    int holderWidth = 6;
    for (const ObservedLease &lease : leases) {
        nameWidth = std::max(nameWidth, int(lease.name.size()));
        holderWidth = std::max(holderWidth, int(orNone(lease.record.holder).size()));
    }
    // -o wide: what a kubectl user finds there, between the counts and the state.
    const int sourceWidth = wide ? std::max(6, int(wide->source.size())) : 0;
    auto wideCells = [&](const QString &renewTime, const QString &duration, const QString &observed) {
        if (!wide)
            return QString();
        return QStringLiteral("%1  %2  %3  %4  ")
                .arg(renewTime, -24)
                .arg(duration, -8)
                .arg(observed, -8)
                .arg(wide->source, -sourceWidth);
    };
    const QString format = QStringLiteral("%1  %2  %3  %4  %5  %6%7");
    QStringList lines {format.arg(QStringLiteral("LEASE"), -nameWidth)
                               .arg(QStringLiteral("HOLDER"), -holderWidth)
                               .arg(QStringLiteral("SINCE"), -24)
                               .arg(QStringLiteral("RENEWED/LEASE"), -13)
                               .arg(QStringLiteral("TRANS"), 5)
                               .arg(wide ? QStringLiteral("%1  %2  %3  %4  ")
                                                   .arg(QStringLiteral("RENEW-TIME"), -24)
                                                   .arg(QStringLiteral("DURATION"), -8)
                                                   .arg(QStringLiteral("OBSERVED"), -8)
                                                   .arg(QStringLiteral("SOURCE"), -sourceWidth)
                                         : QString(),
                                    QStringLiteral("STATE"))};
    for (const ObservedLease &lease : leases) {
        const LeaseRecord &r = lease.record;
        const qint64 renewedAgo = r.renewTime.isValid() ? r.renewTime.msecsTo(nowWall) : -1;
        QString state;
        if (!lease.valid)
            state = QStringLiteral("unreadable: ") + lease.error;
        else if (r.holder.isEmpty())
            state = QStringLiteral("free");
        else if (lease.expired)
            state = QStringLiteral("EXPIRED");
        else if (renewedAgo > r.leaseDurationMs)
            // The record's clock is another host's: a hint, not a verdict (F2).
            state = QStringLiteral("stale? (by the holder's clock)");
        else
            state = QStringLiteral("held");
        // While held: the last renewal against the lease it renews. A free
        // lease has no duration to show (a release writes a token 1 s).
        const bool held = lease.valid && !r.holder.isEmpty() && renewedAgo >= 0;
        const QString renewed = held
                ? QStringLiteral("%1/%2").arg(age(renewedAgo), durationtext::format(r.leaseDurationMs))
                : QStringLiteral("-");
        // OBSERVED: since this observer saw the record change, by its own
        // clock: what expiry is judged by (F2), unlike the holder's times.
        const QString cells = wideCells(
                r.renewTime.isValid() ? timeText(r.renewTime) : QStringLiteral("-"),
                lease.valid && !r.holder.isEmpty() ? durationtext::format(r.leaseDurationMs) : QStringLiteral("-"),
                wide ? age(lease.sinceChangeMs(wide->nowMono)) : QString());
        lines.append(format.arg(lease.name, -nameWidth)
                             .arg(orNone(r.holder), -holderWidth)
                             .arg(r.acquireTime.isValid() ? timeText(r.acquireTime) : QStringLiteral("-"), -24)
                             .arg(renewed, -13)
                             .arg(r.transitions, 5)
                             .arg(cells, state));
    }
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

QString expiredLine(const QString &lease, const QString &holder, qint64 leaseDurationMs, const QDateTime &nowWall)
{
    return QStringLiteral("%1  %2: the lease of %3 expired: not renewed for %4")
            .arg(timeText(nowWall), lease, holder, durationtext::format(leaseDurationMs));
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
