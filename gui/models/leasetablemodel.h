#pragma once

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QSet>
#include <QTimer>

#include <baton/leaseobserver.h>

namespace baton {

/*!
 * Every lease a LeaseObserver sees, one row each (O4). Knows nothing of
 * widgets: the freshness bar is painted by a delegate from FreshnessRole.
 *
 * Updates are batched: the observer reports every renewal, which with
 * thousands of leases is hundreds of changes a second; the model collects
 * them and emits one dataChanged per run of contiguous rows every
 * updateInterval() milliseconds, and never resets. New leases are inserted
 * at most insertBatch at a time, one range each, the rest on the next
 * event-loop turn: a first list of 20,000 leases fills the table in steps.
 *
 * Time-dependent columns (held since, last renewal) move every
 * tickInterval(): timeAdvanced() says so, for views to repaint. The tick
 * emits dataChanged only for the rows whose order by freshness can change
 * with time alone, so that a sorting proxy re-sorts those, not the table:
 * leases with the same duration keep their order as they age, so only those
 * whose duration is not the most common one are named.
 */
class LeaseTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        LeaseColumn,
        HolderColumn,
        HeldSinceColumn,
        /*! Time since the record last changed, against the lease duration. */
        FreshnessColumn,
        /*! Holder changes this observer has seen. */
        ChangesColumn,
        /*! The record's leaseTransitions (F7). */
        TransitionsColumn,
        StateColumn,
        ColumnCount
    };
    Q_ENUM(Column)

    enum Role {
        /*!
         * double: milliseconds since the record last changed (by this
         * observer's clock, F2) divided by the lease duration; 1.0 is the
         * instant the lease expires for a follower. -1 when the lease has no
         * holder or cannot be read.
         */
        FreshnessRole = Qt::UserRole + 1,
        /*! qint64: milliseconds since the record last changed. */
        SinceChangeMsRole,
        /*! qint64: the record's lease duration in milliseconds. */
        LeaseDurationMsRole,
        /*! QString: the lease name, whatever the column. */
        LeaseNameRole,
        /*! QString: the holder, empty when free. */
        HolderRole,
        /*! bool: the holder's lease ran out unrenewed, as this observer sees it. */
        ExpiredRole,
        /*! bool: the holder is the dashboard's own instance (setOwnInstanceId()). */
        OwnLeaseRole,
        /*! A value that sorts the column naturally (numbers as numbers). */
        SortRole,
        /*! State as a stable key: held, expired, free, unreadable. */
        StateKeyRole,
    };
    Q_ENUM(Role)

    explicit LeaseTableModel(LeaseObserver *observer, QObject *parent = nullptr);
    ~LeaseTableModel() override;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    /*! The row of lease \a name, or -1. */
    int rowOf(const QString &name) const;
    /*! The lease of \a row as last read from the observer. */
    const ObservedLease &leaseAt(int row) const { return m_rows.at(row); }

    /*! Marks the leases this instance holds (OwnLeaseRole, a bold row). */
    void setOwnInstanceId(const QString &instanceId);
    QString ownInstanceId() const { return m_ownInstanceId; }

    void setUpdateInterval(int ms) { m_flushTimer.setInterval(ms); }
    int updateInterval() const { return m_flushTimer.interval(); }
    void setTickInterval(int ms);
    /*! Applies the pending changes now, as the next batch would. */
    void flush();

    /*! The most new rows one flush() inserts. */
    static constexpr int insertBatch = 500;

Q_SIGNALS:
    /*!
     * Every tickInterval(): the time columns show new values in every row,
     * though only the rows whose sort order may change get dataChanged.
     */
    void timeAdvanced();

public:
    /*! "1.2 s", "3 min 4 s": a duration for people, in the current language. */
    static QString formatDuration(qint64 ms);
    /*!
     * When the holder of \a lease took it: the record's acquireTime (the
     * holder's clock), else when \a clock's observer first saw that holder.
     */
    static QDateTime heldSince(const ObservedLease &lease, const Clock &clock);

private:
    /*! The rows whose order by freshness can change with time alone (see the class). */
    QList<int> rowsReorderedByTime() const;
    void markDirty(const QString &name);
    /*! The next new leases to insert, at most insertBatch. */
    QStringList takeArriving();
    void tick();
    void emitRowRuns(QList<int> rows, int firstColumn, int lastColumn, const QList<int> &roles = {});
    void reindexFrom(int row);

    LeaseObserver *m_observer;
    QList<ObservedLease> m_rows;
    QHash<QString, int> m_rowOf;
    /*! Leases with a row, changed since the last flush. */
    QSet<QString> m_dirty;
    /*! New leases in the order they came, inserted from m_arrivingNext on. */
    QStringList m_arriving;
    qsizetype m_arrivingNext = 0;
    /*! The names in m_arriving not inserted yet. */
    QSet<QString> m_arrivingNames;
    /*! The next batch of new leases is on its way. */
    bool m_nextBatchPosted = false;
    QTimer m_flushTimer;
    QTimer m_tickTimer;
    QString m_ownInstanceId;
};

} // namespace baton
