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
 * updateInterval() milliseconds, and never resets. Time-dependent columns
 * (held since, last renewal) are refreshed every tickInterval().
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

    /*! "1.2 s", "3 min 4 s": a duration for people, in the current language. */
    static QString formatDuration(qint64 ms);
    /*!
     * When the holder of \a lease took it: the record's acquireTime (the
     * holder's clock), else when \a clock's observer first saw that holder.
     */
    static QDateTime heldSince(const ObservedLease &lease, const Clock &clock);

private:
    void markDirty(const QString &name);
    void tick();
    void emitRowRuns(QList<int> rows, int firstColumn, int lastColumn);
    void reindexFrom(int row);

    LeaseObserver *m_observer;
    QList<ObservedLease> m_rows;
    QHash<QString, int> m_rowOf;
    QSet<QString> m_dirty;
    QTimer m_flushTimer;
    QTimer m_tickTimer;
    QString m_ownInstanceId;
};

} // namespace baton
