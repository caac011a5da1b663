#include "fleettimelinewidget.h"

#include "chartsupport.h"
#include <baton/clock.h>
#include "fleettimelinemodel.h"
#include "leaseactivity.h"
#include "leasetablemodel.h"

#include <QPainter>
#include <QScrollBar>

#include <algorithm>

namespace baton {

FleetTimelineWidget::FleetTimelineWidget(QWidget *parent)
    : TimeChartWidget(parent)
    , m_model(new FleetTimelineModel(this))
    , m_scroll(new QScrollBar(Qt::Vertical, this))
{
    m_scroll->setObjectName(QStringLiteral("fleetScroll"));
    m_scroll->hide();
    connect(m_scroll, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
    connect(m_model, &FleetTimelineModel::lanesChanged, this, &FleetTimelineWidget::updateScrollBar);
    connect(m_model, &FleetTimelineModel::changed, this, qOverload<>(&QWidget::update));
}

QSize FleetTimelineWidget::sizeHint() const
{
    return {640, 200};
}

QSize FleetTimelineWidget::minimumSizeHint() const
{
    return {240, 110};
}

void FleetTimelineWidget::onTrackChanged(const QString &)
{
    // The model follows every lane and asks for a repaint (changed()); a
    // thousand renewals between two paints still paint once.
}

void FleetTimelineWidget::onActivityChanged()
{
    m_model->setActivity(activity());
}

int FleetTimelineWidget::laneHeight() const
{
    return fontMetrics().height() + 8;
}

int FleetTimelineWidget::labelWidth() const
{
    const QFontMetrics metrics(font());
    int widest = metrics.horizontalAdvance(QStringLiteral("search-indexer"));
    const QStringList leases = m_model->leases();
    // The first few hundred names are enough to size the column.
    for (qsizetype i = 0; i < std::min<qsizetype>(leases.size(), 300); ++i)
        widest = std::max(widest, metrics.horizontalAdvance(leases.at(i)));
    return std::min(widest + 16, width() / 4);
}

QRect FleetTimelineWidget::lanesArea() const
{
    const int axisHeight = fontMetrics().height() + 6;
    const int scrollWidth = m_scroll->isVisible() ? m_scroll->width() : 0;
    return rect().adjusted(0, 4, -(10 + scrollWidth), -axisHeight);
}

QRect FleetTimelineWidget::plotRect() const
{
    return lanesArea().adjusted(labelWidth(), 0, 0, 0);
}

qint64 FleetTimelineWidget::knownSinceMono() const
{
    return m_model->knownSinceMono();
}

void FleetTimelineWidget::updateScrollBar()
{
    const int visible = std::max(1, lanesArea().height() / laneHeight());
    const int hidden = m_model->laneCount() - visible;
    m_scroll->setRange(0, std::max(0, hidden));
    m_scroll->setPageStep(visible);
    m_scroll->setVisible(hidden > 0);
    const int scrollWidth = m_scroll->sizeHint().width();
    m_scroll->setGeometry(width() - scrollWidth, 4, scrollWidth, lanesArea().height());
    update();
}

void FleetTimelineWidget::resizeEvent(QResizeEvent *event)
{
    TimeChartWidget::resizeEvent(event);
    updateScrollBar();
}

QString FleetTimelineWidget::leaseAt(const QPoint &pos) const
{
    const QRect area = lanesArea();
    if (!area.contains(pos))
        return {};
    const int lane = m_scroll->value() + (pos.y() - area.top()) / laneHeight();
    const QStringList leases = m_model->leases();
    return lane >= 0 && lane < leases.size() ? leases.at(lane) : QString();
}

void FleetTimelineWidget::clicked(const QPoint &pos)
{
    const QString lease = leaseAt(pos);
    if (lease.isEmpty())
        return;
    m_model->setSelectedLease(lease);
    Q_EMIT leaseActivated(lease);
}

void FleetTimelineWidget::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    if (!activity() || m_model->laneCount() == 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter,
                         activity() ? tr("No lease yet.") : tr("Open a connection to see every lease over time."));
        return;
    }
    const Clock &clock = activity()->clock();
    const qint64 now = clock.monotonicMs();
    const chart::TimeScale scale = timeScale();
    const QRect area = lanesArea();
    const int laneH = laneHeight();
    chart::drawTimeAxis(&painter, scale, height() - 2, palette(), clock);

    const QStringList leases = m_model->leases();
    const bool filtering = !m_model->holderFilter().isEmpty();
    const int first = m_scroll->value();
    // Whole lanes only: a half lane would run into the axis.
    const int last = std::min<int>(int(leases.size()) - 1, first + std::max(1, area.height() / laneH) - 1);
    QColor highlight = palette().color(QPalette::Highlight);
    highlight.setAlphaF(0.18f);
    for (int lane = first; lane <= last; ++lane) {
        const QString &lease = leases.at(lane);
        const int y = area.top() + (lane - first) * laneH;
        const QRect laneRect(area.left(), y, area.width(), laneH);
        const bool lit = filtering && m_model->isHighlighted(lease);
        const bool selected = lease == m_model->selectedLease();
        if (lit)
            painter.fillRect(laneRect, highlight);

        painter.save();
        painter.setClipRect(QRect(scale.plot.left(), y, scale.plot.width() + 1, laneH));
        const QList<FleetSegment> segments = m_model->segments(lease);
        for (const FleetSegment &segment : segments) {
            const qint64 end = segment.endMono < 0 ? now : segment.endMono;
            if (end <= scale.start || segment.startMono >= scale.end)
                continue;
            const int x0 = std::max(scale.xAt(segment.startMono), scale.plot.left() - 2);
            const int x1 = std::min(scale.xAt(end), scale.plot.right() + 2);
            const QRect r(x0, y + 2, std::max(2, x1 - x0), laneH - 4);
            if (segment.noLeader) {
                chart::fillNoLeader(&painter, r, palette());
                continue;
            }
            QColor color = chart::holderColor(segment.holder, palette());
            if (filtering && !lit)
                color.setAlphaF(0.35f); // the filtered holder's lanes stand out
            painter.fillRect(r, color);
            if (r.width() > painter.fontMetrics().horizontalAdvance(segment.holder) + 8) {
                painter.setPen(QColor(0x20, 0x20, 0x20));
                painter.drawText(r.adjusted(4, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, segment.holder);
            }
        }
        painter.restore();

        QFont labelFont = font();
        labelFont.setBold(selected);
        painter.setFont(labelFont);
        painter.setPen(palette().color(QPalette::Text));
        const QRect labelRect(area.left() + 4, y, scale.plot.left() - area.left() - 10, laneH);
        painter.drawText(labelRect, Qt::AlignVCenter | Qt::AlignRight,
                         painter.fontMetrics().elidedText(lease, Qt::ElideMiddle, labelRect.width()));
        painter.setFont(font());
        if (selected) {
            painter.setPen(QPen(palette().color(QPalette::Highlight), 2));
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(laneRect.adjusted(1, 1, -1, -1));
        }
    }
    if (now >= scale.start && now <= scale.end) {
        painter.setPen(QPen(palette().color(QPalette::Highlight), 1, Qt::DashLine));
        const int x = scale.xAt(now);
        painter.drawLine(x, area.top(), x, area.bottom());
    }
    if (!isLive()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(0, 2, -12, 0), Qt::AlignTop | Qt::AlignRight,
                         tr("paused: End or double-click to follow"));
    }
}

QString FleetTimelineWidget::toolTipAt(const QPoint &pos) const
{
    const QString lease = leaseAt(pos);
    if (lease.isEmpty() || !activity())
        return {};
    const chart::TimeScale scale = timeScale();
    if (pos.x() < scale.plot.left())
        return lease;
    const Clock &clock = activity()->clock();
    const qint64 now = clock.monotonicMs();
    const qint64 at = scale.monoAt(pos.x());
    const QList<FleetSegment> segments = m_model->segments(lease);
    for (const FleetSegment &segment : segments) {
        const qint64 end = segment.endMono < 0 ? now : segment.endMono;
        if (at < segment.startMono || at > end)
            continue;
        const QString duration = LeaseTableModel::formatDuration(segment.durationMs(now));
        const QString from = chart::wallLabel(clock, segment.startMono, true);
        const QString to = segment.endMono < 0 ? tr("now") : chart::wallLabel(clock, end, true);
        QString tip;
        if (!segment.noLeader)
            tip = tr("%1: held by %2\n%3").arg(lease, segment.holder, tr("%1 → %2 (%3)").arg(from, to, duration));
        else if (segment.stoppedHolder.isEmpty())
            tip = tr("%1: no leader for %2 (released)\n%3").arg(lease, duration, tr("%1 → %2").arg(from, to));
        else
            tip = tr("%1: no leader for %2 (%3 stopped renewing)\n%4")
                          .arg(lease, duration, segment.stoppedHolder, tr("%1 → %2").arg(from, to));
        // Before this observer saw the lease: placed by the holders' clocks.
        return segment.recorded ? tip + QLatin1Char('\n') + tr("From the stored history: times by the holders' clocks.")
                                : tip;
    }
    return lease;
}

} // namespace baton
