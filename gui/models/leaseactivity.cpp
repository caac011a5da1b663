#include "leaseactivity.h"

#include <baton/leaseobserver.h>

#include <algorithm>

namespace baton {

LeaseActivity::LeaseActivity(LeaseObserver *observer, QObject *parent)
    : QObject(parent)
    , m_observer(observer)
{
    connect(observer, &LeaseObserver::leaseChanged, this, &LeaseActivity::update);
    // A takeover's row comes right after its record: the row says whether
    // the old holder had stopped renewing, and since when.
    connect(observer, &LeaseObserver::failover, this, &LeaseActivity::applyCrashGap);
    connect(observer, &LeaseObserver::storedChangeSeen, this,
            [this](int, const LeaseFailover &change) { applyCrashGap(change); });
    connect(observer, &LeaseObserver::leaseRemoved, this, [this](const QString &lease) {
        m_recordedBeforeReady.remove(lease);
        if (m_tracks.remove(lease) > 0)
            Q_EMIT trackChanged(lease);
    });
    // The stored history comes with a list: the first list's a slice at a
    // time before ready(), more when a later list finds some.
    connect(observer, &LeaseObserver::storedHistoryAdded, this, &LeaseActivity::addRecorded);
    connect(observer, &LeaseObserver::historyRead, this, &LeaseActivity::readRecordedHistory);
    connect(observer, &LeaseObserver::ready, this, [this] { m_recordedBeforeReady.clear(); });
    const QList<ObservedLease> known = observer->leases();
    for (const ObservedLease &lease : known)
        update(lease.name);
    if (observer->isReady()) {
        readRecordedHistory();
    } else if (!observer->history().isEmpty()) {
        // Made while the first list is read: the slices told before are
        // read whole once it is done.
        connect(observer, &LeaseObserver::ready, this, &LeaseActivity::readRecordedHistory);
    }
}

const Clock &LeaseActivity::clock() const
{
    return m_observer->clock();
}

void LeaseActivity::update(const QString &name)
{
    const std::optional<ObservedLease> lease = m_observer->lease(name);
    if (!lease)
        return;
    const QString holder = lease->valid ? lease->record.holder : QString();
    auto it = m_tracks.find(name);
    if (it == m_tracks.end()) {
        LeaseTrack track;
        track.firstSeenMono = lease->changedMono;
        track.spans.append({holder, lease->holderSinceMono, -1, -1, false});
        track.firstSeenTransitions = lease->record.transitions;
        track.lastChangeMono = lease->changedMono;
        track.leaseDurationMs = lease->record.leaseDurationMs;
        it = m_tracks.insert(name, track);
        Q_EMIT trackChanged(name);
        return;
    }
    LeaseTrack &track = *it;
    if (lease->record.leaseDurationMs > 0)
        track.leaseDurationMs = lease->record.leaseDurationMs;
    HolderSpan &current = track.spans.last();
    bool changed = false;
    // A holder renewing after it stopped is back (another incarnation, R5):
    // a span of its own, after the gap.
    const bool back = current.stoppedMono >= 0 && !lease->expired && lease->changedMono != track.lastChangeMono;
    if (current.holder != holder || back) {
        current.endMono = lease->changedMono;
        track.spans.append({holder, lease->changedMono, -1, -1, false});
        if (track.spans.size() > m_maxSamples)
            track.spans.removeFirst();
        changed = true;
    } else if (lease->expired && current.stoppedMono < 0 && !holder.isEmpty()) {
        // Its last renewal seen: the record has not changed since.
        current.stoppedMono = std::max(current.startMono, lease->changedMono);
        changed = true;
    }
    if (lease->changedMono != track.lastChangeMono) {
        if (!holder.isEmpty() && track.spans.last().startMono < lease->changedMono)
            track.renewals.append({lease->changedMono, lease->changedMono - track.lastChangeMono, holder});
        if (track.renewals.size() > m_maxSamples)
            track.renewals.removeFirst();
        track.lastChangeMono = lease->changedMono;
        changed = true;
    }
    if (changed)
        Q_EMIT trackChanged(name);
}

void LeaseActivity::applyCrashGap(const LeaseFailover &change)
{
    if (change.why != QLatin1String("expired") || change.gapMs < 0)
        return;
    auto it = m_tracks.find(change.lease);
    if (it == m_tracks.end())
        return;
    QList<HolderSpan> &spans = it->spans;
    // The old holder's span is the newest that its successor's follows.
    for (qsizetype i = spans.size() - 2; i >= 0; --i) {
        HolderSpan &span = spans[i];
        if (span.holder != change.from || spans.at(i + 1).holder != change.to || span.endMono < 0)
            continue;
        // The row's gap (from the last renewal seen, or written when that is
        // earlier) back from the takeover seen; an earlier stop seen stays.
        qint64 stopped = span.endMono - change.gapMs;
        if (span.stoppedMono >= 0)
            stopped = std::min(stopped, span.stoppedMono);
        stopped = std::max(span.startMono, stopped);
        if (stopped != span.stoppedMono) {
            span.stoppedMono = stopped;
            Q_EMIT trackChanged(change.lease);
        }
        return;
    }
}

void LeaseActivity::readRecordedHistory()
{
    QHash<QString, QList<LeaseFailover>> recorded;
    const QList<LeaseFailover> history = m_observer->history();
    for (const LeaseFailover &change : history)
        if (change.recorded && m_tracks.contains(change.lease))
            recorded[change.lease].append(change);
    for (auto it = recorded.cbegin(); it != recorded.cend(); ++it)
        if (applyRecorded(m_tracks[it.key()], it.value()))
            Q_EMIT trackChanged(it.key());
}

void LeaseActivity::addRecorded(const QList<LeaseFailover> &changes)
{
    // Each lease's share of the slice, in its order (oldest first).
    QHash<QString, QList<LeaseFailover>> recorded;
    QStringList order;
    for (const LeaseFailover &change : changes) {
        if (!change.recorded || !m_tracks.contains(change.lease))
            continue;
        auto it = recorded.find(change.lease);
        if (it == recorded.end()) {
            order.append(change.lease);
            it = recorded.insert(change.lease, {});
        }
        it->append(change);
    }
    for (const QString &lease : std::as_const(order)) {
        QList<LeaseFailover> mine = recorded.value(lease);
        if (m_recordedBeforeReady.contains(lease)) {
            // More of a lease told before (a change on Kubernetes): its
            // spans are made again from everything stored, as at ready().
            mine.clear();
            const QList<LeaseFailover> history = m_observer->history();
            for (const LeaseFailover &change : history)
                if (change.recorded && change.lease == lease)
                    mine.append(change);
        }
        m_recordedBeforeReady.insert(lease);
        if (applyRecorded(m_tracks[lease], mine))
            Q_EMIT trackChanged(lease);
    }
}

bool LeaseActivity::applyRecorded(LeaseTrack &track, const QList<LeaseFailover> &changes) const
{
    // Only what came before the first sighting: later changes were seen
    // here (or fell between two lists, and the spans seen already show the
    // new holder). The record's transitions order them without a clock (F7).
    QList<HolderSpan> spans;
    for (const LeaseFailover &change : changes) {
        const bool before = change.transitions > 0 && track.firstSeenTransitions > 0
                ? change.transitions <= track.firstSeenTransitions
                : change.mono <= track.firstSeenMono;
        if (!before || change.to.isEmpty())
            continue;
        // The holders' clocks may run ahead of ours: nothing recorded is
        // placed after the first sighting.
        const qint64 at = std::min(change.mono, track.firstSeenMono);
        const qint64 gap = std::max<qint64>(0, change.gapMs);
        const bool released = change.why == QLatin1String("released");
        if (!spans.isEmpty()) {
            HolderSpan &previous = spans.last();
            if (change.why == QLatin1String("expired")) {
                previous.endMono = at;
                // The gap stored is from the last renewal written (or, by an
                // older writer, from the expiry): the bar ends there.
                previous.stoppedMono = std::max(previous.startMono, at - gap);
            } else if (released && gap > 0) {
                previous.endMono = std::max(previous.startMono, at - gap);
                spans.append({QString(), previous.endMono, at, -1, true});
            } else {
                previous.endMono = at;
            }
        } else if (released && gap > 0) {
            spans.append({QString(), at - gap, at, -1, true});
        }
        spans.append({change.to, at, -1, -1, true});
    }

    QList<HolderSpan> seen;
    for (const HolderSpan &span : std::as_const(track.spans))
        if (!span.recorded)
            seen.append(span);
    // A first span seen may have been drawn back to its recorded start before.
    if (!seen.isEmpty() && seen.first().startMono < track.firstSeenMono)
        seen.first().startMono = track.firstSeenMono;
    if (!spans.isEmpty()) {
        const HolderSpan last = spans.last();
        const bool continues = !seen.isEmpty() && seen.first().startMono == track.firstSeenMono
                && seen.first().holder == last.holder;
        if (continues) {
            // The holder first seen is the one that took it last: one span,
            // from its recorded acquisition ("held since" by the record).
            seen.first().startMono = last.startMono;
            spans.removeLast();
        } else {
            spans.last().endMono = seen.isEmpty() ? -1 : seen.first().startMono;
        }
    }
    while (!spans.isEmpty() && spans.size() + seen.size() > m_maxSamples)
        spans.removeFirst();
    spans.append(seen);
    if (spans == track.spans)
        return false;
    track.spans = spans;
    return true;
}

qint64 LeaseActivity::estimatedRenewInterval(const LeaseTrack &track)
{
    if (track.renewals.size() < 3)
        return -1;
    QList<qint64> intervals;
    intervals.reserve(track.renewals.size());
    for (const RenewalSample &sample : track.renewals)
        intervals.append(sample.intervalMs);
    const auto middle = intervals.begin() + intervals.size() / 2;
    std::nth_element(intervals.begin(), middle, intervals.end());
    return *middle;
}

} // namespace baton
