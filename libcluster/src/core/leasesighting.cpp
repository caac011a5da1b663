#include "leasesighting.h"

#include <baton/clock.h>

#include <algorithm>

namespace baton {

LeaseSighting::LeaseSighting(const ElectorParams &params, const Clock &clock)
    : m_identity(params.identity)
    , m_incarnation(params.incarnation)
    , m_defaultLeaseDurationMs(params.leaseDurationMs)
    , m_clock(clock)
{
}

qint64 LeaseSighting::now() const
{
    return m_clock.monotonicMs();
}

bool LeaseSighting::differsFrom(const LeaseState &state) const
{
    return !m_known || state.exists != m_state.exists || state.version != m_state.version;
}

std::optional<HistoryEntry> LeaseSighting::recordedChange(const LeaseRecord &acquired) const
{
    const QString holder = m_state.exists ? m_state.record.holder : QString();
    if (m_state.exists && isMine(m_state.record))
        return std::nullopt; // its own lease, taken back after a step-down: no change of holder
    HistoryEntry change;
    change.to = m_identity;
    change.at = acquired.acquireTime;
    change.transitions = acquired.transitions;
    if (!m_state.exists) {
        change.why = holderChangeName(HolderChange::FirstAcquire);
    } else if (holder.isEmpty()) {
        // Only a release leaves a record without a holder; who released it
        // is known when this instance saw it held.
        change.from = m_lastHolder;
        const bool handedOver = m_state.record.successor == m_identity;
        change.why = holderChangeName(handedOver ? HolderChange::HandedOver : HolderChange::Released);
        if (handedOver)
            change.requestedBy = m_state.record.handoverRequestedBy;
        if (m_releaseSeen)
            change.gapMs = now() - m_seenAt;
    } else {
        change.from = holder;
        change.why = holderChangeName(HolderChange::Expired);
        // From the last renewal, not from the expiry: the leader was gone
        // for the whole lease it left unrenewed, and longer.
        change.gapMs = leasehistory::crashGapMs(now() - m_seenAt, m_state.record.renewTime, acquired.acquireTime);
    }
    return change;
}

void LeaseSighting::observe(const LeaseState &state, ElectorActions &out)
{
    const bool first = !m_known;
    if (!differsFrom(state))
        return; // unchanged: the expiry clock keeps running from the first sighting (F2)

    const QString previousHolder = m_state.exists ? m_state.record.holder : QString();
    const QString previousIncarnation =
            m_state.exists ? m_state.record.holderIncarnation : QString();
    const bool previousExpired = !first && expired();
    // Only a release leaves a record without a holder: who took it next
    // took it from the release, not as the lease's first holder.
    const bool previousReleased = !first && m_state.exists && previousHolder.isEmpty();
    const QString releasedFor = m_state.record.successor;
    const QString releasedBy = m_lastHolder;
    m_state = state;
    m_known = true;
    m_seenAt = now();

    const QString holder = state.exists ? state.record.holder : QString();
    m_releaseSeen = !first && state.exists && holder.isEmpty() && !previousHolder.isEmpty();
    if (!holder.isEmpty())
        m_lastHolder = holder;
    noticeIdentityConflict(state, out);
    if (reservedForOther())
        out.push_back(action::ReservedFor {state.record.successor, leaseDuration()});
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
    HolderChange why = HolderChange::TakenOver;
    QString from = previousHolder;
    if (holder.isEmpty()) {
        why = state.record.successor.isEmpty() || state.record.successor == anySuccessor
                ? HolderChange::Released
                : HolderChange::HandedOver;
    } else if (previousReleased) {
        // As the new holder records it: the release completed, from the
        // holder this instance last saw (none when it never saw one).
        from = releasedBy;
        why = releasedFor == holder ? HolderChange::HandedOver : HolderChange::Released;
    } else if (previousHolder.isEmpty()) {
        why = HolderChange::FirstAcquire;
    } else if (previousExpired) {
        why = HolderChange::Expired;
    }
    out.push_back(action::LeaderChanged {from, holder, why});
}

bool LeaseSighting::isMine(const LeaseRecord &record) const
{
    return record.holder == m_identity
            && record.holderIncarnation == m_incarnation;
}

void LeaseSighting::noticeIdentityConflict(const LeaseState &state, ElectorActions &out)
{
    const bool conflicting = state.exists && state.record.holder == m_identity
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

bool LeaseSighting::reservedForOther() const
{
    // H1: by this instance's boot clock from when it saw this version, as
    // any lease; a successor that is gone costs at most this one duration.
    const LeaseRecord &r = m_state.record;
    return m_known && m_state.exists && r.holder.isEmpty() && !r.successor.isEmpty()
            && r.successor != anySuccessor && r.successor != m_identity && !expired();
}

bool LeaseSighting::freeForMe() const
{
    return m_known && (!m_state.exists || (m_state.record.holder.isEmpty() && !reservedForOther()));
}

bool LeaseSighting::expired() const
{
    // F2: by this instance's monotonic clock, from the moment it first saw
    // the current version; the record's own timestamps are never trusted.
    return now() - m_seenAt >= leaseDuration();
}

qint64 LeaseSighting::leaseDuration() const
{
    const qint64 recorded = m_state.record.leaseDurationMs;
    return recorded > 0 ? recorded : m_defaultLeaseDurationMs;
}

} // namespace baton
