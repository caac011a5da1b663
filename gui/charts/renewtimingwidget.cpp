#include "renewtimingwidget.h"

#include "chartsupport.h"
#include <baton/clock.h>
#include "leaseactivity.h"
#include "leasetablemodel.h"

#include <baton/clusterservice.h>

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace baton {

RenewTimingWidget::RenewTimingWidget(QWidget *parent)
    : LeaseChartWidget(parent)
{
}

void RenewTimingWidget::setRenewInterval(qint64 ms)
{
    m_renewIntervalMs = ms;
    update();
}

QSize RenewTimingWidget::sizeHint() const
{
    return {480, 200};
}

QSize RenewTimingWidget::minimumSizeHint() const
{
    return {240, 120};
}

void RenewTimingWidget::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    if (!activity() || lease().isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("Select a lease to see its renewals."));
        return;
    }
    const LeaseTrack track = activity()->track(lease());
    const Clock &clock = activity()->clock();
    const qint64 now = clock.monotonicMs();
    const qint64 lease = track.leaseDurationMs;
    const qint64 estimated = LeaseActivity::estimatedRenewInterval(track);
    const qint64 renew = m_renewIntervalMs > 0 ? m_renewIntervalMs : estimated;
    const qint64 deadline = renew > 0 && lease > 0 ? ElectionTimings::forParameters(lease, renew).stepDownDeadline : -1;

    const QFontMetrics metrics(font());
    const int axisWidth = metrics.horizontalAdvance(QStringLiteral("00.0 s")) + 10;
    const int top = metrics.height() + 10;
    const QRect plot = rect().adjusted(axisWidth, top, -10, -(metrics.height() + 6));

    qint64 maxInterval = lease;
    for (const RenewalSample &s : track.renewals)
        maxInterval = std::max(maxInterval, s.intervalMs);
    const qint64 yMax = std::max<qint64>(1000, qint64(double(maxInterval) * 1.15));
    chart::TimeScale scale;
    scale.plot = plot;
    scale.start = track.renewals.isEmpty() ? now - 60'000 : std::min(track.renewals.first().mono, now - 10'000);
    scale.end = now;
    const auto xAt = [&scale](qint64 mono) { return scale.xAt(mono); };
    auto yAt = [&](qint64 ms) { return plot.bottom() - int(double(ms) * plot.height() / double(yMax)); };

    chart::drawTimeAxis(&painter, scale, height() - 2, palette(), clock);
    // The y axis: a few round intervals.
    QColor grid = palette().color(QPalette::Text);
    grid.setAlphaF(0.10f);
    QColor text = palette().color(QPalette::Text);
    text.setAlphaF(0.7f);
    const qint64 yStep = chart::niceStep(yMax / 4);
    for (qint64 y = 0; y <= yMax; y += yStep) {
        painter.setPen(grid);
        painter.drawLine(plot.left(), yAt(y), plot.right(), yAt(y));
        painter.setPen(text);
        painter.drawText(QRect(0, yAt(y) - metrics.height() / 2, axisWidth - 6, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, LeaseTableModel::formatDuration(y));
    }

    // The bounds that matter, each labelled at the right.
    auto bound = [&](qint64 value, const QColor &color, Qt::PenStyle style, const QString &label) {
        if (value <= 0)
            return;
        painter.setPen(QPen(color, 1.5, style));
        painter.drawLine(plot.left(), yAt(value), plot.right(), yAt(value));
        painter.setPen(color);
        painter.drawText(QRect(plot.left(), yAt(value) - metrics.height() - 1, plot.width() - 4, metrics.height()),
                         Qt::AlignRight | Qt::AlignBottom, label);
    };
    bound(lease, QColor(0xd6, 0x3b, 0x3b), Qt::DashLine,
          tr("lease duration %1").arg(LeaseTableModel::formatDuration(lease)));
    bound(deadline, QColor(0xe0, 0x9b, 0x1a), Qt::DashLine,
          m_renewIntervalMs > 0 ? tr("step-down deadline %1").arg(LeaseTableModel::formatDuration(deadline))
                                : tr("step-down deadline ≈ %1 (renew interval estimated)")
                                          .arg(LeaseTableModel::formatDuration(deadline)));

    // The renewals: a line per holder, a dot per renewal seen.
    painter.setRenderHint(QPainter::Antialiasing);
    QString previousHolder;
    QPainterPath path;
    auto flushPath = [&](const QString &holder) {
        if (!path.isEmpty()) {
            painter.setPen(QPen(chart::holderColor(holder, palette()).darker(120), 1.5));
            painter.setBrush(Qt::NoBrush);
            painter.drawPath(path);
        }
        path = QPainterPath();
    };
    for (const RenewalSample &s : track.renewals) {
        const QPointF point(xAt(s.mono), yAt(s.intervalMs));
        if (s.holder != previousHolder) {
            flushPath(previousHolder);
            path.moveTo(point);
            previousHolder = s.holder;
        } else {
            path.lineTo(point);
        }
    }
    flushPath(previousHolder);
    for (const RenewalSample &s : track.renewals) {
        const QColor color = chart::holderColor(s.holder, palette()).darker(130);
        painter.setPen(Qt::NoPen);
        painter.setBrush(s.intervalMs >= lease && lease > 0 ? QColor(0xd6, 0x3b, 0x3b)
                         : deadline > 0 && s.intervalMs >= deadline ? QColor(0xe0, 0x9b, 0x1a)
                                                                    : color);
        painter.drawEllipse(QPointF(xAt(s.mono), yAt(s.intervalMs)), 2.5, 2.5);
    }

    // A one-line summary at the top.
    painter.setPen(palette().color(QPalette::Text));
    QString summary;
    if (track.renewals.isEmpty()) {
        summary = tr("No renewal seen yet: intervals appear from the second change of the record.");
    } else {
        qint64 worst = 0;
        for (const RenewalSample &s : track.renewals)
            worst = std::max(worst, s.intervalMs);
        summary = tr("Interval between renewals as seen: median %1, longest %2 (%n sample(s))", nullptr,
                     int(track.renewals.size()))
                          .arg(LeaseTableModel::formatDuration(estimated), LeaseTableModel::formatDuration(worst));
    }
    painter.drawText(QRect(8, 2, width() - 16, metrics.height() + 6), Qt::AlignVCenter | Qt::AlignLeft,
                     metrics.elidedText(summary, Qt::ElideRight, width() - 16));
}

} // namespace baton
