#pragma once

#include <QtGlobal>

#include <cstring>

namespace baton::dashboard {

/*!
 * Whether this command line asks for the dashboard: no arguments while a
 * display exists, or `--screenshot DIR`, or `--lang LANG` (O4). Inline
 * and Qt Core only: `baton` decides with it before it loads the dashboard
 * module, and without loading Qt Gui.
 */
inline bool wanted(int argc, char **argv)
{
    if (argc <= 1)
        return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
                || !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
    return std::strcmp(argv[1], "--screenshot") == 0 || std::strcmp(argv[1], "--lang") == 0;
}

/*! Runs the dashboard (or renders its screenshots) and returns the exit code. */
int run(int argc, char **argv);

} // namespace baton::dashboard
