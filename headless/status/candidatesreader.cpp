#include "candidatesreader.h"

#include "columns.h"
#include "commandline.h"

#include <batoninternal/durationtext.h>
#include <batoninternal/observercandidatebook.h>

#include <QJsonObject>

namespace baton {

namespace {

/*! How long ago \a heartbeat was, by the wall clocks, to the second: "12s", "-" when unknown. */
QString ago(const QDateTime &heartbeat, const QDateTime &nowWall)
{
    if (!heartbeat.isValid())
        return QStringLiteral("-");
    const qint64 ms = std::max<qint64>(0, heartbeat.msecsTo(nowWall));
    return durationtext::format(ms / 1000 * 1000);
}

QString state(const CandidateRecord &record)
{
    if (!record.drained)
        return QStringLiteral("ready");
    return record.drainedBy == QLatin1String("standby") ? QStringLiteral("standby") : QStringLiteral("drained");
}

QString liveness(const CandidateRecord &record, const QDateTime &nowWall)
{
    if (record.left)
        return QStringLiteral("left");
    return record.seemsLiveAt(nowWall) ? QStringLiteral("live") : QStringLiteral("gone");
}

} // namespace

CandidatesReader::CandidatesReader(LeaseObserver *observer, QStringList leases, QObject *parent)
    : QObject(parent)
    , m_observer(observer)
    , m_leases(std::move(leases))
{
}

void CandidatesReader::read(std::function<void(const Found &)> done)
{
    m_done = std::move(done);
    next();
}

void CandidatesReader::next()
{
    delete m_book;
    m_book = nullptr;
    if (m_index == m_leases.size()) {
        m_done(m_found);
        return;
    }
    const QString lease = m_leases.at(m_index++);
    QString problem;
    m_book = openCandidateBook(m_observer, lease, this, &problem);
    const auto warn = [this](const QString &of, const QString &why) {
        // Once per reason: the same refusal for every lease says nothing more.
        if (m_warned.contains(why))
            return;
        m_warned.append(why);
        commandline::complain("status",
                              QStringLiteral("warning: the candidates of \"%1\" are not shown: %2").arg(of, why));
    };
    if (!m_book) {
        warn(lease, problem);
        QMetaObject::invokeMethod(this, &CandidatesReader::next, Qt::QueuedConnection);
        return;
    }
    m_book->list([this, lease, warn](bool ok, const QList<CandidateRecord> &records, const QString &error) {
        if (!ok)
            warn(lease, error);
        else if (!records.isEmpty())
            m_found.insert(lease, records);
        // Not from within the book's own callback: next() deletes it.
        QMetaObject::invokeMethod(this, &CandidatesReader::next, Qt::QueuedConnection);
    });
}

QJsonArray CandidatesReader::toJson(const QList<CandidateRecord> &records, const QDateTime &nowWall)
{
    QJsonArray items;
    for (const CandidateRecord &record : records) {
        QJsonObject item = record.toJson();
        // Judged from wall clocks by one look: apart from what the record says.
        item.insert(QStringLiteral("display"),
                    QJsonObject {{QStringLiteral("state"), state(record)},
                                 {QStringLiteral("live"), record.seemsLiveAt(nowWall)},
                                 {QStringLiteral("heartbeatAgo"), ago(record.heartbeat, nowWall)}});
        items.append(item);
    }
    return items;
}

QStringList CandidatesReader::table(const QStringList &leases, const Found &found, const QDateTime &nowWall,
                                    bool noHeaders)
{
    Columns columns({{QStringLiteral("LEASE")}, {QStringLiteral("CANDIDATE")},
                     {QStringLiteral("PRIORITY"), 0, true}, {QStringLiteral("STATE")}, {QStringLiteral("LIVE")},
                     {QStringLiteral("LAST-HEARTBEAT")}, {QStringLiteral("LABELS")}});
    QList<QStringList> rows;
    for (const QString &lease : leases)
        for (const CandidateRecord &record : found.value(lease))
            rows.append({lease, record.instance, QString::number(record.priority), state(record),
                         liveness(record, nowWall),
                         record.heartbeat.isValid() ? ago(record.heartbeat, nowWall) + QStringLiteral(" ago")
                                                    : QStringLiteral("never"),
                         record.labels.isEmpty() ? QStringLiteral("-") : candidatelabels::format(record.labels)});
    for (const QStringList &row : std::as_const(rows))
        columns.fit(row);
    QStringList lines;
    if (!noHeaders)
        lines.append(columns.header());
    for (const QStringList &row : std::as_const(rows))
        lines.append(columns.line(row));
    return lines;
}

} // namespace baton
