#pragma once

#include "electoractions.h"
#include "leasesighting.h"

#include <optional>

namespace baton {

class Clock;

/*!
 * The election's decisions (the F rules of the contract), and nothing else: no network,
 * no timers, no clock of its own. The driver feeds it events, each method
 * returns what to do, and nextWakeMono() says when to call onTimer().
 *
 * One request is outstanding at a time; a reply to any other request (late,
 * after a timeout) is ignored. Every entry point first enforces the F4
 * deadline, so a process that resumes after a freeze steps down before it
 * does anything else. Its state is one State, changed only by moveTo().
 */
class Elector
{
public:
    Elector(ElectorParams params, const Clock &clock);

    /*! Begins campaigning: the first attempt runs now (F1). */
    ElectorActions start();
    /*! Call when nextWakeMono() has come (calling early is harmless). */
    ElectorActions onTimer();
    ElectorActions onReply(quint64 request, const LeaseReply &reply);
    /*! A change seen by a watch (F8). */
    ElectorActions onWatch(const LeaseState &state);

    /*!
     * First half of a clean stop (F5): stops campaigning and stops leading
     * (reason Stopping). From here on the only request it sends is the
     * release: the answer to a read still on its way leads to no write.
     * The driver then waits for the deregistered callbacks and calls
     * release().
     */
    ElectorActions stop();
    /*!
     * Second half of a clean stop: gives the lease up (empty holder,
     * conditional on the version) when this instance still holds it and is
     * within its deadline. When an acquiring write is on its way, waits for
     * its answer first. Ends with ReleaseFinished. Call it after stop().
     */
    ElectorActions release();

    /*!
     * First half of a handover (H1), for the leader's own side: stops
     * leading (reason HandedOver) as stop() does, and keeps campaigning.
     * The driver waits for the deregistered callbacks and calls handOver().
     * \a to is an instance id, or anySuccessor for a plain release; \a by
     * says who asked. Does nothing unless leading.
     */
    ElectorActions requestHandover(const QString &to, const QString &by);
    /*!
     * Second half: writes the lease free and kept for the successor,
     * conditional on the version, before the deadline (F5); ends with
     * HandedOver, back to following.
     */
    ElectorActions handOver();
    /*! Between the two halves of a handover: handOver() is awaited. */
    bool awaitingHandover() const { return m_state == State::HandingOver && !m_handoverAsked; }

    /*!
     * The stand-by gate (H3): while on, no free, expired or missing lease
     * is acquired unless a handover reserved it for this instance (H1); a
     * leader's renewals are unchanged. Turning it off attempts at once
     * when the lease is free.
     */
    ElectorActions setStandingBy(bool standingBy);
    bool standingBy() const { return m_standingBy; }
    /*!
     * Whether a watch brings this instance the lease's changes (F8). A
     * follower that found the lease held then reads it again one renew
     * interval before a lease duration has passed, as a check on the watch,
     * not every renew interval: the watch shows it each renewal and each
     * release as it happens.
     */
    void setFollowedByWatch(bool followed) { m_followedByWatch = followed; }

    /*! Leading and before the deadline, on the clock now (F4). */
    bool isLeader() const;
    qint64 validUntilMono() const { return m_validUntil; }
    qint64 fencingToken() const { return isLeader() ? m_token : -1; }
    /*! The lease as last seen; `exists` is false before the first read. */
    const LeaseState &observed() const { return m_lease.state(); }
    bool hasObserved() const { return m_lease.known(); }
    std::optional<qint64> nextWakeMono() const;

private:
    /*!
     * Where the Elector is in its life (the table in docs/architecture.md).
     * Each state allows only some kinds of request on their way, checked by
     * consistent(): Following may still await a renewal of its last term,
     * answered but never obeyed (F4); Stopping and Stopped may await a
     * request of the campaign, whose answer only updates what is seen.
     */
    enum class State {
        Idle, //!< constructed; start() not called yet
        Following, //!< campaigning, not the holder; the next attempt at m_nextAttempt
        Acquiring, //!< a read or an acquiring write of the campaign is on its way
        Leading, //!< the holder until m_validUntil; renews at m_nextAttempt
        HandingOver, //!< stopped leading for a handover; its write, before m_validUntil, follows
        Stopping, //!< stop() called: no attempt any more; release() awaited
        Releasing, //!< the release, or the acquiring write it waits for, is on its way
        Stopped, //!< the release ended: done, not needed, or not allowed
    };
    struct Request
    {
        enum class Kind { Read, Acquire, Renew, Release };
        Kind kind;
        qint64 sentMono;
    };

    // client-go writes one second into a released lease; readers that judge
    // expiry by the record then free it at once, as an empty holder does here.
    static constexpr qint64 kReleasedLeaseDurationMs = 1000;
    // A release (or a handover) that loses a race only against our own
    // in-flight renewal is retried with the newer version; anything else is
    // left to expire.
    static constexpr int kMaxReleaseRetries = 3;

    qint64 now() const;
    qint64 stepDownDelay() const;
    qint64 requestTimeout() const;
    bool stopping() const;
    /*! Attempts to acquire or renew are made: neither stopping nor handing over. */
    bool campaigning() const { return !stopping() && m_state != State::HandingOver; }
    /*! Not standing by, or the lease is reserved for this instance by a handover (H1, H3). */
    bool mayAcquire() const;
    bool inFlight(Request::Kind kind) const { return m_inFlight && m_inFlight->kind == kind; }
    bool consistent() const;
    ElectorActions checked(ElectorActions out) const;
    void moveTo(State next);
    Request endRequest();
    void enforceDeadline(ElectorActions &out);
    void beginAttempt(ElectorActions &out);
    void continueAcquisition(ElectorActions &out, bool afterRead);
    void finishAttempt(ElectorActions &out, AttemptOutcome outcome, QString error = {},
                       LeaseReply::ErrorKind why = LeaseReply::ErrorKind::Other);
    void scheduleNextAttempt();
    void handleReadReply(const LeaseReply &reply, ElectorActions &out);
    void handleWriteReply(const LeaseReply &reply, bool renewal, ElectorActions &out);
    void handleReleaseReply(const LeaseReply &reply, ElectorActions &out);
    void releaseIfAsked(ElectorActions &out);
    void beginHandover(ElectorActions &out, const QString &to, const QString &by);
    void handOverIfAsked(ElectorActions &out);
    void startHandover(ElectorActions &out, bool retry = false);
    void handleHandoverReply(const LeaseReply &reply, ElectorActions &out);
    void finishHandover(ElectorActions &out, bool done, QString detail);
    void giveUpLateHandover(ElectorActions &out);
    /*! The lease's record as a release or a handover leaves it: free, for nobody yet. */
    LeaseRecord freedRecord() const;
    void startRelease(ElectorActions &out, bool retry = false);
    void finishRelease(ElectorActions &out, bool released, QString detail);
    LeaseRecord acquisitionRecord(qint64 transitions) const;
    void becomeLeader(const LeaseState &state, ElectorActions &out);
    void stepDown(StopReason reason, ElectorActions &out);
    void send(ElectorActions &out, Request::Kind kind, ElectorAction request);

    ElectorParams m_params;
    const Clock &m_clock;
    LeaseSighting m_lease;

    State m_state = State::Idle;
    /*! The one request on its way, if any; which kinds each state allows: consistent(). */
    std::optional<Request> m_inFlight;
    /*! A watch showed a record not ours while the request was on its way. */
    bool m_otherSeenDuringRequest = false;
    /*! The id of the last request sent; raised to abandon one, whose late reply is then ignored. */
    quint64 m_request = 0;
    /*! Start of the current or last attempt: latencies and terms count from it. */
    qint64 m_attemptStart = 0;
    /*! When the next attempt (or, in Leading, renewal) is due; unused once stopping. */
    qint64 m_nextAttempt = 0;
    /*! Leading only: the term's fencing token (F7). */
    qint64 m_token = -1;
    /*!
     * The end of the authority last granted (F4): in Leading, the deadline;
     * afterwards, the instant a release must not pass (F5).
     */
    qint64 m_validUntil = 0;
    /*! Releasing or HandingOver: retries after losing to our own renewal. */
    int m_releaseRetries = 0;
    /*! HandingOver: to whom (anySuccessor: anybody), and who asked. */
    QString m_successor;
    QString m_handoverBy;
    /*! HandingOver: handOver() was called; its write waits for the renewal on its way. */
    bool m_handoverAsked = false;
    /*! The stand-by gate (H3): see setStandingBy(). */
    bool m_standingBy = false;
    /*! See setFollowedByWatch(). */
    bool m_followedByWatch = false;
};

} // namespace baton
