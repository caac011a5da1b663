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
 * does anything else.
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
     * its answer first. Ends with ReleaseFinished.
     */
    ElectorActions release();

    /*! Leading and before the deadline, on the clock now (F4). */
    bool isLeader() const;
    qint64 validUntilMono() const { return m_validUntil; }
    qint64 fencingToken() const { return isLeader() ? m_token : -1; }
    /*! The lease as last seen; `exists` is false before the first read. */
    const LeaseState &observed() const { return m_lease.state(); }
    bool hasObserved() const { return m_lease.known(); }
    std::optional<qint64> nextWakeMono() const;
    const ElectorParams &params() const { return m_params; }

private:
    enum class Step { None, Read, Write, Release };

    qint64 now() const;
    qint64 stepDownDelay() const;
    qint64 requestTimeout() const;
    void enforceDeadline(ElectorActions &out);
    void beginAttempt(ElectorActions &out);
    void continueAttempt(ElectorActions &out);
    void finishAttempt(ElectorActions &out, AttemptOutcome outcome, QString error = {});
    void scheduleNextAttempt();
    void handleReadReply(const LeaseReply &reply, ElectorActions &out);
    void handleWriteReply(const LeaseReply &reply, ElectorActions &out);
    void handleReleaseReply(const LeaseReply &reply, ElectorActions &out);
    void startRelease(ElectorActions &out, bool retry = false);
    void sendRelease(ElectorActions &out);
    LeaseRecord acquisitionRecord(qint64 transitions) const;
    void becomeLeader(const LeaseState &state, ElectorActions &out);
    void stepDown(StopReason reason, ElectorActions &out);
    quint64 send(ElectorActions &out, Step step, ElectorAction request);

    ElectorParams m_params;
    const Clock &m_clock;

    bool m_started = false;
    bool m_stopping = false;

    LeaseSighting m_lease;

    bool m_leading = false;
    qint64 m_token = -1;
    qint64 m_validUntil = 0;

    Step m_step = Step::None;
    quint64 m_request = 0;
    qint64 m_attemptStart = 0;
    qint64 m_requestStart = 0;
    qint64 m_nextAttempt = 0;
    bool m_readThisAttempt = false;
    bool m_attemptIsRenewal = false;
    int m_releaseRetries = 0;
    bool m_releaseRequested = false;
};

} // namespace baton
