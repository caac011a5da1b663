#pragma once

#include "leaserecord.h"

#include <batoninternal/leasehistory.h>

#include <QString>

#include <optional>
#include <variant>
#include <vector>

namespace baton {

enum class StopReason { Released, RenewFailed, TakenOver, Deadline, Stopping, HandedOver };
// Abandoned: a follower's request given up when the lease was seen free
// meanwhile, for the takeover attempt that follows at once; not an error.
enum class AttemptOutcome { Acquired, Renewed, Held, Conflict, Error, Abandoned };

QString wireName(StopReason reason);
QString wireName(AttemptOutcome outcome);

struct ElectorParams
{
    qint64 leaseDurationMs = 15000;
    qint64 renewIntervalMs = 5000;
    QString identity;
    /*!
     * This process's run: a record with our identity but another incarnation
     * is another process's (R5). Empty only where one process is sure to be
     * alone with its identity (the simulation's earlier runs, unit tests).
     */
    QString incarnation;
    /*!
     * False for the local cluster, the only instance there is (W8): its
     * leadership has no deadline, since nobody could take over, and a host
     * that slept longer than the lease still leads when it wakes.
     */
    bool boundedByLease = true;
    /*!
     * A leader's renewals fall due at the start of their slot of the boot
     * clock (renewalSlotStart), up to a twentieth of renewInterval early,
     * so that those of one process meet where the protocol sends updates
     * that come together as one request (LeaseProtocol::sharesWrites).
     */
    bool renewTogether = false;
};

/*! What the Elector asks its driver to do, or tells it happened. */
namespace action {
struct Read
{
    quint64 request;
};
struct Create
{
    quint64 request;
    LeaseRecord record;
    /*! Set when the write takes the lease from someone else or from nobody: to be stored with it (O2). */
    std::optional<HistoryEntry> change = std::nullopt;
};
struct Update
{
    quint64 request;
    LeaseRecord record;
    QString version;
    /*! As Create::change; never set on a renewal or a release. */
    std::optional<HistoryEntry> change = std::nullopt;
};
struct BecameLeader
{
    qint64 token;
    qint64 validUntilMono;
};
struct StoppedLeading
{
    StopReason reason;
    /*! The end of this instance's authority by F4; never later than the moment it is reported. */
    qint64 validUntilMono;
};
struct LeaderChanged
{
    QString from;
    QString to;
    HolderChange why;
};
struct AttemptFinished
{
    AttemptOutcome outcome;
    qint64 latencyMs;
    QString errorString;
    /*! For an Error: the backend's typed reason, so that no one reads it from the text. */
    LeaseReply::ErrorKind errorKind = LeaseReply::ErrorKind::Other;
};
/*!
 * A record holds this instance's identity with another incarnation: another
 * process was configured with the same instance id (R5). Told once per
 * conflicting incarnation seen.
 */
struct IdentityConflict
{
    QString theirIncarnation;
};
/*! The holder was asked to hand the lease over to \a to ("*": to anybody); it stops leading first. */
struct HandoverRequested
{
    QString to;
    QString by;
};
/*! The handover write is done (the lease free, kept for \a to), or was not possible. */
struct HandedOver
{
    QString to;
    bool done;
    QString detail;
};
/*! A free lease kept for another instance was seen: nobody else takes it for \a forMs. */
struct ReservedFor
{
    QString to;
    qint64 forMs;
};
/*! The release that stop asked for is done, or was not needed or not allowed. */
struct ReleaseFinished
{
    bool released;
    QString detail;
};
} // namespace action

using ElectorAction =
        std::variant<action::Read, action::Create, action::Update, action::BecameLeader,
                     action::StoppedLeading, action::LeaderChanged, action::AttemptFinished,
                     action::IdentityConflict, action::ReleaseFinished, action::HandoverRequested,
                     action::HandedOver, action::ReservedFor>;
using ElectorActions = std::vector<ElectorAction>;

} // namespace baton
