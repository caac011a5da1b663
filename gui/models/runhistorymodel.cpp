#include "runhistorymodel.h"

#include "leasetablemodel.h"

#include <batoninternal/observerrunledger.h>
#include <baton/clock.h>
#include <baton/leaseobserver.h>
#include <baton/store.h>

#include <QColor>
#include <QFont>
#include <QRegularExpression>

namespace baton {

namespace {

QString tickText(const QDateTime &when)
{
    return when.isValid() ? when.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) : QString();
}

QString timeText(const QDateTime &when)
{
    return when.isValid() ? when.toLocalTime().toString(QStringLiteral("HH:mm:ss")) : QString();
}

bool failed(const QString &outcome)
{
    return outcome.startsWith(QLatin1String("failed")) || outcome == RunRecord::interrupted;
}

} // namespace

RunHistoryModel::RunHistoryModel(QObject *parent)
    : QAbstractTableModel(parent)
    , m_clock(&Clock::system())
{
    m_poll.setInterval(pollIntervalMs);
    connect(&m_poll, &QTimer::timeout, this, &RunHistoryModel::list);
}

RunHistoryModel::~RunHistoryModel() = default;

bool RunHistoryModel::reset(Store *store, LeaseObserver *observer, const QString &lease, const Clock *clock)
{
    const Clock *wanted = clock ? clock : &Clock::system();
    if (store == m_store && observer == m_observer && lease == m_lease && wanted == m_clock
        && (m_ledger || (!store && !observer) || lease.isEmpty()))
        return false;
    if (m_store)
        m_store->disconnect(this);
    if (m_observer)
        m_observer->disconnect(this);
    delete m_watch; // a list still under way answers to nobody: its ledger goes too
    delete m_ledger;
    m_watch = nullptr;
    m_ledger = nullptr;
    m_poll.stop();
    m_listing = m_listAgain = m_loaded = false;
    m_store = store;
    m_observer = observer;
    m_lease = lease;
    m_clock = wanted;
    m_error.clear();
    m_records.clear();
    beginResetModel();
    m_rows.clear();
    endResetModel();
    return true;
}

void RunHistoryModel::setSource(Store *store, const QString &lease, const Clock *clock)
{
    if (!reset(store, nullptr, lease, clock) || !store || lease.isEmpty())
        return;
    connect(store, &QObject::destroyed, this, [this] { setSource(static_cast<Store *>(nullptr), QString(), m_clock); });
    m_ledger = new RunLedger(store, lease, this);
    m_watch = store->watch(RunLedger::prefix(lease), this);
    if (m_watch) {
        connect(m_watch, &StoreWatch::entryChanged, this, &RunHistoryModel::list);
        connect(m_watch, &StoreWatch::entryRemoved, this, &RunHistoryModel::list);
        connect(m_watch, &StoreWatch::resynchronise, this, &RunHistoryModel::list);
    } else {
        m_poll.start();
    }
    list();
}

void RunHistoryModel::setSource(LeaseObserver *observer, const QString &lease, const Clock *clock)
{
    if (!reset(nullptr, observer, lease, clock) || !observer || lease.isEmpty())
        return;
    connect(observer, &QObject::destroyed, this,
            [this] { setSource(static_cast<LeaseObserver *>(nullptr), QString(), m_clock); });
    m_ledger = openRunLedger(observer, lease, this, &m_error);
    if (!m_ledger) {
        m_loaded = true; // nothing to wait for: the error says why
        Q_EMIT loaded();
        return;
    }
    m_poll.start();
    list();
}

void RunHistoryModel::list()
{
    if (!m_ledger)
        return;
    if (m_listing) {
        m_listAgain = true;
        return;
    }
    m_listing = true;
    m_ledger->list([this](bool ok, const QList<RunRecord> &records, const QString &error) {
        m_listing = false;
        m_loaded = true;
        if (ok) {
            m_error.clear();
            m_records = records;
        } else {
            m_error = error; // what was read last stays shown
        }
        show(runrows::build(m_records, m_clock->wallNow()));
        m_overdue = QDateTime(); // the next refreshTime() works the rows out again, at its time
        Q_EMIT loaded();
        if (std::exchange(m_listAgain, false))
            list();
    });
}

void RunHistoryModel::refreshTime()
{
    // The rows change with time only when another tick falls overdue: the
    // gaps of a cron schedule are counted tick by tick, not every second.
    const std::optional<TickSchedule> current = schedule();
    const QDateTime overdue = current ? current->latestAtOrBefore(m_clock->wallNow().addMSecs(-runrows::dueGraceMs))
                                      : QDateTime();
    if (overdue != std::exchange(m_overdue, overdue))
        show(runrows::build(m_records, m_clock->wallNow()));
    // A run going on lasts longer with every refresh.
    for (int row = 0; row < int(m_rows.size()); ++row)
        if (m_rows.at(row).record.isRunning())
            Q_EMIT dataChanged(index(row, DurationColumn), index(row, DurationColumn));
}

void RunHistoryModel::show(QList<RunRow> rows)
{
    // What did not change at the bottom (the older runs) stays as it is, so
    // that a selection and the scrolling hold while new runs come on top.
    qsizetype same = 0;
    while (same < m_rows.size() && same < rows.size()
           && m_rows.at(m_rows.size() - 1 - same) == rows.at(rows.size() - 1 - same))
        ++same;
    const int oldTop = int(m_rows.size() - same);
    const int newTop = int(rows.size() - same);
    if (newTop > oldTop) {
        beginInsertRows({}, 0, newTop - oldTop - 1);
        m_rows = rows.mid(0, newTop - oldTop) + m_rows;
        endInsertRows();
    } else if (oldTop > newTop) {
        beginRemoveRows({}, 0, oldTop - newTop - 1);
        m_rows.remove(0, oldTop - newTop);
        endRemoveRows();
    }
    const int changed = std::min(oldTop, newTop);
    const int first = newTop - changed;
    for (int row = first; row < newTop; ++row)
        m_rows[row] = rows.at(row);
    if (changed > 0)
        Q_EMIT dataChanged(index(first, 0), index(newTop - 1, ColumnCount - 1));
}

QDateTime RunHistoryModel::nextTick() const
{
    const std::optional<TickSchedule> current = schedule();
    return current ? current->nextAfter(m_clock->wallNow()) : QDateTime();
}

QDateTime RunHistoryModel::lastSuccess() const
{
    for (qsizetype i = m_records.size() - 1; i >= 0; --i)
        if (m_records.at(i).outcome == RunRecord::succeeded)
            return m_records.at(i).end;
    return {};
}

QString RunHistoryModel::summary() const
{
    if (m_records.isEmpty())
        return {};
    const std::optional<TickSchedule> current = schedule();
    if (!current)
        return tr("These runs were recorded without their schedule: the next tick and the missed ones are not known.");
    const QDateTime now = m_clock->wallNow();
    const QDateTime next = nextTick();
    QString text = next.isValid()
            ? tr("Schedule %1: next tick %2 (in %3).")
                      .arg(current->text(), tickText(next), LeaseTableModel::formatDuration(now.msecsTo(next)))
            : tr("Schedule %1: no tick comes in the next years.").arg(current->text());
    const QDateTime success = lastSuccess();
    text += QLatin1Char(' ');
    text += success.isValid()
            ? tr("Last success: %1 ago.").arg(LeaseTableModel::formatDuration(std::max<qint64>(0, success.msecsTo(now))))
            : tr("No run recorded here succeeded.");
    return text;
}

QString RunHistoryModel::describeOutcome(const QString &outcome)
{
    if (outcome == RunRecord::running)
        return tr("running");
    if (outcome == RunRecord::succeeded)
        return tr("succeeded");
    if (outcome == RunRecord::interrupted)
        return tr("interrupted: leadership ended");
    if (outcome == RunRecord::skipped)
        return tr("skipped: previous run still going");
    static const QRegularExpression failure(QStringLiteral("^failed: (exit code|signal) (\\d+)$"));
    const QRegularExpressionMatch match = failure.match(outcome);
    if (match.hasMatch())
        return match.captured(1) == QLatin1String("signal") ? tr("failed: signal %1").arg(match.captured(2))
                                                              : tr("failed: exit code %1").arg(match.captured(2));
    return outcome; // from a later version: as it was written
}

int RunHistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RunHistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString RunHistoryModel::display(const RunRow &row, int column) const
{
    const RunRecord &run = row.record;
    if (row.isMissed()) {
        if (column == TickColumn)
            return tickText(row.firstMissed);
        if (column != OutcomeColumn)
            return {};
        if (row.missed == 1)
            return tr("missed");
        const QString until = row.lastMissed.toLocalTime().date() == row.firstMissed.toLocalTime().date()
                ? timeText(row.lastMissed)
                : tickText(row.lastMissed);
        return row.missedMore ? tr("missed: over %n tick(s), until %1", nullptr, row.missed).arg(until)
                              : tr("missed: %n tick(s), until %1", nullptr, row.missed).arg(until);
    }
    switch (column) {
    case TickColumn:
        return tickText(QDateTime::fromString(run.tick, Qt::ISODate));
    case InstanceColumn:
        return run.instance;
    case StartColumn:
        return timeText(run.start);
    case DurationColumn:
        if (run.isRunning() && run.start.isValid())
            return tr("%1 so far").arg(LeaseTableModel::formatDuration(
                    std::max<qint64>(0, run.start.msecsTo(m_clock->wallNow()))));
        // A skipped tick never ran; an interrupted run ended when a later leader noticed, not when it stopped.
        if (run.outcome == RunRecord::skipped || run.outcome == RunRecord::interrupted || !run.end.isValid())
            return {};
        return LeaseTableModel::formatDuration(std::max<qint64>(0, run.start.msecsTo(run.end)));
    case OutcomeColumn:
        return run.attempt > 1 ? tr("%1 (attempt %2)").arg(describeOutcome(run.outcome)).arg(run.attempt)
                               : describeOutcome(run.outcome);
    default:
        return {};
    }
}

QString RunHistoryModel::toolTip(const RunRow &row) const
{
    if (row.isMissed())
        return tr("No run was recorded for %n tick(s) of the schedule, from %1 to %2.", nullptr, row.missed)
                .arg(tickText(row.firstMissed), tickText(row.lastMissed));
    const RunRecord &run = row.record;
    const QString end = run.end.isValid() ? tickText(run.end) : tr("not yet");
    return tr("Tick %1 (BATON_TICK), run by %2 with fencing token %3.\nStarted %4, ended %5, by the clock of the "
              "instance that recorded it.\n%6")
            .arg(run.tick, run.instance, QString::number(run.token), tickText(run.start), end,
                 describeOutcome(run.outcome));
}

QVariant RunHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunRow &row = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return display(row, index.column());
    case Qt::ToolTipRole:
        return toolTip(row);
    case Qt::ForegroundRole:
        if (row.isMissed())
            return QColor(0x8a, 0x8a, 0x8a);
        if (failed(row.record.outcome))
            return QColor(0xd6, 0x3b, 0x3b);
        return {};
    case Qt::FontRole:
        if (row.isMissed() || row.record.isRunning()) {
            QFont font;
            font.setItalic(row.isMissed());
            font.setBold(row.record.isRunning());
            return font;
        }
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == DurationColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case OutcomeKeyRole:
        return row.isMissed() ? QStringLiteral("missed") : row.record.outcome;
    case TickRole:
        return row.isMissed() ? row.firstMissed : QDateTime::fromString(row.record.tick, Qt::ISODate);
    case MissedCountRole:
        return row.missed;
    case AttemptRole:
        return row.isMissed() ? 0 : row.record.attempt;
    default:
        return {};
    }
}

QVariant RunHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case TickColumn:
        return tr("Tick");
    case InstanceColumn:
        return tr("Instance");
    case StartColumn:
        return tr("Start");
    case DurationColumn:
        return tr("Duration");
    case OutcomeColumn:
        return tr("Outcome");
    default:
        return {};
    }
}

} // namespace baton
