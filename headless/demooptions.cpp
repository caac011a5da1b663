#include "demooptions.h"

#include "commandline.h"
#include "democommand.h"

namespace baton::commandline {

int runDemo(QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
            QStringLiteral("Three participants on a file Registry: a crash failover and a clean "
                           "handover, shown live, then the history."));
    int exitCode = 0;
    if (!parseCommand(app, parser, "demo", &exitCode))
        return exitCode; // --help shows the usage and runs nothing
    baton::DemoCommand demo(QCoreApplication::applicationFilePath());
    return run(app, demo);
}

} // namespace baton::commandline
