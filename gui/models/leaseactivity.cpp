#include "leaseactivity.h"

#include <baton/leaseobserver.h>

#include <algorithm>

namespace baton {

LeaseActivity::LeaseActivity(LeaseObserver *observer, QObject *parent)
    : QObject(parent)
    , m_observer(observer)
{
    connect(observer, &LeaseObserver::leaseChanged, this, &LeaseActivity::update);
    connect(observer, &LeaseObserver::leaseRemoved, this, [this](const QString &lease) {
        if (m_tracks.remove(lease) > 0)
            Q_EMIT trackChanged(lease);
    });
    const QList<ObservedLease> known = observer->leases();
    for (const ObservedLease &lease : known)
        update(lease.name);
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
        track.spans.append({holder, lease->holderSinceMono, -1, -1});
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
    if (current.holder != holder) {
        current.endMono = lease->changedMono;
        track.spans.append({holder, lease->changedMono, -1, -1});
        if (track.spans.size() > m_maxSamples)
            track.spans.removeFirst();
        changed = true;
    } else if (lease->expired && current.expiredMono < 0) {
        current.expiredMono = lease->changedMono + lease->record.leaseDurationMs;
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
