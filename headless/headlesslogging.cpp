#include "headlesslogging.h"

Q_LOGGING_CATEGORY(lcExec, "baton.exec", QtInfoMsg)
Q_LOGGING_CATEGORY(lcServeHttp, "baton.http", QtInfoMsg)
