#pragma once

#include <baton/leaseobserver.h>

#include <QAbstractTableModel>

namespace baton {

/*!
 * The failover history (O2, O4) of an observer, for one lease (setLease())
 * or for all: from, to, when, why, and how long the lease was without a
 * leader. Newest last, as it happened. It starts with what the leases store
 * (LeaseObserver::history() at ready(), again at historyRead()), then
 * follows what the observer sees. A clean handover is one row: released,
 * from the old holder to its successor, with the gap; it shows as a release
 * to nobody until the successor is seen. A row read from the stored history
 * is in italics, and its tooltip says whose clock its times are by.
 */
class FailoverHistoryModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { WhenColumn, LeaseColumn, FromColumn, ToColumn, WhyColumn, GapColumn, ColumnCount };
    Q_ENUM(Column)

    enum Role {
        /*! QString: the cause as in the event stream: first-acquire, released, expired, taken-over. */
        WhyKeyRole = Qt::UserRole + 1,
        /*! qint64: milliseconds without a leader; -1 when unknown. */
        GapMsRole,
        /*! QDateTime (UTC): when this observer saw the change. */
        WhenRole,
        /*! qint64: this observer's monotonic clock at the change (an estimate for a recorded row). */
        MonoRole,
        /*! bool: read from the stored history, as the new holder recorded it, not seen live. */
        RecordedRole,
        SortRole,
    };
    Q_ENUM(Role)

    explicit FailoverHistoryModel(LeaseObserver *observer, QObject *parent = nullptr);

    /*! Shows the history of \a lease only; an empty name shows every lease. */
    void setLease(const QString &lease);
    QString lease() const { return m_lease; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    QList<LeaseFailover> failovers() const { return m_rows; }
    const LeaseFailover &failoverAt(int row) const { return m_rows.at(row); }
    /*! The rows shown, in the formats of `baton status --history` (R2: no secret in them). */
    QByteArray toCsv() const;
    QByteArray toJson() const;

    /*! The cause in words, in the current language. */
    static QString describeWhy(const QString &why);

private:
    /*! Shows the observer's history again: it now starts with the stored one. */
    void reload() { setLease(m_lease); }
    void append(const LeaseFailover &change);
    void completeHandover(const LeaseFailover &change);

    LeaseObserver *m_observer;
    QString m_lease;
    QList<LeaseFailover> m_rows;
};

} // namespace baton
