#pragma once

#include <QtGlobal>

#include <cstring>

namespace baton::dashboard {

/*!
 * Whether this command line asks for the dashboard: no arguments while a
 * display exists, or `--lang LANG` with nothing after it (O4). Inline
 * and Qt Core only: `baton` decides with it before it loads the dashboard
 * module, and without loading Qt Gui.
 */
inline bool wanted(int argc, char **argv)
{
    if (argc <= 1)
        return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
                || !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
    // --lang alone; with a command after it, that command runs headless.
    if (std::strncmp(argv[1], "--lang=", 7) == 0)
        return argc == 2;
    return std::strcmp(argv[1], "--lang") == 0 && argc <= 3;
}

/*! Runs the dashboard and returns the exit code. */
int run(int argc, char **argv);

/*!
 * Names the QApplication that runs and gives it the dashboard's icon: what
 * the dashboard and its screenshots (gui/screenshots/) show alike.
 */
void setUpApplication();

} // namespace baton::dashboard
