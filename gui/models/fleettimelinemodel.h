#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QStringList>

namespace baton {

class Clock;
class LeaseActivity;
struct LeaseTrack;

/*! A stretch of one lease's lane: a holder's, or one without a leader. */
struct FleetSegment
{
    /*! Empty when nobody led (released, or run out unrenewed). */
    QString holder;
    qint64 startMono = 0;
    /*! -1 while it lasts. */
    qint64 endMono = -1;
    /*! Released and not yet taken, or the holder's lease ran out unrenewed (F2). */
    bool noLeader = false;
    /*! From the lease's stored history, before this observer saw it: the holders' clocks. */
    bool recorded = false;
    /*!
     * For a stretch without a leader after a crash: the holder that stopped
     * renewing (the stretch runs from its last renewal to the takeover, or
     * to now). Empty after a release.
     */
    QString stoppedHolder;

    /*! Milliseconds it lasted, or has lasted at \a nowMono. */
    qint64 durationMs(qint64 nowMono) const { return (endMono < 0 ? nowMono : endMono) - startMono; }
};

/*!
 * Every lease as a lane of holders over time (O4): the data of the fleet
 * timeline, as Grafana's state timeline draws it. A lane per lease, sorted
 * by name; each lane the holders' stretches and the stretches without a
 * leader, on the observer's monotonic clock, over what LeaseActivity keeps:
 * the stored history first, so the lanes start before the dashboard connected.
 *
 * The holder filter (the filter box's `holder:` words, or its plain words)
 * highlights the lanes that holder held at some time: a node that died
 * holding three leases lights up three lanes.
 */
class FleetTimelineModel : public QObject
{
    Q_OBJECT
public:
    explicit FleetTimelineModel(QObject *parent = nullptr);

    void setActivity(LeaseActivity *activity);
    LeaseActivity *activity() const { return m_activity; }
    const Clock *clock() const;

    /*! The leases, one lane each, by name. */
    QStringList leases() const
    {
        mergeNewLanes();
        return m_leases;
    }
    /*! Without ordering the lanes: a turn of a first list asks for it once per slice. */
    int laneCount() const { return int(m_leases.size() + m_newLanes.size()); }
    /*! The lane of \a lease, or -1. */
    int laneOf(const QString &lease) const;
    QList<FleetSegment> segments(const QString &lease) const;
    /*!
     * The stretches of \a track, oldest first: each holder's until it
     * released or stopped renewing, and between them those without a
     * leader. The lease timeline draws these too.
     */
    static QList<FleetSegment> segmentsOf(const LeaseTrack &track);

    /*! The first instant anything is known of (the stored history included), over every lane; -1 when nothing is. */
    qint64 knownSinceMono() const { return m_knownSince; }

    /*! Case-insensitive parts of holder names whose lanes are highlighted; empty: none. */
    void setHolderFilter(const QStringList &words);
    QStringList holderFilter() const { return m_holderWords; }
    bool isHighlighted(const QString &lease) const;

    void setSelectedLease(const QString &lease);
    QString selectedLease() const { return m_selected; }

Q_SIGNALS:
    /*! Lanes came or went. */
    void lanesChanged();
    /*! Something drawn changed: a lane's holders, the filter, the selection. */
    void changed();
    /*! The operator chose \a lease here (a click on its lane). */
    void leaseActivated(const QString &lease);

private:
    void onTrackChanged(const QString &lease);
    void rebuild();
    /*! Puts the leases that appeared since the last call in their lanes, in one merge. */
    void mergeNewLanes() const;
    /*! Ends a turn's new lanes: says so once more if some came after lanesChanged(). */
    void endNewLanes();

    QPointer<LeaseActivity> m_activity;
    /*! Sorted; mergeNewLanes() keeps it whole for every reader. */
    mutable QStringList m_leases;
    /*!
     * Leases that appeared in this event-loop turn, not yet in m_leases:
     * a first list of 20,000 leases would otherwise insert each in the
     * middle of a sorted list (quadratic), and tell each.
     */
    mutable QSet<QString> m_newLanes;
    /*! lanesChanged() was emitted this turn; endNewLanes() is due. */
    bool m_lanesTold = false;
    /*! Lanes came after this turn's lanesChanged(). */
    bool m_moreLanes = false;
    qint64 m_knownSince = -1;
    QStringList m_holderWords;
    QString m_selected;
};

} // namespace baton
