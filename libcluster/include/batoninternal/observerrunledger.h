#pragma once

#include <batoninternal/batoninternal_export.h>

#include <QObject>
#include <QString>

namespace baton {

class LeaseObserver;
class RunLedger;

/*!
 * The run ledger of \a lease as \a observer sees leases (`baton status
 * --runs`, the dashboard's Runs tab): its store's, or the ConfigMaps beside
 * a Kubernetes Lease (`namespace/name` across all namespaces). Owned by
 * \a parent; nullptr, with \a errorString saying why, for a source that
 * keeps no runs.
 */
BATON_INTERNAL_EXPORT RunLedger *openRunLedger(LeaseObserver *observer, const QString &lease, QObject *parent,
                                               QString *errorString);

} // namespace baton
