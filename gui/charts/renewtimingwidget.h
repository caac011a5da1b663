#pragma once

#include "leasechartwidget.h"

namespace baton {


/*!
 * The renew timings of one lease (O4): each renewal seen, at its time,
 * against the interval since the previous one, with the lease duration and
 * the leader's F4 step-down deadline `(leaseDuration + renewInterval) / 2`
 * drawn as lines. An interval that nears the deadline is a leader about to
 * step down; one past the lease duration is a lease any follower could
 * take. The observer cannot know the participants' renewInterval: it uses
 * setRenewInterval() when the dashboard's own election set it, else the
 * median interval seen, and says which.
 */
class RenewTimingWidget : public LeaseChartWidget
{
    Q_OBJECT
public:
    explicit RenewTimingWidget(QWidget *parent = nullptr);

    /*! The participants' renewInterval when known (the dashboard joined this lease); -1: unknown. */
    void setRenewInterval(qint64 ms);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    qint64 m_renewIntervalMs = -1;
};

} // namespace baton
