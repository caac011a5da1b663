#pragma once

#include <QPointer>
#include <QTimer>
#include <QWidget>

class QLabel;
class QTableView;

namespace baton {

class DashboardSession;
class LeaseTableView;
class RunHistoryModel;

/*!
 * The Runs tab (S4, O4): for the lease selected in \a leases, the runs of
 * its scheduled work (`baton join --schedule`) as RunHistoryModel reads
 * them from the session's store, the ticks nobody ran, and the next tick.
 * It follows the session (opened, closed) and the selection by itself.
 * Without run records it says what the tab is for; on a Kubernetes
 * connection, that its run records are not shown here.
 */
class RunsTab : public QWidget
{
    Q_OBJECT
public:
    RunsTab(DashboardSession *session, LeaseTableView *leases, QWidget *parent = nullptr);

    RunHistoryModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }

protected:
    void showEvent(QShowEvent *event) override;

private:
    /*! Reads the selected lease of the open session, if that changed. */
    void follow();
    void refresh();

    QPointer<DashboardSession> m_session;
    LeaseTableView *m_leases;
    RunHistoryModel *m_model;
    QLabel *m_summary;
    QLabel *m_empty;
    QTableView *m_table;
    QTimer m_clock;
};

} // namespace baton
