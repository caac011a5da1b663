#pragma once

#include <batoninternal/batoninternal_export.h>

#include <QString>

class QObject;

namespace baton {

class ClusterService;
class RunLedger;

/*!
 * The run ledger of \a cluster's lease, kept where the lease is kept: the
 * store its `store` parameter names, or the application's Registry. Owned
 * by \a parent. nullptr, with \a errorString saying why, when the cluster
 * service keeps its lease elsewhere (Kubernetes Leases, for now) or has no
 * store (one built without an application).
 */
BATON_INTERNAL_EXPORT RunLedger *openRunLedger(ClusterService *cluster, QObject *parent, QString *errorString);

} // namespace baton
