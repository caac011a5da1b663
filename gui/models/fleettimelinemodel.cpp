#include "fleettimelinemodel.h"

#include "leaseactivity.h"

#include <QTimer>

#include <algorithm>

namespace baton {

namespace {

qint64 firstKnown(const LeaseTrack &track)
{
    return track.spans.isEmpty() ? track.firstSeenMono : std::min(track.firstSeenMono, track.spans.first().startMono);
}

} // namespace

FleetTimelineModel::FleetTimelineModel(QObject *parent)
    : QObject(parent)
{
}

void FleetTimelineModel::setActivity(LeaseActivity *activity)
{
    if (m_activity)
        disconnect(m_activity, nullptr, this, nullptr);
    m_activity = activity;
    if (activity)
        connect(activity, &LeaseActivity::trackChanged, this, &FleetTimelineModel::onTrackChanged);
    rebuild();
}

const Clock *FleetTimelineModel::clock() const
{
    return m_activity ? &m_activity->clock() : nullptr;
}

void FleetTimelineModel::rebuild()
{
    m_newLanes.clear();
    m_leases = m_activity ? m_activity->leases() : QStringList();
    std::sort(m_leases.begin(), m_leases.end());
    m_knownSince = -1;
    for (const QString &lease : std::as_const(m_leases)) {
        const qint64 since = firstKnown(m_activity->track(lease));
        m_knownSince = m_knownSince < 0 ? since : std::min(m_knownSince, since);
    }
    Q_EMIT lanesChanged();
    Q_EMIT changed();
}

void FleetTimelineModel::onTrackChanged(const QString &lease)
{
    const auto at = std::lower_bound(m_leases.begin(), m_leases.end(), lease);
    const bool known = (at != m_leases.end() && *at == lease) || m_newLanes.contains(lease);
    if (!m_activity->contains(lease)) {
        if (known) {
            // The first instant known may have gone with it.
            rebuild();
        }
        return;
    }
    // A renewal of a known lease costs no search of every lane; a new one
    // waits for the turn's others, to be merged in order with them.
    const qint64 since = firstKnown(m_activity->track(lease));
    m_knownSince = m_knownSince < 0 ? since : std::min(m_knownSince, since);
    if (!known) {
        m_newLanes.insert(lease);
        if (!m_lanesTold) {
            m_lanesTold = true;
            QTimer::singleShot(0, this, &FleetTimelineModel::endNewLanes);
            Q_EMIT lanesChanged();
        } else {
            m_moreLanes = true;
        }
    }
    Q_EMIT changed();
}

void FleetTimelineModel::mergeNewLanes() const
{
    if (m_newLanes.isEmpty())
        return;
    QStringList added = std::exchange(m_newLanes, {}).values();
    std::sort(added.begin(), added.end());
    QStringList merged;
    merged.reserve(m_leases.size() + added.size());
    std::merge(m_leases.cbegin(), m_leases.cend(), added.cbegin(), added.cend(), std::back_inserter(merged));
    m_leases = std::move(merged);
}

void FleetTimelineModel::endNewLanes()
{
    m_lanesTold = false;
    if (std::exchange(m_moreLanes, false))
        Q_EMIT lanesChanged();
}

int FleetTimelineModel::laneOf(const QString &lease) const
{
    mergeNewLanes();
    const auto at = std::lower_bound(m_leases.begin(), m_leases.end(), lease);
    return at != m_leases.end() && *at == lease ? int(at - m_leases.begin()) : -1;
}

QList<FleetSegment> FleetTimelineModel::segments(const QString &lease) const
{
    return m_activity ? segmentsOf(m_activity->track(lease)) : QList<FleetSegment>();
}

QList<FleetSegment> FleetTimelineModel::segmentsOf(const LeaseTrack &track)
{
    QList<FleetSegment> out;
    for (const HolderSpan &span : track.spans) {
        if (span.holder.isEmpty()) {
            out.append({QString(), span.startMono, span.endMono, true, span.recorded, QString()});
            continue;
        }
        // A crash: the bar ends at the last renewal, not at the takeover.
        const bool stopped = span.stoppedMono >= 0 && (span.endMono < 0 || span.stoppedMono < span.endMono);
        out.append({span.holder, span.startMono, stopped ? span.stoppedMono : span.endMono, false, span.recorded,
                    QString()});
        if (stopped)
            out.append({QString(), span.stoppedMono, span.endMono, true, span.recorded, span.holder});
    }
    return out;
}

void FleetTimelineModel::setHolderFilter(const QStringList &words)
{
    if (words == m_holderWords)
        return;
    m_holderWords = words;
    Q_EMIT changed();
}

bool FleetTimelineModel::isHighlighted(const QString &lease) const
{
    if (m_holderWords.isEmpty() || !m_activity)
        return false;
    const LeaseTrack track = m_activity->track(lease);
    for (const HolderSpan &span : track.spans)
        for (const QString &word : m_holderWords)
            if (!span.holder.isEmpty() && span.holder.contains(word, Qt::CaseInsensitive))
                return true;
    return false;
}

void FleetTimelineModel::setSelectedLease(const QString &lease)
{
    if (lease == m_selected)
        return;
    m_selected = lease;
    Q_EMIT changed();
}

} // namespace baton
