#pragma once

#include <QLoggingCategory>

// The dashboard's category: connections opened, joins and step-downs at
// info, keychain and store failures at warning.
Q_DECLARE_LOGGING_CATEGORY(lcGui)
