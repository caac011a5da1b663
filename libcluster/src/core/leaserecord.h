#pragma once

#include <baton/leaserecord.h>

#include <QString>

namespace baton {

/*! A handover's successor meaning "whoever takes it": the holder releases as on a stop. */
inline const QString anySuccessor = QStringLiteral("*");

/*! A lease as read: whether it exists, its record and its opaque version. */
struct LeaseState
{
    bool exists = false;
    LeaseRecord record;
    QString version;
};

/*! The answer of a LeaseProtocol to one request. */
struct LeaseReply
{
    enum class Outcome {
        Ok,
        /*! Lost a race: the lease exists already, or its version moved on. */
        Conflict,
        Error,
    };
    /*! For an Error: whether trying again as configured can help. */
    enum class ErrorKind {
        /*! Any other error: the store down, slow, answering nonsense; the next attempt may do. */
        Other,
        /*! The store or API server refused the configured credentials: fixed by configuration only. */
        CredentialsRefused,
    };
    Outcome outcome = Outcome::Ok;
    /*! Ok: the lease after the request. Conflict: the winner, when stateKnown. */
    LeaseState state;
    bool stateKnown = false;
    QString errorString;
    ErrorKind errorKind = ErrorKind::Other;

    static LeaseReply ok(LeaseState state) { return {Outcome::Ok, std::move(state), true, {}}; }
    static LeaseReply conflict() { return {Outcome::Conflict, {}, false, {}}; }
    static LeaseReply conflict(LeaseState winner)
    {
        return {Outcome::Conflict, std::move(winner), true, {}};
    }
    static LeaseReply error(QString message, ErrorKind why = ErrorKind::Other)
    {
        return {Outcome::Error, {}, false, std::move(message), why};
    }
};

} // namespace baton
