#pragma once

#include <QtGlobal>

namespace baton {

/*!
 * How long one event-loop turn works through a long list (a store copying
 * its entries, the leases decoded from them, an observer taking them in)
 * before it lets the loop run. Qt may run two or three such turns back to
 * back before a timer's turn: at 2 ms they stay well within a 16 ms frame
 * even beside a window's first paint.
 */
inline constexpr qint64 kListSliceMs = 2;

} // namespace baton
