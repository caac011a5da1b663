#include "leasetablemodel.h"

#include <baton/clock.h>

#include <QBrush>
#include <QFont>
#include <QLocale>

#include <algorithm>
#include <limits>

namespace baton {

namespace {

QDateTime wallOf(const Clock &clock, qint64 mono)
{
    // The observer decides on its monotonic clock; people read wall time.
    return clock.wallNow().addMSecs(mono - clock.monotonicMs()).toLocalTime();
}

QString stateKey(const ObservedLease &lease)
{
    if (!lease.valid)
        return QStringLiteral("unreadable");
    if (lease.record.holder.isEmpty())
        return QStringLiteral("free");
    return lease.expired ? QStringLiteral("expired") : QStringLiteral("held");
}

} // namespace

LeaseTableModel::LeaseTableModel(LeaseObserver *observer, QObject *parent)
    : QAbstractTableModel(parent)
    , m_observer(observer)
{
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(100);
    connect(&m_flushTimer, &QTimer::timeout, this, &LeaseTableModel::flush);
    m_tickTimer.setInterval(1000);
    connect(&m_tickTimer, &QTimer::timeout, this, &LeaseTableModel::tick);
    m_tickTimer.start();

    connect(observer, &LeaseObserver::leaseChanged, this, &LeaseTableModel::markDirty);
    connect(observer, &LeaseObserver::leaseRemoved, this, &LeaseTableModel::markDirty);
    // Leases already seen before this model existed.
    const QList<ObservedLease> known = observer->leases();
    for (const ObservedLease &lease : known)
        markDirty(lease.name);
    flush();
}

LeaseTableModel::~LeaseTableModel() = default;

int LeaseTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int LeaseTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString LeaseTableModel::formatDuration(qint64 ms)
{
    if (ms < 0)
        return QString();
    const QLocale locale;
    if (ms < 10'000)
        return tr("%1 s").arg(locale.toString(double(ms) / 1000.0, 'f', 1));
    if (ms < 60'000)
        return tr("%1 s").arg(ms / 1000);
    if (ms < 3'600'000)
        return tr("%1 min %2 s").arg(ms / 60'000).arg((ms / 1000) % 60);
    if (ms < 86'400'000)
        return tr("%1 h %2 min").arg(ms / 3'600'000).arg((ms / 60'000) % 60);
    return tr("%1 d %2 h").arg(ms / 86'400'000).arg((ms / 3'600'000) % 24);
}

QDateTime LeaseTableModel::heldSince(const ObservedLease &lease, const Clock &clock)
{
    // The record's acquireTime says when the holder took the lease, which an
    // observer that connected later cannot know. It is the holder's clock,
    // for display only (F2); a record without one falls back to what this
    // observer saw.
    if (lease.record.acquireTime.isValid())
        return lease.record.acquireTime.toLocalTime();
    return wallOf(clock, lease.holderSinceMono);
}

QVariant LeaseTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ObservedLease &lease = m_rows.at(index.row());
    const Clock &clock = m_observer->clock();
    const qint64 now = clock.monotonicMs();
    const qint64 sinceChange = lease.sinceChangeMs(now);
    const bool held = lease.valid && !lease.record.holder.isEmpty();
    const qint64 duration = lease.record.leaseDurationMs;

    switch (role) {
    case FreshnessRole:
        return held && duration > 0 ? double(sinceChange) / double(duration) : -1.0;
    case SinceChangeMsRole:
        return sinceChange;
    case LeaseDurationMsRole:
        return duration;
    case LeaseNameRole:
        return lease.name;
    case HolderRole:
        return lease.record.holder;
    case ExpiredRole:
        return lease.expired;
    case OwnLeaseRole:
        return !m_ownInstanceId.isEmpty() && lease.record.holder == m_ownInstanceId;
    case StateKeyRole:
        return stateKey(lease);
    case SortRole:
        switch (index.column()) {
        case LeaseColumn:
            return lease.name;
        case HolderColumn:
            return lease.record.holder;
        case HeldSinceColumn:
            return held ? heldSince(lease, clock).toMSecsSinceEpoch() : std::numeric_limits<qint64>::max();
        case FreshnessColumn:
            return held && duration > 0 ? double(sinceChange) / double(duration) : -1.0;
        case ChangesColumn:
            return lease.changesSeen;
        case TransitionsColumn:
            return lease.record.transitions;
        case StateColumn:
            return stateKey(lease);
        }
        return {};
    case Qt::DisplayRole:
        switch (index.column()) {
        case LeaseColumn:
            return lease.name;
        case HolderColumn:
            if (!lease.valid)
                return tr("(unreadable)");
            return held ? lease.record.holder : tr("(none)");
        case HeldSinceColumn: {
            if (!held)
                return QString();
            const QDateTime since = heldSince(lease, clock);
            return tr("%1 (%2)")
                    .arg(QLocale().toString(since.time(), QStringLiteral("HH:mm:ss")),
                         formatDuration(std::max<qint64>(0, since.msecsTo(clock.wallNow()))));
        }
        case FreshnessColumn:
            if (!held)
                return QString();
            return tr("%1 of %2").arg(formatDuration(sinceChange), formatDuration(duration));
        case ChangesColumn:
            return lease.changesSeen;
        case TransitionsColumn:
            return lease.valid ? QVariant(lease.record.transitions) : QVariant();
        case StateColumn: {
            const QString key = stateKey(lease);
            if (key == QLatin1String("unreadable"))
                return tr("unreadable");
            if (key == QLatin1String("free"))
                return tr("no leader");
            if (key == QLatin1String("expired"))
                return tr("expired");
            return tr("held");
        }
        }
        return {};
    case Qt::ToolTipRole:
        switch (index.column()) {
        case StateColumn:
            if (!lease.valid)
                return lease.error;
            if (lease.expired)
                return tr("No renewal seen for %1, longer than the lease (%2): the holder is "
                          "presumed gone and any participant may take the lease.")
                        .arg(formatDuration(sinceChange), formatDuration(duration));
            return {};
        case HeldSinceColumn:
        case FreshnessColumn:
            if (!held)
                return {};
            return tr("Written by the holder, by its clock: acquired %1, renewed %2\n"
                      "Seen by this observer: held since %3, last change %4 ago (lease %5)")
                    .arg(QLocale().toString(lease.record.acquireTime.toLocalTime(), QLocale::LongFormat),
                         QLocale().toString(lease.record.renewTime.toLocalTime(), QLocale::LongFormat),
                         QLocale().toString(wallOf(clock, lease.holderSinceMono), QLocale::LongFormat),
                         formatDuration(sinceChange), formatDuration(duration));
        case ChangesColumn:
            return tr("Holder changes seen since the dashboard connected");
        case TransitionsColumn:
            return tr("Holder changes recorded in the lease (leaseTransitions)");
        }
        return {};
    case Qt::FontRole:
        if (!m_ownInstanceId.isEmpty() && lease.record.holder == m_ownInstanceId) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == ChangesColumn || index.column() == TransitionsColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    return {};
}

QVariant LeaseTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case LeaseColumn:
            return tr("Lease");
        case HolderColumn:
            return tr("Holder");
        case HeldSinceColumn:
            return tr("Held since");
        case FreshnessColumn:
            return tr("Last renewal");
        case ChangesColumn:
            return tr("Changes seen");
        case TransitionsColumn:
            return tr("Transitions");
        case StateColumn:
            return tr("State");
        }
    }
    if (role == Qt::ToolTipRole && section == FreshnessColumn)
        return tr("Time since the record last changed, against the lease duration: amber past "
                  "half the lease, red past the lease");
    return {};
}

QHash<int, QByteArray> LeaseTableModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
    names.insert(FreshnessRole, "freshness");
    names.insert(SinceChangeMsRole, "sinceChangeMs");
    names.insert(LeaseDurationMsRole, "leaseDurationMs");
    names.insert(LeaseNameRole, "leaseName");
    names.insert(HolderRole, "holder");
    names.insert(ExpiredRole, "expired");
    names.insert(OwnLeaseRole, "ownLease");
    names.insert(SortRole, "sortValue");
    names.insert(StateKeyRole, "stateKey");
    return names;
}

int LeaseTableModel::rowOf(const QString &name) const
{
    return m_rowOf.value(name, -1);
}

void LeaseTableModel::setOwnInstanceId(const QString &instanceId)
{
    if (instanceId == m_ownInstanceId)
        return;
    const QString previous = m_ownInstanceId;
    m_ownInstanceId = instanceId;
    QList<int> rows;
    for (int row = 0; row < m_rows.size(); ++row) {
        const QString &holder = m_rows.at(row).record.holder;
        if (!holder.isEmpty() && (holder == previous || holder == instanceId))
            rows.append(row);
    }
    emitRowRuns(rows, 0, ColumnCount - 1);
}

void LeaseTableModel::setTickInterval(int ms)
{
    m_tickTimer.setInterval(ms);
}

void LeaseTableModel::markDirty(const QString &name)
{
    if (m_rowOf.contains(name)) {
        m_dirty.insert(name);
    } else if (!m_arrivingNames.contains(name)) {
        m_arrivingNames.insert(name);
        m_arriving.append(name);
    }
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

QStringList LeaseTableModel::takeArriving()
{
    // In the order they came (a first list: the store's key order), at most
    // insertBatch, the rest on the next turn: a flush costs what it
    // inserts, not what waits (sorting and sifting 20,000 waiting names at
    // every batch took 10-17 ms a turn).
    const qsizetype end = std::min(m_arrivingNext + insertBatch, m_arriving.size());
    QStringList taken = m_arriving.mid(m_arrivingNext, end - m_arrivingNext);
    m_arrivingNext = end;
    for (const QString &name : std::as_const(taken))
        m_arrivingNames.remove(name);
    if (m_arrivingNext < m_arriving.size()) {
        // Not m_flushTimer.start(0), which would keep 0 as its interval;
        // one at a time, however often flush() is called meanwhile.
        if (!m_nextBatchPosted) {
            m_nextBatchPosted = true;
            QTimer::singleShot(0, this, [this] {
                m_nextBatchPosted = false;
                flush();
            });
        }
    } else {
        m_arriving.clear();
        m_arrivingNext = 0;
    }
    return taken;
}

void LeaseTableModel::flush()
{
    m_flushTimer.stop();
    if (m_dirty.isEmpty() && m_arrivingNext >= m_arriving.size())
        return;
    QSet<QString> dirty = std::exchange(m_dirty, {});
    for (const QString &name : takeArriving())
        dirty.insert(name);
    QList<int> changed;
    QList<ObservedLease> added;
    QList<int> removed;
    for (const QString &name : std::as_const(dirty)) {
        const int row = m_rowOf.value(name, -1);
        std::optional<ObservedLease> lease = m_observer->lease(name);
        if (!lease) {
            if (row >= 0)
                removed.append(row);
        } else if (row < 0) {
            added.append(std::move(*lease));
        } else {
            m_rows[row] = std::move(*lease);
            changed.append(row);
        }
    }
    emitRowRuns(changed, 0, ColumnCount - 1);

    // Removals are rare (a lease deleted from the store): one at a time,
    // from the bottom, so the rows above keep their numbers.
    std::sort(removed.begin(), removed.end(), std::greater<int>());
    for (int row : std::as_const(removed)) {
        beginRemoveRows({}, row, row);
        m_rowOf.remove(m_rows.at(row).name);
        m_rows.removeAt(row);
        reindexFrom(row);
        endRemoveRows();
    }
    if (!added.isEmpty()) {
        // Appended in name order; the proxy sorts for display.
        std::sort(added.begin(), added.end(),
                  [](const ObservedLease &a, const ObservedLease &b) { return a.name < b.name; });
        const int first = int(m_rows.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        for (ObservedLease &lease : added) {
            m_rowOf.insert(lease.name, int(m_rows.size()));
            m_rows.append(std::move(lease));
        }
        endInsertRows();
    }
}

void LeaseTableModel::reindexFrom(int row)
{
    for (int r = row; r < m_rows.size(); ++r)
        m_rowOf[m_rows.at(r).name] = r;
}

void LeaseTableModel::tick()
{
    if (m_rows.isEmpty())
        return;
    // A dataChanged over every row would make a proxy sorted by freshness
    // sort the whole table again every second (56 ms at 20,000 leases):
    // only the rows that time can move are named, and views repaint the
    // rest on timeAdvanced().
    emitRowRuns(rowsReorderedByTime(), HeldSinceColumn, FreshnessColumn,
                {Qt::DisplayRole, Qt::ToolTipRole, FreshnessRole, SinceChangeMsRole, SortRole});
    Q_EMIT timeAdvanced();
}

QList<int> LeaseTableModel::rowsReorderedByTime() const
{
    // Freshness is (now - changed) / duration: two leases of the same
    // duration keep their order as time passes, and a lease with no
    // freshness (-1) stays below every other. Those of the most common
    // duration stay put; every other held lease may pass some of them.
    QHash<qint64, int> byDuration;
    const auto ages = [](const ObservedLease &lease) {
        return lease.valid && !lease.record.holder.isEmpty() && lease.record.leaseDurationMs > 0;
    };
    for (const ObservedLease &lease : std::as_const(m_rows))
        if (ages(lease))
            ++byDuration[lease.record.leaseDurationMs];
    if (byDuration.size() < 2)
        return {};
    qint64 common = 0;
    int most = -1;
    for (auto it = byDuration.cbegin(); it != byDuration.cend(); ++it) {
        if (it.value() > most || (it.value() == most && it.key() < common)) {
            most = it.value();
            common = it.key();
        }
    }
    QList<int> rows;
    for (int row = 0; row < m_rows.size(); ++row) {
        const ObservedLease &lease = m_rows.at(row);
        if (ages(lease) && lease.record.leaseDurationMs != common)
            rows.append(row);
    }
    return rows;
}

void LeaseTableModel::emitRowRuns(QList<int> rows, int firstColumn, int lastColumn, const QList<int> &roles)
{
    if (rows.isEmpty())
        return;
    std::sort(rows.begin(), rows.end());
    int runStart = rows.first();
    int previous = runStart;
    for (int i = 1; i <= rows.size(); ++i) {
        if (i < rows.size() && rows.at(i) == previous + 1) {
            previous = rows.at(i);
            continue;
        }
        Q_EMIT dataChanged(index(runStart, firstColumn), index(previous, lastColumn), roles);
        if (i < rows.size())
            runStart = previous = rows.at(i);
    }
}

} // namespace baton
