#include "chaoscheck.h"

#include <QHash>
#include <QSet>

#include <algorithm>

namespace baton::test::chaos {

namespace {

qint64 number(const QJsonObject &event, const char *field)
{
    return qint64(event.value(QLatin1String(field)).toDouble());
}

} // namespace

QList<AuthorityInterval> authorityIntervals(const QList<QJsonObject> &events, qint64 leaseMs,
                                            qint64 renewMs, qint64 diedMono)
{
    QList<AuthorityInterval> intervals;
    bool open = false;
    AuthorityInterval current;
    for (const QJsonObject &e : events) {
        const QString name = e.value(QLatin1String("event")).toString();
        if (name == QLatin1String("started-leading")) {
            open = true;
            current = {e.value(QLatin1String("instance")).toString(), number(e, "token"),
                       number(e, "mono"), number(e, "validUntilMono")};
        } else if (open && name == QLatin1String("attempt")) {
            const QString outcome = e.value(QLatin1String("outcome")).toString();
            if (outcome == QLatin1String("renewed") || outcome == QLatin1String("acquired"))
                current.endMono = std::max(current.endMono, number(e, "mono") - number(e, "latencyMs")
                                                                    + (leaseMs + renewMs) / 2);
        } else if (open && name == QLatin1String("stopped-leading")) {
            current.endMono = number(e, "validUntilMono");
            intervals.append(current);
            open = false;
        }
    }
    if (open) {
        if (diedMono >= 0)
            current.endMono = std::min(current.endMono, diedMono);
        intervals.append(current);
    }
    return intervals;
}

CommandLogCheck checkCommandLog(const QByteArray &log)
{
    CommandLogCheck check;
    QHash<QString, qsizetype> indexOf; // copy key -> index in copies
    QString currentKey;
    const QList<QByteArray> lines = log.split('\n');
    for (qsizetype n = 0; n < lines.size(); ++n) {
        const QByteArray &line = lines.at(n);
        if (line.isEmpty())
            continue;
        const QList<QByteArray> f = line.split(' ');
        bool ok = f.size() == 5;
        const qint64 ns = ok ? f.at(3).toLongLong(&ok) : 0;
        if (!ok) {
            check.problems.append(QStringLiteral("line %1 is malformed: %2").arg(n + 1).arg(QString::fromUtf8(line)));
            continue;
        }
        const QString kind = QString::fromUtf8(f.at(0));
        const QString key = QString::fromUtf8(f.at(1) + ' ' + f.at(2) + ' ' + f.at(4));
        if (kind == QLatin1String("stop")) {
            if (indexOf.contains(key))
                check.copies[indexOf.value(key)].stopped = true;
            continue;
        }
        if (key != currentKey) {
            if (indexOf.contains(key)) {
                check.problems.append(QStringLiteral("line %1: copy %2 works again after copy %3 had started")
                                              .arg(n + 1).arg(key, currentKey));
                ++check.overlaps;
            } else {
                if (kind != QLatin1String("start"))
                    check.problems.append(QStringLiteral("line %1: copy %2 begins without a start line").arg(n + 1).arg(key));
                if (!check.copies.isEmpty() && ns < check.copies.last().lastNs) {
                    check.problems.append(QStringLiteral("copy %1 started at %2 ns, before copy %3 last worked at %4 ns")
                                                  .arg(key).arg(ns).arg(check.copies.last().instance).arg(check.copies.last().lastNs));
                    ++check.overlaps;
                }
                indexOf.insert(key, check.copies.size());
                check.copies.append({QString::fromUtf8(f.at(1)), QString::fromUtf8(f.at(2)),
                                     QString::fromUtf8(f.at(4)), ns, ns, 0, false});
            }
            currentKey = key;
        }
        CommandCopy &copy = check.copies[indexOf.value(key)];
        copy.lastNs = std::max(copy.lastNs, ns);
        ++copy.lines;
    }
    return check;
}

AuthorityCheck checkAuthority(QList<AuthorityInterval> intervals, qint64 until)
{
    AuthorityCheck check;
    std::sort(intervals.begin(), intervals.end(),
              [](const AuthorityInterval &a, const AuthorityInterval &b) { return a.startMono < b.startMono; });
    qint64 coveredUntil = -1;
    const AuthorityInterval *previous = nullptr;
    for (const AuthorityInterval &i : std::as_const(intervals)) {
        if (previous) {
            if (i.startMono < coveredUntil) {
                ++check.overlaps;
                check.problems.append(QStringLiteral("%1 (token %2) started leading at %3 while %4 (token %5) had authority until %6")
                                              .arg(i.instance).arg(i.token).arg(i.startMono)
                                              .arg(previous->instance).arg(previous->token).arg(coveredUntil));
            }
            if (i.token <= previous->token) {
                ++check.tokenRegressions;
                check.problems.append(QStringLiteral("token %1 of %2 at %3 does not exceed token %4 of %5 (F7)")
                                              .arg(i.token).arg(i.instance).arg(i.startMono)
                                              .arg(previous->token).arg(previous->instance));
            }
            if (i.instance != previous->instance && i.startMono < until)
                ++check.failovers;
            const qint64 gap = std::min(i.startMono, until) - coveredUntil;
            if (gap > check.longestGapMs) {
                check.longestGapMs = gap;
                check.longestGapAt = coveredUntil;
            }
        }
        coveredUntil = std::max(coveredUntil, i.endMono);
        previous = &i;
    }
    check.intervals = intervals;
    return check;
}

qint64 firstUncovered(const QList<AuthorityInterval> &sortedIntervals, qint64 from, qint64 to)
{
    qint64 t = from;
    for (const AuthorityInterval &i : sortedIntervals) {
        if (i.startMono > t)
            break;
        t = std::max(t, i.endMono);
        if (t >= to)
            return -1;
    }
    return t >= to ? -1 : t;
}

QStringList commandsOutsideAuthority(const QList<CommandCopy> &copies,
                                     const QList<AuthorityInterval> &intervals)
{
    QStringList problems;
    for (const CommandCopy &copy : copies) {
        for (const AuthorityInterval &i : intervals) {
            const bool sameLeadership = i.instance == copy.instance && QString::number(i.token) == copy.token;
            if (!sameLeadership && copy.firstNs < i.endMono * 1000000 && i.startMono * 1000000 < copy.lastNs)
                problems.append(QStringLiteral("the command of %1 (token %2) worked from %3 to %4 ns, within the authority of %5 (token %6, %7 to %8 ms)")
                                        .arg(copy.instance, copy.token).arg(copy.firstNs).arg(copy.lastNs)
                                        .arg(i.instance).arg(i.token).arg(i.startMono).arg(i.endMono));
        }
    }
    return problems;
}

} // namespace baton::test::chaos
