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
    /*! The holder's instance id; empty when nobody holds the lease. */
    QString holder;
    /*! How long the holder's lease lasts after each renewal. */
    qint64 leaseDurationMs = 0;
    /*! When the holder took the lease, by its clock. */
    QDateTime acquireTime;
    /*! When the holder last renewed, by its clock. */
    QDateTime renewTime;
    /*! Holder changes so far: the fencing token (F7). */
    qint64 transitions = 0;
    /*!
     * Which run of the holder's process wrote the record: a random value each
     * process draws at start. Two processes configured with one instance id
     * differ here, so neither mistakes the other's lease for its own. Empty
     * when nobody holds the lease, or in a record written by another client.
     * Last, so that brace-initialised records of earlier code still compile.
     */
    QString holderIncarnation;
    /*!
     * While the lease is held: the instance an operator asked the holder to
     * hand it over to ("*": to whoever takes it, a plain release). While it
     * is free: the only instance that may take it until one lease duration
     * after this version was seen. Empty in records of earlier versions and
     * of other clients: no handover asked, nothing reserved.
     */
    QString successor {};
    /*! Who asked for the handover, for the history: "operator@host", an instance id. */
    QString handoverRequestedBy {};

    /*! Field by field. */
    bool operator==(const LeaseRecord &) const = default;
};

} // namespace baton
