#pragma once

#include <QString>

namespace baton {

/*!
 * What a store whose versions are numbers that only ever grow can say about
 * a key that is missing now: a number at least as large as every version
 * the key ever had, as far as this store has seen (0: none). The lease
 * backend starts a re-created record's transitions above it, so that the
 * fencing token never goes back when someone deleted the record (F7). A
 * store that cannot promise this does not offer it.
 */
class VersionFloor
{
public:
    virtual ~VersionFloor() = default;
    virtual qint64 versionFloor(const QString &key) const = 0;
};

} // namespace baton
