// The baton executable: hands the command line over to the command it
// names. Each command's options, and its entry in `baton help`, are
// defined beside the command in the headless library, where the work and
// its tests live.

#include "checkoptions.h"
#include "democommand.h"
#include "demooptions.h"
#include "draincommand.h"
#include "eventdispatcher.h"
#include "handovercommand.h"
#include "headlesslogging.h"
#include "joinoptions.h"
#include "langoption.h"
#include "statusoptions.h"
#include "usage.h"
#ifdef BATON_WITH_GUI
#include "dashboard.h"
#include "dashboardlauncher.h"
#endif

#include <batoninternal/didyoumean.h>

#include <QCoreApplication>

#include <cstdio>

namespace {

/*! Starts \a command and runs until it finishes; its exit status. */
template<typename Command>
int run(QCoreApplication &app, Command &command)
{
    QObject::connect(&command, &Command::finished, &app, &QCoreApplication::exit);
    const int early = command.start();
    return early >= 0 ? early : app.exec();
}

int runJoin(QCoreApplication &app)
{
    const baton::joinoptions::Parsed line = baton::joinoptions::parse(QCoreApplication::arguments());
    if (line.exitCode != baton::commandline::Run)
        return line.exitCode;
    baton::JoinCommand join(line.options);
    return run(app, join);
}

int runStatus(QCoreApplication &app)
{
    const baton::statusoptions::Parsed line = baton::statusoptions::parse(QCoreApplication::arguments());
    if (line.exitCode != baton::commandline::Run)
        return line.exitCode;
    baton::StatusCommand status(line.options);
    return run(app, status);
}

int runCheck(QCoreApplication &app)
{
    const baton::checkoptions::Parsed line = baton::checkoptions::parse(QCoreApplication::arguments());
    if (line.exitCode != baton::commandline::Run)
        return line.exitCode;
    baton::CheckCommand check(line.options);
    return run(app, check);
}

int runHandover(QCoreApplication &app)
{
    const baton::handoveroptions::Parsed line = baton::handoveroptions::parse(QCoreApplication::arguments());
    if (line.exitCode != baton::commandline::Run)
        return line.exitCode;
    baton::HandoverCommand handover(line.options);
    return run(app, handover);
}

int runDrain(QCoreApplication &app)
{
    const baton::drainoptions::Parsed line = baton::drainoptions::parse(QCoreApplication::arguments());
    if (line.exitCode != baton::commandline::Run)
        return line.exitCode;
    baton::DrainCommand drain(line.options);
    return run(app, drain);
}

int runDemo(QCoreApplication &app)
{
    const int done = baton::demooptions::parse(QCoreApplication::arguments());
    if (done != baton::commandline::Run)
        return done;
    baton::DemoCommand demo(QCoreApplication::applicationFilePath());
    return run(app, demo);
}

} // namespace

int main(int argc, char *argv[])
{
#ifdef BATON_WITH_GUI
    // No arguments on a desktop, or --lang: the dashboard.
    if (baton::dashboard::wanted(argc, argv))
        return baton::runDashboardModule(argc, argv);
#endif
    baton::langoption::setAside(&argc, argv);
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
    if (command == QLatin1String("check"))
        return runCheck(app);
    if (command == QLatin1String("handover"))
        return runHandover(app);
    if (command == QLatin1String("drain") || command == QLatin1String("undrain"))
        return runDrain(app);
    if (command == QLatin1String("demo"))
        return runDemo(app);
    if (command == QLatin1String("--version") || command == QLatin1String("version")) {
        std::printf("baton %s\n", BATON_VERSION);
        return 0;
    }
    if (command == QLatin1String("help") || command == QLatin1String("--help")
        || command == QLatin1String("-h")) {
        std::fputs(baton::usage::text().c_str(), stdout);
        return 0;
    }
    // One line, with the command a typo most likely meant, not the whole usage.
    const QString meant = baton::parameters::closest(
            command, {QStringLiteral("join"), QStringLiteral("status"), QStringLiteral("check"), QStringLiteral("handover"), QStringLiteral("drain"),
                      QStringLiteral("undrain"), QStringLiteral("demo"),
                      QStringLiteral("help"), QStringLiteral("version")});
    std::fprintf(stderr, "baton: unknown command \"%s\"%s (baton help lists the commands)\n",
                 qPrintable(command),
                 meant.isEmpty() ? ""
                                 : qPrintable(QStringLiteral(", did you mean \"%1\"?").arg(meant)));
    return 2;
}
