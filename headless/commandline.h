#pragma once

// What the commands of `baton` share on their command lines. Each
// command's options, and its entry in `baton help`, are defined beside
// the command (joinoptions, status/statusoptions, demooptions), so that
// the usage, `baton COMMAND --help`, baton(1) and the completions
// (cmake/BatonManual.cmake reads them from the program) have one source.

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QString>
#include <QStringList>

namespace baton::commandline {

/*! What the parsing returns when the command is to run: not an exit status. */
constexpr int Run = -1;
/*! The exit status of a bad command line: nothing was started. */
constexpr int BadUsage = 2;

/*!
 * Parses \a arguments (the program's: the command's name second) with
 * \a parser, as `baton COMMAND`: Run, or the exit status when done with
 * it: 0 once its --help is printed, BadUsage once stderr says what is
 * wrong. Only a command that \a takesArguments accepts positional ones.
 */
int parse(QCommandLineParser &parser, const char *command, QStringList arguments, bool takesArguments = false);
/*! `--config FILE`, which join and status both take. */
QCommandLineOption configOption();
/*! The configuration named by --config, else by BATON_CONFIG. */
QString configPathOf(const QCommandLineParser &parser, const QCommandLineOption &config);
/*! Whether a bare number is a duration: milliseconds, or only 0 (it could mean seconds). */
enum class BareNumber { Milliseconds, OnlyZero };
/*!
 * The milliseconds of \a option's \a text, in the one duration syntax
 * ("500ms", "1.5s", "2m", "1m30s"), never negative; -1 with \a errorString
 * naming the option, the text and what is wrong.
 */
qint64 durationOf(const QString &option, const QString &text, BareNumber bare, QString *errorString);
/*! Says what is wrong with the command line, as `baton COMMAND: ...`; returns BadUsage. */
int refuse(const char *command, const QString &text);
/*! Prints \a text on stderr, each of its lines as `baton COMMAND: ...`. */
void complain(const char *command, const QString &text);
/*! Prints \a text and a line feed on stdout, flushed at once: a watch's lines reach a pipe as they come. */
void say(const QString &text);
/*! Writes \a bytes on stdout as they are, flushed at once. */
void write(const QByteArray &bytes);

} // namespace baton::commandline
