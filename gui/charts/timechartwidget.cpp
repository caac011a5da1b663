#include "timechartwidget.h"

#include <baton/clock.h>
#include "leaseactivity.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace baton {

namespace {

// Before anything is known, a minute: enough to see the first changes come.
constexpr qint64 emptySpanMs = 60 * 1000;
// A drag shorter than this is a click.
constexpr int clickSlopPx = 3;

} // namespace

TimeChartWidget::TimeChartWidget(QWidget *parent)
    : LeaseChartWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    m_liveTimer.setInterval(1000);
    connect(&m_liveTimer, &QTimer::timeout, this, [this] {
        if (m_live && isVisible())
            update();
    });
    m_liveTimer.start();
}

qint64 TimeChartWidget::now() const
{
    return activity() ? activity()->clock().monotonicMs() : 0;
}

void TimeChartWidget::setTimeSpan(qint64 ms)
{
    m_spanMs = std::clamp(ms, minSpanMs, maxSpanMs);
    m_fitted = false;
    update();
}

qint64 TimeChartWidget::timeSpan() const
{
    if (!m_fitted)
        return m_spanMs;
    const qint64 since = knownSinceMono();
    if (since < 0)
        return emptySpanMs;
    // What is known, and a twentieth more so that its start is not on the edge.
    const qint64 known = std::max<qint64>(0, now() - since);
    return std::clamp(known + known / 20, minSpanMs, maxSpanMs);
}

void TimeChartWidget::fitToKnown()
{
    m_fitted = true;
    m_live = true;
    update();
}

void TimeChartWidget::setLive(bool live)
{
    m_live = live;
    update();
}

qint64 TimeChartWidget::windowEnd() const
{
    return m_live ? now() : m_endMono;
}

chart::TimeScale TimeChartWidget::timeScale() const
{
    chart::TimeScale scale;
    scale.plot = plotRect();
    scale.end = windowEnd();
    scale.start = scale.end - timeSpan();
    return scale;
}

void TimeChartWidget::clicked(const QPoint &)
{
}

void TimeChartWidget::zoom(double factor, int anchorX)
{
    if (!activity())
        return;
    const chart::TimeScale scale = timeScale();
    const qint64 newSpan = std::clamp(qint64(double(scale.end - scale.start) * factor), minSpanMs, maxSpanMs);
    if (!m_live) {
        // The instant under the cursor stays under it.
        const qint64 anchor = scale.monoAt(anchorX);
        const double fraction = double(anchorX - scale.plot.left()) / std::max(1, scale.plot.width());
        m_endMono = anchor + qint64((1.0 - fraction) * double(newSpan));
    } // live: the right edge stays the present
    m_spanMs = newSpan;
    m_fitted = false;
    update();
}

void TimeChartWidget::moveEndTo(qint64 end)
{
    if (end >= now()) {
        m_live = true;
    } else {
        m_live = false;
        m_endMono = end;
    }
    update();
}

void TimeChartWidget::pan(qint64 ms)
{
    if (!activity())
        return;
    if (m_fitted) { // the span stays what it is now, not what fits later
        m_spanMs = timeSpan();
        m_fitted = false;
    }
    moveEndTo(windowEnd() + ms);
}

void TimeChartWidget::wheelEvent(QWheelEvent *event)
{
    const QPoint delta = event->angleDelta();
    const bool horizontal = (event->modifiers() & Qt::ShiftModifier) || std::abs(delta.x()) > std::abs(delta.y());
    const int steps = horizontal ? (delta.x() != 0 ? delta.x() : delta.y()) : delta.y();
    if (horizontal)
        pan(-qint64(double(steps) / 120.0 * double(timeSpan()) * 0.1));
    else
        zoom(std::pow(1.25, -double(steps) / 120.0), int(event->position().x()));
    event->accept();
}

void TimeChartWidget::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    m_dragging = true;
    m_dragged = false;
    m_dragFrom = event->pos();
    m_dragEnd = windowEnd();
}

void TimeChartWidget::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_dragging || !activity())
        return;
    if (!m_dragged && (event->pos() - m_dragFrom).manhattanLength() < clickSlopPx)
        return;
    if (!m_dragged && m_fitted) {
        m_spanMs = timeSpan();
        m_fitted = false;
    }
    m_dragged = true;
    const qint64 shift = qint64(double(m_dragFrom.x() - event->pos().x()) * timeScale().msPerPixel());
    moveEndTo(m_dragEnd + shift);
}

void TimeChartWidget::mouseReleaseEvent(QMouseEvent *event)
{
    const bool click = m_dragging && !m_dragged && event->button() == Qt::LeftButton;
    m_dragging = false;
    if (click)
        clicked(event->pos());
}

void TimeChartWidget::mouseDoubleClickEvent(QMouseEvent *)
{
    setLive(true);
}

void TimeChartWidget::keyPressEvent(QKeyEvent *event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoom(0.8, width());
        break;
    case Qt::Key_Minus:
        zoom(1.25, width());
        break;
    case Qt::Key_Left:
        pan(-timeSpan() / 5);
        break;
    case Qt::Key_Right:
        pan(timeSpan() / 5);
        break;
    case Qt::Key_End:
        setLive(true);
        break;
    case Qt::Key_Home:
        fitToKnown();
        break;
    default:
        LeaseChartWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

bool TimeChartWidget::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return LeaseChartWidget::event(event);
}

} // namespace baton
