#pragma once

#include "chartsupport.h"
#include "leasechartwidget.h"

#include <QTimer>

namespace baton {

/*!
 * A chart with a time axis that can zoom and scroll (O4): what the
 * timeline of one lease and the fleet timeline share. By default the
 * span fits what is known, from the first instant seen to the present,
 * instead of minutes of nothing before the dashboard connected; once the
 * operator zooms, the span is theirs.
 *
 * Wheel: zoom about the cursor; Shift+wheel or drag: scroll in time;
 * + / - / Left / Right / End from the keyboard; double-click or End returns
 * to the live edge, Home to the span that fits what is known.
 */
class TimeChartWidget : public LeaseChartWidget
{
    Q_OBJECT
public:
    static constexpr qint64 minSpanMs = 2000;
    static constexpr qint64 maxSpanMs = 7LL * 24 * 3600 * 1000;

    explicit TimeChartWidget(QWidget *parent = nullptr);

    /*! Shows \a ms across the plot: the span no longer fits what is known. */
    void setTimeSpan(qint64 ms);
    /*! Milliseconds shown across the plot now. */
    qint64 timeSpan() const;
    /*! Whether the span follows what is known (until the operator zooms). */
    bool isFitted() const { return m_fitted; }
    /*! Back to the span that fits what is known, at the live edge. */
    void fitToKnown();
    /*! Whether the right edge follows the present. */
    bool isLive() const { return m_live; }
    void setLive(bool live);
    /*! The monotonic instant at the right edge. */
    qint64 windowEnd() const;
    /*! Where the instants shown fall across the plot, now. */
    chart::TimeScale timeScale() const;

protected:
    /*! Where the plot is in this widget. */
    virtual QRect plotRect() const = 0;
    /*! The first instant anything shown is known from; -1 when nothing is. */
    virtual qint64 knownSinceMono() const = 0;
    /*! A press and release at \a pos without a drag between them. */
    virtual void clicked(const QPoint &pos);
    /*! The exact times under \a pos, shown as a tooltip; empty for none. */
    virtual QString toolTipAt(const QPoint &pos) const = 0;

    bool event(QEvent *event) override;

    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    qint64 now() const;
    void zoom(double factor, int anchorX);
    void pan(qint64 ms);
    /*! Scrolls so that the right edge is \a end, or follows the present from there. */
    void moveEndTo(qint64 end);

    qint64 m_spanMs = 5 * 60 * 1000;
    bool m_fitted = true;
    qint64 m_endMono = 0;
    bool m_live = true;
    QPoint m_dragFrom;
    qint64 m_dragEnd = 0;
    bool m_dragging = false;
    bool m_dragged = false;
    QTimer m_liveTimer;
};

} // namespace baton
