// The dashboard as a module that `baton` loads only when the dashboard is
// asked for: linked into `baton`, Qt Widgets, Gui, GL, X11, fontconfig and
// the keychain were mapped into every `baton join` too (6.7 MB resident,
// docs/benchmarks.md).

#include "dashboard.h"

#include <QtGlobal>

extern "C" Q_DECL_EXPORT int baton_dashboard_run(int argc, char **argv)
{
    return baton::dashboard::run(argc, argv);
}
