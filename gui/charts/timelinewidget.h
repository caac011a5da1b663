#pragma once

#include "timechartwidget.h"

namespace baton {

struct LeaseTrack;

/*!
 * The holders of one lease over time, painted as Grafana's state timeline
 * (O4): one lane per holder with a coloured span while it held the
 * lease and a tick at each renewal seen; the periods without a leader (a
 * release not yet taken up, a lease run out unrenewed) hatched in red across
 * every lane. The span fits what this observer knows of the lease
 * (TimeChartWidget: zoom, scroll); hover for exact times.
 */
class TimelineWidget : public TimeChartWidget
{
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget *parent = nullptr);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    QRect plotRect() const override;
    qint64 knownSinceMono() const override;

private:
    struct Layout
    {
        chart::TimeScale scale;
        int laneHeight = 0;
        QStringList holders;
    };
    Layout layout(const LeaseTrack &track) const;
    /*! The plot's rectangle for \a holders' labels. */
    QRect plotFor(const QStringList &holders) const;
    QString toolTipAt(const QPoint &pos) const override;
};

} // namespace baton
