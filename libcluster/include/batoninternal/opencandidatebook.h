#pragma once

#include <batoninternal/batoninternal_export.h>

#include <QString>

class QObject;

namespace baton {

class CandidateBook;
class ClusterService;

/*!
 * The candidate records of \a cluster's lease, kept where the lease is
 * kept: the store its `store` parameter names, or the application's
 * Registry; one ConfigMap per candidate beside a Kubernetes Lease. Owned by
 * \a parent. nullptr, with \a errorString saying why, when there is none (a
 * cluster service built without an application, a local one, a Lease name
 * too long for a label).
 */
BATON_INTERNAL_EXPORT CandidateBook *openCandidateBook(ClusterService *cluster, QObject *parent,
                                                       QString *errorString);

} // namespace baton
