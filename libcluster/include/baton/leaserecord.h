#pragma once

#include <baton/baton_export.h>

#include <QDateTime>
#include <QString>
#include <QStringView>

#include <optional>

namespace baton {

/*! Why a lease's holder changed, as an election tells it (holderChanged()). */
enum class HolderChange {
    /*!
     * The holder as read, with no change this instance judged: its first
     * read of the lease, or a read after it lost track of the lease (a
     * write of its own refused with no record to show, say), when the
     * holder may have changed without this instance seeing how. Only
     * holderChanged() tells it; the event stream and the stored history
     * never hold it.
     */
    Seen,
    /*! The lease had no holder yet. */
    FirstAcquire,
    /*! The holder gave the lease up (a clean stop): free for the next one. */
    Released,
    /*! The holder stopped renewing and its lease ran out (a crash, a freeze). */
    Expired,
    /*! Another instance holds the lease now, with no release or expiry seen before. */
    TakenOver,
    /*! An operator asked the holder to hand the lease to another, and it did. */
    HandedOver,
};

/*!
 * How the event stream, the stored history and the logs name \a why:
 * `first-acquire`, `released`, `expired`, `taken-over`, `handed-over`; and
 * `seen`, a word for display only (never on the wire).
 * (Not `toString`: QTest finds a `toString` of the enum's namespace by
 * argument-dependent lookup and wants it to return `char *`, so a QCOMPARE
 * of two HolderChange values would not compile.)
 */
BATON_EXPORT QString holderChangeName(HolderChange why);
/*! The change \a name names, as holderChangeName() writes it; none for any other text. */
BATON_EXPORT std::optional<HolderChange> holderChangeFromName(QStringView name);

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
