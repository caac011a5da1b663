#pragma once

namespace baton {

/*!
 * Loads the dashboard module (installed beside the library, or the one of
 * the build tree) and runs it; 1 with a message when it cannot be loaded.
 */
int runDashboardModule(int argc, char **argv);

} // namespace baton
