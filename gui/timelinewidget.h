#pragma once

#include <QTimer>
#include "leasechartwidget.h"

namespace baton {

struct LeaseTrack;

/*!
 * The holders of one lease over time, painted as Grafana's state timeline
 * (O4): one lane per holder with a coloured span while it held the
 * lease and a tick at each renewal seen; the periods without a leader (a
 * release not yet taken up, a lease run out unrenewed) hatched in red across
 * every lane; the time before the dashboard connected greyed out.
 *
 * Wheel: zoom about the cursor; Shift+wheel or drag: scroll in time;
 * + / - / Left / Right / End from the keyboard; double-click or End returns
 * to the live edge. Hover for exact times.
 */
class TimelineWidget : public LeaseChartWidget
{
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget *parent = nullptr);


    /*! Milliseconds shown across the widget. */
    void setTimeSpan(qint64 ms);
    qint64 timeSpan() const { return m_spanMs; }
    /*! Whether the right edge follows the present. */
    bool isLive() const { return m_live; }
    void setLive(bool live);
    /*! The monotonic instant at the right edge. */
    qint64 windowEnd() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool event(QEvent *event) override;

private:
    struct Layout
    {
        QRect plot;
        int laneHeight = 0;
        QStringList holders;
        qint64 start = 0;
        qint64 end = 0;
    };
    Layout layout(const LeaseTrack &track) const;
    qint64 monoAt(const Layout &l, int x) const;
    int xAt(const Layout &l, qint64 mono) const;
    void zoom(double factor, int anchorX);
    void pan(qint64 ms);
    QString toolTipAt(const QPoint &pos) const;

    qint64 m_spanMs = 5 * 60 * 1000;
    qint64 m_endMono = 0;
    bool m_live = true;
    QPoint m_dragFrom;
    qint64 m_dragEnd = 0;
    bool m_dragging = false;
    QTimer m_liveTimer;
};

} // namespace baton
