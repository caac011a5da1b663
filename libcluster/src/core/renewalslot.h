#pragma once

#include <QtGlobal>

#include <algorithm>

namespace baton {

/*!
 * The start of the slot of the boot clock that \a dueMono falls in, for an
 * election that renews every \a renewIntervalMs. Slots are a twentieth of
 * the interval wide and the same for every election of the process with
 * that interval, so what falls due in one slot comes in one timer turn
 * and shares the store's batched writes (etcd's txn) instead of one
 * request each. Never after \a dueMono: work moved to its slot comes at
 * most one slot early, never late.
 */
inline qint64 renewalSlotStart(qint64 dueMono, qint64 renewIntervalMs)
{
    constexpr qint64 slotsPerInterval = 20;
    const qint64 slot = std::max<qint64>(1, renewIntervalMs / slotsPerInterval);
    return dueMono - (((dueMono % slot) + slot) % slot);
}

} // namespace baton
