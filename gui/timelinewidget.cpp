#include "timelinewidget.h"

#include "chartsupport.h"
#include <baton/clock.h>
#include "leaseactivity.h"
#include "leasetablemodel.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace baton {

namespace {

constexpr qint64 minSpanMs = 2000;
constexpr qint64 maxSpanMs = 7LL * 24 * 3600 * 1000;

QColor noLeaderColor()
{
    return QColor(0xd6, 0x3b, 0x3b);
}

/*! The end of a span as drawn: its expiry when it ran out, else its end (or now). */
qint64 heldUntil(const HolderSpan &span, qint64 now)
{
    const qint64 end = span.endMono < 0 ? now : span.endMono;
    return span.expiredMono >= 0 ? std::min(end, span.expiredMono) : end;
}

} // namespace

TimelineWidget::TimelineWidget(QWidget *parent)
    : LeaseChartWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent, false);
    m_liveTimer.setInterval(1000);
    connect(&m_liveTimer, &QTimer::timeout, this, [this] {
        if (m_live && isVisible())
            update();
    });
    m_liveTimer.start();
}

void TimelineWidget::setTimeSpan(qint64 ms)
{
    m_spanMs = std::clamp(ms, minSpanMs, maxSpanMs);
    update();
}

void TimelineWidget::setLive(bool live)
{
    m_live = live;
    update();
}

qint64 TimelineWidget::windowEnd() const
{
    if (m_live || !activity())
        return activity() ? activity()->clock().monotonicMs() : 0;
    return m_endMono;
}

QSize TimelineWidget::sizeHint() const
{
    return {640, 200};
}

QSize TimelineWidget::minimumSizeHint() const
{
    return {240, 110};
}

TimelineWidget::Layout TimelineWidget::layout(const LeaseTrack &track) const
{
    Layout l;
    const QFontMetrics metrics(font());
    for (const HolderSpan &span : track.spans)
        if (!span.holder.isEmpty() && !l.holders.contains(span.holder))
            l.holders.append(span.holder);
    int labelWidth = metrics.horizontalAdvance(tr("no leader")) + 16;
    for (const QString &holder : std::as_const(l.holders))
        labelWidth = std::max(labelWidth, metrics.horizontalAdvance(holder) + 16);
    labelWidth = std::min(labelWidth, width() / 3);
    const int axisHeight = metrics.height() + 6;
    l.plot = rect().adjusted(labelWidth, 6, -10, -axisHeight);
    const int lanes = std::max<int>(1, int(l.holders.size()));
    l.laneHeight = std::clamp(l.plot.height() / lanes, 12, 44);
    l.end = windowEnd();
    l.start = l.end - m_spanMs;
    return l;
}

int TimelineWidget::xAt(const Layout &l, qint64 mono) const
{
    return l.plot.left() + int(double(mono - l.start) * l.plot.width() / double(l.end - l.start));
}

qint64 TimelineWidget::monoAt(const Layout &l, int x) const
{
    return l.start + qint64(double(x - l.plot.left()) * double(l.end - l.start) / std::max(1, l.plot.width()));
}

void TimelineWidget::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    if (!activity() || lease().isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("Select a lease to see its holders over time."));
        return;
    }
    const LeaseTrack track = activity()->track(lease());
    const Layout l = layout(track);
    const Clock &clock = activity()->clock();
    const qint64 now = clock.monotonicMs();
    const int lanesBottom = l.plot.top() + l.laneHeight * std::max<int>(1, int(l.holders.size()));
    const QRect lanesRect(l.plot.left(), l.plot.top(), l.plot.width(), lanesBottom - l.plot.top());

    chart::drawTimeAxis(&painter, QRect(l.plot.left(), l.plot.top(), l.plot.width(), height() - l.plot.top() - 2),
                        palette(), clock, l.start, l.end);
    painter.setClipRect(lanesRect.adjusted(0, 0, 1, 1));

    // Before the dashboard connected: not seen, so not claimed either way.
    if (track.firstSeenMono > l.start) {
        QColor unseen = palette().color(QPalette::Text);
        unseen.setAlphaF(0.05f);
        painter.fillRect(QRect(QPoint(l.plot.left(), lanesRect.top()),
                               QPoint(xAt(l, track.spans.isEmpty() ? now : track.spans.first().startMono),
                                      lanesRect.bottom())),
                         unseen);
    }

    // Periods without a leader, across every lane.
    QColor gapFill = noLeaderColor();
    gapFill.setAlphaF(0.55f);
    QColor gapBack = noLeaderColor();
    gapBack.setAlphaF(0.10f);
    auto drawGap = [&](qint64 from, qint64 to) {
        if (to <= l.start || from >= l.end)
            return;
        const QRect r(QPoint(xAt(l, from), lanesRect.top()), QPoint(std::max(xAt(l, to), xAt(l, from) + 2), lanesRect.bottom()));
        painter.fillRect(r, gapBack);
        painter.fillRect(r, QBrush(gapFill, Qt::BDiagPattern));
        painter.setPen(QPen(noLeaderColor(), 1));
        painter.drawLine(r.topLeft(), r.bottomLeft());
        if (r.width() > painter.fontMetrics().horizontalAdvance(tr("no leader")) + 8) {
            painter.setPen(noLeaderColor().darker(130));
            painter.drawText(r.adjusted(4, 2, -2, 0), Qt::AlignTop | Qt::AlignLeft, tr("no leader"));
        }
    };
    for (const HolderSpan &span : track.spans) {
        const qint64 end = span.endMono < 0 ? now : span.endMono;
        if (span.holder.isEmpty())
            drawGap(span.startMono, end);
        else if (span.expiredMono >= 0 && span.expiredMono < end)
            drawGap(span.expiredMono, end);
    }

    // One lane per holder.
    painter.setRenderHint(QPainter::Antialiasing);
    for (const HolderSpan &span : track.spans) {
        if (span.holder.isEmpty())
            continue;
        const qint64 until = heldUntil(span, now);
        if (until <= l.start || span.startMono >= l.end)
            continue;
        const int lane = int(l.holders.indexOf(span.holder));
        const QColor color = chart::holderColor(span.holder, palette());
        const int x0 = std::max(xAt(l, span.startMono), l.plot.left() - 4);
        const int x1 = std::min(xAt(l, until), l.plot.right() + 4);
        const QRectF r(x0, l.plot.top() + lane * l.laneHeight + 3, std::max(2, x1 - x0), l.laneHeight - 6);
        painter.setPen(Qt::NoPen);
        painter.setBrush(color);
        painter.drawRoundedRect(r, 3, 3);
        // The renewals seen during this span.
        painter.setPen(QPen(color.darker(150), 1));
        const double pxPerMs = double(l.plot.width()) / double(l.end - l.start);
        int lastX = -10;
        for (const RenewalSample &renewal : track.renewals) {
            if (renewal.holder != span.holder || renewal.mono < span.startMono || renewal.mono > until)
                continue;
            const int x = xAt(l, renewal.mono);
            if (x - lastX < 3 || pxPerMs <= 0)
                continue;
            painter.drawLine(QPointF(x, r.bottom() - r.height() * 0.35), QPointF(x, r.bottom() - 1));
            lastX = x;
        }
        const QString label = span.holder;
        if (r.width() > painter.fontMetrics().horizontalAdvance(label) + 10) {
            painter.setPen(QColor(0x20, 0x20, 0x20));
            painter.drawText(r.adjusted(6, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
        }
    }
    painter.setClipping(false);

    // Lane labels.
    painter.setPen(palette().color(QPalette::Text));
    for (int i = 0; i < l.holders.size(); ++i) {
        const QRect labelRect(4, l.plot.top() + i * l.laneHeight, l.plot.left() - 10, l.laneHeight);
        painter.drawText(labelRect, Qt::AlignVCenter | Qt::AlignRight,
                         painter.fontMetrics().elidedText(l.holders.at(i), Qt::ElideMiddle, labelRect.width()));
    }
    if (l.holders.isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(lanesRect, Qt::AlignCenter, tr("No holder seen yet"));
    }
    // The present, when in view.
    if (now >= l.start && now <= l.end) {
        QColor nowColor = palette().color(QPalette::Highlight);
        painter.setPen(QPen(nowColor, 1, Qt::DashLine));
        const int x = xAt(l, now);
        painter.drawLine(x, lanesRect.top(), x, lanesRect.bottom());
    }
    if (!m_live) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(0, 2, -12, 0), Qt::AlignTop | Qt::AlignRight,
                         tr("paused: End or double-click to follow"));
    }
    if (hasFocus()) {
        QColor focus = palette().color(QPalette::Highlight);
        painter.setPen(QPen(focus, 1));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(rect().adjusted(0, 0, -1, -1));
    }
}

void TimelineWidget::zoom(double factor, int anchorX)
{
    if (!activity())
        return;
    const Layout l = layout(activity()->track(lease()));
    const qint64 newSpan = std::clamp(qint64(double(m_spanMs) * factor), minSpanMs, maxSpanMs);
    if (m_live) {
        m_spanMs = newSpan; // the right edge stays the present
    } else {
        const qint64 anchor = monoAt(l, anchorX);
        const double fraction = double(anchorX - l.plot.left()) / std::max(1, l.plot.width());
        m_endMono = anchor + qint64((1.0 - fraction) * double(newSpan));
        m_spanMs = newSpan;
    }
    update();
}

void TimelineWidget::pan(qint64 ms)
{
    if (!activity())
        return;
    const qint64 now = activity()->clock().monotonicMs();
    const qint64 end = windowEnd() + ms;
    if (end >= now) {
        m_live = true;
    } else {
        m_live = false;
        m_endMono = end;
    }
    update();
}

void TimelineWidget::wheelEvent(QWheelEvent *event)
{
    const QPoint delta = event->angleDelta();
    const bool horizontal = (event->modifiers() & Qt::ShiftModifier) || std::abs(delta.x()) > std::abs(delta.y());
    const int steps = horizontal ? (delta.x() != 0 ? delta.x() : delta.y()) : delta.y();
    if (horizontal)
        pan(-qint64(double(steps) / 120.0 * double(m_spanMs) * 0.1));
    else
        zoom(std::pow(1.25, -double(steps) / 120.0), int(event->position().x()));
    event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton) {
        m_dragging = true;
        m_dragFrom = event->pos();
        m_dragEnd = windowEnd();
    }
}

void TimelineWidget::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_dragging || !activity())
        return;
    const Layout l = layout(activity()->track(lease()));
    const qint64 shift = qint64(double(m_dragFrom.x() - event->pos().x()) * double(m_spanMs) / std::max(1, l.plot.width()));
    const qint64 now = activity()->clock().monotonicMs();
    if (m_dragEnd + shift >= now) {
        m_live = true;
    } else {
        m_live = false;
        m_endMono = m_dragEnd + shift;
    }
    update();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent *)
{
    m_dragging = false;
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent *)
{
    setLive(true);
}

void TimelineWidget::keyPressEvent(QKeyEvent *event)
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
        pan(-m_spanMs / 5);
        break;
    case Qt::Key_Right:
        pan(m_spanMs / 5);
        break;
    case Qt::Key_End:
        setLive(true);
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

bool TimelineWidget::event(QEvent *event)
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
    return QWidget::event(event);
}

QString TimelineWidget::toolTipAt(const QPoint &pos) const
{
    if (!activity() || lease().isEmpty())
        return {};
    const LeaseTrack track = activity()->track(lease());
    const Layout l = layout(track);
    if (!l.plot.contains(pos))
        return {};
    const Clock &clock = activity()->clock();
    const qint64 now = clock.monotonicMs();
    const qint64 at = monoAt(l, pos.x());
    const int lane = (pos.y() - l.plot.top()) / std::max(1, l.laneHeight);
    auto range = [&](qint64 from, qint64 to, bool open) {
        return tr("%1 → %2 (%3)")
                .arg(chart::wallLabel(clock, from, true),
                     open ? tr("now") : chart::wallLabel(clock, to, true),
                     LeaseTableModel::formatDuration(to - from));
    };
    for (const HolderSpan &span : track.spans) {
        const qint64 end = span.endMono < 0 ? now : span.endMono;
        if (at < span.startMono || at > end)
            continue;
        if (span.holder.isEmpty())
            return tr("No leader (released)\n%1").arg(range(span.startMono, end, span.endMono < 0));
        if (span.expiredMono >= 0 && at >= span.expiredMono)
            return tr("No leader: the lease of %1 ran out unrenewed\n%2")
                    .arg(span.holder, range(span.expiredMono, end, span.endMono < 0));
        if (lane >= 0 && lane < l.holders.size() && l.holders.at(lane) == span.holder) {
            int renewals = 0;
            for (const RenewalSample &r : track.renewals)
                renewals += r.holder == span.holder && r.mono >= span.startMono && r.mono <= end ? 1 : 0;
            return tr("%1 held the lease\n%2\n%n renewal(s) seen", nullptr, renewals)
                    .arg(span.holder, range(span.startMono, heldUntil(span, now), span.endMono < 0));
        }
    }
    return {};
}

} // namespace baton
