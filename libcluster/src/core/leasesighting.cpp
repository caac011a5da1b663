// The Elector's view of the lease record: what it saw, since when by the
// boot clock, and whose it is (F2, R5). Kept apart from the request and
// reply handling in elector.cpp.
#include "elector.h"

#include <baton/clock.h>

#include <algorithm>

namespace baton {

std::optional<HistoryEntry> Elector::recordedChange(const LeaseRecord &acquired) const
{
    const QString holder = m_observed.exists ? m_observed.record.holder : QString();
    if (m_observed.exists && isMine(m_observed.record))
        return std::nullopt; // its own lease, taken back after a step-down: no change of holder
    HistoryEntry change;
    change.to = m_params.identity;
    change.at = acquired.acquireTime;
    change.transitions = acquired.transitions;
    if (!m_observed.exists) {
        change.why = wireName(ChangeWhy::FirstAcquire);
    } else if (holder.isEmpty()) {
        // Only a release leaves a record without a holder; who released it
        // is known when this instance saw it held.
        change.from = m_lastHolder;
        change.why = wireName(ChangeWhy::Released);
        if (m_releaseSeen)
            change.gapMs = now() - m_observedAt;
    } else {
        change.from = holder;
        change.why = wireName(ChangeWhy::Expired);
        change.gapMs = std::max<qint64>(0, now() - (m_observedAt + observedLeaseDuration()));
    }
    return change;
}

void Elector::observe(const LeaseState &state, ElectorActions &out)
{
    const bool first = !m_haveObserved;
    if (!first && state.exists == m_observed.exists && state.version == m_observed.version)
        return; // unchanged: the expiry clock keeps running from the first sighting (F2)

    const QString previousHolder = m_observed.exists ? m_observed.record.holder : QString();
    const QString previousIncarnation =
            m_observed.exists ? m_observed.record.holderIncarnation : QString();
    const bool previousExpired = !first && expired();
    m_observed = state;
    m_haveObserved = true;
    m_observedAt = now();

    const QString holder = state.exists ? state.record.holder : QString();
    m_releaseSeen = !first && state.exists && holder.isEmpty() && !previousHolder.isEmpty();
    if (!holder.isEmpty())
        m_lastHolder = holder;
    noticeIdentityConflict(state, out);
    // A holder is its identity and its incarnation: a process restarted with
    // a fixed identity that takes the expired lease of its earlier run is a
    // change of holder, though the name stays.
    const QString incarnation = state.exists ? state.record.holderIncarnation : QString();
    if (holder == previousHolder && (holder.isEmpty() || incarnation == previousIncarnation))
        return;
    // A first sighting of someone else's lease is no change; a first
    // sighting of our own acquisition is.
    if (first && !(state.exists && isMine(state.record)))
        return;
    ChangeWhy why = ChangeWhy::TakenOver;
    if (holder.isEmpty())
        why = ChangeWhy::Released;
    else if (previousHolder.isEmpty())
        why = ChangeWhy::FirstAcquire;
    else if (previousExpired)
        why = ChangeWhy::Expired;
    out.push_back(action::LeaderChanged {previousHolder, holder, why});
}

bool Elector::isMine(const LeaseRecord &record) const
{
    return record.holder == m_params.identity
            && record.holderIncarnation == m_params.incarnation;
}

void Elector::noticeIdentityConflict(const LeaseState &state, ElectorActions &out)
{
    const bool conflicting = state.exists && state.record.holder == m_params.identity
            && !isMine(state.record);
    if (!conflicting) {
        m_conflictReported.reset();
        return;
    }
    const QString &theirs = state.record.holderIncarnation;
    // Once per change: a conflicting leader's every renewal is a new version,
    // and saying it each time would bury the one line that matters.
    if (m_conflictReported == theirs)
        return;
    m_conflictReported = theirs;
    out.push_back(action::IdentityConflict {theirs});
}

bool Elector::expired() const
{
    // F2: by this instance's monotonic clock, from the moment it first saw
    // the current version; the record's own timestamps are never trusted.
    return now() - m_observedAt >= observedLeaseDuration();
}

qint64 Elector::observedLeaseDuration() const
{
    const qint64 recorded = m_observed.record.leaseDurationMs;
    return recorded > 0 ? recorded : m_params.leaseDurationMs;
}

} // namespace baton
