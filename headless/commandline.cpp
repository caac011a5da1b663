#include "commandline.h"

#include <batoninternal/didyoumean.h>
#include <batoninternal/durationtext.h>

#include <QRegularExpression>

#include <cstdio>

namespace baton::commandline {

namespace {

/*! Qt's reason, or for a misspelt option the option it most likely meant. */
QString whyNotParsed(const QCommandLineParser &parser, const char *command)
{
    const QStringList unknown = parser.unknownOptionNames();
    if (unknown.isEmpty())
        return parser.errorText();
    // Qt 6.4's parser lists its options only in its help text.
    QStringList known;
    static const QRegularExpression longName(QStringLiteral("--([a-z][a-z0-9-]*)"));
    for (const QRegularExpressionMatch &match : longName.globalMatch(parser.helpText()))
        known.append(match.captured(1));
    const QString &word = unknown.constFirst();
    const QString dashes = word.size() > 1 ? QStringLiteral("--") : QStringLiteral("-");
    const QString suggestion = parameters::closest(word, known);
    return suggestion.isEmpty()
            ? QStringLiteral("unknown option %1%2 (baton %3 --help lists the options)")
                      .arg(dashes, word, QLatin1String(command))
            : QStringLiteral("unknown option %1%2, did you mean --%3?").arg(dashes, word, suggestion);
}

} // namespace

int parse(QCommandLineParser &parser, const char *command, QStringList arguments, bool takesArguments)
{
    parser.addHelpOption();
    arguments.removeAt(1); // the command name
    if (!parser.parse(arguments)) {
        std::fprintf(stderr, "baton %s: %s\n", command, qPrintable(whyNotParsed(parser, command)));
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

qint64 durationOf(const QString &option, const QString &text, BareNumber bare, QString *errorString)
{
    bool isNumber = false;
    const qlonglong number = text.toLongLong(&isNumber);
    QString problem;
    std::optional<qint64> ms;
    if (isNumber && bare == BareNumber::Milliseconds)
        ms = number;
    else if (isNumber && number != 0)
        // "30" could mean seconds or milliseconds, and a job that waits 1000
        // times too long fails silently.
        problem = QStringLiteral("a number other than 0 needs a unit (ms, s, m or h)");
    else
        ms = durationtext::parse(text, &problem);
    if (ms && *ms < 0)
        problem = QStringLiteral("a duration cannot be negative");
    if (!problem.isEmpty() || !ms) {
        // Each problem names the units or the forms itself: said again
        // after it, they made the line say the units twice.
        *errorString = QStringLiteral("%1 \"%2\": %3").arg(option, text, problem);
        if (bare == BareNumber::Milliseconds)
            *errorString += QStringLiteral("; a number alone is milliseconds");
        return -1;
    }
    return *ms;
}

int refuse(const char *command, const QString &text)
{
    std::fprintf(stderr, "baton %s: %s\n", command, qPrintable(text));
    return BadUsage;
}

void complain(const char *command, const QString &text)
{
    for (const QString &line : text.split(QLatin1Char('\n'))) // one line a mistake
        std::fprintf(stderr, "baton %s: %s\n", command, qPrintable(line));
}

void say(const QString &text)
{
    write(text.toUtf8() + '\n');
}

void write(const QByteArray &bytes)
{
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

} // namespace baton::commandline
