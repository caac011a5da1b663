#pragma once

#include <QStringList>

/*! The command line of `baton demo`: no options but --help; and its entry in `baton help`. */
namespace baton::demooptions {

/*! Its lines in `baton help`. */
extern const char *const usage;

/*! Reads \a arguments (the program's: "demo" second): commandline::Run, or the exit status. */
int parse(const QStringList &arguments);

} // namespace baton::demooptions
