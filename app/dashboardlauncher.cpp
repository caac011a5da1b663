#include "dashboardlauncher.h"

#include <QFileInfo>
#include <QLibrary>

#include <cstdio>

namespace baton {

int runDashboardModule(int argc, char **argv)
{
    // No QCoreApplication yet (the dashboard makes its QApplication), so the
    // executable's folder comes from /proc. The module is looked for in one
    // place only, relative to the executable, where both the build tree and
    // an installation put it: no search path that another user could write.
    const QString bin = QFileInfo(QFileInfo(QStringLiteral("/proc/self/exe")).symLinkTarget()).absolutePath();
    const QString path = bin + QStringLiteral("/" BATON_DASHBOARD_RELATIVE_DIR "/" BATON_DASHBOARD_FILE_NAME);
    QLibrary module(path);
    using Run = int (*)(int, char **);
    if (auto run = reinterpret_cast<Run>(module.resolve("baton_dashboard_run")))
        return run(argc, argv);
    std::fprintf(stderr, "baton: the dashboard module cannot be loaded: %s\n", qPrintable(module.errorString()));
    return 1;
}

} // namespace baton
