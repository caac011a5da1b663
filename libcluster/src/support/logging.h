#pragma once

#include <QLoggingCategory>

// One category per component (docs/reference/logging.md lists them): renewals at
// debug, leader changes at info, failures at warning.
Q_DECLARE_LOGGING_CATEGORY(lcElection)
Q_DECLARE_LOGGING_CATEGORY(lcRegistrations)
Q_DECLARE_LOGGING_CATEGORY(lcStore)
Q_DECLARE_LOGGING_CATEGORY(lcConfig)
Q_DECLARE_LOGGING_CATEGORY(lcEtcd)
Q_DECLARE_LOGGING_CATEGORY(lcHttp)
Q_DECLARE_LOGGING_CATEGORY(lcKube)
