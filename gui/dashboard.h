#pragma once

namespace baton::dashboard {

/*!
 * Whether this command line asks for the dashboard: no arguments while a
 * display exists, or `--screenshot DIR`, or `--lang LANG` (SPEC O4).
 */
bool wanted(int argc, char **argv);

/*! Runs the dashboard (or renders its screenshots) and returns the exit code. */
int run(int argc, char **argv);

} // namespace baton::dashboard
