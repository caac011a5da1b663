#pragma once

#include <QDateTime>
#include <QString>

namespace baton {

/*!
 * What a lease says, whatever keeps it: the fields of client-go's
 * LeaderElectionRecord. The times are wall-clock times written by the
 * holder's host: for display only, never for deciding (F2).
 */
struct LeaseRecord
{
    QString holder;
    qint64 leaseDurationMs = 0;
    QDateTime acquireTime;
    QDateTime renewTime;
    qint64 transitions = 0;

    bool operator==(const LeaseRecord &) const = default;
};

/*! A lease as read: whether it exists, its record and its opaque version. */
struct LeaseState
{
    bool exists = false;
    LeaseRecord record;
    QString version;
};

/*! The answer of a LeaseBackend to one request. */
struct LeaseReply
{
    enum class Outcome {
        Ok,
        /*! Lost a race: the lease exists already, or its version moved on. */
        Conflict,
        Error,
    };
    Outcome outcome = Outcome::Ok;
    /*! Ok: the lease after the request. Conflict: the winner, when stateKnown. */
    LeaseState state;
    bool stateKnown = false;
    QString errorString;

    static LeaseReply ok(LeaseState state) { return {Outcome::Ok, std::move(state), true, {}}; }
    static LeaseReply conflict() { return {Outcome::Conflict, {}, false, {}}; }
    static LeaseReply conflict(LeaseState winner)
    {
        return {Outcome::Conflict, std::move(winner), true, {}};
    }
    static LeaseReply error(QString message) { return {Outcome::Error, {}, false, std::move(message)}; }
};

} // namespace baton
