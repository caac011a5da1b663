#include <batoninternal/steeringpolicy.h>

#include <algorithm>
#include <optional>
#include <utility>

namespace baton {

namespace {

// A version unchanged for this many heartbeat intervals is a candidate gone.
constexpr qint64 livenessIntervals = 3;
// A preferred holder that failed to take the lease waits at most this many
// hysteresis periods before it is handed the lease again.
constexpr int maxBackoffDoublings = 6;

QString missedKey(const QString &instance, const QString &incarnation)
{
    return instance + QLatin1Char('\n') + incarnation;
}

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
    // The back-off of a process that is gone goes with it.
    m_missed.removeIf([this](const QHash<QString, int>::iterator it) {
        const QString instance = it.key().section(QLatin1Char('\n'), 0, 0);
        const auto sighting = m_seen.constFind(instance);
        return sighting == m_seen.cend() || missedKey(instance, sighting->record.incarnation) != it.key();
    });
}

void SteeringPolicy::handingOverTo(const QString &instance)
{
    const auto sighting = m_seen.constFind(instance);
    if (sighting != m_seen.cend())
        m_pending = Handover {instance, sighting->record.incarnation};
}

void SteeringPolicy::holderSeen(const QString &holder)
{
    if (m_pending && m_pending->instance == holder) {
        m_missed.remove(missedKey(m_pending->instance, m_pending->incarnation));
        m_pending.reset();
    }
}

std::optional<CandidateSighting> SteeringPolicy::lastHandoverTarget() const
{
    if (!m_pending)
        return std::nullopt;
    const auto sighting = m_seen.constFind(m_pending->instance);
    if (sighting == m_seen.cend())
        return std::nullopt;
    return *sighting;
}

std::optional<qint64> SteeringPolicy::leadingAgain(qint64 nowMs)
{
    const std::optional<Handover> pending = std::exchange(m_pending, std::nullopt);
    if (!pending)
        return std::nullopt;
    const auto sighting = m_seen.find(pending->instance);
    if (sighting == m_seen.end() || sighting->record.incarnation != pending->incarnation)
        return std::nullopt; // it restarted or went: a new process starts afresh
    int &missed = m_missed[missedKey(pending->instance, pending->incarnation)];
    missed = std::min(missed + 1, maxBackoffDoublings);
    // A hysteresis of 0 still backs off, by heartbeats.
    const qint64 base = std::max(m_self.preferAfterMs, sighting->record.heartbeatIntervalMs);
    const qint64 wait = base << missed;
    // Stable from a point in the future: the hysteresis then asks `wait` in all.
    sighting->stableSinceMs = nowMs + wait - m_self.preferAfterMs;
    return wait;
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
