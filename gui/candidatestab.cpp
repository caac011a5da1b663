#include "candidatestab.h"

#include "candidatemodel.h"
#include "candidatesteering.h"
#include "dashboardsession.h"
#include "handoverdialog.h"
#include "leasetableview.h"

#include <baton/leaseobserver.h>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace baton {

CandidatesTab::CandidatesTab(DashboardSession *session, LeaseTableView *leases, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_leases(leases)
    , m_model(new CandidateModel(this))
    , m_summary(new QLabel(this))
    , m_empty(new QLabel(this))
    , m_status(new QLabel(this))
    , m_table(new QTableView(this))
    , m_handOverButton(new QPushButton(tr("Hand over to…"), this))
    , m_drainButton(new QPushButton(tr("Drain…"), this))
    , m_undrainButton(new QPushButton(tr("Undrain…"), this))
{
    setObjectName(QStringLiteral("candidatesTab"));
    m_summary->setObjectName(QStringLiteral("candidatesSummary"));
    m_summary->setWordWrap(true);
    m_empty->setObjectName(QStringLiteral("candidatesEmpty"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_empty->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setObjectName(QStringLiteral("candidatesStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->hide();
    m_table->setObjectName(QStringLiteral("candidatesTable"));
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8); // dense, as the lease table
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setWordWrap(false);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    QHeaderView *header = m_table->horizontalHeader();
    header->setStretchLastSection(true);
    header->resizeSection(CandidateModel::InstanceColumn, 110);
    header->setSectionResizeMode(CandidateModel::PriorityColumn, QHeaderView::ResizeToContents);
    header->resizeSection(CandidateModel::StateColumn, 120);
    // The two share what is left: never a table that scrolls sideways, in any language.
    header->setSectionResizeMode(CandidateModel::HeartbeatColumn, QHeaderView::Stretch);
    header->setSectionResizeMode(CandidateModel::LabelsColumn, QHeaderView::Stretch);
    m_handOverButton->setObjectName(QStringLiteral("handOverButton"));
    m_drainButton->setObjectName(QStringLiteral("drainButton"));
    m_undrainButton->setObjectName(QStringLiteral("undrainButton"));
    m_handOverButton->setToolTip(tr("Ask the leader to hand the lease over to a candidate you pick"));
    m_drainButton->setToolTip(tr("The selected candidate hands over and takes no lease while another candidate is live"));
    m_undrainButton->setToolTip(tr("The selected candidate stands for the lease again"));
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_handOverButton);
    buttons->addStretch(1);
    buttons->addWidget(m_drainButton);
    buttons->addWidget(m_undrainButton);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_empty, 1);
    layout->addWidget(m_status);
    layout->addLayout(buttons);

    connect(m_handOverButton, &QPushButton::clicked, this, [this] { askHandover(); });
    connect(m_drainButton, &QPushButton::clicked, this, [this] { askDrain(true); });
    connect(m_undrainButton, &QPushButton::clicked, this, [this] { askDrain(false); });
    connect(m_model, &CandidateModel::loaded, this, &CandidatesTab::refresh);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &CandidatesTab::updateActions);
    connect(m_model, &QAbstractItemModel::modelReset, this, &CandidatesTab::updateActions);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &CandidatesTab::updateActions);
    connect(m_table, &QWidget::customContextMenuRequested, this, &CandidatesTab::showCandidateMenu);
    leases->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(leases, &QWidget::customContextMenuRequested, this, &CandidatesTab::showLeaseMenu);
    connect(leases, &LeaseTableView::currentLeaseChanged, this, &CandidatesTab::follow);
    if (session) {
        connect(session, &DashboardSession::opened, this, &CandidatesTab::follow);
        connect(session, &DashboardSession::closed, this, &CandidatesTab::follow);
    }
    // Heartbeats age, and a candidate without one for three intervals is gone.
    m_clock.setInterval(1000);
    connect(&m_clock, &QTimer::timeout, this, [this] {
        if (isVisible())
            m_model->refreshTime();
    });
    m_clock.start();
    follow();
}

void CandidatesTab::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    m_model->refreshTime();
    refresh();
}

void CandidatesTab::follow()
{
    const bool open = m_session && m_session->isOpen();
    const QString lease = open ? m_leases->selectedLease() : QString();
    if (lease != m_model->lease())
        m_status->hide(); // what was done to another lease
    m_model->setSource(open ? m_session->observer() : nullptr, lease);
    refresh();
}

void CandidatesTab::refresh()
{
    const QString lease = m_model->lease();
    QString empty;
    if (lease.isEmpty()) {
        empty = tr("Select a lease to see the instances that stand for it.");
    } else if (!m_model->isLoaded()) {
        empty = tr("Reading the candidates of %1…").arg(lease);
    } else if (m_model->rowCount() == 0) {
        empty = m_model->error().isEmpty()
                ? tr("No instance announces itself as a candidate for %1.\n\nEvery instance that joins the "
                     "election of a lease writes a candidate record beside it, with its priority and whether "
                     "it is drained, and renews it at every heartbeat; it shows here.")
                          .arg(lease)
                : tr("Cannot read the candidates of %1: %2").arg(lease, m_model->error());
    }
    m_empty->setText(empty);
    m_empty->setVisible(!empty.isEmpty());
    m_table->setVisible(empty.isEmpty());
    QString summary;
    if (empty.isEmpty()) {
        const QString holder = m_model->holder();
        summary = holder.isEmpty() ? tr("Nobody leads %1 now.").arg(lease) : tr("%1 leads %2.").arg(holder, lease);
        if (!m_model->error().isEmpty())
            summary += QLatin1Char(' ') + tr("The last read failed: %1").arg(m_model->error());
    }
    m_summary->setText(summary);
    m_summary->setVisible(!summary.isEmpty());
    updateActions();
}

void CandidatesTab::updateActions()
{
    const int row = m_model->rowOf(selectedCandidate());
    const bool drained = row >= 0 && m_model->rowAt(row).record.drained;
    m_handOverButton->setEnabled(!m_model->holder().isEmpty());
    m_drainButton->setEnabled(row >= 0 && !drained);
    m_undrainButton->setEnabled(row >= 0 && drained);
}

QString CandidatesTab::selectedCandidate() const
{
    const QModelIndex current = m_table->currentIndex();
    return current.isValid() ? current.data(CandidateModel::InstanceRole).toString() : QString();
}

void CandidatesTab::selectCandidate(const QString &instance)
{
    const int row = m_model->rowOf(instance);
    if (row >= 0)
        m_table->setCurrentIndex(m_model->index(row, 0));
}

QMessageBox *CandidatesTab::confirmation() const
{
    return m_confirmation;
}

HandoverDialog *CandidatesTab::handoverDialog() const
{
    return m_handover;
}

QString CandidatesTab::lastMessage() const
{
    return m_status->text();
}

qint64 CandidatesTab::leaseDurationMs() const
{
    LeaseObserver *observer = m_model->observer();
    const std::optional<ObservedLease> observed = observer ? observer->lease(m_model->lease()) : std::nullopt;
    return observed ? observed->record.leaseDurationMs : 0;
}

void CandidatesTab::askHandover(const QString &to)
{
    const QString lease = m_model->lease();
    if (lease.isEmpty())
        return;
    if (m_model->holder().isEmpty()) {
        report(false, tr("Nobody leads %1 now: there is nothing to hand over.").arg(lease));
        return;
    }
    delete m_handover;
    m_handover = new HandoverDialog(m_model, leaseDurationMs(), this);
    m_handover->setAttribute(Qt::WA_DeleteOnClose);
    if (!to.isEmpty())
        m_handover->choose(to);
    QPointer<LeaseObserver> observer = m_model->observer();
    HandoverDialog *dialog = m_handover;
    connect(dialog, &QDialog::accepted, this, [this, dialog, lease, observer] {
        const QString chosen = dialog->chosen();
        if (chosen.isEmpty() || !observer)
            return;
        auto *steering = new CandidateSteering(observer, this);
        steering->handOver(lease, chosen, CandidateSteering::requester(), [this, steering](bool ok, const QString &message) {
            steering->deleteLater();
            report(ok, message);
        });
    });
    m_handover->open();
}

void CandidatesTab::askDrain(bool drained)
{
    const QString lease = m_model->lease();
    const int row = m_model->rowOf(selectedCandidate());
    if (lease.isEmpty() || row < 0)
        return;
    const CandidateModel::Row candidate = m_model->rowAt(row);
    const QString instance = candidate.record.instance;
    const bool gone = candidate.state == CandidateModel::State::Gone;
    const QString consequence = drained
            ? CandidateSteering::drainConsequence(lease, candidate.record, candidate.state == CandidateModel::State::Leading,
                                                  m_model->anotherCanLead(instance), gone)
            : CandidateSteering::undrainConsequence(lease, candidate.record, gone);
    delete m_confirmation;
    m_confirmation = new QMessageBox(QMessageBox::Question,
                                     drained ? tr("Drain %1").arg(instance) : tr("Undrain %1").arg(instance),
                                     consequence, QMessageBox::Cancel, this);
    m_confirmation->setObjectName(QStringLiteral("candidateConfirmation"));
    m_confirmation->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton *yes = m_confirmation->addButton(drained ? tr("Drain %1").arg(instance) : tr("Undrain %1").arg(instance),
                                                 QMessageBox::AcceptRole);
    yes->setObjectName(QStringLiteral("confirmButton"));
    m_confirmation->setDefaultButton(QMessageBox::Cancel);
    QPointer<LeaseObserver> observer = m_model->observer();
    connect(m_confirmation, &QMessageBox::buttonClicked, this, [=, this](QAbstractButton *clicked) {
        if (clicked != yes || !observer)
            return;
        auto *steering = new CandidateSteering(observer, this);
        steering->setDrained(lease, instance, drained, CandidateSteering::requester(),
                             [this, steering](bool ok, const QString &message) {
                                 steering->deleteLater();
                                 report(ok, message);
                             });
    });
    m_confirmation->open();
}

void CandidatesTab::report(bool ok, const QString &message)
{
    m_status->setText(message);
    m_status->setStyleSheet(ok ? QString() : QStringLiteral("color: #b00020;"));
    m_status->show();
    // Asked from the lease table's menu, the tab may be out of sight: a failure must not go unseen.
    if (!ok && !isVisible()) {
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Steering failed"), message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
    Q_EMIT acted(ok, message);
}

void CandidatesTab::showCandidateMenu(const QPoint &position)
{
    const QModelIndex index = m_table->indexAt(position);
    if (!index.isValid())
        return;
    m_table->setCurrentIndex(index);
    const CandidateModel::Row &row = m_model->rowAt(index.row());
    const QString instance = row.record.instance;
    QMenu menu(this);
    QAction *drain = menu.addAction(tr("Drain %1…").arg(instance), this, [this] { askDrain(true); });
    drain->setEnabled(!row.record.drained);
    QAction *undrain = menu.addAction(tr("Undrain %1…").arg(instance), this, [this] { askDrain(false); });
    undrain->setEnabled(row.record.drained);
    QAction *handOver = menu.addAction(tr("Hand over to %1…").arg(instance), this,
                                       [this, instance] { askHandover(instance); });
    handOver->setEnabled(!m_model->holder().isEmpty() && row.state != CandidateModel::State::Leading
                         && row.state != CandidateModel::State::Gone);
    menu.exec(m_table->viewport()->mapToGlobal(position));
}

void CandidatesTab::showLeaseMenu(const QPoint &position)
{
    if (!m_leases->indexAt(position).isValid() || m_model->lease().isEmpty())
        return;
    QMenu menu(this);
    QAction *handOver = menu.addAction(tr("Hand over %1 to…").arg(m_model->lease()), this, [this] { askHandover(); });
    handOver->setEnabled(!m_model->holder().isEmpty());
    menu.exec(m_leases->viewport()->mapToGlobal(position));
}

} // namespace baton
