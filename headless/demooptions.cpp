#include "demooptions.h"

#include "commandline.h"

namespace baton::demooptions {

const char *const usage = R"(  demo           three participants on a file Registry: a crash failover and
                 a clean handover, shown live, then the history
)";

int parse(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
            QStringLiteral("Three participants on a file Registry: a crash failover and a clean "
                           "handover, shown live, then the history."));
    // --help shows the usage and runs nothing.
    return commandline::parse(parser, "demo", arguments);
}

} // namespace baton::demooptions
