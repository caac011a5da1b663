// The baton executable: reads the command line and hands over to the
// headless library, where the work and its tests live.

#include "democommand.h"
#include "joincommand.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>

namespace {

const char *const usage = R"(Usage: baton COMMAND [OPTIONS]

Leader election for Qt applications.

Commands:
  join --config FILE [--events json]
                 take part in the elections of FILE until SIGTERM or SIGINT;
                 --events json writes one JSON event a line to stdout
  demo           three participants on a file Registry: a crash failover and
                 a clean handover, shown live, then the history
  help           this text

Exit status: 0 done (a stop by SIGTERM/SIGINT is a success), 1 failed while
running, 2 bad command line or configuration.
)";

int runJoin(QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Take part in the elections of a configuration."));
    parser.addHelpOption();
    const QCommandLineOption config(QStringLiteral("config"),
                                    QStringLiteral("The application configuration (JSON)."),
                                    QStringLiteral("FILE"));
    const QCommandLineOption events(QStringLiteral("events"),
                                    QStringLiteral("Write the event stream to stdout: json."),
                                    QStringLiteral("FORMAT"));
    parser.addOptions({config, events});
    QStringList arguments = app.arguments();
    arguments.removeAt(1); // the command name
    if (!parser.parse(arguments)) {
        std::fprintf(stderr, "baton join: %s\n", qPrintable(parser.errorText()));
        return baton::JoinCommand::BadUsage;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return 0;
    }
    if (!parser.isSet(config)) {
        std::fprintf(stderr, "baton join: --config FILE is required\n");
        return baton::JoinCommand::BadUsage;
    }
    if (parser.isSet(events) && parser.value(events) != QLatin1String("json")) {
        std::fprintf(stderr, "baton join: --events takes \"json\", not \"%s\"\n",
                     qPrintable(parser.value(events)));
        return baton::JoinCommand::BadUsage;
    }
    baton::JoinCommand join({parser.value(config), parser.isSet(events)});
    QObject::connect(&join, &baton::JoinCommand::finished, &app, &QCoreApplication::exit);
    const int early = join.start();
    return early >= 0 ? early : app.exec();
}

int runDemo(QCoreApplication &app)
{
    baton::DemoCommand demo(QCoreApplication::applicationFilePath());
    QObject::connect(&demo, &baton::DemoCommand::finished, &app, &QCoreApplication::exit);
    const int early = demo.start();
    return early >= 0 ? early : app.exec();
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("baton"));
    QCoreApplication::setApplicationVersion(QStringLiteral(BATON_VERSION));
    if (qEnvironmentVariableIsEmpty("QT_MESSAGE_PATTERN"))
        qSetMessagePattern(QStringLiteral(
                "%{time yyyy-MM-ddThh:mm:ss.zzz} %{if-category}%{category} %{endif}%{type}: %{message}"));

    const QString command = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("help");
    if (command == QLatin1String("join"))
        return runJoin(app);
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
    std::fprintf(stderr, "baton: unknown command \"%s\"\n\n%s", qPrintable(command), usage);
    return 2;
}
