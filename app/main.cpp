// The baton executable: reads the command line and hands over to the
// headless library, where the work and its tests live.

#include "commandline.h"
#include "demooptions.h"
#include "eventdispatcher.h"
#include "headlesslogging.h"
#include "joinoptions.h"
#include "statusoptions.h"
#ifdef BATON_WITH_GUI
#include "dashboard.h"
#include "dashboardlauncher.h"
#endif

#include <batoninternal/didyoumean.h>

#include <QCoreApplication>

#include <cstdio>

using namespace baton::commandline;

int main(int argc, char *argv[])
{
#ifdef BATON_WITH_GUI
    // No arguments on a desktop, --screenshot or --lang: the dashboard.
    if (baton::dashboard::wanted(argc, argv))
        return baton::runDashboardModule(argc, argv);
#endif
    baton::eventdispatcher::preferUnix();
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("baton"));
    QCoreApplication::setApplicationVersion(QStringLiteral(BATON_VERSION));
    baton::headlesslogging::install();

    const QString command = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("help");
    if (command == QLatin1String("join")) {
        const int status = runJoin(app);
        // The last lines (the release) for a log that keeps up; a stalled one
        // does not hold the exit up past this.
        baton::headlesslogging::drain(std::chrono::seconds(1));
        return status;
    }
    if (command == QLatin1String("status"))
        return runStatus(app);
    if (command == QLatin1String("demo"))
        return runDemo(app);
    if (command == QLatin1String("--version") || command == QLatin1String("version")) {
        std::printf("baton %s\n", BATON_VERSION);
        return 0;
    }
    if (command == QLatin1String("help") || command == QLatin1String("--help")
        || command == QLatin1String("-h")) {
        std::fputs(usage, stdout);
        return 0;
    }
    // One line, with the command a typo most likely meant, not the whole usage.
    const QString meant = baton::parameters::closest(
            command, {QStringLiteral("join"), QStringLiteral("status"), QStringLiteral("demo"),
                      QStringLiteral("help"), QStringLiteral("version")});
    std::fprintf(stderr, "baton: unknown command \"%s\"%s (baton help lists the commands)\n",
                 qPrintable(command),
                 meant.isEmpty() ? ""
                                 : qPrintable(QStringLiteral(", did you mean \"%1\"?").arg(meant)));
    return 2;
}
