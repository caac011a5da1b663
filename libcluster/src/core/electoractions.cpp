#include "electoractions.h"

namespace baton {

QString wireName(StopReason reason)
{
    switch (reason) {
    case StopReason::Released:
        return QStringLiteral("released");
    case StopReason::RenewFailed:
        return QStringLiteral("renew-failed");
    case StopReason::TakenOver:
        return QStringLiteral("taken-over");
    case StopReason::Deadline:
        return QStringLiteral("deadline");
    case StopReason::Stopping:
        return QStringLiteral("stopping");
    case StopReason::HandedOver:
        return QStringLiteral("handed-over");
    }
    return {};
}

QString wireName(AttemptOutcome outcome)
{
    switch (outcome) {
    case AttemptOutcome::Acquired:
        return QStringLiteral("acquired");
    case AttemptOutcome::Renewed:
        return QStringLiteral("renewed");
    case AttemptOutcome::Held:
        return QStringLiteral("held");
    case AttemptOutcome::Conflict:
        return QStringLiteral("conflict");
    case AttemptOutcome::Error:
        return QStringLiteral("error");
    case AttemptOutcome::Abandoned:
        return QStringLiteral("abandoned");
    }
    return {};
}

} // namespace baton
