#pragma once

#include "leasetableview.h"

#include <QMainWindow>
#include <QPointer>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QSettings;
class QSplitter;
class QSystemTrayIcon;
class QTabWidget;
class QTableView;

namespace baton {

class ConnectionRepository;
class DashboardSession;
class LeaseDetailPanel;
class ParticipationPanel;
class FleetTimelineWidget;
class RenewTimingWidget;
class TimelineWidget;

/*!
 * The dashboard's window (O4): every lease in a dense table with a
 * filter box, and for the selected lease its details and timings, the
 * timeline of its holders, its renew timings, its failover history and
 * the runs of its scheduled work (RunsTab), the instances that stand for
 * it and the operator's steering of it (CandidatesTab);
 * beside that timeline, the fleet's: every lease's holders at a glance.
 * Shows what DashboardSession holds; the logic lives there and in the
 * models.
 */
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    /*! \a repository may be null (the demo): then no connection can be picked. */
    MainWindow(DashboardSession *session, ConnectionRepository *repository, QSettings *settings,
               QWidget *parent = nullptr);
    ~MainWindow() override;

    /*! Opens saved connection \a id (its secrets read from the keychain first). */
    void openConnection(const QString &id);
    /*! Opens the connection used last, if any. */
    void openLastConnection();
    /*! Selects \a lease in the table (and so in the detail views). */
    void selectLease(const QString &lease) { m_table->selectLease(lease); }
    QString selectedLease() const { return m_table->selectedLease(); }
    /*! Writes the history shown to \a path: CSV, or JSON when \a json. */
    bool exportHistory(const QString &path, bool json, QString *errorString) const;
    /*! The connection dialog, as the Connections action opens it. */
    void showConnections();

    LeaseTableView *leaseView() const { return m_table; }
    TimelineWidget *timeline() const { return m_timeline; }
    FleetTimelineWidget *fleetTimeline() const { return m_fleet; }
    /*! The tabs of the timelines: the selected lease's, and the fleet's. */
    QTabWidget *timelineTabs() const { return m_timelineTabs; }
    QTabWidget *detailTabs() const { return m_tabs; }
    QLineEdit *filterEdit() const { return m_filter; }

    /*! Shows \a message as a desktop notification, or in the status bar without a tray. */
    void notify(const QString &title, const QString &message);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    /*! The tool bar: the connection, the filter; returns the action that manages connections. */
    QAction *addConnectionBar();
    /*! The selected lease's details, and joining its election. */
    QWidget *sidePanel();
    /*! The timelines: the selected lease's, and the fleet's. */
    QWidget *timelinePanel();
    /*! The failover history and its export buttons. */
    QWidget *historyPage();
    /*! The table and \a side above, \a timelines beside the tabs of \a history and the renew timings below. */
    void layOut(QWidget *side, QWidget *timelines, QWidget *history);
    void bindSession();
    void onCurrentChanged();
    void saveLayout() const;
    void restoreLayout();
    void reloadConnections();
    void exportHistoryInteractively(bool json);

    QPointer<DashboardSession> m_session;
    ConnectionRepository *m_repository;
    QSettings *m_settings;
    LeaseTableView *m_table;
    QLineEdit *m_filter;
    QComboBox *m_connections;
    LeaseDetailPanel *m_detail;
    ParticipationPanel *m_participation;
    TimelineWidget *m_timeline;
    FleetTimelineWidget *m_fleet;
    QTabWidget *m_timelineTabs;
    RenewTimingWidget *m_renewTimings;
    QTableView *m_history;
    QTabWidget *m_tabs;
    QSplitter *m_vertical;
    QSplitter *m_top;
    QSplitter *m_bottom;
    QLabel *m_leaseCount;
    QSystemTrayIcon *m_tray = nullptr;
};

} // namespace baton
