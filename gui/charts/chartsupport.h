#pragma once

#include <QColor>
#include <QList>
#include <QRect>
#include <QString>

class QPainter;
class QPalette;

namespace baton {

class Clock;

/*! Drawing helpers shared by the timelines and the renew-timing chart. */
namespace chart {

/*! Where the monotonic instants [start, end] fall across a plot's width. */
struct TimeScale
{
    QRect plot;
    qint64 start = 0;
    qint64 end = 1;

    int xAt(qint64 mono) const;
    qint64 monoAt(int x) const;
    /*! Milliseconds a pixel stands for. */
    double msPerPixel() const;
};

/*! A colour for \a holder, stable across runs and readable on \a palette's base. */
QColor holderColor(const QString &holder, const QPalette &palette);
/*! The colour of a time without a leader: a red that reads on \a palette's base, light or dark. */
QColor noLeaderColor(const QPalette &palette);
/*!
 * Fills \a rect as a time without a leader: a faint wash under a hatch, so
 * that it reads as nobody's time whatever the holders' colours.
 */
void fillNoLeader(QPainter *painter, const QRect &rect, const QPalette &palette);
/*! A step between time ticks, at least \a minMs. */
qint64 niceStep(qint64 minMs);
/*! The wall time of monotonic instant \a mono, by \a clock. */
QString wallLabel(const Clock &clock, qint64 mono, bool withMs = false);
/*!
 * Draws a time axis for [startMono, endMono] along the bottom of \a area,
 * with faint vertical grid lines above it.
 */
void drawTimeAxis(QPainter *painter, const QRect &area, const QPalette &palette, const Clock &clock,
                  qint64 startMono, qint64 endMono);
/*! The axis of \a scale, from the top of its plot down to \a bottom. */
void drawTimeAxis(QPainter *painter, const TimeScale &scale, int bottom, const QPalette &palette, const Clock &clock);

} // namespace chart
} // namespace baton
