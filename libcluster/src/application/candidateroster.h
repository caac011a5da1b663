#pragma once

#include "boottimer.h"
#include "electionsteering.h"
#include "stepbackoff.h"

#include <batoninternal/candidatebook.h>
#include <batoninternal/steeringpolicy.h>

#include <QStringList>

#include <optional>

namespace baton {

class ClusterService;

/*!
 * This instance as a candidate of one election (preference and drain):
 * every heartbeat it rewrites its candidate record, keeping a drain an
 * operator wrote, lists the others, asks the SteeringPolicy and applies
 * its answer: the Elector's stand-by gate, and on the leader a handover
 * (asked by "drain" or "preferred holder", so that the stored history says
 * why). It decides again at once when this instance becomes leader. A
 * clean stop writes that it left, its drain kept. The leader removes the
 * records of candidates gone long ago. Its errors are reported and leave
 * the election as it is; after each heartbeat that failed, it asks the
 * store again only after a pause twice as long (deciding on what it saw
 * meanwhile).
 */
class CandidateRoster final : public ElectionSteering
{
public:
    /*! Takes \a book. */
    CandidateRoster(ClusterServicePrivate *election, CandidateBook *book);

    void start() override;
    void stop(std::function<void()> done) override;
    void renewing() override;

    /*! Makes the rosters of the library's elections that have other candidates. */
    static void attach(ClusterService *service);

private:
    /*! A heartbeat; the next one comes a leaseDuration after \a dueMono, when this one was due. */
    void beat(qint64 dueMono);
    /*! Writes this instance's record over \a stored (none: creates it). */
    void write(const std::optional<CandidateRecord> &stored, int attempt);
    void rereadAndWrite(int attempt);
    void listAndApply();
    /*! Its own drain as the listing shows it: an operator may have changed it since the last write. */
    void adoptOwn(const QList<CandidateRecord> &records);
    /*! On the leader: removes the records of candidates gone for ten heartbeats, unless drained. */
    void removeLongGone();
    void apply();
    /*! Leading again after a preference handover that did not go through: says so, and backs off. */
    void backOffFromAFailedHandover();
    CandidateRecord composed(const std::optional<CandidateRecord> &stored) const;
    bool drained() const;
    /*! Closes or opens the Elector's stand-by gate, and says so. */
    void standBy(bool standingBy);
    void announce(int live);
    void failed(const QString &step, const QString &error);
    void succeeded(const QString &step);
    /*! After the record's write: the listing, unless it sits out this heartbeat. */
    void listOrApply();
    /*! Writes that this instance left, its drain kept; then the stop ends. */
    void leave();
    void finishStop();
    qint64 now() const;
    /*! From now to the next heartbeat, \a afterMs from now or up to one renewal slot sooner. */
    qint64 untilBeat(qint64 afterMs) const;
    void armHeartbeat(qint64 ms);

    ClusterServicePrivate *m_election;
    CandidateBook *m_book;
    SteeringPolicy m_policy;
    /*! The record as this instance last wrote it, with the store's version. */
    std::optional<CandidateRecord> m_written;
    /*! The drain of the last record written, kept when a later write fails. */
    std::optional<bool> m_lastDrained;
    /*! The first write keeps `--standby`; later ones keep what the store says. */
    bool m_firstWrite = true;
    /*! A heartbeat (write, then list) is on its way. */
    bool m_busy = false;
    bool m_stopping = false;
    std::function<void()> m_stopped;
    BootTimer m_heartbeat;
    /*! When m_heartbeat fires, on the decisions' clock. */
    qint64 m_heartbeatDueMono = 0;
    BootTimer m_stopBound;
    /*!
     * The kinds of failure already logged: each once, until it works again.
     * Three kinds at most: a list, as a QSet's least storage is over a
     * kilobyte per election.
     */
    QStringList m_logged;
    /*! Pauses after failures, the write's (read included) apart from the listing's. */
    StepBackoff m_writeBackoff;
    StepBackoff m_listBackoff;
    /*! The heartbeat on its way lists the records when its write ends. */
    bool m_listThisBeat = true;
    /*! What the events last said, to tell changes only. */
    bool m_toldDrained = false;
    int m_toldLive = -1;
    std::optional<bool> m_countedDrained;
};

} // namespace baton
