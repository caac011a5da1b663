#include "modulepath.h"

#include <QFileInfo>

namespace baton {

QString modulePath(const QString &fileName)
{
    // From /proc, not QCoreApplication::applicationDirPath(): the dashboard
    // is loaded before any application object exists (it makes its own).
    const QString bin = QFileInfo(QFileInfo(QStringLiteral("/proc/self/exe")).symLinkTarget()).absolutePath();
    return bin + QStringLiteral("/" BATON_MODULE_RELATIVE_DIR "/") + fileName;
}

} // namespace baton
