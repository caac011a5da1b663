#pragma once

#include "runrows.h"

#include <baton/store.h>

#include <QAbstractTableModel>
#include <QPointer>
#include <QTimer>

namespace baton {

class Clock;
class LeaseObserver;
class RunLedger;

/*!
 * The Runs tab of one lease (S4, O4): its scheduled work's run records,
 * newest tick first, with the ticks nobody recorded as "missed" rows
 * (RunRows), the schedule and its next tick. Times are wall-clock, for
 * display only: the runners' clocks for a run, this host's for what is due.
 * A rerun's outcome says its attempt, as `baton status --runs` does.
 *
 * It reads the records with RunLedger::list over the connection's store and
 * follows them with a watch of the lease's `run:<lease>:` keys: a run shows
 * as it starts and as it ends, and an idle schedule costs no reads. A burst
 * of changes is one list at a time (a change during a list lists once
 * more). A store without a watch is listed every pollIntervalMs instead,
 * the default renew interval: no faster than the elections beside it.
 */
class RunHistoryModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { TickColumn, InstanceColumn, StartColumn, DurationColumn, OutcomeColumn, ColumnCount };
    Q_ENUM(Column)

    enum Role {
        /*! QString: the outcome as the record keeps it, or "missed". */
        OutcomeKeyRole = Qt::UserRole + 1,
        /*! QDateTime (UTC): the tick's instant (a missed stretch's first). */
        TickRole,
        /*! int: how many ticks a missed row stands for; 0 for a run. */
        MissedCountRole,
        /*! int: how many times the tick was started (the outcome says it when above 1); 0 for a missed row. */
        AttemptRole,
    };
    Q_ENUM(Role)

    static constexpr int pollIntervalMs = 5000;

    explicit RunHistoryModel(QObject *parent = nullptr);
    ~RunHistoryModel() override;

    /*!
     * Reads and follows the runs of \a lease in \a store (null, or an empty
     * lease: none), judging what is due by \a clock (null: this host's).
     */
    void setSource(Store *store, const QString &lease, const Clock *clock = nullptr);
    /*!
     * Reads the runs of \a lease where \a observer sees it without a store
     * (Kubernetes: a ConfigMap per run beside the Lease), listed again every
     * pollIntervalMs, since nothing watches those.
     */
    void setSource(LeaseObserver *observer, const QString &lease, const Clock *clock = nullptr);
    Store *store() const { return m_store; }
    QString lease() const { return m_lease; }
    /*! Works out the rows again at the clock's time: a tick due since is missed, a run goes on. */
    void refreshTime();

    /*! The first list answered (records() is what the store holds). */
    bool isLoaded() const { return m_loaded; }
    /*! Why the last list failed; empty when it did not. */
    QString error() const { return m_error; }
    QList<RunRecord> records() const { return m_records; }
    const RunRow &rowAt(int row) const { return m_rows.at(row); }
    /*! The schedule the newest record names, if any. */
    std::optional<TickSchedule> schedule() const { return runrows::scheduleOf(m_records); }
    /*! The schedule's next tick after the clock's time; invalid without a schedule. */
    QDateTime nextTick() const;
    /*! When the newest succeeded run ended; invalid when none did. */
    QDateTime lastSuccess() const;
    /*! The schedule, its next tick and the last success, in a sentence of the current language. */
    QString summary() const;
    /*! An outcome as a record keeps it, in words of the current language. */
    static QString describeOutcome(const QString &outcome);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    /*! A list answered: the records, the schedule or the error may have changed. */
    void loaded();

private:
    /*! Forgets the current source; false when \a store, \a observer, \a lease and \a clock are it already. */
    bool reset(Store *store, LeaseObserver *observer, const QString &lease, const Clock *clock);
    void list();
    void show(QList<RunRow> rows);
    QString display(const RunRow &row, int column) const;
    QString toolTip(const RunRow &row) const;

    QPointer<Store> m_store;
    QPointer<LeaseObserver> m_observer;
    QString m_lease;
    const Clock *m_clock;
    RunLedger *m_ledger = nullptr;
    StoreWatch *m_watch = nullptr;
    QTimer m_poll;
    bool m_listing = false;
    bool m_listAgain = false;
    bool m_loaded = false;
    QString m_error;
    QList<RunRecord> m_records;
    QList<RunRow> m_rows;
    /*! The latest overdue tick when the rows were last worked out by refreshTime(). */
    QDateTime m_overdue;
};

} // namespace baton
