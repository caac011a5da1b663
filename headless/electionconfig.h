#pragma once

#include <QList>
#include <QString>

namespace baton {

class Application;
class ClusterService;

/*!
 * A configuration loaded as `baton join` loads it, for join and for
 * `baton check`, so that check refuses exactly what join refuses, with the
 * same words.
 */
namespace electionconfig {

/*!
 * Loads \a path into \a application and validates each cluster service
 * (P1) into \a clusters, in configuration order; false with one line in
 * \a errorString, naming the file, when join would refuse it.
 */
bool load(Application &application, const QString &path, QList<ClusterService *> *clusters,
          QString *errorString);

} // namespace electionconfig

} // namespace baton
