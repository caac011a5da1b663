#pragma once

#include <baton/clock.h>
#include "elector.h"
#include "leaserecord.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <vector>

namespace baton::sim {

/*!
 * What the network and the store do wrong. Probabilities are per message;
 * latencies are one way, in simulated milliseconds.
 */
struct Faults
{
    double requestLost = 0;
    double replyLost = 0;
    /*! The store answers an error and does not apply the request. */
    double storeError = 0;
    /*! The store applies a write and then answers an error (a timeout after commit). */
    double appliedError = 0;
    double watchDropped = 0;
    /*! A conflict is answered without the winner's state (as a bare HTTP 409 would be). */
    double conflictWithoutState = 0;
    /*! Chance that one message takes up to longLatencyMaxMs instead of up to latencyMaxMs. */
    double longLatency = 0;
    qint64 latencyMaxMs = 10;
    qint64 longLatencyMaxMs = 0;
    qint64 watchDelayMaxMs = 10;
};

/*! Process-level trouble, drawn at random while the run is in its faulty phase. */
struct Chaos
{
    double eventsPerHour = 0;
    /*! Relative weights of the kinds of trouble. */
    double crash = 1;
    double freeze = 1;
    /*! The host sleeps: its clock counts it, its pending timer does not (ScriptKind::SuspendLeader). */
    double suspend = 0;
    double partition = 1;
    double stop = 1;
    /*! Chance that the trouble hits the current leader rather than anyone. */
    double leaderBias = 0.6;
    qint64 freezeMaxMs = 0;
    qint64 partitionMaxMs = 0;
    qint64 restartMinMs = 1000;
    qint64 restartMaxMs = 30000;
    /*! Time the deregistered callbacks take between stop() and release(). */
    qint64 releaseDelayMaxMs = 500;
    /*! No new trouble for a while after a clean stop, so that the handover can be judged (F5). */
    bool quietAfterStop = false;
};

enum class ScriptKind {
    /*! The instance that leads at that moment dies; its slot restarts later as a new identity. */
    CrashLeader,
    /*! The leader gets no calls for durationMs (SIGSTOP); its clock runs on. */
    FreezeLeader,
    /*! The leader's requests, replies and watch events are lost for durationMs. */
    PartitionLeader,
    /*! The leader stops cleanly: stop(), then release() durationMs later (F5). */
    StopLeader,
    /*! Every message to or from the leader takes exactly durationMs from now on. */
    SlowLeader,
    /*! Every watch event is dropped from now on. */
    DropWatches,
    /*!
     * The next instance that sends an acquiring write is stopped while that
     * write is on its way (SIGTERM during a takeover); release() comes
     * durationMs later.
     */
    StopNextAcquirer,
    /*!
     * The next instance that sends a read while not leading is stopped while
     * that read is on its way (SIGTERM during a follower's attempt).
     */
    StopNextReader,
    /*!
     * The leader's host is suspended for durationMs: no calls, its clock
     * (CLOCK_BOOTTIME) counts the suspension but its timer (a QTimer, on
     * CLOCK_MONOTONIC) does not: the timer pending at the suspension fires
     * durationMs late, and replies and watch events that came meanwhile are
     * handled first, at the resume.
     */
    SuspendLeader,
    /*!
     * An operator asks the leader, through the lease record as `baton
     * handover` does, to hand over to the instance in slot (its current
     * run; the next slot when that one leads, its last run when it is
     * dead: a successor that is gone). The leader's callbacks take
     * durationMs before it calls handOver() (H1).
     */
    AskHandover,
    /*!
     * An operator drains the instance in slot (`baton drain`: a
     * read-modify-write of its candidate record); slot -1: the leader at
     * that moment, -2: every instance (H3).
     */
    Drain,
    /*! The same, undrained (`baton undrain`). */
    Undrain,
    /*! The next instance a leader hands over to by steering dies as the handover is asked. */
    CrashNextSuccessor,
    /*! The next instance a leader hands over to by steering is cut off from the store for durationMs. */
    PartitionNextSuccessor,
};

struct ScriptStep
{
    qint64 atMs = 0;
    ScriptKind kind = ScriptKind::CrashLeader;
    qint64 durationMs = 0;
    /*! The instance it hits, instead of the leader. */
    int slot = -1;
};

/*!
 * Scheduled work (S1-S3): a schedule `every periodMs` (whole seconds) on
 * each host's wall clock, decided by the product's TickPlanner on each
 * instance and carried out as ScheduledRunner does, with run records in the
 * simulated store (claimed by a conditional create, taken over and settled
 * by an update conditional on the version). The command
 * is a child process: a crash of its instance kills it, and the exec guard
 * kills it when the leader's authority ends, frozen or not.
 */
/*! Wall time 0 of the simulation (true time 0 on a host with no wall offset): 2026-12-01T00:00:00Z. */
inline constexpr qint64 WallEpochMs = 1'796'083'200'000;

struct TickConfig
{
    bool enabled = false;
    qint64 periodMs = 10000;
    /*! How long a run of the command takes, drawn for each run. */
    qint64 runMinMs = 3000;
    qint64 runMaxMs = 3000;
    /*! onInterrupted: rerun (true) or skip. */
    bool rerunInterrupted = false;
    /*! How late a tick nobody started may still run once; 0: never. */
    qint64 catchUpMs = 0;
    /*! overlap: queue (true) or skip. */
    bool queueOverlap = false;
    /*! Wall clock of each host, in ms off true time; missing ones are drawn within ±wallSkewMaxMs. */
    std::vector<qint64> wallOffsetMs;
    qint64 wallSkewMaxMs = 0;
    /*! Deliberately broken drivers and stores, to prove that the checker can fail. */
    enum class Broken {
        None,
        /*! The claim overwrites whatever record the tick has. */
        ClaimNotConditional,
        /*! The command starts as the claim is sent, not when it is answered. */
        RunBeforeRecord,
        /*! The driver claims and starts work past its deadline (the guard's check skipped). */
        PastDeadline,
        /*! The planner catches up within an hour while the policy (and the checker) says 0. */
        CatchUpAgainstPolicy,
    };
    Broken broken = Broken::None;
};

/*!
 * Preference and drain (H2, H3): every instance keeps a candidate record in
 * the simulated store (with the lease's faults), feeds the product's
 * SteeringPolicy, and applies its decision as the participant does: the
 * Elector's stand-by gate, and the leader's handover (H1). Instances then
 * keep one instanceId per slot across restarts (`n<slot>`), as real ones do.
 */
struct SteeringConfig
{
    bool enabled = false;
    /*! Priority of each slot; missing ones are 0. */
    std::vector<int> priority;
    /*! Slots started with --standby. */
    std::vector<int> standby;
    qint64 preferAfterMs = 30000;
    /*! Operators drain and undrain at random during the faulty phase, this many times an hour. */
    double drainsPerHour = 0;
    /*! Deliberately broken participants, to prove that the checker can fail. */
    enum class Broken {
        None,
        /*! A drained follower takes a free or expired lease anyway. */
        IgnoresGate,
        /*! The leader moves the lease to a higher priority as soon as it sees it. */
        IgnoresHysteresis,
        /*! The leader moves the lease to a stable candidate of its own priority. */
        MovesOnEqualPriority,
    };
    Broken broken = Broken::None;
};

struct SimConfig
{
    int instances = 3;
    qint64 leaseMs = 15000;
    qint64 renewMs = 5000;
    /*! Clock rate of each host, in parts per million off true time; missing ones are drawn within ±maxRatePpm. */
    std::vector<qint64> ratePpm;
    qint64 maxRatePpm = 20000;
    /*! When each instance starts; missing ones start at random within startSpreadMs. */
    std::vector<qint64> startAtMs;
    qint64 startSpreadMs = 0;
    /*! Length of the faulty phase. */
    qint64 durationMs = 3'600'000;
    Faults faults;
    Chaos chaos;
    std::vector<ScriptStep> script;
    /*! A final phase with no faults and small latencies, to judge liveness (F6). */
    bool healthyPhase = true;
    /*! Judge every clean stop: the next leader comes at the next attempt of a follower (F5). */
    bool checkCleanHandover = false;
    /*!
     * A deliberately wrong model of authority, to prove that the checker can
     * fail: an instance keeps authority from BecameLeader until it reports
     * StoppedLeading or crashes, ignoring its deadline.
     */
    bool leaderKeepsAuthorityPastDeadline = false;
    /*!
     * Another wrong model, for the same purpose: the clock decisions read
     * stands still while the host is suspended (CLOCK_MONOTONIC), so a
     * resumed leader believes its deadline is still ahead.
     */
    bool clockStopsWhileSuspended = false;
    /*!
     * Every instance is configured with one instanceId, as a configuration
     * file copied to every replica would have it (R5): only the incarnation
     * each process draws at start tells them apart.
     */
    bool oneIdentity = false;
    /*!
     * A deliberately wrong model, with oneIdentity: the processes draw no
     * incarnation, so each takes the others' record for its own.
     */
    bool incarnationsIgnored = false;
    TickConfig ticks;
    SteeringConfig steering;
    /*! Keep the last lines of a trace of the run (0: no trace, and faster)... */
    int traceLines = 0;
    /*! ...up to this simulated instant. */
    qint64 traceUntilMs = std::numeric_limits<qint64>::max();
};

/*! One span of authority: the instance would have answered isLeader() true. */
struct Term
{
    int slot = -1;
    QString identity;
    qint64 start = 0;
    qint64 end = 0;
    qint64 token = -1;
    /*! Still leading when the run ended. */
    bool openAtEnd = false;
};

/*! Something that happened, kept for the assertions of the scenarios. */
struct Happening
{
    enum Kind {
        BecameLeader,
        StoppedLeading,
        Crashed,
        Frozen,
        Thawed,
        Suspended,
        Resumed,
        Partitioned,
        StopCalled,
        /*! An acquiring or renewing write sent by an instance after its stop() (F5). */
        WriteAfterStop,
        ReleaseCalled,
        ReleaseFinished,
        ReleaseApplied,
        Restarted,
        Healthy,
    };
    qint64 time = 0;
    Kind kind = BecameLeader;
    int slot = -1;
    QString identity;
    StopReason reason = StopReason::Stopping;
    bool released = false;
    /*! The instance's local monotonic time when it happened, and the one it reported. */
    qint64 localNow = 0;
    qint64 reportedMono = 0;
};

/*! One run of a tick's command: from its start to its end (completed, or killed). */
struct TickRun
{
    /*! The tick, in wall milliseconds since the simulated epoch. */
    qint64 tick = 0;
    int slot = -1;
    QString identity;
    qint64 token = -1;
    int attempt = 1;
    /*! Index in SimResult::terms of the leadership it ran under. */
    std::size_t term = 0;
    /*! When its host's wall clock showed the tick, and when the claim was sent (and the wall clock then). */
    qint64 dueAt = 0;
    qint64 claimSentAt = 0;
    qint64 wallAtClaim = 0;
    /*! Its host's wall clock when the leadership it ran under began. */
    qint64 wallAtTermStart = 0;
    qint64 start = 0;
    /*! -1: still running at the end. */
    qint64 end = -1;
    bool completed = false;
};

/*! A handover a leader asked because its steering policy said so (H2, H3). */
struct SteeringHandover
{
    qint64 time = 0;
    int fromSlot = -1;
    QString to;
    bool drained = false;
};

/*! A write of a run record that the store applied. */
struct RunWrite
{
    qint64 time = 0;
    qint64 tick = 0;
    QString identity;
    qint64 token = -1;
    int attempt = 1;
    QString outcome;
};

struct SimResult
{
    quint64 seed = 0;
    SimConfig config;
    std::vector<Term> terms;
    std::vector<Happening> happenings;
    /*! The successors the script's handovers named (AskHandover), in order. */
    QStringList handoverSuccessors;
    /*! Breaches of the contract seen while running (the checks at the end come on top). */
    QStringList violations;
    qint64 firstViolationAt = -1;
    QStringList trace;
    qint64 endMs = 0;
    qint64 events = 0;
    /*! When the final healthy phase began, and when the last message of the faulty phase landed. */
    qint64 healthyAt = -1;
    qint64 healthyFrom = -1;
    qint64 livenessDeadline = -1;
    /*! Longest time from a release applied at the store to the next leader (F5, F8). */
    qint64 maxHandoverMs = -1;
    int handoversJudged = 0;
    /*! Scheduled work: the runs of the command, and the run records the store took. */
    std::vector<TickRun> runs;
    std::vector<RunWrite> runWrites;
    /*! Ticks recorded as skipped: a run was still going. */
    int skippedTicks = 0;
    /*! Steering: the handovers the policy asked for, the drains and undrains applied, and reservations judged. */
    std::vector<SteeringHandover> steeringHandovers;
    int drains = 0;
    int undrains = 0;
    int reservationsJudged = 0;
    /*! Breaches of H1-H3 among the violations. */
    int steeringViolations = 0;
    /*! Steering: times the lease moved more than three times by steering within one lease duration. */
    int steeringThrashes = 0;
    QString firstThrash;
    /*! Steering: the slot leading at the end of a run with a healthy phase (-1: nobody). */
    int finalLeader = -1;
};

/*! What the checks found: each line names the rule it breaks. */
struct Verdict
{
    QStringList problems;
    int overlaps = 0;
    /*! Breaches of S1-S3 found in the runs of scheduled work. */
    int runProblems = 0;
    /*! Breaches of H1-H3 found while steering. */
    int steeringProblems = 0;
    int leaderChanges = 0;
    /*! Simulated time of the first problem, where a trace is worth reading. */
    qint64 firstProblemAt = -1;
    bool ok() const { return problems.isEmpty(); }
};

/*! F1, F4, F7, F6, F5 on the outcome of one run; S1-S3 when it had scheduled work. */
Verdict judge(const SimResult &result);

/*! A random but reproducible configuration for the sweep. */
SimConfig sweepConfig(quint64 seed);

/*! Runs one simulated world to its end; deterministic for a seed and a configuration. */
SimResult simulate(const SimConfig &config, quint64 seed);

/*! The failure message of a run: seed, configuration, problems, the trace. */
QString describeFailure(const SimResult &result, const Verdict &verdict);

/*! Shortest way to read a configuration in a message. */
QString describe(const SimConfig &config);

} // namespace baton::sim
