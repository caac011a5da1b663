#include "headlesslogging.h"

Q_LOGGING_CATEGORY(lcExec, "baton.exec", QtInfoMsg)
Q_LOGGING_CATEGORY(lcStatus, "baton.status", QtInfoMsg)
Q_LOGGING_CATEGORY(lcHttp, "baton.http", QtInfoMsg)
