#pragma once

#include "checkcommand.h"
#include "commandline.h"

#include <QStringList>

/*! The command line of `baton check`: its options, and its entry in `baton help`. */
namespace baton::checkoptions {

/*! Its lines in `baton help`. */
extern const char *const usage;

/*! A command line read: the options to run with, unless exitCode says it is done with. */
struct Parsed
{
    CheckCommand::Options options;
    int exitCode = commandline::Run;
};
/*!
 * Reads \a arguments (the program's: "check" second); prints --help, or
 * what is wrong, which is the monitoring plugins' UNKNOWN (3), not 2.
 */
Parsed parse(const QStringList &arguments);

} // namespace baton::checkoptions
