#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

namespace baton {

class LeaseObserver;
class Clock;
struct LeaseFailover;

/*! A period during which one holder (or nobody) held a lease, on the observer's monotonic clock. */
struct HolderSpan
{
    /*! Empty: the lease was free (released). */
    QString holder;
    qint64 startMono = 0;
    /*! -1 while the span is the current one. */
    qint64 endMono = -1;
    /*!
     * When the holder stopped renewing, if its lease ran out unrenewed (a
     * crash, F2): its last renewal seen or, from the stored history, the
     * last one it wrote (the takeover less the stored gap); -1 if it did
     * not. Nobody led from there to the end of the span: the same gap as
     * the failover history's.
     */
    qint64 stoppedMono = -1;
    /*!
     * Read from the lease's stored history (before this observer saw the
     * lease), not seen: its times are the holders' clocks, placed on ours.
     */
    bool recorded = false;

    bool operator==(const HolderSpan &) const = default;
};

/*! A change of the record seen by the observer: a renewal, as seen from outside. */
struct RenewalSample
{
    qint64 mono = 0;
    /*! Milliseconds since the previous change seen by the same holder. */
    qint64 intervalMs = 0;
    QString holder;
};

/*! What the observer saw of one lease over time: holders and renewals. */
struct LeaseTrack
{
    QList<HolderSpan> spans;
    QList<RenewalSample> renewals;
    qint64 leaseDurationMs = 0;
    qint64 lastChangeMono = -1;
    qint64 firstSeenMono = 0;
    /*! The record's transitions when first seen (F7): stored changes up to it came before. */
    qint64 firstSeenTransitions = 0;
};

/*!
 * Records, per lease, the holders over time and the renewals as an observer
 * sees them (O4): the data of the timeline and of the renew timings. What
 * came before the observer saw a lease starts its track, from the stored
 * history (LeaseObserver::history()'s recorded changes, a slice of the first
 * list at a time, and again at historyRead()): spans marked recorded, ending where the first
 * span seen begins (which starts at the current holder's recorded
 * acquisition when the two agree).
 * The observer sees record changes, so the interval between two changes by
 * the same holder is its renewal interval as seen from here. A holder that
 * stopped renewing (its lease expired, or its successor's row says so) held
 * the lease until its last renewal, not until the takeover: the span's
 * stoppedMono, from the failover's gap, so that the timelines and the
 * history tell the same time without a leader.
 *
 * Keeps at most maxSamples() renewals and spans per lease, so that thousands
 * of leases fit in memory for as long as the dashboard stays open.
 */
class LeaseActivity : public QObject
{
    Q_OBJECT
public:
    explicit LeaseActivity(LeaseObserver *observer, QObject *parent = nullptr);

    void setMaxSamples(int count) { m_maxSamples = count; }
    int maxSamples() const { return m_maxSamples; }

    /*! The track of \a lease; an empty track when never seen. */
    LeaseTrack track(const QString &lease) const { return m_tracks.value(lease); }
    bool contains(const QString &lease) const { return m_tracks.contains(lease); }
    /*! Every lease with a track, in no order. */
    QStringList leases() const { return m_tracks.keys(); }
    const Clock &clock() const;

    /*!
     * The renewal interval the holder seems to use: the median of the
     * intervals seen, or -1 with fewer than three. An observer cannot know
     * the participants' renewInterval; this is what the record tells.
     */
    static qint64 estimatedRenewInterval(const LeaseTrack &track);

Q_SIGNALS:
    void trackChanged(const QString &lease);

private:
    void update(const QString &lease);
    /*! Ends the bar of a holder that stopped renewing at its last renewal, by the gap of \a change. */
    void applyCrashGap(const LeaseFailover &change);
    /*! Puts the stored history before what was seen, for every lease it names. */
    void readRecordedHistory();
    /*! The same for the stored changes of one slice of the first list (LeaseObserver::storedHistoryAdded()). */
    void addRecorded(const QList<LeaseFailover> &changes);
    /*! Replaces the recorded spans of \a track with those of \a changes (one lease's, oldest first). */
    bool applyRecorded(LeaseTrack &track, const QList<LeaseFailover> &changes) const;

    LeaseObserver *m_observer;
    QHash<QString, LeaseTrack> m_tracks;
    /*! The leases whose stored changes were told before ready(). */
    QSet<QString> m_recordedBeforeReady;
    int m_maxSamples = 360;
};

} // namespace baton
