#include "failoverhistorymodel.h"

#include "leasetablemodel.h"

#include <QFont>
#include <QLocale>

namespace baton {

FailoverHistoryModel::FailoverHistoryModel(LeaseObserver *observer, QObject *parent)
    : QAbstractTableModel(parent)
    , m_observer(observer)
{
    connect(observer, &LeaseObserver::failover, this, &FailoverHistoryModel::append);
    connect(observer, &LeaseObserver::handedOver, this,
            [this](int, const LeaseFailover &change) { completeHandover(change); });
    // The stored history arrives with a list, not as failovers: read it whole.
    connect(observer, &LeaseObserver::ready, this, &FailoverHistoryModel::reload);
    connect(observer, &LeaseObserver::historyRead, this, &FailoverHistoryModel::reload);
    setLease({});
}

void FailoverHistoryModel::setLease(const QString &lease)
{
    beginResetModel();
    m_lease = lease;
    m_rows.clear();
    const QList<LeaseFailover> all = m_observer->history();
    if (m_lease.isEmpty()) {
        m_rows = all; // shared, not copied row by row: the stored history may be 100,000 rows
    } else {
        for (const LeaseFailover &change : all)
            if (change.lease == m_lease)
                m_rows.append(change);
    }
    endResetModel();
}

void FailoverHistoryModel::append(const LeaseFailover &change)
{
    if (!m_lease.isEmpty() && change.lease != m_lease)
        return;
    const int row = int(m_rows.size());
    beginInsertRows({}, row, row);
    m_rows.append(change);
    endInsertRows();
}

void FailoverHistoryModel::completeHandover(const LeaseFailover &change)
{
    // The release is among the last rows: search from the newest.
    for (qsizetype row = m_rows.size() - 1; row >= 0; --row) {
        LeaseFailover &shown = m_rows[row];
        if (shown.lease == change.lease && shown.mono == change.mono && shown.why == change.why) {
            shown = change;
            Q_EMIT dataChanged(index(int(row), 0), index(int(row), ColumnCount - 1));
            return;
        }
    }
}

int FailoverHistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int FailoverHistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString FailoverHistoryModel::describeWhy(const QString &why)
{
    if (why == QLatin1String("first-acquire"))
        return tr("first acquire");
    if (why == QLatin1String("released"))
        return tr("released");
    if (why == QLatin1String("expired"))
        return tr("expired");
    if (why == QLatin1String("taken-over"))
        return tr("taken over");
    return why;
}

QVariant FailoverHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const LeaseFailover &f = m_rows.at(index.row());
    switch (role) {
    case WhyKeyRole:
        return f.why;
    case GapMsRole:
        return f.gapMs;
    case WhenRole:
        return f.when;
    case MonoRole:
        return f.mono;
    case RecordedRole:
        return f.recorded;
    case SortRole:
        switch (index.column()) {
        case WhenColumn:
            return f.mono;
        case GapColumn:
            return f.gapMs;
        default:
            return data(index, Qt::DisplayRole);
        }
    case Qt::DisplayRole:
        switch (index.column()) {
        case WhenColumn:
            return QLocale().toString(f.when.toLocalTime(), QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
        case LeaseColumn:
            return f.lease;
        case FromColumn:
            return f.from.isEmpty() ? tr("(none)") : f.from;
        case ToColumn:
            return f.to.isEmpty() ? tr("(none)") : f.to;
        case WhyColumn:
            return describeWhy(f.why);
        case GapColumn:
            if (f.gapMs < 0)
                return QString();
            return f.gapMs == 0 ? tr("none") : LeaseTableModel::formatDuration(f.gapMs);
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip;
        if (index.column() == GapColumn)
            tip = tr("Time without a leader before the new holder took the lease: from the "
                     "release seen or, when the old holder stopped renewing, from its last renewal");
        else if (index.column() == WhenColumn)
            tip = QLocale().toString(f.when.toLocalTime(), QLocale::LongFormat);
        if (f.recorded) {
            // Not seen by this observer: the new holder wrote it with the
            // lease, by its own clock, which may differ from ours.
            const QString recorded = tr("Recorded by %1 when it took the lease; times by its clock.")
                                             .arg(f.to.isEmpty() ? tr("(none)") : f.to);
            tip = tip.isEmpty() ? recorded : tip + QLatin1Char('\n') + recorded;
        }
        return tip.isEmpty() ? QVariant() : QVariant(tip);
    }
    case Qt::FontRole:
        if (f.recorded) {
            QFont font;
            font.setItalic(true);
            return font;
        }
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == GapColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    return {};
}

QVariant FailoverHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case WhenColumn:
        return tr("When");
    case LeaseColumn:
        return tr("Lease");
    case FromColumn:
        return tr("From");
    case ToColumn:
        return tr("To");
    case WhyColumn:
        return tr("Why");
    case GapColumn:
        return tr("Without leader");
    }
    return {};
}

QByteArray FailoverHistoryModel::toCsv() const
{
    return LeaseObserver::historyToCsv(m_rows);
}

QByteArray FailoverHistoryModel::toJson() const
{
    return LeaseObserver::historyToJson(m_rows);
}

} // namespace baton
