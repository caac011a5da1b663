#include "handoverdialog.h"

#include "candidatemodel.h"
#include "candidatesteering.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace baton {

namespace {

const QString anyInstance = QStringLiteral("*");

} // namespace

HandoverDialog::HandoverDialog(CandidateModel *model, qint64 leaseDurationMs, QWidget *parent)
    : QDialog(parent)
    , m_model(model)
    , m_lease(model->lease())
    , m_holder(model->holder())
    , m_leaseDurationMs(leaseDurationMs)
    , m_title(new QLabel(this))
    , m_list(new QListWidget(this))
    , m_consequence(new QLabel(this))
{
    setObjectName(QStringLiteral("handoverDialog"));
    setWindowTitle(tr("Hand over %1").arg(m_lease));
    m_title->setText(tr("Hand over %1, held by %2, to:").arg(m_lease, m_holder));
    m_list->setObjectName(QStringLiteral("handoverCandidates"));
    m_consequence->setObjectName(QStringLiteral("handoverConsequence"));
    m_consequence->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_accept = buttons->addButton(tr("Hand over"), QDialogButtonBox::AcceptRole);
    m_accept->setObjectName(QStringLiteral("handoverAccept"));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_consequence);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_list, &QListWidget::currentRowChanged, this, &HandoverDialog::explain);
    // The candidates come and go while the dialog is open.
    connect(model, &CandidateModel::loaded, this, &HandoverDialog::fill);
    fill();
    resize(520, 360);
}

void HandoverDialog::fill()
{
    const QString current = chosen();
    m_list->clear();
    const QList<CandidateModel::Row> successors = m_model ? m_model->successors() : QList<CandidateModel::Row>();
    for (const CandidateModel::Row &row : successors) {
        auto *item = new QListWidgetItem(tr("%1 — priority %2, %3")
                                                 .arg(row.record.instance)
                                                 .arg(row.record.priority)
                                                 .arg(CandidateModel::stateText(row.state)),
                                         m_list);
        item->setData(Qt::UserRole, row.record.instance);
    }
    auto *any = new QListWidgetItem(tr("Whoever asks first (a release)"), m_list);
    any->setData(Qt::UserRole, anyInstance);
    choose(current.isEmpty() ? (successors.isEmpty() ? anyInstance : successors.first().record.instance) : current);
    if (m_list->currentRow() < 0)
        m_list->setCurrentRow(0);
}

void HandoverDialog::choose(const QString &instance)
{
    for (int row = 0; row < m_list->count(); ++row)
        if (m_list->item(row)->data(Qt::UserRole).toString() == instance)
            m_list->setCurrentRow(row);
}

QString HandoverDialog::chosen() const
{
    const QListWidgetItem *item = m_list->currentItem();
    return item ? item->data(Qt::UserRole).toString() : QString();
}

QString HandoverDialog::consequence() const
{
    return m_consequence->text();
}

void HandoverDialog::explain()
{
    const QString to = chosen();
    m_accept->setEnabled(!to.isEmpty());
    QString text = to.isEmpty() ? QString()
                                : CandidateSteering::handoverConsequence(m_lease, m_holder, to, m_leaseDurationMs);
    // A drained successor still takes a lease handed to it, then moves it on.
    const int row = m_model ? m_model->rowOf(to) : -1;
    if (row >= 0 && m_model->rowAt(row).record.drained)
        text += QLatin1Char(' ')
                + tr("%1 is drained: once it leads, it hands the lease on to another live candidate within one "
                     "heartbeat.")
                          .arg(to);
    m_consequence->setText(text);
}

} // namespace baton
