#pragma once

#include <QColor>
#include <QList>
#include <QString>

class QPainter;
class QPalette;
class QRect;

namespace baton {

class Clock;

/*! Drawing helpers shared by the timeline and the renew-timing chart. */
namespace chart {

/*! A colour for \a holder, stable across runs and readable on \a palette's base. */
QColor holderColor(const QString &holder, const QPalette &palette);
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

} // namespace chart
} // namespace baton
