#pragma once

#include "timechartwidget.h"

class QScrollBar;

namespace baton {

class FleetTimelineModel;

/*!
 * The fleet at a glance (O4): every lease as a lane of its holders over
 * time, coloured by holder, the stretches without a leader hatched in red,
 * as Grafana's state timeline draws it. The holder filter's lanes are
 * highlighted (the others fade); a click on a lane selects its lease. The
 * span fits what is known (TimeChartWidget); lanes that do not fit scroll.
 * What it draws comes from FleetTimelineModel, which the tests check.
 */
class FleetTimelineWidget : public TimeChartWidget
{
    Q_OBJECT
public:
    explicit FleetTimelineWidget(QWidget *parent = nullptr);

    FleetTimelineModel *model() const { return m_model; }
    /*! The lease of the lane at \a pos, or empty. */
    QString leaseAt(const QPoint &pos) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void leaseActivated(const QString &lease);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    QRect plotRect() const override;
    qint64 knownSinceMono() const override;
    void clicked(const QPoint &pos) override;
    void onTrackChanged(const QString &lease) override;
    void onActivityChanged() override;

private:
    int laneHeight() const;
    int labelWidth() const;
    /*! The lanes' area, left of the scroll bar and above the axis. */
    QRect lanesArea() const;
    void updateScrollBar();
    QString toolTipAt(const QPoint &pos) const override;

    FleetTimelineModel *m_model;
    QScrollBar *m_scroll;
};

} // namespace baton
