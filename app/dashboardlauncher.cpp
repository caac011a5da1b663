#include "dashboardlauncher.h"

#include <QFileInfo>
#include <QLibrary>
#include <QStringList>

#include <cstdio>

namespace baton {

int runDashboardModule(int argc, char **argv)
{
    // No QCoreApplication yet (the dashboard makes its QApplication), so the
    // executable's folder comes from /proc.
    const QString bin = QFileInfo(QFileInfo(QStringLiteral("/proc/self/exe")).symLinkTarget()).absolutePath();
    const QStringList candidates {
        bin + QStringLiteral("/../" BATON_DASHBOARD_INSTALL_DIR "/" BATON_DASHBOARD_FILE_NAME),
        QStringLiteral(BATON_DASHBOARD_BUILD_PATH),
    };
    QStringList errors;
    for (const QString &path : candidates) {
        if (!QFileInfo::exists(path))
            continue;
        QLibrary module(path);
        using Run = int (*)(int, char **);
        if (auto run = reinterpret_cast<Run>(module.resolve("baton_dashboard_run")))
            return run(argc, argv);
        errors << module.errorString();
    }
    std::fprintf(stderr, "baton: the dashboard module cannot be loaded (%s)\n",
                 errors.isEmpty() ? qPrintable(candidates.join(QStringLiteral(", ")) + QStringLiteral(": not found"))
                                  : qPrintable(errors.join(QStringLiteral("; "))));
    return 1;
}

} // namespace baton
