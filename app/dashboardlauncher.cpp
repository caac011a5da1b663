#include "dashboardlauncher.h"

#include "modulepath.h"

#include <QLibrary>

#include <cstdio>

namespace baton {

int runDashboardModule(int argc, char **argv)
{
    QLibrary module(modulePath(QStringLiteral(BATON_DASHBOARD_FILE_NAME)));
    using Run = int (*)(int, char **);
    if (auto run = reinterpret_cast<Run>(module.resolve("baton_dashboard_run")))
        return run(argc, argv);
    std::fprintf(stderr, "baton: the dashboard module cannot be loaded: %s\n", qPrintable(module.errorString()));
    return 1;
}

} // namespace baton
