#include "checkoptions.h"

#include "verdict.h"

namespace baton::checkoptions {

using namespace commandline;

const char *const usage = R"(  check --config FILE
                 whether join could run with FILE, as a monitoring plugin
                 (Nagios, Icinga) reports it: loads FILE as join does, then
                 contacts each election's store without joining or writing
                 (etcd: name, connection, TLS, authentication, the right to
                 read and write the lease key; a file Registry: its folder
                 takes a file from this user; Kubernetes: the Lease objects
                 can be read); exits 0 OK, 1 WARNING, 2 CRITICAL (join would
                 fail), 3 UNKNOWN (a bad command line of check itself); the
                 first line is "OK - ...", then one line per step, with the
                 fix of a step that failed
)";

Parsed parse(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Whether join could run with a configuration: exit 0 OK, 1 WARNING, 2 "
                       "CRITICAL, 3 UNKNOWN (a bad command line)."));
    const QCommandLineOption config = configOption();
    parser.addOption(config);
    const auto unknown = [](const QString &why) {
        return Parsed { {}, verdict::tell(verdict::Unknown, QStringLiteral("baton check: ") + why) };
    };
    if (const int done = commandline::parse(parser, "check", arguments); done != Run)
        return done == BadUsage ? unknown(QStringLiteral("bad command line (baton check --help)"))
                                : Parsed { {}, done };
    const QString configPath = configPathOf(parser, config);
    if (configPath.isEmpty())
        return unknown(QStringLiteral("--config FILE (or BATON_CONFIG) is required"));
    return { { configPath } };
}

} // namespace baton::checkoptions
