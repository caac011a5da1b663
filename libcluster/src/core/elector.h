#pragma once

#include "leaserecord.h"

#include <batoninternal/leasehistory.h>

#include <QString>

#include <optional>
#include <variant>
#include <vector>

namespace baton {

class Clock;

enum class StopReason { Released, RenewFailed, TakenOver, Deadline, Stopping };
enum class ChangeWhy { FirstAcquire, Released, Expired, TakenOver };
enum class AttemptOutcome { Acquired, Renewed, Held, Conflict, Error };

QString wireName(StopReason reason);
QString wireName(ChangeWhy why);
QString wireName(AttemptOutcome outcome);

struct ElectorParams
{
    qint64 leaseDurationMs = 15000;
    qint64 renewIntervalMs = 5000;
    QString identity;
    /*!
     * This process's run: a record with our identity but another incarnation
     * is another process's (R5). Empty only where one process is sure to be
     * alone with its identity (the simulation's earlier runs, unit tests).
     */
    QString incarnation;
};

/*! What the Elector asks its driver to do, or tells it happened. */
namespace action {
struct Read
{
    quint64 request;
};
struct Create
{
    quint64 request;
    LeaseRecord record;
    /*! Set when the write takes the lease from someone else or from nobody: to be stored with it (O2). */
    std::optional<HistoryEntry> change = std::nullopt;
};
struct Update
{
    quint64 request;
    LeaseRecord record;
    QString version;
    /*! As Create::change; never set on a renewal or a release. */
    std::optional<HistoryEntry> change = std::nullopt;
};
struct BecameLeader
{
    qint64 token;
    qint64 validUntilMono;
};
struct StoppedLeading
{
    StopReason reason;
    /*! The end of this instance's authority by F4; never later than the moment it is reported. */
    qint64 validUntilMono;
};
struct LeaderChanged
{
    QString from;
    QString to;
    ChangeWhy why;
};
struct AttemptFinished
{
    AttemptOutcome outcome;
    qint64 latencyMs;
    QString errorString;
};
/*!
 * A record holds this instance's identity with another incarnation: another
 * process was configured with the same instance id (R5). Told once per
 * conflicting incarnation seen.
 */
struct IdentityConflict
{
    QString theirIncarnation;
};
/*! The release that stop asked for is done, or was not needed or not allowed. */
struct ReleaseFinished
{
    bool released;
    QString detail;
};
} // namespace action

using ElectorAction =
        std::variant<action::Read, action::Create, action::Update, action::BecameLeader,
                     action::StoppedLeading, action::LeaderChanged, action::AttemptFinished,
                     action::IdentityConflict, action::ReleaseFinished>;
using ElectorActions = std::vector<ElectorAction>;

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
    const LeaseState &observed() const { return m_observed; }
    bool hasObserved() const { return m_haveObserved; }
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
    /*! Held by this very process: our identity and our incarnation (R5). */
    bool isMine(const LeaseRecord &record) const;
    void noticeIdentityConflict(const LeaseState &state, ElectorActions &out);
    std::optional<HistoryEntry> recordedChange(const LeaseRecord &acquired) const;
    void observe(const LeaseState &state, ElectorActions &out);
    void becomeLeader(const LeaseState &state, ElectorActions &out);
    void stepDown(StopReason reason, ElectorActions &out);
    bool expired() const;
    qint64 observedLeaseDuration() const;
    quint64 send(ElectorActions &out, Step step, ElectorAction request);

    ElectorParams m_params;
    const Clock &m_clock;

    bool m_started = false;
    bool m_stopping = false;

    LeaseState m_observed;
    bool m_haveObserved = false;
    qint64 m_observedAt = 0;
    /*! The last holder seen, kept across a release so a take-up can name whom it follows. */
    QString m_lastHolder;
    /*! The current free record was seen replacing a held one, at m_observedAt. */
    bool m_releaseSeen = false;
    /*! The other incarnation of our identity last reported; none while none is seen. */
    std::optional<QString> m_conflictReported;

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
