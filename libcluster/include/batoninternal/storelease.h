#pragma once

#include <batoninternal/batoninternal_export.h>

#include <QJsonObject>
#include <QString>

namespace baton {

class ClusterService;
class Store;

/*!
 * A Registry election (`cluster:<leaseName>` in \a store, as
 * StoreClusterService) on a store that is already open elsewhere and that
 * the caller keeps open: the dashboard joins through the connection it
 * observes. \a parameters are StoreClusterService's (B1); not initialised.
 */
BATON_INTERNAL_EXPORT ClusterService *createStoreElection(Store *store, const QString &name,
                                                          const QJsonObject &parameters);

} // namespace baton
