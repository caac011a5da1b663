#include "candidatemodel.h"

#include "leasetablemodel.h"

#include <batoninternal/observercandidatebook.h>
#include <baton/clock.h>
#include <baton/leaseobserver.h>
#include <baton/store.h>

#include <QColor>
#include <QFont>

#include <algorithm>

namespace baton {

namespace {

int rank(CandidateModel::State state)
{
    switch (state) {
    case CandidateModel::State::Leading:
        return 0;
    case CandidateModel::State::Live:
    case CandidateModel::State::StandingBy:
    case CandidateModel::State::Drained:
        return 1;
    case CandidateModel::State::Gone:
        break;
    }
    return 2;
}

} // namespace

CandidateModel::CandidateModel(QObject *parent)
    : QAbstractTableModel(parent)
{
    m_poll.setInterval(pollIntervalMs);
    connect(&m_poll, &QTimer::timeout, this, &CandidateModel::list);
}

CandidateModel::~CandidateModel() = default;

void CandidateModel::setSource(LeaseObserver *observer, const QString &lease)
{
    if (observer == m_observer && lease == m_lease)
        return;
    if (m_observer)
        m_observer->disconnect(this);
    delete m_watch; // a list under way answers to nobody: its book goes too
    delete m_book;
    m_watch = nullptr;
    m_book = nullptr;
    m_poll.stop();
    m_listing = m_listAgain = m_loaded = false;
    m_observer = observer;
    m_lease = lease;
    m_error.clear();
    m_records.clear();
    beginResetModel();
    m_rows.clear();
    endResetModel();
    if (!observer || lease.isEmpty())
        return;
    connect(observer, &QObject::destroyed, this, [this] { setSource(nullptr, QString()); });
    // A new holder changes who leads, and so the order.
    auto holderMayHaveChanged = [this](const QString &name) {
        if (name == m_lease)
            rearrange();
    };
    connect(observer, &LeaseObserver::leaseChanged, this, holderMayHaveChanged);
    connect(observer, &LeaseObserver::leaseExpired, this, holderMayHaveChanged);
    connect(observer, &LeaseObserver::leaseRemoved, this, holderMayHaveChanged);
    // Kubernetes connections have no store: their candidates are ConfigMaps the observer's client reads.
    Store *store = observer->store();
    m_book = store ? new CandidateBook(store, lease, this) : openCandidateBook(observer, lease, this, &m_error);
    if (!m_book) {
        m_loaded = true; // nothing to wait for: the error says why
        Q_EMIT loaded();
        return;
    }
    m_watch = store ? store->watch(CandidateBook::prefix(lease), this) : nullptr;
    if (m_watch) {
        connect(m_watch, &StoreWatch::entryChanged, this, &CandidateModel::list);
        connect(m_watch, &StoreWatch::entryRemoved, this, &CandidateModel::list);
        connect(m_watch, &StoreWatch::resynchronise, this, &CandidateModel::list);
    } else {
        m_poll.start();
    }
    list();
}

LeaseObserver *CandidateModel::observer() const
{
    return m_observer;
}

QString CandidateModel::holder() const
{
    if (!m_observer || m_lease.isEmpty())
        return {};
    const std::optional<ObservedLease> observed = m_observer->lease(m_lease);
    return observed && observed->valid && !observed->expired ? observed->record.holder : QString();
}

QDateTime CandidateModel::now() const
{
    return m_observer ? m_observer->clock().wallNow() : QDateTime::currentDateTimeUtc();
}

void CandidateModel::list()
{
    if (!m_book)
        return;
    if (m_listing) {
        m_listAgain = true;
        return;
    }
    m_listing = true;
    m_book->list([this](bool ok, const QList<CandidateRecord> &records, const QString &error) {
        m_listing = false;
        m_loaded = true;
        if (ok) {
            m_error.clear();
            m_records = records;
        } else {
            m_error = error; // what was read last stays shown
        }
        rearrange();
        Q_EMIT loaded();
        if (std::exchange(m_listAgain, false))
            list();
    });
}

void CandidateModel::refreshTime()
{
    rearrange();
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, HeartbeatColumn), index(int(m_rows.size()) - 1, HeartbeatColumn));
}

void CandidateModel::rearrange()
{
    show(arrange(m_records, holder(), now()));
}

bool CandidateModel::isGone(const CandidateRecord &record, const QDateTime &now)
{
    if (record.left || record.heartbeatIntervalMs <= 0 || !record.heartbeat.isValid())
        return true;
    return record.heartbeat.msecsTo(now) > 3 * record.heartbeatIntervalMs;
}

QList<CandidateModel::Row> CandidateModel::arrange(const QList<CandidateRecord> &records, const QString &holder,
                                                   const QDateTime &now)
{
    QList<Row> rows;
    for (const CandidateRecord &record : records) {
        Row row {record, State::Live};
        if (!holder.isEmpty() && record.instance == holder)
            row.state = State::Leading;
        else if (isGone(record, now))
            row.state = State::Gone;
        rows.append(row);
    }
    // A drained candidate stands by only while another could lead instead
    // (it still takes the lease when nobody else can).
    const bool someoneUndrained = std::any_of(rows.cbegin(), rows.cend(), [](const Row &row) {
        return row.state != State::Gone && !row.record.drained;
    });
    for (Row &row : rows)
        if (row.state == State::Live && row.record.drained)
            row.state = someoneUndrained ? State::StandingBy : State::Drained;
    std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) {
        if (rank(a.state) != rank(b.state))
            return rank(a.state) < rank(b.state);
        if (a.record.priority != b.record.priority)
            return a.record.priority > b.record.priority;
        return a.record.instance < b.record.instance;
    });
    return rows;
}

void CandidateModel::show(const QList<Row> &rows)
{
    QStringList before;
    QStringList after;
    for (const Row &row : std::as_const(m_rows))
        before.append(row.record.instance);
    for (const Row &row : rows)
        after.append(row.record.instance);
    if (before == after) {
        m_rows = rows;
        if (!m_rows.isEmpty())
            Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
        return;
    }
    QStringList sortedBefore = before;
    QStringList sortedAfter = after;
    sortedBefore.sort();
    sortedAfter.sort();
    if (sortedBefore != sortedAfter) {
        beginResetModel();
        m_rows = rows;
        endResetModel();
        return;
    }
    // The same candidates in another order: a selection stays on its instance.
    Q_EMIT layoutAboutToBeChanged();
    const QModelIndexList persistent = persistentIndexList();
    QModelIndexList moved;
    for (const QModelIndex &old : persistent)
        moved.append(index(int(after.indexOf(before.at(old.row()))), old.column()));
    m_rows = rows;
    changePersistentIndexList(persistent, moved);
    Q_EMIT layoutChanged();
}

int CandidateModel::rowOf(const QString &instance) const
{
    for (int row = 0; row < int(m_rows.size()); ++row)
        if (m_rows.at(row).record.instance == instance)
            return row;
    return -1;
}

QList<CandidateModel::Row> CandidateModel::successors() const
{
    QList<Row> out;
    for (const Row &row : m_rows)
        if (row.state != State::Gone && row.state != State::Leading)
            out.append(row);
    return out;
}

bool CandidateModel::anotherCanLead(const QString &instance) const
{
    return std::any_of(m_rows.cbegin(), m_rows.cend(), [&instance](const Row &row) {
        return row.record.instance != instance && row.state != State::Gone && !row.record.drained;
    });
}

QString CandidateModel::stateText(State state)
{
    switch (state) {
    case State::Leading:
        return tr("leading");
    case State::Live:
        return tr("live");
    case State::StandingBy:
        return tr("standing by");
    case State::Drained:
        return tr("drained");
    case State::Gone:
        break;
    }
    return tr("gone");
}

int CandidateModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int CandidateModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString CandidateModel::display(const Row &row, int column) const
{
    switch (column) {
    case InstanceColumn:
        return row.record.instance;
    case PriorityColumn:
        return QString::number(row.record.priority);
    case StateColumn:
        if (row.state == State::Leading && row.record.drained)
            return tr("leading, drained");
        return stateText(row.state);
    case HeartbeatColumn: {
        if (!row.record.heartbeat.isValid())
            return tr("never");
        const QString time = row.record.heartbeat.toLocalTime().toString(QStringLiteral("HH:mm:ss"));
        const qint64 ago = row.record.heartbeat.msecsTo(now());
        return ago < 0 ? time : tr("%1 (%2 ago)").arg(time, LeaseTableModel::formatDuration(ago));
    }
    case LabelsColumn:
        return candidatelabels::format(row.record.labels);
    default:
        return {};
    }
}

QString CandidateModel::toolTip(const Row &row) const
{
    QStringList lines;
    switch (row.state) {
    case State::Leading:
        lines.append(row.record.drained ? tr("Holds %1 and is drained: it hands over to another live candidate.")
                                                  .arg(m_lease)
                                        : tr("Holds %1.").arg(m_lease));
        break;
    case State::Live:
        lines.append(tr("Live: takes %1 when it is free.").arg(m_lease));
        break;
    case State::StandingBy:
        lines.append(tr("Drained: takes no lease while another candidate is live."));
        break;
    case State::Drained:
        lines.append(tr("Drained, but no other candidate is live: it still takes %1 when it is free.").arg(m_lease));
        break;
    case State::Gone:
        lines.append(row.record.left ? tr("Stopped: it left the election.")
                                     : tr("No heartbeat for three intervals: it may have stopped."));
        break;
    }
    if (row.record.drained) {
        const QString when = row.record.drainedAt.isValid()
                ? row.record.drainedAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                : QString();
        lines.append(tr("Drained by %1 %2").arg(row.record.drainedBy.isEmpty() ? tr("(unknown)") : row.record.drainedBy,
                                                when)
                             .trimmed());
    }
    if (row.record.heartbeatIntervalMs > 0)
        lines.append(tr("Heartbeat every %1.").arg(LeaseTableModel::formatDuration(row.record.heartbeatIntervalMs)));
    if (!row.record.labels.isEmpty())
        lines.append(tr("Labels: %1").arg(candidatelabels::format(row.record.labels)));
    return lines.join(QLatin1Char('\n'));
}

QVariant CandidateModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()) || index.column() >= ColumnCount)
        return {};
    const Row &row = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return display(row, index.column());
    case Qt::ToolTipRole:
        return toolTip(row);
    case StateRole:
        return int(row.state);
    case InstanceRole:
        return row.record.instance;
    case DrainedRole:
        return row.record.drained;
    case Qt::TextAlignmentRole:
        if (index.column() == PriorityColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::FontRole:
        if (row.state == State::Leading) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::ForegroundRole:
        if (row.state == State::Gone)
            return QColor(Qt::gray);
        return {};
    default:
        return {};
    }
}

QVariant CandidateModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case InstanceColumn:
        return tr("Instance");
    case PriorityColumn:
        return tr("Priority");
    case StateColumn:
        return tr("State");
    case HeartbeatColumn:
        return tr("Last heartbeat");
    case LabelsColumn:
        return tr("Labels");
    default:
        return {};
    }
}

} // namespace baton
