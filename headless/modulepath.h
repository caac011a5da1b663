#pragma once

#include <QString>

namespace baton {

/*!
 * The path of baton's module \a fileName (the dashboard, the status
 * server): in one place only, relative to the running executable, where
 * both the build tree and an installation put the modules. No search path
 * that another user could write to. Works before QCoreApplication exists.
 */
QString modulePath(const QString &fileName);

} // namespace baton
