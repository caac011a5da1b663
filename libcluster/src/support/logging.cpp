#include "logging.h"

Q_LOGGING_CATEGORY(lcElection, "baton.election", QtInfoMsg)
Q_LOGGING_CATEGORY(lcRegistrations, "baton.registrations", QtInfoMsg)
Q_LOGGING_CATEGORY(lcStore, "baton.store", QtInfoMsg)
Q_LOGGING_CATEGORY(lcConfig, "baton.config", QtInfoMsg)
Q_LOGGING_CATEGORY(lcEtcd, "baton.etcd", QtInfoMsg)
Q_LOGGING_CATEGORY(lcHttp, "baton.http", QtInfoMsg)
Q_LOGGING_CATEGORY(lcKube, "baton.kube", QtInfoMsg)
