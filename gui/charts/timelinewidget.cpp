#include "timelinewidget.h"

#include "chartsupport.h"
#include <baton/clock.h>
#include "fleettimelinemodel.h"
#include "leaseactivity.h"
#include "leasetablemodel.h"

#include <QKeyEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace baton {

TimelineWidget::TimelineWidget(QWidget *parent)
    : TimeChartWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent, false);
}

QSize TimelineWidget::sizeHint() const
{
    return {640, 200};
}

QSize TimelineWidget::minimumSizeHint() const
{
    return {240, 110};
}

namespace {

QStringList holdersOf(const LeaseTrack &track)
{
    QStringList holders;
    for (const HolderSpan &span : track.spans)
        if (!span.holder.isEmpty() && !holders.contains(span.holder))
            holders.append(span.holder);
    return holders;
}

} // namespace

QRect TimelineWidget::plotFor(const QStringList &holders) const
{
    const QFontMetrics metrics(font());
    int labelWidth = metrics.horizontalAdvance(tr("no leader")) + 16;
    for (const QString &holder : holders)
        labelWidth = std::max(labelWidth, metrics.horizontalAdvance(holder) + 16);
    labelWidth = std::min(labelWidth, width() / 3);
    const int axisHeight = metrics.height() + 6;
    return rect().adjusted(labelWidth, 6, -10, -axisHeight);
}

QRect TimelineWidget::plotRect() const
{
    return plotFor(activity() ? holdersOf(activity()->track(lease())) : QStringList());
}

qint64 TimelineWidget::knownSinceMono() const
{
    if (!activity() || !activity()->contains(lease()))
        return -1;
    const LeaseTrack track = activity()->track(lease());
    return track.spans.isEmpty() ? track.firstSeenMono : std::min(track.firstSeenMono, track.spans.first().startMono);
}

TimelineWidget::Layout TimelineWidget::layout(const LeaseTrack &track) const
{
    Layout l;
    l.holders = holdersOf(track);
    l.scale = timeScale();
    l.scale.plot = plotFor(l.holders);
    const int lanes = std::max<int>(1, int(l.holders.size()));
    l.laneHeight = std::clamp(l.scale.plot.height() / lanes, 12, 44);
    return l;
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
    const int lanesBottom = l.scale.plot.top() + l.laneHeight * std::max<int>(1, int(l.holders.size()));
    const QRect lanesRect(l.scale.plot.left(), l.scale.plot.top(), l.scale.plot.width(), lanesBottom - l.scale.plot.top());

    chart::drawTimeAxis(&painter, l.scale, height() - 2, palette(), clock);
    painter.setClipRect(lanesRect.adjusted(0, 0, 1, 1));

    // Before the dashboard connected: not seen, so not claimed either way.
    if (track.firstSeenMono > l.scale.start) {
        QColor unseen = palette().color(QPalette::Text);
        unseen.setAlphaF(0.05f);
        painter.fillRect(QRect(QPoint(l.scale.plot.left(), lanesRect.top()),
                               QPoint(l.scale.xAt(track.spans.isEmpty() ? now : track.spans.first().startMono),
                                      lanesRect.bottom())),
                         unseen);
    }

    // Periods without a leader, across every lane: a release not yet taken
    // up, or from a crashed holder's last renewal to its takeover.
    const QList<FleetSegment> segments = FleetTimelineModel::segmentsOf(track);
    const QColor gapEdge = chart::noLeaderColor(palette());
    for (const FleetSegment &segment : segments) {
        const qint64 end = segment.endMono < 0 ? now : segment.endMono;
        if (!segment.noLeader || end <= l.scale.start || segment.startMono >= l.scale.end)
            continue;
        const int x0 = l.scale.xAt(segment.startMono);
        const QRect r(QPoint(x0, lanesRect.top()), QPoint(std::max(l.scale.xAt(end), x0 + 2), lanesRect.bottom()));
        chart::fillNoLeader(&painter, r, palette());
        painter.setPen(QPen(gapEdge, 1));
        painter.drawLine(r.topLeft(), r.bottomLeft());
        if (r.width() > painter.fontMetrics().horizontalAdvance(tr("no leader")) + 8) {
            painter.setPen(palette().color(QPalette::Text));
            painter.drawText(r.adjusted(4, 2, -2, 0), Qt::AlignTop | Qt::AlignLeft, tr("no leader"));
        }
    }

    // One lane per holder, each bar up to its release or its last renewal.
    painter.setRenderHint(QPainter::Antialiasing);
    for (const FleetSegment &segment : segments) {
        if (segment.noLeader)
            continue;
        const qint64 until = segment.endMono < 0 ? now : segment.endMono;
        if (until <= l.scale.start || segment.startMono >= l.scale.end)
            continue;
        const int lane = int(l.holders.indexOf(segment.holder));
        const QColor color = chart::holderColor(segment.holder, palette());
        const int x0 = std::max(l.scale.xAt(segment.startMono), l.scale.plot.left() - 4);
        const int x1 = std::min(l.scale.xAt(until), l.scale.plot.right() + 4);
        const QRectF r(x0, l.scale.plot.top() + lane * l.laneHeight + 3, std::max(2, x1 - x0), l.laneHeight - 6);
        painter.setPen(Qt::NoPen);
        painter.setBrush(color);
        painter.drawRoundedRect(r, 3, 3);
        // The renewals seen during this stretch.
        painter.setPen(QPen(color.darker(150), 1));
        int lastX = -10;
        for (const RenewalSample &renewal : track.renewals) {
            if (renewal.holder != segment.holder || renewal.mono < segment.startMono || renewal.mono > until)
                continue;
            const int x = l.scale.xAt(renewal.mono);
            if (x - lastX < 3)
                continue;
            painter.drawLine(QPointF(x, r.bottom() - r.height() * 0.35), QPointF(x, r.bottom() - 1));
            lastX = x;
        }
        if (r.width() > painter.fontMetrics().horizontalAdvance(segment.holder) + 10) {
            painter.setPen(QColor(0x20, 0x20, 0x20));
            painter.drawText(r.adjusted(6, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft, segment.holder);
        }
    }
    painter.setClipping(false);

    // Lane labels.
    painter.setPen(palette().color(QPalette::Text));
    for (int i = 0; i < l.holders.size(); ++i) {
        const QRect labelRect(4, l.scale.plot.top() + i * l.laneHeight, l.scale.plot.left() - 10, l.laneHeight);
        painter.drawText(labelRect, Qt::AlignVCenter | Qt::AlignRight,
                         painter.fontMetrics().elidedText(l.holders.at(i), Qt::ElideMiddle, labelRect.width()));
    }
    if (l.holders.isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(lanesRect, Qt::AlignCenter, tr("No holder seen yet"));
    }
    // The present, when in view.
    if (now >= l.scale.start && now <= l.scale.end) {
        QColor nowColor = palette().color(QPalette::Highlight);
        painter.setPen(QPen(nowColor, 1, Qt::DashLine));
        const int x = l.scale.xAt(now);
        painter.drawLine(x, lanesRect.top(), x, lanesRect.bottom());
    }
    if (!isLive()) {
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

QString TimelineWidget::toolTipAt(const QPoint &pos) const
{
    if (!activity() || lease().isEmpty())
        return {};
    const LeaseTrack track = activity()->track(lease());
    const Layout l = layout(track);
    if (!l.scale.plot.contains(pos))
        return {};
    const Clock &clock = activity()->clock();
    const qint64 now = clock.monotonicMs();
    const qint64 at = l.scale.monoAt(pos.x());
    const int lane = (pos.y() - l.scale.plot.top()) / std::max(1, l.laneHeight);
    auto range = [&](qint64 from, qint64 to, bool open) {
        return tr("%1 → %2").arg(chart::wallLabel(clock, from, true),
                                 open ? tr("now") : chart::wallLabel(clock, to, true));
    };
    const QList<FleetSegment> segments = FleetTimelineModel::segmentsOf(track);
    for (const FleetSegment &segment : segments) {
        const qint64 end = segment.endMono < 0 ? now : segment.endMono;
        if (at < segment.startMono || at > end)
            continue;
        const QString duration = LeaseTableModel::formatDuration(segment.durationMs(now));
        const QString when = range(segment.startMono, end, segment.endMono < 0);
        if (segment.noLeader && segment.stoppedHolder.isEmpty())
            return tr("No leader for %1 (released)\n%2").arg(duration, when);
        if (segment.noLeader)
            return tr("No leader for %1 (%2 stopped renewing)\n%3").arg(duration, segment.stoppedHolder, when);
        if (lane >= 0 && lane < l.holders.size() && l.holders.at(lane) == segment.holder) {
            int renewals = 0;
            for (const RenewalSample &r : track.renewals)
                renewals += r.holder == segment.holder && r.mono >= segment.startMono && r.mono <= end ? 1 : 0;
            return tr("%1 held the lease\n%2\n%n renewal(s) seen", nullptr, renewals)
                    .arg(segment.holder, tr("%1 (%2)").arg(when, duration));
        }
    }
    return {};
}

} // namespace baton
