#pragma once

#include "commandline.h"
#include "joincommand.h"

#include <QStringList>

/*! The command line of `baton join`: its options, and its entry in `baton help`. */
namespace baton::joinoptions {

/*! Its lines in `baton help`. */
extern const char *const usage;

/*! A command line read: the options to run with, unless exitCode says it is done with. */
struct Parsed
{
    JoinCommand::Options options;
    int exitCode = commandline::Run;
};
/*! Reads \a arguments (the program's: "join" second); prints --help, or what is wrong. */
Parsed parse(const QStringList &arguments);

} // namespace baton::joinoptions
