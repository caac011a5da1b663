#include <batoninternal/steeringpolicy.h>

#include <algorithm>
#include <optional>

namespace baton {

namespace {

// A version unchanged for this many heartbeat intervals is a candidate gone.
constexpr qint64 livenessIntervals = 3;

bool isLive(const CandidateRecord &record, qint64 versionSeenAtMs, qint64 nowMs)
{
    return !record.left && record.heartbeatIntervalMs > 0
        && nowMs - versionSeenAtMs <= livenessIntervals * record.heartbeatIntervalMs;
}

// Highest priority, then the longest stable, then the smallest instance id:
// every instance that sees the same records picks the same one.
bool betterThan(const CandidateSighting &a, const CandidateSighting &b)
{
    if (a.record.priority != b.record.priority)
        return a.record.priority > b.record.priority;
    if (a.stableSinceMs != b.stableSinceMs)
        return a.stableSinceMs < b.stableSinceMs;
    return a.record.instance < b.record.instance;
}

} // namespace

SteeringPolicy::SteeringPolicy(Self self)
    : m_self(std::move(self))
{
}

void SteeringPolicy::setSelf(const Self &self)
{
    m_self = self;
}

void SteeringPolicy::observe(const QList<CandidateRecord> &records, qint64 nowMs)
{
    QHash<QString, CandidateSighting> seen;
    for (const CandidateRecord &record : records) {
        if (record.instance == m_self.instance || record.instance.isEmpty())
            continue;
        CandidateSighting sighting;
        sighting.record = record;
        const auto earlier = m_seen.constFind(record.instance);
        const bool known = earlier != m_seen.cend();
        sighting.versionSeenAtMs = known && earlier->record.version == record.version
            ? earlier->versionSeenAtMs
            : nowMs;
        sighting.live = isLive(record, sighting.versionSeenAtMs, nowMs);
        sighting.heartbeatSeen = known && earlier->record.incarnation == record.incarnation
            && (earlier->heartbeatSeen || earlier->record.version != record.version);
        // A restart, a new priority or drain, or a lapse of the heartbeats
        // starts the hysteresis again: a flapping candidate never earns it.
        const bool wasLive = known && isLive(earlier->record, earlier->versionSeenAtMs, nowMs);
        const bool same = known && earlier->record.incarnation == record.incarnation
            && earlier->record.priority == record.priority && earlier->record.drained == record.drained;
        sighting.stableSinceMs = same && wasLive ? earlier->stableSinceMs : nowMs;
        seen.insert(record.instance, sighting);
    }
    m_seen = std::move(seen);
}

QList<CandidateSighting> SteeringPolicy::sightings(qint64 nowMs) const
{
    QList<CandidateSighting> result;
    result.reserve(m_seen.size());
    for (CandidateSighting sighting : m_seen) {
        sighting.live = isLive(sighting.record, sighting.versionSeenAtMs, nowMs);
        result.append(sighting);
    }
    std::sort(result.begin(), result.end(), [](const CandidateSighting &a, const CandidateSighting &b) {
        return a.record.instance < b.record.instance;
    });
    return result;
}

SteeringDecision SteeringPolicy::decide(bool leading, qint64 nowMs) const
{
    const QList<CandidateSighting> all = sightings(nowMs);
    std::optional<CandidateSighting> bestUndrained;
    std::optional<CandidateSighting> bestSuccessor;
    std::optional<CandidateSighting> bestPreferred;
    for (const CandidateSighting &other : all) {
        if (!other.live || other.record.drained)
            continue;
        if (!bestUndrained || betterThan(other, *bestUndrained))
            bestUndrained = other;
        // Handed the lease only when seen heartbeating: a young record of a
        // killed process would hold the lease back a whole lease duration.
        if (!other.heartbeatSeen)
            continue;
        if (!bestSuccessor || betterThan(other, *bestSuccessor))
            bestSuccessor = other;
        const bool preferred = other.record.priority > m_self.priority
            && nowMs - other.stableSinceMs >= m_self.preferAfterMs;
        if (preferred && (!bestPreferred || betterThan(other, *bestPreferred)))
            bestPreferred = other;
    }

    SteeringDecision decision;
    if (m_self.drained) {
        // The work must run somewhere: a drained instance stands by only
        // while another can take the lease.
        decision.standBy = bestUndrained.has_value();
        if (decision.standBy) {
            decision.why = SteeringDecision::Why::Drained;
            // No hysteresis: the operator asked.
            if (leading && bestSuccessor)
                decision.handOverTo = bestSuccessor->record.instance;
        }
        return decision;
    }
    if (leading && bestPreferred) {
        decision.handOverTo = bestPreferred->record.instance;
        decision.why = SteeringDecision::Why::PreferredHolder;
    }
    return decision;
}

} // namespace baton
