#include "guilogging.h"

Q_LOGGING_CATEGORY(lcGui, "baton.gui", QtInfoMsg)
