#pragma once

#include <baton/store.h>

#include <functional>
#include <optional>

// R7: the second document of a conditional write (StoreSideWrite) is itself
// written on a condition, the version it was built from, in every store.
namespace baton::sidewrite {

/*!
 * What \a side writes over \a current (the entry its key has now, none when
 * absent): its document when the key still has the version it was built
 * from, else what its rebase makes of \a current; none to write nothing.
 */
std::optional<QJsonObject> documentOver(const StoreSideWrite &side,
                                        const std::optional<StoreEntry> &current);

/*!
 * Writes \a side with the conditional writes every store has (a get, then
 * an update on the version read or a create), building the document again
 * over what another writer put there in between, then calls \a finished. A
 * failure is logged: the write it goes with has already succeeded.
 */
void write(Store *store, const StoreSideWrite &side, std::function<void()> finished);

} // namespace baton::sidewrite
