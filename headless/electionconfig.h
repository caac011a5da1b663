#pragma once

#include <batoninternal/labelselector.h>

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

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

/*! `baton join --priority`, `--prefer-after`, `--standby`, `--label`: for every election joined, over the file's. */
struct Steering
{
    std::optional<int> priority;
    std::optional<qint64> preferAfterMs;
    bool standby = false;
    /*! Merged into the file's labels, replacing those of the same keys. */
    CandidateLabels labels;

    bool isSet() const { return priority || preferAfterMs || standby || !labels.isEmpty(); }
};

/*!
 * \a steering over the configuration's entry of \a cluster in
 * \a services; false, with the reason, for an election that has no other
 * candidates (a local one).
 */
bool steer(QJsonObject &services, const ClusterService *cluster, const Steering &steering, QString *errorString);

} // namespace electionconfig

} // namespace baton
