#include "runstab.h"

#include "dashboardsession.h"
#include "leasetableview.h"
#include "runhistorymodel.h"

#include <baton/leaseobserver.h>

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace baton {

RunsTab::RunsTab(DashboardSession *session, LeaseTableView *leases, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_leases(leases)
    , m_model(new RunHistoryModel(this))
    , m_summary(new QLabel(this))
    , m_empty(new QLabel(this))
    , m_table(new QTableView(this))
{
    setObjectName(QStringLiteral("runsTab"));
    m_summary->setObjectName(QStringLiteral("runsSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_empty->setObjectName(QStringLiteral("runsEmpty"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_empty->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setObjectName(QStringLiteral("runsTable"));
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8); // dense, as the lease table
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    QHeaderView *header = m_table->horizontalHeader();
    header->setStretchLastSection(true); // the outcome: elided, whole in its tooltip
    for (const int column : {RunHistoryModel::TickColumn, RunHistoryModel::StartColumn, RunHistoryModel::DurationColumn})
        header->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    header->resizeSection(RunHistoryModel::InstanceColumn, 90);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_empty, 1);

    connect(m_model, &RunHistoryModel::loaded, this, &RunsTab::refresh);
    connect(leases, &LeaseTableView::currentLeaseChanged, this, &RunsTab::follow);
    if (session) {
        connect(session, &DashboardSession::opened, this, &RunsTab::follow);
        connect(session, &DashboardSession::closed, this, &RunsTab::follow);
    }
    // The next tick draws nearer, a run goes on, a tick falls due unrecorded.
    m_clock.setInterval(1000);
    connect(&m_clock, &QTimer::timeout, this, [this] {
        if (!isVisible())
            return;
        m_model->refreshTime();
        refresh();
    });
    m_clock.start();
    follow();
}

void RunsTab::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    m_model->refreshTime();
    refresh();
}

void RunsTab::follow()
{
    const bool open = m_session && m_session->isOpen();
    const QString lease = open ? m_leases->selectedLease() : QString();
    const Clock *clock = open && m_session->observer() ? &m_session->observer()->clock() : nullptr;
    // Kubernetes connections have no store: their runs are ConfigMaps the observer's client reads.
    if (open && !m_session->store() && m_session->observer())
        m_model->setSource(m_session->observer(), lease, clock);
    else
        m_model->setSource(open ? m_session->store() : nullptr, lease, clock);
    refresh();
}

void RunsTab::refresh()
{
    const QString lease = m_model->lease();
    QString empty;
    if (lease.isEmpty()) {
        empty = tr("Select a lease to see the runs of its scheduled work.");
    } else if (!m_model->isLoaded()) {
        empty = tr("Reading the run records of %1…").arg(lease);
    } else if (m_model->records().isEmpty()) {
        empty = m_model->error().isEmpty()
                ? tr("No run of scheduled work is recorded for %1.\n\nA lease runs a command on its leader "
                     "once per tick with baton join --schedule SPEC --exec CMD (for example --schedule "
                     "\"0 3 * * * Europe/Paris\"). Each run is recorded before it starts, and shows here: "
                     "who ran it, when, how it ended, the ticks nobody ran, and the next tick.")
                          .arg(lease)
                : tr("Cannot read the run records of %1: %2").arg(lease, m_model->error());
    }
    m_empty->setText(empty);
    m_empty->setVisible(!empty.isEmpty());
    m_table->setVisible(empty.isEmpty());
    QString summary = empty.isEmpty() ? m_model->summary() : QString();
    if (empty.isEmpty() && !m_model->error().isEmpty())
        summary += QLatin1Char(' ') + tr("The last read failed: %1").arg(m_model->error());
    m_summary->setText(summary);
    m_summary->setVisible(!summary.isEmpty());
}

} // namespace baton
