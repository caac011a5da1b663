#pragma once

#include "versionfolder.h"

#include <optional>

/*!
 * The FileStore's earlier layout, which a folder may still hold: one
 * `<key>.json` a key (VersionFolder reads it as version 0), written under a
 * QLockFile on `.lock`, versions from the counter in `.sequence`.
 */
namespace baton::earlierlayout {

/*!
 * Where a key with no file starts counting: the counter in `.sequence`,
 * 0 without one; nullopt with \a refusal when it cannot be read.
 */
std::optional<quint64> sequence(const VersionFolder &folder, StoreResult *refusal);

/*!
 * Makes `.lock` a folder, once no process of the earlier layout holds it as
 * its lock file, so that none can write to \a folder again; Unavailable,
 * naming the holder, while one does. Every write calls it before it reads.
 */
std::optional<StoreResult> lockOutWriters(const VersionFolder &folder);

} // namespace baton::earlierlayout
