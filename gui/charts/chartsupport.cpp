#include "chartsupport.h"

#include <baton/clock.h>

#include <QFontMetrics>
#include <QLocale>
#include <QPainter>
#include <QPalette>

#include <algorithm>

namespace baton::chart {

int TimeScale::xAt(qint64 mono) const
{
    return plot.left() + int(double(mono - start) * plot.width() / double(std::max<qint64>(1, end - start)));
}

qint64 TimeScale::monoAt(int x) const
{
    return start + qint64(double(x - plot.left()) * double(end - start) / std::max(1, plot.width()));
}

double TimeScale::msPerPixel() const
{
    return double(end - start) / std::max(1, plot.width());
}

QColor holderColor(const QString &holder, const QPalette &palette)
{
    // A hash of our own: qHash is seeded per process, and the same holder
    // should keep its colour from one run (and one screenshot) to the next.
    quint32 hash = 2166136261u;
    for (QChar c : holder) {
        hash ^= c.unicode();
        hash *= 16777619u;
    }
    const int hue = int((hash % 360u + (hash / 360u % 7u) * 3u) % 360u);
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    return QColor::fromHsv(hue, dark ? 120 : 110, dark ? 170 : 215);
}

QColor noLeaderColor(const QPalette &palette)
{
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    return dark ? QColor(0xf0, 0x6a, 0x6a) : QColor(0xd6, 0x3b, 0x3b);
}

void fillNoLeader(QPainter *painter, const QRect &rect, const QPalette &palette)
{
    QColor wash = noLeaderColor(palette);
    wash.setAlphaF(0.12f);
    QColor hatch = noLeaderColor(palette);
    hatch.setAlphaF(0.7f);
    painter->fillRect(rect, wash);
    painter->fillRect(rect, QBrush(hatch, Qt::BDiagPattern));
}

qint64 niceStep(qint64 minMs)
{
    static const qint64 steps[] = {100,     200,      500,      1000,      2000,       5000,
                                   10000,   15000,    30000,    60000,     120000,     300000,
                                   600000,  900000,   1800000,  3600000,   7200000,    21600000,
                                   43200000, 86400000};
    for (qint64 step : steps)
        if (step >= minMs)
            return step;
    return 86400000;
}

QString wallLabel(const Clock &clock, qint64 mono, bool withMs)
{
    const QDateTime wall = clock.wallNow().addMSecs(mono - clock.monotonicMs()).toLocalTime();
    return QLocale().toString(wall.time(), withMs ? QStringLiteral("HH:mm:ss.zzz") : QStringLiteral("HH:mm:ss"));
}

void drawTimeAxis(QPainter *painter, const QRect &area, const QPalette &palette, const Clock &clock,
                  qint64 startMono, qint64 endMono)
{
    if (endMono <= startMono || area.width() <= 0)
        return;
    const QFontMetrics metrics(painter->font());
    const int labelWidth = metrics.horizontalAdvance(QStringLiteral("00:00:00")) + 24;
    const double msPerPixel = double(endMono - startMono) / area.width();
    const qint64 step = niceStep(qint64(labelWidth * msPerPixel));
    // Ticks on round wall-clock times: offset the monotonic grid by the wall phase.
    const qint64 wallOffset = clock.wallNow().toMSecsSinceEpoch() - clock.monotonicMs();
    qint64 tick = ((startMono + wallOffset) / step + 1) * step - wallOffset;
    QColor grid = palette.color(QPalette::Text);
    grid.setAlphaF(0.10f);
    QColor text = palette.color(QPalette::Text);
    text.setAlphaF(0.7f);
    painter->save();
    for (; tick <= endMono; tick += step) {
        const int x = area.left() + int(double(tick - startMono) / msPerPixel);
        painter->setPen(grid);
        painter->drawLine(x, area.top(), x, area.bottom() - metrics.height() - 2);
        painter->setPen(text);
        const QString label = wallLabel(clock, tick, step < 1000);
        painter->drawText(QRect(x - labelWidth / 2, area.bottom() - metrics.height(), labelWidth, metrics.height()),
                          Qt::AlignCenter, label);
    }
    painter->restore();
}

} // namespace baton::chart

namespace baton::chart {

void drawTimeAxis(QPainter *painter, const TimeScale &scale, int bottom, const QPalette &palette, const Clock &clock)
{
    drawTimeAxis(painter, QRect(scale.plot.left(), scale.plot.top(), scale.plot.width(), bottom - scale.plot.top()),
                 palette, clock, scale.start, scale.end);
}

} // namespace baton::chart
