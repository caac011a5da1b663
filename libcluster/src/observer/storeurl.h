#pragma once

#include <QJsonObject>
#include <QString>

namespace baton {

/*!
 * The Registry service configuration for a store named by URL, for
 * `baton status --store URL` (look at a store without writing a
 * configuration file):
 *
 * - `file:///var/lib/app/registry`: a Webda/FileStore on that folder;
 * - `http://host:2379` or `https://...`, several separated by commas: a
 *   Webda/EtcdStore on those endpoints (`etcd://` and `etcds://` say the
 *   same as http and https).
 *
 * Credentials never come from a URL (they would land in shell history and
 * process listings): a store that needs them takes a configuration file.
 * Returns an empty object and fills \a errorString for anything else.
 */
QJsonObject registryForStoreUrl(const QString &url, QString *errorString);

} // namespace baton
