#include "mainwindow.h"

#include "candidatestab.h"
#include "connectiondialog.h"
#include "connectionrepository.h"
#include "dashboardparticipant.h"
#include "dashboardsession.h"
#include "failoverhistorymodel.h"
#include "guilogging.h"
#include "leaseactivity.h"
#include "leasedetailpanel.h"
#include "leasefilterproxymodel.h"
#include <baton/leaseobserver.h>
#include "leasetablemodel.h"
#include "participationpanel.h"
#include <batoninternal/privatefiles.h>
#include "renewtimingwidget.h"
#include "runstab.h"
#include "fleettimelinemodel.h"
#include "fleettimelinewidget.h"
#include "timelinewidget.h"

#include <QAction>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QShortcut>
#include <QSplitter>
#include <QStatusBar>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

namespace baton {

MainWindow::MainWindow(DashboardSession *session, ConnectionRepository *repository, QSettings *settings,
                       QWidget *parent)
    : QMainWindow(parent)
    , m_session(session)
    , m_repository(repository)
    , m_settings(settings)
    , m_table(new LeaseTableView(this))
    , m_filter(new QLineEdit(this))
    , m_connections(new QComboBox(this))
    , m_detail(new LeaseDetailPanel(this))
    , m_participation(new ParticipationPanel(this))
    , m_timeline(new TimelineWidget(this))
    , m_fleet(new FleetTimelineWidget(this))
    , m_timelineTabs(new QTabWidget(this))
    , m_renewTimings(new RenewTimingWidget(this))
    , m_history(new QTableView(this))
    , m_tabs(new QTabWidget(this))
    , m_vertical(new QSplitter(Qt::Vertical, this))
    , m_top(new QSplitter(Qt::Horizontal, this))
    , m_bottom(new QSplitter(Qt::Horizontal, this))
    , m_leaseCount(new QLabel(this))
{
    setWindowTitle(tr("Baton"));
    setObjectName(QStringLiteral("dashboard"));
    QAction *manage = addConnectionBar();
    connect(m_table, &LeaseTableView::currentLeaseChanged, this, &MainWindow::onCurrentChanged);
    // One after the other: the order they are made in is the order of the focus chain.
    QWidget *side = sidePanel();
    QWidget *timelines = timelinePanel();
    QWidget *history = historyPage();
    layOut(side, timelines, history);
    statusBar()->addPermanentWidget(m_leaseCount);

    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        m_tray = new QSystemTrayIcon(windowIcon(), this);
        m_tray->setToolTip(tr("Baton dashboard"));
        m_tray->show();
    }
    if (m_repository) {
        connect(m_repository, &ConnectionRepository::changed, this, &MainWindow::reloadConnections);
        reloadConnections();
        connect(m_connections, &QComboBox::activated, this, [this](int index) {
            openConnection(m_connections->itemData(index).toString());
        });
    } else {
        m_connections->setEnabled(false);
        manage->setEnabled(false);
    }
    connect(m_session, &DashboardSession::opened, this, &MainWindow::bindSession);
    connect(m_session, &DashboardSession::closed, this, &MainWindow::bindSession);
    connect(m_session, &DashboardSession::alert, this, &MainWindow::notify);
    connect(m_session, &DashboardSession::storeError, this,
            [this](const QString &message) { statusBar()->showMessage(tr("Store: %1").arg(message), 10000); });
    resize(1280, 820);
    m_top->setSizes({780, 500});
    m_bottom->setSizes({700, 580});
    m_vertical->setSizes({470, 350});
    restoreLayout();
    bindSession();
}

QAction *MainWindow::addConnectionBar()
{
    QToolBar *bar = addToolBar(tr("Connection"));
    bar->setObjectName(QStringLiteral("connectionBar"));
    bar->setMovable(false);
    bar->addWidget(new QLabel(tr("Connection "), this));
    m_connections->setObjectName(QStringLiteral("connectionBox"));
    m_connections->setMinimumContentsLength(18);
    m_connections->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    bar->addWidget(m_connections);
    QAction *manage = bar->addAction(tr("Connections…"));
    manage->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_O));
    manage->setToolTip(tr("Add, edit or remove connections (Ctrl+O)"));
    connect(manage, &QAction::triggered, this, &MainWindow::showConnections);
    bar->addSeparator();
    m_filter->setObjectName(QStringLiteral("filter"));
    m_filter->setPlaceholderText(tr("Filter: words match lease or holder; holder:… lease:…  (Ctrl+F)"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMinimumWidth(360);
    bar->addWidget(m_filter);
    auto *focusFilter = new QShortcut(QKeySequence::Find, this);
    connect(focusFilter, &QShortcut::activated, this, [this] {
        m_filter->setFocus();
        m_filter->selectAll();
    });
    connect(m_filter, &QLineEdit::returnPressed, m_table, qOverload<>(&QWidget::setFocus));
    return manage;
}

QWidget *MainWindow::sidePanel()
{
    auto *side = new QWidget(this);
    auto *sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(8, 0, 0, 0);
    sideLayout->addWidget(m_detail);
    sideLayout->addWidget(m_participation);
    sideLayout->addStretch(1);
    connect(m_participation, &ParticipationPanel::message, this,
            [this](const QString &text) { statusBar()->showMessage(text, 10000); });
    return side;
}

QWidget *MainWindow::timelinePanel()
{
    auto *timelineBox = new QWidget(this);
    auto *timelineLayout = new QVBoxLayout(timelineBox);
    timelineLayout->setContentsMargins(0, 0, 0, 0);
    auto *timelineTitle = new QLabel(tr("<b>Holders over time</b> — wheel: zoom, drag: scroll, hover: exact times"), this);
    timelineLayout->addWidget(timelineTitle);
    m_timelineTabs->setObjectName(QStringLiteral("timelineTabs"));
    m_timelineTabs->setDocumentMode(true);
    m_timelineTabs->addTab(m_timeline, tr("Selected lease"));
    m_timelineTabs->addTab(m_fleet, tr("All leases"));
    timelineLayout->addWidget(m_timelineTabs, 1);
    m_timeline->setObjectName(QStringLiteral("timeline"));
    m_fleet->setObjectName(QStringLiteral("fleetTimeline"));
    connect(m_fleet, &FleetTimelineWidget::leaseActivated, this, &MainWindow::selectLease);
    // The fleet highlights the lanes of the holders the filter box names.
    connect(m_filter, &QLineEdit::textChanged, m_fleet, [this](const QString &text) {
        m_fleet->model()->setHolderFilter(LeaseFilterProxyModel::holderWordsIn(text));
    });
    m_renewTimings->setObjectName(QStringLiteral("renewTimings"));
    return timelineBox;
}

QWidget *MainWindow::historyPage()
{
    auto *historyPage = new QWidget(this);
    auto *historyLayout = new QVBoxLayout(historyPage);
    m_history->setObjectName(QStringLiteral("historyTable"));
    m_history->verticalHeader()->hide();
    m_history->horizontalHeader()->setStretchLastSection(true);
    m_history->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_history->setWordWrap(false);
    historyLayout->addWidget(m_history, 1);
    auto *exportRow = new QHBoxLayout;
    exportRow->addStretch();
    auto *csv = new QPushButton(tr("Export CSV…"), this);
    auto *json = new QPushButton(tr("Export JSON…"), this);
    csv->setObjectName(QStringLiteral("exportCsv"));
    json->setObjectName(QStringLiteral("exportJson"));
    exportRow->addWidget(csv);
    exportRow->addWidget(json);
    historyLayout->addLayout(exportRow);
    connect(csv, &QPushButton::clicked, this, [this] { exportHistoryInteractively(false); });
    connect(json, &QPushButton::clicked, this, [this] { exportHistoryInteractively(true); });
    return historyPage;
}

void MainWindow::layOut(QWidget *side, QWidget *timelines, QWidget *history)
{
    m_top->addWidget(m_table);
    m_top->addWidget(side);
    m_top->setStretchFactor(0, 3);
    m_top->setStretchFactor(1, 2);
    m_tabs->setObjectName(QStringLiteral("detailTabs"));
    m_tabs->addTab(history, tr("Failover history"));
    m_tabs->addTab(m_renewTimings, tr("Renew timings"));
    m_tabs->addTab(new RunsTab(m_session, m_table, this), tr("Runs"));
    m_tabs->addTab(new CandidatesTab(m_session, m_table, this), tr("Candidates"));
    m_bottom->addWidget(timelines);
    m_bottom->addWidget(m_tabs);
    m_bottom->setStretchFactor(0, 3);
    m_bottom->setStretchFactor(1, 2);
    m_vertical->addWidget(m_top);
    m_vertical->addWidget(m_bottom);
    m_vertical->setStretchFactor(0, 3);
    m_vertical->setStretchFactor(1, 2);
    m_top->setObjectName(QStringLiteral("topSplitter"));
    m_bottom->setObjectName(QStringLiteral("bottomSplitter"));
    m_vertical->setObjectName(QStringLiteral("verticalSplitter"));
    setCentralWidget(m_vertical);
}

MainWindow::~MainWindow()
{
    saveLayout();
}

void MainWindow::reloadConnections()
{
    const QString current = m_session ? m_session->connectionId() : QString();
    m_connections->clear();
    const QList<Connection> all = m_repository->connections();
    for (const Connection &c : all)
        m_connections->addItem(c.displayName(), c.id);
    if (all.isEmpty())
        m_connections->addItem(tr("(none: add one with Connections…)"), QString());
    const int index = m_connections->findData(current);
    if (index >= 0)
        m_connections->setCurrentIndex(index);
}

void MainWindow::bindSession()
{
    if (!m_session || !m_session->isOpen()) {
        m_table->setLeaseModel(nullptr);
        m_history->setModel(nullptr);
        m_timeline->setActivity(nullptr);
        m_fleet->setActivity(nullptr);
        m_renewTimings->setActivity(nullptr);
        m_participation->setParticipant(nullptr);
        m_detail->setSession(m_session);
        m_leaseCount->clear();
        return;
    }
    setWindowTitle(tr("%1 — Baton").arg(m_session->title()));
    if (!m_repository) {
        m_connections->clear();
        m_connections->addItem(m_session->title());
    }
    m_table->setLeaseModel(m_session->filterModel(),
                           m_settings ? m_settings->value(QStringLiteral("window/leaseTable")).toByteArray() : QByteArray());
    m_session->filterModel()->setFilterText(m_filter->text());
    connect(m_filter, &QLineEdit::textChanged, m_session->filterModel(), &LeaseFilterProxyModel::setFilterText,
            Qt::UniqueConnection);
    m_fleet->model()->setHolderFilter(LeaseFilterProxyModel::holderWordsIn(m_filter->text()));

    QItemSelectionModel *oldHistorySelection = m_history->selectionModel();
    m_history->setModel(m_session->historyModel());
    delete oldHistorySelection;
    m_history->setColumnWidth(FailoverHistoryModel::WhenColumn, 180);
    m_history->setColumnWidth(FailoverHistoryModel::FromColumn, 130);
    m_history->setColumnWidth(FailoverHistoryModel::ToColumn, 130);
    m_timeline->setActivity(m_session->activity());
    m_fleet->setActivity(m_session->activity());
    m_renewTimings->setActivity(m_session->activity());
    m_participation->setParticipant(m_session->participant());
    m_detail->setSession(m_session);
    connect(m_session->participant(), &DashboardParticipant::stateChanged, this, [this] {
        DashboardParticipant *p = m_session ? m_session->participant() : nullptr;
        const bool mine = p && p->isJoined() && p->parameters().leaseName == selectedLease();
        m_renewTimings->setRenewInterval(mine ? p->parameters().renewIntervalMs : -1);
    });
    auto count = [this] {
        if (m_session && m_session->leaseModel())
            m_leaseCount->setText(tr("%n lease(s)", nullptr, m_session->leaseModel()->rowCount()));
    };
    connect(m_session->leaseModel(), &QAbstractItemModel::rowsInserted, this, count);
    connect(m_session->leaseModel(), &QAbstractItemModel::rowsRemoved, this, count);
    count();
    onCurrentChanged();
}

void MainWindow::onCurrentChanged()
{
    const QString lease = selectedLease();
    m_detail->setLease(lease);
    m_timeline->setLease(lease);
    m_fleet->model()->setSelectedLease(lease);
    m_renewTimings->setLease(lease);
    qint64 leaseDurationMs = -1;
    qint64 renewIntervalMs = -1;
    if (m_session && m_session->observer() && !lease.isEmpty()) {
        if (const std::optional<ObservedLease> observed = m_session->observer()->lease(lease))
            leaseDurationMs = observed->record.leaseDurationMs;
        if (m_session->activity())
            renewIntervalMs = LeaseActivity::estimatedRenewInterval(m_session->activity()->track(lease));
    }
    m_participation->setSelectedLease(lease, leaseDurationMs, renewIntervalMs);
    if (m_session && m_session->historyModel()) {
        m_session->historyModel()->setLease(lease);
        m_history->setColumnHidden(FailoverHistoryModel::LeaseColumn, !lease.isEmpty());
    }
    DashboardParticipant *p = m_session ? m_session->participant() : nullptr;
    const bool mine = p && p->isJoined() && p->parameters().leaseName == lease;
    m_renewTimings->setRenewInterval(mine ? p->parameters().renewIntervalMs : -1);
}

void MainWindow::openConnection(const QString &id)
{
    if (!m_repository || id.isEmpty())
        return;
    const std::optional<Connection> connection = m_repository->connection(id);
    if (!connection) {
        statusBar()->showMessage(tr("That connection no longer exists."), 10000);
        return;
    }
    statusBar()->showMessage(tr("Opening %1…").arg(connection->displayName()));
    QPointer<MainWindow> self(this);
    m_repository->loadSecrets(*connection, [self](const Connection &loaded, const QString &keychainError) {
        if (!self || !self->m_session)
            return;
        QString error;
        if (!self->m_session->open(loaded, &error)) {
            if (!keychainError.isEmpty())
                error += tr(" (keychain: %1)").arg(keychainError);
            self->statusBar()->showMessage(tr("Cannot open %1: %2").arg(loaded.displayName(), error));
            self->bindSession();
            return;
        }
        self->m_repository->setLastConnectionId(loaded.id);
        self->statusBar()->showMessage(tr("Connected to %1").arg(loaded.displayName()), 5000);
        const int index = self->m_connections->findData(loaded.id);
        if (index >= 0)
            self->m_connections->setCurrentIndex(index);
    });
}

void MainWindow::openLastConnection()
{
    if (!m_repository)
        return;
    if (!m_repository->lastConnectionId().isEmpty()) {
        openConnection(m_repository->lastConnectionId());
        return;
    }
    // A first start on a host where `baton join` already runs without a
    // configured Registry: its elections are in this host's folder.
    if (m_repository->connections().isEmpty() && QDir(Connection::thisHostRegistryFolder()).exists()) {
        QPointer<MainWindow> self(this);
        const QString id = m_repository->save(Connection::thisHost(), [self](bool ok, const QString &error) {
            if (self && !ok)
                self->statusBar()->showMessage(tr("Cannot save the connection to this host: %1").arg(error));
        });
        openConnection(id);
        return;
    }
    statusBar()->showMessage(tr("No connection yet: add one with Connections… (Ctrl+O)"));
}

void MainWindow::showConnections()
{
    if (!m_repository)
        return;
    ConnectionDialog dialog(m_repository, this);
    dialog.selectConnection(m_session ? m_session->connectionId() : QString());
    if (dialog.exec() == QDialog::Accepted && !dialog.connectionToOpen().isEmpty())
        openConnection(dialog.connectionToOpen());
}

bool MainWindow::exportHistory(const QString &path, bool json, QString *errorString) const
{
    if (!m_session || !m_session->historyModel()) {
        *errorString = tr("No connection is open.");
        return false;
    }
    QSaveFile file(path);
    if (!privatefiles::openForWriting(file)) {
        *errorString = file.errorString();
        return false;
    }
    const QByteArray bytes = json ? m_session->historyModel()->toJson() : m_session->historyModel()->toCsv();
    if (file.write(bytes) != bytes.size() || !file.commit()) {
        *errorString = file.errorString();
        return false;
    }
    return true;
}

void MainWindow::exportHistoryInteractively(bool json)
{
    const QString lease = selectedLease().isEmpty() ? QStringLiteral("all") : selectedLease();
    const QString suggested = QStringLiteral("%1-history.%2").arg(lease, json ? QStringLiteral("json") : QStringLiteral("csv"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the failover history"), suggested,
                                                      json ? tr("JSON (*.json)") : tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (exportHistory(path, json, &error))
        statusBar()->showMessage(tr("History written to %1").arg(path), 5000);
    else
        statusBar()->showMessage(tr("Cannot write %1: %2").arg(path, error), 10000);
}

void MainWindow::notify(const QString &title, const QString &message)
{
    qCInfo(lcGui).noquote() << QStringLiteral("alert: %1").arg(message);
    if (m_tray && m_tray->isVisible() && QSystemTrayIcon::supportsMessages())
        m_tray->showMessage(title, message, QSystemTrayIcon::Warning, 10000);
    statusBar()->showMessage(QString(message).replace(QLatin1Char('\n'), QStringLiteral(" · ")), 15000);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveLayout();
    QMainWindow::closeEvent(event);
}

void MainWindow::saveLayout() const
{
    if (!m_settings)
        return;
    m_settings->setValue(QStringLiteral("window/geometry"), saveGeometry());
    m_settings->setValue(QStringLiteral("window/state"), saveState());
    m_settings->setValue(QStringLiteral("window/vertical"), m_vertical->saveState());
    m_settings->setValue(QStringLiteral("window/top"), m_top->saveState());
    m_settings->setValue(QStringLiteral("window/bottom"), m_bottom->saveState());
    if (m_table->model())
        m_settings->setValue(QStringLiteral("window/leaseTable"), m_table->horizontalHeader()->saveState());
}

void MainWindow::restoreLayout()
{
    if (!m_settings)
        return;
    restoreGeometry(m_settings->value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(m_settings->value(QStringLiteral("window/state")).toByteArray());
    m_vertical->restoreState(m_settings->value(QStringLiteral("window/vertical")).toByteArray());
    m_top->restoreState(m_settings->value(QStringLiteral("window/top")).toByteArray());
    m_bottom->restoreState(m_settings->value(QStringLiteral("window/bottom")).toByteArray());
}

} // namespace baton
