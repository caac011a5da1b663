#pragma once

#include <baton/electionoptions.h>
#include <QJsonObject>

namespace baton {

/*!
 * \a options as a configuration file's service entry, `type` included:
 * what Application::addCluster() hands to the factory, so that an election
 * built in code is read and refused (P1) by the code that reads the file.
 * Only what the backend takes is written; an empty optional text is left
 * out, as a file would leave it out.
 */
QJsonObject electionEntry(const ElectionOptions &options);

} // namespace baton
