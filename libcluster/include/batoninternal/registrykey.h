#pragma once

#include <QString>

namespace baton {

/*!
 * Where a lease lives in the Registry (B2): the entry `cluster:<leaseName>`.
 * The one home of that convention: the election writes there, observers
 * list and watch the prefix, the dashboard's script writes there too.
 */
inline const QString registryLeasePrefix = QStringLiteral("cluster:");

inline QString registryLeaseKey(const QString &leaseName)
{
    return registryLeasePrefix + leaseName;
}

} // namespace baton
