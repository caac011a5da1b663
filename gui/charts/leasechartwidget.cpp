#include "leasechartwidget.h"

#include "leaseactivity.h"

namespace baton {

LeaseChartWidget::LeaseChartWidget(QWidget *parent)
    : QWidget(parent)
{
}

void LeaseChartWidget::setActivity(LeaseActivity *activity)
{
    if (m_activity)
        disconnect(m_activity, nullptr, this, nullptr);
    m_activity = activity;
    if (activity)
        connect(activity, &LeaseActivity::trackChanged, this, &LeaseChartWidget::onTrackChanged);
    onActivityChanged();
    update();
}

LeaseActivity *LeaseChartWidget::activity() const
{
    return m_activity;
}

void LeaseChartWidget::onTrackChanged(const QString &lease)
{
    if (lease == m_lease)
        update();
}

void LeaseChartWidget::setLease(const QString &lease)
{
    m_lease = lease;
    update();
}

} // namespace baton
