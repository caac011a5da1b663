#pragma once

#include <batoninternal/batoninternal_export.h>
#include <batoninternal/candidatebook.h>

#include <QHash>
#include <QList>
#include <QString>

#include <optional>

namespace baton {

/*!
 * What one candidate looks like to this instance: its record and, on this
 * instance's boot clock, since when it has been seen unchanged in what
 * matters (same incarnation, priority and drain, heartbeats arriving).
 */
struct CandidateSighting
{
    CandidateRecord record;
    /*! When this instance first saw the record's current version. */
    qint64 versionSeenAtMs = 0;
    /*! Since when it has been live with this incarnation, priority and drain; reset by any change of them. */
    qint64 stableSinceMs = 0;
    bool live = false;
    /*!
     * This instance has seen the record's version change with the same
     * incarnation: the candidate was heartbeating while watched. A record
     * seen once may be a killed process's, still young: it is waited for
     * (stand-by) but never handed the lease.
     */
    bool heartbeatSeen = false;
};

/*! What the steering asks of the election now. */
struct SteeringDecision
{
    enum class Why {
        Nothing,
        /*! This instance is drained: the lease goes to a live candidate that is not. */
        Drained,
        /*! A live candidate of higher priority has been stable for the hysteresis. */
        PreferredHolder,
    };
    /*! Take no lease (a free one included) unless it is reserved for this instance. */
    bool standBy = false;
    /*! For a leader: the instance to hand over to; empty: keep leading. */
    QString handOverTo;
    Why why = Why::Nothing;

    bool operator==(const SteeringDecision &) const = default;
};

/*!
 * Preference and drain (H2, H3) as a pure function of what the candidate
 * records showed and when: no clock, timer or store, so that the
 * participant and the simulation decide alike. Feed it every listing with
 * the boot time it arrived; ask it with the current boot time.
 */
class BATON_INTERNAL_EXPORT SteeringPolicy
{
public:
    struct Self
    {
        QString instance;
        int priority = 0;
        bool drained = false;
        /*! How long a higher priority must stay stable before the lease moves to it. */
        qint64 preferAfterMs = 30000;
    };

    explicit SteeringPolicy(Self self);

    void setSelf(const Self &self);
    const Self &self() const { return m_self; }

    /*! A listing of every candidate (this instance's own record among them, ignored). */
    void observe(const QList<CandidateRecord> &records, qint64 nowMs);
    /*! Every other candidate as last seen, liveness judged at \a nowMs. */
    QList<CandidateSighting> sightings(qint64 nowMs) const;

    SteeringDecision decide(bool leading, qint64 nowMs) const;

    /*! This instance, leading, hands the lease to \a instance as its preferred holder. */
    void handingOverTo(const QString &instance);
    /*! \a holder was seen holding the lease: a handover to it went through. */
    void holderSeen(const QString &holder);
    /*!
     * This instance leads again after handing the lease to a preferred
     * holder that, same process still, never showed as its holder: one
     * that heartbeats but cannot lead (no right to write the lease, a
     * store it cannot reach). It must run unchanged twice as long as the
     * time before (up to 64 times the hysteresis) before it is handed the
     * lease again, so that each such failure, which costs the election a
     * lease duration without a leader, grows rarer. The wait now asked of
     * it, or nothing when no handover failed.
     */
    std::optional<qint64> leadingAgain(qint64 nowMs);
    /*! The candidate last handed the lease as preferred holder, while that handover is unsettled. */
    std::optional<CandidateSighting> lastHandoverTarget() const;

private:
    struct Handover
    {
        QString instance;
        QString incarnation;
    };

    Self m_self;
    QHash<QString, CandidateSighting> m_seen;
    std::optional<Handover> m_pending;
    /*! Handovers that did not go through, by instance and incarnation: a restart starts afresh. */
    QHash<QString, int> m_missed;
};

} // namespace baton
