#pragma once

#include <batoninternal/batoninternal_export.h>

#include <QString>

namespace baton::secrets {

/*!
 * The secret a configuration's file parameter (`passwordFile`,
 * `tokenFile`) names, read as the election reads it: the path resolved
 * against `$CREDENTIALS_DIRECTORY` (systemd's LoadCredential=) when it is
 * relative and that is set, one trailing newline dropped. False, with
 * \a errorString naming the file and what is wrong with it, when it does
 * not exist, cannot be read or is empty.
 */
BATON_INTERNAL_EXPORT bool readConfiguredFile(const QString &configured, QString *value, QString *errorString);

} // namespace baton::secrets
