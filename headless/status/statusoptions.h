#pragma once

#include "commandline.h"
#include "statuscommand.h"

#include <QStringList>

/*! The command line of `baton status`: its options, and its entry in `baton help`. */
namespace baton::statusoptions {

/*! Its lines in `baton help`. */
extern const char *const usage;

/*! A command line read: the options to run with, unless exitCode says it is done with. */
struct Parsed
{
    StatusCommand::Options options;
    int exitCode = commandline::Run;
};
/*! Reads \a arguments (the program's: "status" second); prints --help, or what is wrong. */
Parsed parse(QStringList arguments);

} // namespace baton::statusoptions
