#include "runsprinter.h"

#include "commandline.h"

#include <baton/leaseobserver.h>
#include <batoninternal/observerrunledger.h>

#include <QJsonArray>

#include <algorithm>

namespace baton {

RunsPrinter::RunsPrinter(LeaseObserver *observer, Options options, QObject *parent)
    : QObject(parent)
    , m_observer(observer)
    , m_options(std::move(options))
{
}

void RunsPrinter::print(std::function<void(int)> done)
{
    m_done = std::move(done);
    next();
}

void RunsPrinter::next()
{
    if (m_index == m_options.leases.size()) {
        if (m_options.document) {
            QJsonArray items;
            for (const auto &[lease, record] : std::as_const(m_found))
                items.append(toJson(lease, record));
            m_options.writeDocument({{QStringLiteral("kind"), QStringLiteral("RunList")},
                                     {QStringLiteral("v"), 1},
                                     {QStringLiteral("items"), items}});
        } else if (m_found.isEmpty()) {
            commandline::say(QStringLiteral("no runs recorded (of %1)").arg(m_options.leases.join(QStringLiteral(", "))));
        } else {
            for (const QString &line : table(m_found, m_options.noHeaders))
                commandline::say(line);
        }
        m_done(0);
        return;
    }
    const QString lease = m_options.leases.at(m_index++);
    delete m_ledger;
    QString problem;
    m_ledger = openRunLedger(m_observer, lease, this, &problem);
    if (!m_ledger) {
        commandline::complain("status", QStringLiteral("the runs of \"%1\": %2").arg(lease, problem));
        m_done(1);
        return;
    }
    m_ledger->list([this, lease](bool ok, const QList<RunRecord> &records, const QString &error) {
        if (!ok) {
            commandline::complain("status", QStringLiteral("the runs of \"%1\": %2").arg(lease, error));
            m_done(1);
            return;
        }
        for (const RunRecord &record : records)
            m_found.append({lease, record});
        next();
    });
}

QJsonObject RunsPrinter::toJson(const QString &lease, const RunRecord &record)
{
    QJsonObject json = record.toJson();
    json.insert(QStringLiteral("lease"), lease);
    return json;
}

QStringList RunsPrinter::table(const QList<QPair<QString, RunRecord>> &records, bool noHeaders)
{
    QList<QStringList> rows;
    if (!noHeaders)
        rows.append({QStringLiteral("LEASE"), QStringLiteral("TICK"), QStringLiteral("INSTANCE"),
                     QStringLiteral("TOKEN"), QStringLiteral("START"), QStringLiteral("END"),
                     QStringLiteral("OUTCOME")});
    const auto time = [](const QDateTime &when) {
        return when.isValid() ? when.toUTC().toString(Qt::ISODate) : QStringLiteral("-");
    };
    for (const auto &[lease, record] : records) {
        QString outcome = record.outcome;
        if (record.attempt > 1)
            outcome += QStringLiteral(" (attempt %1)").arg(record.attempt);
        rows.append({lease, record.tick, record.instance, QString::number(record.token), time(record.start),
                     time(record.end), outcome});
    }
    QList<qsizetype> widths(7, 0);
    for (const QStringList &row : std::as_const(rows))
        for (qsizetype i = 0; i < row.size(); ++i)
            widths[i] = std::max(widths[i], row.at(i).size());
    QStringList lines;
    for (const QStringList &row : std::as_const(rows)) {
        QString line;
        for (qsizetype i = 0; i < row.size(); ++i)
            line += i + 1 < row.size() ? row.at(i).leftJustified(widths[i] + 3) : row.at(i);
        lines.append(line);
    }
    return lines;
}

} // namespace baton
