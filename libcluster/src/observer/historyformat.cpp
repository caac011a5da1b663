#include <baton/leaseobserver.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

// LeaseObserver's exports of a history: CSV and one JSON document.

namespace baton {

namespace {

QString csvField(const QString &text)
{
    // RFC 4180: quote a field that holds a separator, a quote or a line break.
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"'))
        && !text.contains(QLatin1Char('\n')) && !text.contains(QLatin1Char('\r')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

} // namespace

QByteArray LeaseObserver::historyToCsv(const QList<LeaseFailover> &history)
{
    QString out = QStringLiteral("lease,from,to,why,time,mono,gapMs,transitions,recorded\r\n");
    for (const LeaseFailover &f : history)
        out += QStringList {csvField(f.lease), csvField(f.from), csvField(f.to), csvField(f.why),
                            f.when.toUTC().toString(Qt::ISODateWithMs), QString::number(f.mono),
                            f.gapMs >= 0 ? QString::number(f.gapMs) : QString(),
                            QString::number(f.transitions),
                            f.recorded ? QStringLiteral("true") : QStringLiteral("false")}
                       .join(QLatin1Char(','))
                + QStringLiteral("\r\n");
    return out.toUtf8();
}

QByteArray LeaseObserver::historyToJson(const QList<LeaseFailover> &history)
{
    QJsonArray rows;
    for (const LeaseFailover &f : history) {
        QJsonObject row {{QStringLiteral("lease"), f.lease},
                         {QStringLiteral("from"), f.from},
                         {QStringLiteral("to"), f.to},
                         {QStringLiteral("why"), f.why},
                         {QStringLiteral("time"), f.when.toUTC().toString(Qt::ISODateWithMs)},
                         {QStringLiteral("mono"), double(f.mono)},
                         {QStringLiteral("transitions"), double(f.transitions)},
                         {QStringLiteral("recorded"), f.recorded}};
        if (f.gapMs >= 0)
            row.insert(QStringLiteral("gapMs"), double(f.gapMs));
        rows.append(row);
    }
    return QJsonDocument(QJsonObject {{QStringLiteral("v"), 1}, {QStringLiteral("history"), rows}})
            .toJson(QJsonDocument::Indented);
}

} // namespace baton
