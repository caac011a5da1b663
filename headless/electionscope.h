#pragma once

#include <QString>

namespace baton {

class Application;
class ClusterService;
class Service;

/*!
 * Which participants an election can see, for people (R8): a file Registry
 * is shared by the processes of one host only, so an election on it never
 * reaches another host, which is easily missed when no Registry is
 * configured and the default one is taken.
 */
struct ElectionScope
{
    /*! One line: `this host only: file Registry at /var/lib/baton/registry`. */
    QString text;
    /*! Only the processes of this host, or of this process, take part. */
    bool local = false;
    /*! The default file Registry was taken: no Registry in the configuration. */
    bool defaultRegistry = false;
};

/*! The scope of \a cluster's election, from the configuration alone: nothing is created or read. */
ElectionScope electionScope(const Application &application, const ClusterService &cluster);

/*!
 * The scope of the elections kept in \a store; \a defaultRegistry when it
 * is the default Registry (no Registry configured).
 */
ElectionScope storeScope(const Service &store, bool defaultRegistry);

} // namespace baton
