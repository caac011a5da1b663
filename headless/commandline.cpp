#include "commandline.h"

#include <cstdio>

namespace baton::commandline {

int parse(QCommandLineParser &parser, const char *command, QStringList arguments, bool takesArguments)
{
    parser.addHelpOption();
    arguments.removeAt(1); // the command name
    if (!parser.parse(arguments)) {
        std::fprintf(stderr, "baton %s: %s\n", command, qPrintable(parser.errorText()));
        return BadUsage;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        // Qt names the program by its path; operators know it as `baton join`.
        QString help = parser.helpText();
        help.replace(0, help.indexOf(QLatin1Char('\n')),
                     QStringLiteral("Usage: baton %1 [options]").arg(QLatin1String(command)));
        std::fputs(qPrintable(help), stdout);
        return 0;
    }
    if (!takesArguments && !parser.positionalArguments().isEmpty()) {
        std::fprintf(stderr, "baton %s: unexpected argument \"%s\"\n", command,
                     qPrintable(parser.positionalArguments().constFirst()));
        return BadUsage;
    }
    return Run;
}

QCommandLineOption configOption()
{
    return QCommandLineOption(QStringLiteral("config"), QStringLiteral("The application configuration (JSON)."),
                              QStringLiteral("FILE"));
}

QString configPathOf(const QCommandLineParser &parser, const QCommandLineOption &config)
{
    return parser.isSet(config) ? parser.value(config) : qEnvironmentVariable("BATON_CONFIG");
}

int refuse(const char *command, const QString &text)
{
    std::fprintf(stderr, "baton %s: %s\n", command, qPrintable(text));
    return BadUsage;
}

} // namespace baton::commandline
