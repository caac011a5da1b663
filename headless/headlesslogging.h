#pragma once

#include <QLoggingCategory>

// The categories of the executable's own components, beside the library's
// (docs/operations.md lists them all).
Q_DECLARE_LOGGING_CATEGORY(lcExec)
Q_DECLARE_LOGGING_CATEGORY(lcStatus)
Q_DECLARE_LOGGING_CATEGORY(lcHttp)
