#pragma once

#include "electoractions.h"

#include <optional>

namespace baton {

class Clock;

/*!
 * The lease record as one Elector last saw it, judged by that instance's
 * own boot clock: since when the current version is known (F2), whose it
 * is (R5: identity and incarnation), and who held it before a release.
 * It makes no request and decides no step; the Elector asks it.
 */
class LeaseSighting
{
public:
    LeaseSighting(const ElectorParams &params, const Clock &clock);

    /*! False before the first sighting, and after forget(). */
    bool known() const { return m_known; }
    /*! The last state seen; meaningful only while known(). */
    const LeaseState &state() const { return m_state; }
    /*! Read again before the next write: what was seen can no longer be trusted. */
    void forget() { m_known = false; }
    /*! Another version than the one known, or nothing known yet. */
    bool differsFrom(const LeaseState &state) const;

    /*!
     * Takes a state a reply or a watch brought. A new version restarts the
     * expiry clock; the same version leaves it running (F2). Reports a
     * change of holder (LeaderChanged) and another process with this
     * identity (IdentityConflict) into \a out.
     */
    void observe(const LeaseState &state, ElectorActions &out);

    /*! Held by this very process: our identity and our incarnation (R5). */
    bool isMine(const LeaseRecord &record) const;
    /*! Known, existing and this process's. */
    bool heldByMe() const { return m_known && m_state.exists && isMine(m_state.record); }
    /*!
     * Known, free, and kept for another instance: a handover's reservation
     * that has not run out by this instance's clock. Such a lease counts as
     * held until then.
     */
    bool reservedForOther() const;
    /*! Known and free for this instance: nobody holds it, and it is kept for nobody else. */
    bool freeForMe() const;
    /*! The known record's lease ran out, by this instance's clock (F2). */
    bool expired() const;
    /*! When the known record's lease runs out, by this instance's clock. */
    qint64 expiryMono() const { return m_seenAt + leaseDuration(); }
    /*! The change of holder an acquisition that writes \a acquired makes, to be stored with it (O2). */
    std::optional<HistoryEntry> recordedChange(const LeaseRecord &acquired) const;

private:
    qint64 now() const;
    qint64 leaseDuration() const;
    void noticeIdentityConflict(const LeaseState &state, ElectorActions &out);

    QString m_identity;
    QString m_incarnation;
    qint64 m_defaultLeaseDurationMs;
    const Clock &m_clock;
    LeaseState m_state;
    bool m_known = false;
    qint64 m_seenAt = 0;
    /*! The last holder seen, kept across a release so a take-up can name whom it follows. */
    QString m_lastHolder;
    /*! The current free record was seen replacing a held one, at m_seenAt. */
    bool m_releaseSeen = false;
    /*! The other incarnation of our identity last reported; none while none is seen. */
    std::optional<QString> m_conflictReported;
};

} // namespace baton
