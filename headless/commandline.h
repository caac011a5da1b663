#pragma once

// What the commands of `baton` share on the command line.

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QObject>
#include <QString>
#include <QStringList>

namespace baton::commandline {

extern const char *const usage;

bool parseCommand(QCoreApplication &app, QCommandLineParser &parser, const char *command, int *exitCode,
                  bool takesArguments = false, QStringList arguments = {});
QCommandLineOption configOption();
QString configPathOf(const QCommandLineParser &parser, const QCommandLineOption &config);
int refuse(const char *command, const QString &text);

/*! Starts \a command and runs until it finishes; its exit status. */
template<typename Command>
int run(QCoreApplication &app, Command &command)
{
    QObject::connect(&command, &Command::finished, &app, &QCoreApplication::exit);
    const int early = command.start();
    return early >= 0 ? early : app.exec();
}

} // namespace baton::commandline
