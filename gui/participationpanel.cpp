#include "participationpanel.h"

#include "dashboardparticipant.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

namespace baton {

ParticipationPanel::ParticipationPanel(QWidget *parent)
    : QGroupBox(tr("Take part in the election"), parent)
    , m_leaseName(new QLineEdit(this))
    , m_instanceId(new QLineEdit(DashboardParticipant::defaultInstanceId(), this))
    , m_leaseDuration(new QDoubleSpinBox(this))
    , m_renewInterval(new QDoubleSpinBox(this))
    , m_join(new QPushButton(tr("&Join"), this))
    , m_stepDown(new QPushButton(tr("&Step down"), this))
    , m_state(new QLabel(this))
{
    m_leaseName->setObjectName(QStringLiteral("leaseNameEdit"));
    m_instanceId->setObjectName(QStringLiteral("instanceIdEdit"));
    m_leaseDuration->setObjectName(QStringLiteral("leaseDurationSpin"));
    m_renewInterval->setObjectName(QStringLiteral("renewIntervalSpin"));
    m_join->setObjectName(QStringLiteral("joinButton"));
    m_stepDown->setObjectName(QStringLiteral("stepDownButton"));
    m_state->setObjectName(QStringLiteral("participationState"));
    for (QDoubleSpinBox *spin : {m_leaseDuration, m_renewInterval}) {
        spin->setDecimals(1);
        spin->setRange(0.1, 3600);
        spin->setSuffix(tr(" s"));
    }
    m_leaseDuration->setValue(15);
    m_renewInterval->setValue(5);
    m_leaseName->setPlaceholderText(tr("lease name"));

    auto *form = new QFormLayout(this);
    form->addRow(tr("Lease"), m_leaseName);
    form->addRow(tr("Instance id"), m_instanceId);
    auto *timings = new QHBoxLayout;
    timings->addWidget(m_leaseDuration);
    timings->addWidget(new QLabel(tr("renew every"), this));
    timings->addWidget(m_renewInterval);
    form->addRow(tr("Lease duration"), timings);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_join);
    buttons->addWidget(m_stepDown);
    buttons->addStretch();
    buttons->addWidget(m_state);
    form->addRow(buttons);

    connect(m_join, &QPushButton::clicked, this, &ParticipationPanel::join);
    connect(m_stepDown, &QPushButton::clicked, this, [this] {
        if (m_participant)
            m_participant->stepDown();
    });
    refresh();
}

void ParticipationPanel::setParticipant(DashboardParticipant *participant)
{
    if (m_participant)
        disconnect(m_participant, nullptr, this, nullptr);
    m_participant = participant;
    if (participant)
        connect(participant, &DashboardParticipant::stateChanged, this, &ParticipationPanel::refresh);
    refresh();
}

void ParticipationPanel::setSelectedLease(const QString &lease, qint64 leaseDurationMs,
                                          qint64 renewIntervalMs)
{
    if (m_participant && m_participant->isJoined())
        return;
    m_leaseName->setText(lease);
    // A participant that joins with other timings than the holders' would
    // judge expiry by another lease duration (F2) than the others write.
    if (leaseDurationMs <= 0)
        return;
    m_leaseDuration->setValue(double(leaseDurationMs) / 1000.0);
    // No renewal seen yet: the defaults' ratio (15 s / 5 s).
    if (renewIntervalMs <= 0 || renewIntervalMs >= leaseDurationMs)
        renewIntervalMs = leaseDurationMs / 3;
    m_renewInterval->setValue(double(renewIntervalMs) / 1000.0);
}

void ParticipationPanel::join()
{
    if (!m_participant)
        return;
    DashboardParticipant::Parameters p;
    p.leaseName = m_leaseName->text().trimmed();
    p.instanceId = m_instanceId->text().trimmed();
    p.leaseDurationMs = qint64(m_leaseDuration->value() * 1000.0);
    p.renewIntervalMs = qint64(m_renewInterval->value() * 1000.0);
    QString error;
    if (!m_participant->join(p, &error))
        Q_EMIT message(tr("Cannot join: %1").arg(error));
}

void ParticipationPanel::refresh()
{
    const bool joined = m_participant && m_participant->isJoined();
    const bool stopping = m_participant && m_participant->isStopping();
    setEnabled(m_participant != nullptr);
    const bool canJoin = m_participant && m_participant->canJoin();
    m_join->setEnabled(canJoin && !joined);
    // Why the button is off, where the operator looks for it.
    m_join->setToolTip(m_participant && !canJoin
                               ? tr("Joining is not available on Kubernetes connections yet: the dashboard "
                                    "only observes Lease objects. To take part, run baton join with a "
                                    "KubernetesClusterService.")
                               : QString());
    m_stepDown->setEnabled(joined && !stopping);
    for (QWidget *w : {static_cast<QWidget *>(m_leaseName), static_cast<QWidget *>(m_instanceId),
                       static_cast<QWidget *>(m_leaseDuration), static_cast<QWidget *>(m_renewInterval)})
        w->setEnabled(!joined);
    if (!joined)
        m_state->setText(tr("Not taking part"));
    else if (stopping)
        m_state->setText(tr("Stepping down…"));
    else if (m_participant->isLeader())
        m_state->setText(tr("<b>Leading</b>"));
    else
        m_state->setText(tr("Following"));
}

} // namespace baton
