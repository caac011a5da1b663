#pragma once

#include <QLoggingCategory>

// The categories of the executable's own components, beside the library's
// (docs/operations.md lists them all).
Q_DECLARE_LOGGING_CATEGORY(lcExec)
// baton.http, as the library's HTTP client: the --listen server.
Q_DECLARE_LOGGING_CATEGORY(lcServeHttp)
