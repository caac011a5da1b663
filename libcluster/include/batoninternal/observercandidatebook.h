#pragma once

#include <batoninternal/batoninternal_export.h>

#include <QObject>
#include <QString>

namespace baton {

class CandidateBook;
class LeaseObserver;

/*!
 * The candidate records of \a lease as \a observer sees leases (`baton
 * status -o wide`, the dashboard): its store's, or the ConfigMaps beside a
 * Kubernetes Lease (`namespace/name` across all namespaces). Owned by
 * \a parent; nullptr, with \a errorString saying why, for a source that
 * keeps no candidates.
 */
BATON_INTERNAL_EXPORT CandidateBook *openCandidateBook(LeaseObserver *observer, const QString &lease,
                                                       QObject *parent, QString *errorString);

} // namespace baton
