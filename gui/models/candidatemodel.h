#pragma once

#include <batoninternal/candidatebook.h>

#include <QAbstractTableModel>
#include <QPointer>
#include <QTimer>

namespace baton {

class LeaseObserver;
class StoreWatch;

/*!
 * The Candidates tab of one lease: the instances that stand for it, as
 * their candidate records say (CandidateBook), with what each does now.
 * Rows: the leader first, then the others by priority (highest first),
 * then by name; candidates gone come last.
 *
 * The state is for display only and judged by wall time: a candidate is
 * gone when its record says it left, or its last heartbeat is older than 3
 * heartbeat intervals by this host's wall clock. The participants judge
 * liveness on their own boot clocks; this view may be off by a clock skew.
 *
 * It reads the records with CandidateBook::list over the observer's store
 * and follows them with a watch of the lease's `candidate:<lease>:` keys;
 * without a store (Kubernetes: a ConfigMap per candidate) or without a
 * watch, it lists every pollIntervalMs.
 */
class CandidateModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { InstanceColumn, PriorityColumn, StateColumn, HeartbeatColumn, LabelsColumn, ColumnCount };
    Q_ENUM(Column)

    enum class State {
        /*! The lease's holder. */
        Leading,
        /*! Live and not drained: takes the lease when it is free. */
        Live,
        /*! Drained while another live candidate is not: takes no lease. */
        StandingBy,
        /*! Drained, and no other live candidate could lead instead: still takes the lease. */
        Drained,
        /*! Left, or no heartbeat for 3 intervals. */
        Gone,
    };
    Q_ENUM(State)

    enum Role {
        /*! State, as int. */
        StateRole = Qt::UserRole + 1,
        /*! QString: the candidate's instance id. */
        InstanceRole,
        /*! bool: the record says drained. */
        DrainedRole,
    };
    Q_ENUM(Role)

    struct Row
    {
        CandidateRecord record;
        State state = State::Live;
    };

    static constexpr int pollIntervalMs = 5000;

    explicit CandidateModel(QObject *parent = nullptr);
    ~CandidateModel() override;

    /*! Reads and follows the candidates of \a lease as \a observer sees leases (null or empty: none). */
    void setSource(LeaseObserver *observer, const QString &lease);
    LeaseObserver *observer() const;
    QString lease() const { return m_lease; }
    /*! The lease's holder as the observer sees it; empty when nobody leads. */
    QString holder() const;
    /*! Works the states and the heartbeats' ages out again at the clock's time. */
    void refreshTime();

    /*! The first list answered. */
    bool isLoaded() const { return m_loaded; }
    /*! Why the last list (or opening the records) failed; empty when it did not. */
    QString error() const { return m_error; }
    const Row &rowAt(int row) const { return m_rows.at(row); }
    /*! The row of \a instance; -1 when it has none. */
    int rowOf(const QString &instance) const;
    /*! The rows that could take the lease now: not gone, not its holder. */
    QList<Row> successors() const;
    /*! Whether a candidate other than \a instance is live and not drained. */
    bool anotherCanLead(const QString &instance) const;

    /*! \a records in the order and with the states shown, given the lease's \a holder, at wall time \a now. */
    static QList<Row> arrange(const QList<CandidateRecord> &records, const QString &holder, const QDateTime &now);
    /*! Left, or no heartbeat for 3 heartbeat intervals at wall time \a now. */
    static bool isGone(const CandidateRecord &record, const QDateTime &now);
    /*! \a state in words of the current language. */
    static QString stateText(State state);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    /*! A list answered: the records or the error may have changed. */
    void loaded();

private:
    void list();
    /*! Shows \a rows, keeping the selection on the same instances. */
    void show(const QList<Row> &rows);
    void rearrange();
    QDateTime now() const;
    QString display(const Row &row, int column) const;
    QString toolTip(const Row &row) const;

    QPointer<LeaseObserver> m_observer;
    QString m_lease;
    CandidateBook *m_book = nullptr;
    StoreWatch *m_watch = nullptr;
    QTimer m_poll;
    bool m_listing = false;
    bool m_listAgain = false;
    bool m_loaded = false;
    QString m_error;
    QList<CandidateRecord> m_records;
    QList<Row> m_rows;
};

} // namespace baton
