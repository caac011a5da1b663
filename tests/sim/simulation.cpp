#include "simulation.h"

#include "manualclock.h"

#include <batoninternal/steeringpolicy.h>
#include <batoninternal/tickplanner.h>

#include <QJsonObject>

#include <QDate>
#include <QDateTime>
#include <QTime>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>

namespace baton::sim {

namespace {

constexpr qint64 Million = 1'000'000;
/*! Latency and watch delay of the final healthy phase. */
constexpr qint64 HealthyLatencyMs = 10;
/*! Past this many calls at one simulated instant, an instance is spinning. */
constexpr int BusyLoopCalls = 1000;
constexpr qint64 MaxEvents = 20'000'000;
/*! More moves by steering than this within one lease duration: the lease goes back and forth. */
constexpr std::size_t MaxMovesPerLease = 3;
/*! How long the deregistered callbacks take before a steering handover is written. */
constexpr qint64 HandoverCallbacksMaxMs = 50;

qint64 floorDiv(qint64 a, qint64 b)
{
    qint64 q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return q;
}

/*!
 * A host's monotonic clock: offset + (1 + ppm / 10^6) * simulated time,
 * in whole milliseconds, never going back.
 */
struct Host
{
    qint64 offset = 0;
    qint64 ppm = 0;

    qint64 localAt(qint64 simMs) const { return offset + simMs + floorDiv(simMs * ppm, Million); }
    /*! The first simulated instant at which this clock shows \a local or more. */
    qint64 simAt(qint64 local) const
    {
        auto t = static_cast<qint64>(static_cast<double>(local - offset) * double(Million)
                                     / double(Million + ppm));
        while (localAt(t) >= local)
            --t;
        while (localAt(t) < local)
            ++t;
        return t;
    }
};

/*! Reproducible randomness: only the raw 64-bit stream of mt19937_64 is used. */
class Random
{
public:
    explicit Random(quint64 seed)
        : m_gen(seed)
    {
    }
    double chance() { return double(m_gen() >> 11) * (1.0 / 9007199254740992.0); }
    bool happens(double p) { return p > 0 && chance() < p; }
    qint64 between(qint64 lo, qint64 hi)
    {
        if (hi <= lo)
            return lo;
        return lo + qint64(m_gen() % quint64(hi - lo + 1));
    }
    double exponential(double mean) { return -std::log(1.0 - chance()) * mean; }

private:
    std::mt19937_64 m_gen;
};

enum class Ev {
    Start, Timer, Arrive, Reply, Watch, Thaw, Stop, Release, HandOver, GiveUp, Restart, Chaos, Script, Healthy,
    // Scheduled work: the runner's tick timer, the end of a command, run-record requests and their answers.
    TickDue, RunEnd, RunArrive, RunReply,
    // Steering: the roster's heartbeat, candidate-record requests and their
    // answers, a decision on becoming leader, an operator's drain, and the
    // judgement of a reservation once it must have run out.
    Beat, CandArrive, CandReply, Decide, Operator, JudgeReservation,
    End
};

/*! A request of the driver to the run records (RunLedger), on its way or answered. */
struct RunOp
{
    enum Kind { Claim, Replace, List };
    /*! What the answer goes to: the planner's claimAnswered(), its recordsListed(), or nothing. */
    enum Purpose { Answer, Review, None };
    Kind kind = Claim;
    Purpose purpose = None;
    RunRecord record;
    /*! Replace: the record as read, whose version the store must still have. */
    RunRecord earlier;
    /*! Review: the leadership that asked. */
    qint64 token = 0;
    // Answer.
    bool ok = false;
    bool error = false;
    QList<RunRecord> listed;
};

/*! A request of the roster to the candidate records (CandidateBook), on its way or answered. */
struct CandOp
{
    enum Kind { Read, Create, Replace, List };
    Kind kind = Read;
    CandidateRecord record;
    /*! Replace: the record as read or written, whose version the store must still have. */
    CandidateRecord earlier;
    /*! The write of a clean stop: nothing follows it. */
    bool last = false;
    // Answer.
    bool ok = false;
    bool error = false;
    std::optional<CandidateRecord> read;
    QList<CandidateRecord> listed;
};

struct Event
{
    qint64 time = 0;
    quint64 seq = 0;
    Ev kind = Ev::End;
    int slot = -1;
    int incarnation = 0;
    /*! Timer generation, request id or script step. */
    quint64 id = 0;
    /*! A request on its way to the store, a reply, or a watched state: most events carry none. */
    std::variant<std::monostate, ElectorAction, LeaseReply, LeaseState> payload;

    const ElectorAction &request() const { return std::get<ElectorAction>(payload); }
    const LeaseReply &reply() const { return std::get<LeaseReply>(payload); }
    const LeaseState &state() const { return std::get<LeaseState>(payload); }
};

/*! What the queue orders; the event itself waits in a pool, so that the heap moves only keys. */
struct Key
{
    qint64 time;
    quint64 seq;
    std::size_t index;
};

struct Later
{
    bool operator()(const Key &a, const Key &b) const
    {
        return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
};

enum class Life { Running, Stopping, Stopped, Dead };

struct Sent
{
    qint64 local = 0;
    bool write = false;
};

struct Node
{
    int slot = 0;
    Host host;
    std::unique_ptr<test::ManualClock> clock;
    std::unique_ptr<Elector> elector;
    int incarnation = 0;
    QString identity;
    Life life = Life::Dead;
    bool frozen = false;
    std::vector<Event> deferred;
    /*! Set while the host is suspended: when its pending timer would have fired, and how long. */
    bool suspended = false;
    qint64 suspendedTimerAt = -1;
    qint64 suspendMs = 0;
    qint64 partitionedUntil = -1;
    /*! Every message of this slot takes exactly this long (ScriptKind::SlowLeader); -1: random. */
    qint64 slowMs = -1;
    quint64 timerGen = 0;
    /*! When the timer of the current generation fires; -1: none pending. */
    qint64 timerAt = -1;
    qint64 lastWatchAt = 0;
    qint64 lastCallAt = -1;
    int callsAtSameTime = 0;
    bool spinReported = false;
    bool lateWakeReported = false;
    /*! The deadline (local) of the authority that stop() ended; none when it was not leading. */
    std::optional<qint64> stopDeadline;
    /*! When a request or reply of this instance was last lost: it may still wait for it. */
    qint64 lastLossAt = std::numeric_limits<qint64>::min() / 2;

    // Authority, as the driver would see it.
    bool termOpen = false;
    std::size_t term = 0;
    qint64 validUntil = 0;
    qint64 deadlineSim = 0;
    std::map<quint64, Sent> sent;

    // Scheduled work (TickConfig): the host's wall clock, and the product's
    // planner of this process with the run it started.
    Host wall;
    quint64 tickGen = 0;
    std::unique_ptr<TickPlanner> planner;
    std::optional<std::size_t> work;

    // Steering (H2, H3): the candidate roster of this process.
    std::unique_ptr<SteeringPolicy> policy;
    /*! Its record as last written, with the version; none before the first write. */
    std::optional<CandidateRecord> mine;
    bool rosterBusy = false;
    bool rosterStopped = false;
    /*! Writes of this heartbeat so far: a conflict is read and written again, a few times. */
    int rosterAttempt = 1;
    /*! No write of this process has succeeded yet: `--standby` still counts. */
    bool firstWrite = true;
    /*! Its drain as last known, from its writes and the listings (as CandidateRoster). */
    std::optional<bool> knownDrained;
    quint64 beatGen = 0;
    bool standBy = false;
    /*! When this process started. */
    qint64 startedAt = 0;
    /*!
     * The last moment a fault touched this instance (a message lost, late
     * or refused, a watch dropped, a freeze or a partition): until a while
     * after it, what it knows may lag behind the truth.
     */
    qint64 lastTroubleAt = std::numeric_limits<qint64>::min() / 2;
    /*! When this process's record first reached the store (-1: not yet): its stability as the truth has it. */
    qint64 firstBeatAt = -1;
};

QString holderText(const LeaseState &s)
{
    if (!s.exists)
        return QStringLiteral("none");
    return QStringLiteral("%1 tr=%2 @%3")
            .arg(s.record.holder.isEmpty() ? QStringLiteral("<released>") : s.record.holder)
            .arg(s.record.transitions)
            .arg(s.version);
}

QString replyText(const LeaseReply &r)
{
    switch (r.outcome) {
    case LeaseReply::Outcome::Ok:
        return QStringLiteral("ok(%1)").arg(holderText(r.state));
    case LeaseReply::Outcome::Conflict:
        return QStringLiteral("conflict(%1)").arg(r.stateKnown ? holderText(r.state) : QString());
    case LeaseReply::Outcome::Error:
        return QStringLiteral("error(%1)").arg(r.errorString);
    }
    return {};
}

QString actionText(const ElectorAction &a)
{
    if (const auto *r = std::get_if<action::Read>(&a))
        return QStringLiteral("Read#%1").arg(r->request);
    if (const auto *c = std::get_if<action::Create>(&a))
        return QStringLiteral("Create#%1(%2 tr=%3)").arg(c->request).arg(c->record.holder).arg(c->record.transitions);
    if (const auto *u = std::get_if<action::Update>(&a))
        return QStringLiteral("Update#%1(%2 tr=%3 if @%4)")
                .arg(u->request)
                .arg(u->record.holder.isEmpty() ? QStringLiteral("<release>") : u->record.holder)
                .arg(u->record.transitions)
                .arg(u->version);
    if (const auto *b = std::get_if<action::BecameLeader>(&a))
        return QStringLiteral("BecameLeader(token=%1 until=%2)").arg(b->token).arg(b->validUntilMono);
    if (const auto *s = std::get_if<action::StoppedLeading>(&a))
        return QStringLiteral("StoppedLeading(%1 until=%2)").arg(wireName(s->reason)).arg(s->validUntilMono);
    if (const auto *l = std::get_if<action::LeaderChanged>(&a))
        return QStringLiteral("LeaderChanged(%1->%2 %3)").arg(l->from, l->to, holderChangeName(l->why));
    if (const auto *f = std::get_if<action::AttemptFinished>(&a))
        return QStringLiteral("Attempt(%1 %2ms)").arg(wireName(f->outcome)).arg(f->latencyMs);
    if (const auto *ic = std::get_if<action::IdentityConflict>(&a))
        return QStringLiteral("IdentityConflict(%1)").arg(ic->theirIncarnation);
    if (const auto *rf = std::get_if<action::ReleaseFinished>(&a))
        return QStringLiteral("ReleaseFinished(%1)").arg(rf->released ? "released" : "not released");
    return {};
}

class World
{
public:
    World(const SimConfig &config, quint64 seed);
    SimResult run();

private:
    void push(Event e);
    void dispatch(Event &e);
    bool reachable(Node &n, Event &e);

    void startNode(Node &n);
    template<typename Invoke>
    void call(Node &n, const char *what, std::optional<quint64> replyTo, Invoke &&invoke);
    void extendAuthority(Node &n, std::optional<quint64> replyTo, const char *what);
    void openTerm(Node &n, qint64 token);
    /*! \a alive: false when the process is gone (crash, restart), and with it the runner. */
    void closeTerm(Node &n, qint64 end, bool alive = true);
    void scheduleTimer(Node &n);
    /*! Sends \a request on its way; it is left for the trace only. */
    void send(Node &n, ElectorAction &request, quint64 id, bool write, qint64 local);
    void arrive(const Event &e);
    LeaseReply apply(const ElectorAction &request, bool &changed);
    void notifyWatchers();
    qint64 latency(Node &n);
    bool partitioned(const Node &n) const { return m_now < n.partitionedUntil; }

    Node *leader();
    Node *anyone(bool runningOnly);
    void crash(Node &n);
    void freeze(Node &n, qint64 ms);
    void thaw(Node &n);
    void suspend(Node &n, qint64 ms);
    void resume(Node &n);
    void partition(Node &n, qint64 ms);
    void stopNode(Node &n, qint64 releaseDelay);
    /*!
     * The service has stopped (released, or gave up at the deadline).
     * ClusterService hands the Elector nothing more from then on; the
     * harness keeps feeding it the replies and watch events that still
     * come, until the process restarts, so that the Elector is shown to
     * write nothing after stop() whatever its driver does (F5).
     */
    void finishStop(Node &n);
    void scheduleRestart(Node &n);
    void chaos();
    void script(const ScriptStep &step);
    void askHandover(const ScriptStep &step);
    void healthy();

    // Scheduled work: the product's TickPlanner, driven as ScheduledRunner
    // drives it; the records live in the simulated store.
    bool ticking() const { return m_config.ticks.enabled; }
    /*! The authority the exec guard enforces: the term is open and its deadline not reached. */
    bool leads(const Node &n) const { return n.life != Life::Dead && n.termOpen && m_now < n.deadlineSim; }
    QDateTime wallNow(const Node &n) const;
    void leadershipEnded(Node &n, qint64 end, bool alive);
    void carryOut(Node &n, const QList<TickPlanner::Action> &actions);
    void armTick(Node &n);
    void startWork(Node &n, const RunRecord &record);
    void onRunEnd(Event &e);
    void sendRunOp(Node &n, RunOp op);
    void runArrive(const Event &e);
    void runReply(Event &e);

    // Steering (H2, H3): the roster of each instance, as CandidateRoster
    // does it, over candidate records in the simulated store; the decisions
    // are the product's SteeringPolicy's.
    bool steering() const { return m_config.steering.enabled; }
    QString configuredId(const Node &n) const;
    int priorityOf(int slot) const;
    void startRoster(Node &n);
    bool isStandby(const Node &n) const;
    SteeringPolicy::Self selfOf(const Node &n) const;
    void armBeat(Node &n, qint64 atLocal);
    void beat(Node &n);
    CandidateRecord heartbeatRecord(const Node &n, const CandidateRecord &base) const;
    void sendCandOp(Node &n, CandOp op);
    void candArrive(const Event &e);
    void candReply(Event &e);
    void rosterAnswered(Node &n, const CandOp &op);
    void applyDecision(Node &n);
    void setStandBy(Node &n, bool on);
    void stopRoster(Node &n);
    void operatorDrains();
    void drain(int slot, bool on);
    void judgeTakeover(const Node &n, qint64 token);
    void noteLeaseWrite(const LeaseState &before);
    void judgeReservation(std::size_t index);
    void judgeFinalLeader();
    void steeringViolation(const QString &what);
    bool troubleFree(const Node &n, qint64 since) const
    {
        return n.life == Life::Running && !n.frozen && !partitioned(n) && n.lastTroubleAt < since
                && n.startedAt < since;
    }
    const CandidateRecord *storedCandidate(const Node &n) const;

    void happen(Happening::Kind kind, const Node &n, StopReason reason = StopReason::Stopping,
                bool released = false, qint64 reported = 0);
    void violation(const QString &what);
    bool tracing() const { return m_config.traceLines > 0 && m_now <= m_config.traceUntilMs; }
    void trace(const QString &line);

    SimConfig m_config;
    quint64 m_seed;
    Random m_rng;
    Faults m_faults;
    std::vector<Node> m_nodes;
    std::vector<Key> m_queue;
    std::vector<Event> m_pool;
    std::vector<std::size_t> m_free;
    quint64 m_seq = 0;
    qint64 m_now = 0;
    bool m_healthy = false;
    bool m_dropWatches = false;
    /*! Release delay for ScriptKind::StopNextAcquirer; -1: not armed. */
    qint64 m_stopNextAcquirer = -1;
    bool m_stopNextReader = false;
    qint64 m_quietUntil = -1;

    LeaseState m_lease;
    qint64 m_version = 0;
    /*! H1: how long the leader's callbacks take before it calls handOver(). */
    qint64 m_handoverDelayMs = 0;

    struct Handover
    {
        qint64 appliedAt;
        int slot;
        bool judged;
    };
    std::vector<Handover> m_handovers;

    std::deque<QString> m_trace;
    SimResult m_result;

    /*! The run records, by tick name. */
    std::map<QString, RunRecord> m_runRecords;
    qint64 m_runVersion = 0;
    quint64 m_nextRunOp = 1;
    std::map<quint64, RunOp> m_runOps;

    /*! The candidate records, by instance, and since when each one's drain is as it is. */
    std::map<QString, CandidateRecord> m_candidates;
    std::map<QString, qint64> m_drainedSince;
    /*! When each process's record first reached the store, by incarnation. */
    std::map<QString, qint64> m_firstWriteOf;
    qint64 m_candVersion = 0;
    quint64 m_nextCandOp = 1;
    std::map<quint64, CandOp> m_candOps;
    /*! Armed by the script: what happens to the next successor of a steering handover. */
    bool m_crashNextSuccessor = false;
    qint64 m_partitionNextSuccessor = -1;
    /*! Reservations the store applied (H1), and the tokens of the acquisitions that took one for their holder. */
    struct Reservation
    {
        qint64 appliedAt;
        QString successor;
        QString version;
    };
    std::vector<Reservation> m_reservations;
    std::set<qint64> m_reservedTakes;
    /*! When the steering moved the lease within the last lease duration. */
    std::deque<qint64> m_recentMoves;
};

World::World(const SimConfig &config, quint64 seed)
    : m_config(config)
    , m_seed(seed)
    , m_rng(seed)
    , m_faults(config.faults)
{
    m_result.seed = seed;
    m_result.config = config;
    m_nodes.resize(std::size_t(std::max(1, config.instances)));
    for (std::size_t i = 0; i < m_nodes.size(); ++i) {
        Node &n = m_nodes[i];
        n.slot = int(i);
        // Hosts disagree on everything: where their clocks start, how fast they
        // run (within the tolerance), and the wall time, which is for display only.
        n.host.offset = m_rng.between(1'000'000, 1'000'000'000);
        n.host.ppm = i < config.ratePpm.size() ? config.ratePpm[i]
                                               : m_rng.between(-config.maxRatePpm, config.maxRatePpm);
        const QDateTime wall = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC)
                                       .addMSecs(m_rng.between(-3'600'000, 3'600'000));
        n.clock = std::make_unique<test::ManualClock>(n.host.offset, wall);
        if (config.ticks.enabled) {
            // Drawn only with scheduled work, so that the other runs keep their streams.
            n.wall.offset = i < config.ticks.wallOffsetMs.size()
                    ? config.ticks.wallOffsetMs[i]
                    : m_rng.between(-config.ticks.wallSkewMaxMs, config.ticks.wallSkewMaxMs);
            n.wall.ppm = n.host.ppm;
        }
    }
}

void World::push(Event e)
{
    e.seq = m_seq++;
    std::size_t index = m_pool.size();
    if (m_free.empty()) {
        m_pool.push_back(std::move(e));
    } else {
        index = m_free.back();
        m_free.pop_back();
        m_pool[index] = std::move(e);
    }
    const Event &stored = m_pool[index];
    m_queue.push_back(Key {stored.time, stored.seq, index});
    std::push_heap(m_queue.begin(), m_queue.end(), Later {});
}

SimResult World::run()
{
    for (Node &n : m_nodes) {
        Event e;
        e.kind = Ev::Start;
        e.slot = n.slot;
        e.time = std::size_t(n.slot) < m_config.startAtMs.size() ? m_config.startAtMs[std::size_t(n.slot)]
                                                                 : m_rng.between(0, m_config.startSpreadMs);
        push(std::move(e));
    }
    if (m_config.chaos.eventsPerHour > 0) {
        Event e;
        e.kind = Ev::Chaos;
        e.time = qint64(m_rng.exponential(3'600'000.0 / m_config.chaos.eventsPerHour));
        push(std::move(e));
    }
    if (steering() && m_config.steering.drainsPerHour > 0) {
        Event e;
        e.kind = Ev::Operator;
        e.time = qint64(m_rng.exponential(3'600'000.0 / m_config.steering.drainsPerHour));
        push(std::move(e));
    }
    for (std::size_t i = 0; i < m_config.script.size(); ++i) {
        Event e;
        e.kind = Ev::Script;
        e.id = i;
        e.time = m_config.script[i].atMs;
        push(std::move(e));
    }
    {
        Event e;
        e.kind = m_config.healthyPhase ? Ev::Healthy : Ev::End;
        e.time = m_config.durationMs;
        push(std::move(e));
    }

    while (!m_queue.empty()) {
        std::pop_heap(m_queue.begin(), m_queue.end(), Later {});
        const std::size_t index = m_queue.back().index;
        m_queue.pop_back();
        Event e = std::move(m_pool[index]);
        m_free.push_back(index);
        m_now = e.time;
        if (e.kind == Ev::End)
            break;
        if (++m_result.events > MaxEvents) {
            violation(QStringLiteral("the run did not end: more than %1 events").arg(MaxEvents));
            break;
        }
        dispatch(e);
    }

    m_result.endMs = m_now;
    if (steering() && m_config.healthyPhase && m_healthy)
        judgeFinalLeader();
    const bool broken = m_config.leaderKeepsAuthorityPastDeadline;
    for (Node &n : m_nodes) {
        if (!n.termOpen)
            continue;
        Term &t = m_result.terms[n.term];
        if (broken || n.deadlineSim > m_now) {
            t.end = m_now;
            t.openAtEnd = true;
        } else {
            t.end = n.deadlineSim;
        }
        n.termOpen = false;
    }

    // F5: after a clean release, a follower takes over at its next attempt.
    if (m_config.checkCleanHandover) {
        const qint64 slowest = Million - m_config.maxRatePpm;
        const qint64 bound = m_config.renewMs * Million / slowest + 4 * m_faults.latencyMaxMs
                + m_faults.watchDelayMaxMs + 2;
        for (const Handover &h : m_handovers) {
            if (!h.judged)
                continue;
            const auto next = std::find_if(m_result.terms.begin(), m_result.terms.end(),
                                           [&](const Term &t) { return t.start >= h.appliedAt; });
            if (next == m_result.terms.end()) {
                if (m_now - h.appliedAt > bound)
                    violation(QStringLiteral("F5: the lease released at %1 was never taken again")
                                      .arg(h.appliedAt));
                continue;
            }
            const qint64 took = next->start - h.appliedAt;
            ++m_result.handoversJudged;
            m_result.maxHandoverMs = std::max(m_result.maxHandoverMs, took);
            if (took > bound || took >= m_config.leaseMs)
                violation(QStringLiteral("F5: the lease released at %1 was taken by %2 only %3 ms later "
                                         "(bound %4 ms: next attempt of a live follower)")
                                  .arg(h.appliedAt)
                                  .arg(next->identity)
                                  .arg(took)
                                  .arg(bound));
        }
    }

    m_result.trace.clear();
    for (const QString &line : m_trace)
        m_result.trace.append(line);
    return std::move(m_result);
}

bool World::reachable(Node &n, Event &e)
{
    if (n.incarnation != e.incarnation || n.life == Life::Dead)
        return false;
    if ((e.kind == Ev::Reply || e.kind == Ev::Watch) && partitioned(n)) {
        if (e.kind == Ev::Reply)
            n.lastLossAt = m_now;
        n.lastTroubleAt = std::max(n.lastTroubleAt, m_now);
        if (tracing())
            trace(QStringLiteral("%1 %2: %3 lost (partitioned)")
                          .arg(m_now)
                          .arg(n.identity, e.kind == Ev::Reply ? QStringLiteral("reply #%1").arg(e.id)
                                                               : QStringLiteral("watch")));
        return false;
    }
    if (n.frozen) {
        n.deferred.push_back(std::move(e));
        return false;
    }
    return true;
}

void World::dispatch(Event &e)
{
    switch (e.kind) {
    case Ev::Start: {
        startNode(m_nodes[std::size_t(e.slot)]);
        return;
    }
    case Ev::Timer: {
        Node &n = m_nodes[std::size_t(e.slot)];
        if (e.id != n.timerGen || !reachable(n, e))
            return;
        n.timerAt = -1;
        call(n, "onTimer", std::nullopt, [](Elector &el) { return el.onTimer(); });
        return;
    }
    case Ev::Arrive:
        arrive(e);
        return;
    case Ev::Reply: {
        Node &n = m_nodes[std::size_t(e.slot)];
        if (!reachable(n, e))
            return;
        if (tracing())
            trace(QStringLiteral("%1 %2: reply #%3 %4").arg(m_now).arg(n.identity).arg(e.id).arg(replyText(e.reply())));
        const quint64 id = e.id;
        const LeaseReply reply = e.reply();
        call(n, "onReply", id, [&](Elector &el) { return el.onReply(id, reply); });
        n.sent.erase(id);
        return;
    }
    case Ev::Watch: {
        Node &n = m_nodes[std::size_t(e.slot)];
        if (!reachable(n, e))
            return;
        if (tracing())
            trace(QStringLiteral("%1 %2: watch %3").arg(m_now).arg(n.identity, holderText(e.state())));
        const LeaseState state = e.state();
        call(n, "onWatch", std::nullopt, [&](Elector &el) { return el.onWatch(state); });
        return;
    }
    case Ev::Thaw: {
        Node &n = m_nodes[std::size_t(e.slot)];
        if (n.incarnation == e.incarnation && n.frozen && n.life != Life::Dead)
            n.suspended ? resume(n) : thaw(n);
        return;
    }
    case Ev::Stop: {
        Node &n = m_nodes[std::size_t(e.slot)];
        if (n.incarnation == e.incarnation)
            stopNode(n, qint64(e.id));
        return;
    }
    case Ev::GiveUp: {
        Node &n = m_nodes[std::size_t(e.slot)];
        if (!reachable(n, e) || n.life != Life::Stopping)
            return;
        if (tracing())
            trace(QStringLiteral("%1 %2: deregistration outlasts the deadline: no release").arg(m_now).arg(n.identity));
        finishStop(n);
        return;
    }
    case Ev::Release: {
        Node &n = m_nodes[std::size_t(e.slot)];
        if (!reachable(n, e) || n.life != Life::Stopping)
            return;
        happen(Happening::ReleaseCalled, n);
        call(n, "release", std::nullopt, [](Elector &el) { return el.release(); });
        return;
    }
    case Ev::HandOver: {
        Node &n = m_nodes[std::size_t(e.slot)];
        if (!reachable(n, e) || n.life != Life::Running || !n.elector->awaitingHandover())
            return;
        call(n, "handOver", std::nullopt, [](Elector &el) { return el.handOver(); });
        return;
    }
    case Ev::Restart: {
        Node &n = m_nodes[std::size_t(e.slot)];
        if (n.incarnation == e.incarnation && (n.life == Life::Dead || n.life == Life::Stopped))
            startNode(n);
        return;
    }
    case Ev::Chaos:
        chaos();
        return;
    case Ev::Script:
        script(m_config.script[std::size_t(e.id)]);
        return;
    case Ev::Healthy:
        healthy();
        return;
    case Ev::TickDue: {
        Node &n = m_nodes[std::size_t(e.slot)];
        if (e.id != n.tickGen || !reachable(n, e))
            return;
        carryOut(n, n.planner->timerFired(wallNow(n)));
        armTick(n);
        return;
    }
    case Ev::RunEnd:
        onRunEnd(e);
        return;
    case Ev::RunArrive:
        runArrive(e);
        return;
    case Ev::RunReply:
        runReply(e);
        return;
    case Ev::Beat: {
        Node &n = m_nodes[std::size_t(e.slot)];
        if (e.id != n.beatGen || !reachable(n, e))
            return;
        beat(n);
        return;
    }
    case Ev::CandArrive:
        candArrive(e);
        return;
    case Ev::CandReply:
        candReply(e);
        return;
    case Ev::Decide: {
        Node &n = m_nodes[std::size_t(e.slot)];
        if (!reachable(n, e) || n.life != Life::Running || n.rosterStopped)
            return;
        // As CandidateRoster: a fresh listing first: the last one may be a heartbeat old.
        if (n.rosterBusy)
            return; // the heartbeat on its way ends with a listing and a decision
        n.rosterBusy = true;
        CandOp list;
        list.kind = CandOp::List;
        sendCandOp(n, std::move(list));
        return;
    }
    case Ev::Operator:
        operatorDrains();
        return;
    case Ev::JudgeReservation:
        judgeReservation(std::size_t(e.id));
        return;
    case Ev::End:
        return;
    }
}

void World::startNode(Node &n)
{
    if (n.termOpen) {
        // The previous process of this slot exits here.
        const bool broken = m_config.leaderKeepsAuthorityPastDeadline;
        closeTerm(n, broken ? m_now : std::min(m_now, n.deadlineSim), false);
    }
    ++n.incarnation;
    n.identity = QStringLiteral("n%1.%2").arg(n.slot).arg(n.incarnation);
    n.elector.reset();
    n.sent.clear();
    n.deferred.clear();
    n.frozen = false;
    n.suspended = false;
    n.termOpen = false;
    n.partitionedUntil = -1;
    n.stopDeadline.reset();
    ++n.timerGen;
    n.timerAt = -1;
    ++n.tickGen;
    n.work.reset();
    n.planner.reset();
    if (ticking()) {
        TickPlanner::Policy policy;
        QString problem;
        policy.schedule = *TickSchedule::parse(QStringLiteral("every %1s").arg(m_config.ticks.periodMs / 1000), &problem);
        policy.onInterrupted = m_config.ticks.rerunInterrupted ? TickPlanner::OnInterrupted::Rerun
                                                               : TickPlanner::OnInterrupted::Skip;
        policy.catchUpMs = m_config.ticks.broken == TickConfig::Broken::CatchUpAgainstPolicy ? 3'600'000
                                                                                            : m_config.ticks.catchUpMs;
        policy.overlap = m_config.ticks.queueOverlap ? TickPlanner::Overlap::Queue : TickPlanner::Overlap::Skip;
        n.planner = std::make_unique<TickPlanner>(policy, n.identity);
    }
    n.life = Life::Running;
    // n.identity names the process in traces and terms; what the Elector is
    // configured with may be shared by all of them (R5).
    const QString incarnation = m_config.incarnationsIgnored ? QString() : n.identity;
    n.elector = std::make_unique<Elector>(
            ElectorParams {m_config.leaseMs, m_config.renewMs, configuredId(n), incarnation}, *n.clock);
    n.startedAt = m_now;
    if (n.incarnation > 1)
        happen(Happening::Restarted, n);
    call(n, "start", std::nullopt, [](Elector &el) { return el.start(); });
    if (steering()) {
        startRoster(n);
        // Started as a standby: no lease before the first listing says
        // whether another candidate could take it instead.
        if (isStandby(n))
            setStandBy(n, true);
    }
}

template<typename Invoke>
void World::call(Node &n, const char *what, std::optional<quint64> replyTo, Invoke &&invoke)
{
    const qint64 local = n.host.localAt(m_now);
    n.clock->setMonotonicMs(local);
    if (n.lastCallAt == m_now) {
        ++n.callsAtSameTime;
    } else {
        n.lastCallAt = m_now;
        n.callsAtSameTime = 0;
    }

    const bool broken = m_config.leaderKeepsAuthorityPastDeadline;
    const bool leadingBefore = n.elector->isLeader();
    bool deadlinePassed = false;
    if (!broken) {
        const bool modelled = n.termOpen && m_now < n.deadlineSim;
        if (modelled != leadingBefore)
            violation(QStringLiteral("F4: %1 isLeader() is %2 before %3 at local %4, but its reported "
                                     "validUntil %5 says %6")
                              .arg(n.identity)
                              .arg(leadingBefore)
                              .arg(QLatin1String(what))
                              .arg(local)
                              .arg(n.validUntil)
                              .arg(modelled));
        if (n.termOpen && m_now >= n.deadlineSim) {
            // It stopped being leader when its clock reached its deadline,
            // whether or not anyone was calling it then.
            closeTerm(n, n.deadlineSim);
            deadlinePassed = true;
        }
    }
    const bool wasLeading = n.termOpen;

    ElectorActions actions = invoke(*n.elector);

    const action::BecameLeader *became = nullptr;
    const action::StoppedLeading *stopped = nullptr;
    const action::ReleaseFinished *releaseFinished = nullptr;
    for (ElectorAction &a : actions) {
        if (const auto *r = std::get_if<action::Read>(&a)) {
            send(n, a, r->request, false, local);
        } else if (const auto *c = std::get_if<action::Create>(&a)) {
            send(n, a, c->request, true, local);
        } else if (const auto *u = std::get_if<action::Update>(&a)) {
            send(n, a, u->request, true, local);
        } else if (const auto *b = std::get_if<action::BecameLeader>(&a)) {
            if (became)
                violation(QStringLiteral("%1 reported BecameLeader twice in one %2").arg(n.identity, QLatin1String(what)));
            became = b;
        } else if (const auto *s = std::get_if<action::StoppedLeading>(&a)) {
            if (stopped)
                violation(QStringLiteral("%1 reported StoppedLeading twice in one %2").arg(n.identity, QLatin1String(what)));
            stopped = s;
        } else if (const auto *rf = std::get_if<action::ReleaseFinished>(&a)) {
            releaseFinished = rf;
        }
    }

    const bool leadingAfter = n.elector->isLeader();
    const qint64 validUntil = n.elector->validUntilMono();

    if (tracing()) {
        QStringList out;
        for (const ElectorAction &a : actions)
            out.append(actionText(a));
        trace(QStringLiteral("%1 %2 (local %3): %4 -> [%5] leader=%6 validUntil=%7")
                      .arg(m_now)
                      .arg(n.identity)
                      .arg(local)
                      .arg(QLatin1String(what), out.join(QStringLiteral(", ")))
                      .arg(leadingAfter)
                      .arg(validUntil));
    }

    if (stopped && stopped->reason == StopReason::HandedOver) {
        // H1: the deregistered callbacks take their time, then the driver hands over.
        Event handOver;
        handOver.kind = Ev::HandOver;
        handOver.slot = n.slot;
        handOver.incarnation = n.incarnation;
        // Steering's handovers: the callbacks take a little while too.
        handOver.time = m_now + m_handoverDelayMs + (steering() ? m_rng.between(1, HandoverCallbacksMaxMs) : 0);
        push(std::move(handOver));
    }
    if (stopped) {
        happen(Happening::StoppedLeading, n, stopped->reason, false, stopped->validUntilMono);
        // O5: the end of its authority, never later than the moment it is reported.
        if (stopped->validUntilMono > local)
            violation(QStringLiteral("F4: %1 reported StoppedLeading with validUntilMono %2, later than its "
                                     "clock %3")
                              .arg(n.identity)
                              .arg(stopped->validUntilMono)
                              .arg(local));
    }
    if (became && steering()) {
        judgeTakeover(n, became->token);
        // The roster decides again at once on becoming leader.
        Event decide;
        decide.kind = Ev::Decide;
        decide.slot = n.slot;
        decide.incarnation = n.incarnation;
        decide.time = m_now;
        push(std::move(decide));
    }
    if (became) {
        happen(Happening::BecameLeader, n, StopReason::Stopping, false, became->validUntilMono);
        if (n.life == Life::Stopping || n.life == Life::Stopped)
            violation(QStringLiteral("F5: %1 reported BecameLeader in %2, after stop()")
                              .arg(n.identity, QLatin1String(what)));
    }

    if (broken) {
        // The wrong model: authority from BecameLeader to StoppedLeading, deadline ignored.
        if (stopped && n.termOpen)
            closeTerm(n, m_now);
        if (became && !n.termOpen)
            openTerm(n, became->token);
    } else {
        if (deadlinePassed && !stopped)
            violation(QStringLiteral("F4: %1 passed its deadline (validUntil %2, clock %3) and its next "
                                     "call, %4, did not report StoppedLeading")
                              .arg(n.identity)
                              .arg(n.validUntil)
                              .arg(local)
                              .arg(QLatin1String(what)));
        if (stopped && !wasLeading && !deadlinePassed)
            violation(QStringLiteral("W2: %1 reported StoppedLeading in %2 while it was not leading")
                              .arg(n.identity, QLatin1String(what)));
        if (wasLeading) {
            if (!leadingAfter) {
                closeTerm(n, m_now);
                if (!stopped)
                    violation(QStringLiteral("W2: %1 stopped leading in %2 without reporting StoppedLeading")
                                      .arg(n.identity, QLatin1String(what)));
                if (became)
                    violation(QStringLiteral("%1 reported BecameLeader in %2 but is not leading")
                                      .arg(n.identity, QLatin1String(what)));
            } else if (became && stopped) {
                closeTerm(n, m_now);
                openTerm(n, became->token);
                extendAuthority(n, replyTo, what);
            } else {
                if (became)
                    violation(QStringLiteral("%1 reported BecameLeader in %2 while already leading")
                                      .arg(n.identity, QLatin1String(what)));
                if (stopped)
                    violation(QStringLiteral("%1 reported StoppedLeading in %2 but isLeader() is still true")
                                      .arg(n.identity, QLatin1String(what)));
                extendAuthority(n, replyTo, what);
            }
        } else if (leadingAfter) {
            if (!became)
                violation(QStringLiteral("F4: %1 leads after %2 without reporting BecameLeader")
                                  .arg(n.identity, QLatin1String(what)));
            openTerm(n, became ? became->token : n.elector->fencingToken());
            extendAuthority(n, replyTo, what);
        } else if (became) {
            violation(QStringLiteral("F4: %1 reported BecameLeader in %2 but isLeader() is false "
                                     "(validUntil %3, clock %4)")
                              .arg(n.identity, QLatin1String(what))
                              .arg(validUntil)
                              .arg(local));
        }
    }
    if (became && leadingAfter && became->token != n.elector->fencingToken())
        violation(QStringLiteral("F7: %1 BecameLeader token %2 but fencingToken() %3")
                          .arg(n.identity)
                          .arg(became->token)
                          .arg(n.elector->fencingToken()));

    if (releaseFinished) {
        happen(Happening::ReleaseFinished, n, StopReason::Stopping, releaseFinished->released);
        // Its isLeader() stays true until its deadline, whatever the driver
        // does next: that is how long it may run leader work.
        if (n.termOpen)
            violation(QStringLiteral("F5: %1 still leads after ReleaseFinished (until %2 on its clock)")
                              .arg(n.identity)
                              .arg(n.validUntil));
        finishStop(n);
    }

    if (n.callsAtSameTime > BusyLoopCalls && !n.spinReported) {
        n.spinReported = true;
        violation(QStringLiteral("%1 spins: more than %2 calls at one instant (nextWakeMono never moves "
                                 "forward)")
                          .arg(n.identity)
                          .arg(BusyLoopCalls));
    }
    scheduleTimer(n);
}

void World::extendAuthority(Node &n, std::optional<quint64> replyTo, const char *what)
{
    const qint64 validUntil = n.elector->validUntilMono();
    if (validUntil > n.validUntil) {
        // F4: authority comes from a successful write and lasts at most
        // (L + R) / 2 from the start of that attempt, which is no later than
        // the moment the write was sent.
        const auto it = replyTo ? n.sent.find(*replyTo) : n.sent.end();
        const qint64 margin = (m_config.leaseMs + m_config.renewMs + 1) / 2;
        if (it == n.sent.end() || !it->second.write)
            violation(QStringLiteral("F4: %1 extended validUntil to %2 in %3, which is not the reply to a "
                                     "write")
                              .arg(n.identity)
                              .arg(validUntil)
                              .arg(QLatin1String(what)));
        else if (validUntil > it->second.local + margin)
            violation(QStringLiteral("F4: %1 validUntil %2 is more than (L+R)/2 = %3 after its write was sent "
                                     "(%4)")
                              .arg(n.identity)
                              .arg(validUntil)
                              .arg(margin)
                              .arg(it->second.local));
    }
    n.validUntil = validUntil;
    n.deadlineSim = n.host.simAt(validUntil);
}

void World::openTerm(Node &n, qint64 token)
{
    Term t;
    t.slot = n.slot;
    t.identity = n.identity;
    t.start = m_now;
    t.end = m_now;
    t.token = token;
    m_result.terms.push_back(std::move(t));
    n.term = m_result.terms.size() - 1;
    n.termOpen = true;
    n.validUntil = std::numeric_limits<qint64>::min();
    n.deadlineSim = std::numeric_limits<qint64>::max();
    if (ticking()) {
        carryOut(n, n.planner->leadershipStarted(token, wallNow(n)));
        armTick(n);
    }
}

void World::closeTerm(Node &n, qint64 end, bool alive)
{
    Term &t = m_result.terms[n.term];
    t.end = std::max(t.start, end);
    n.termOpen = false;
    leadershipEnded(n, t.end, alive);
}

void World::scheduleTimer(Node &n)
{
    const std::optional<qint64> wake = n.life == Life::Dead || !n.elector
            ? std::nullopt
            : n.elector->nextWakeMono();
    if (!wake) {
        if (n.termOpen && !m_config.leaderKeepsAuthorityPastDeadline)
            violation(QStringLiteral("F4: %1 leads but asks for no wake-up: its step-down would never be "
                                     "reported")
                              .arg(n.identity));
        ++n.timerGen;
        n.timerAt = -1;
        n.timerAt = -1;
        return;
    }
    if (n.termOpen && !m_config.leaderKeepsAuthorityPastDeadline && *wake > n.validUntil && !n.lateWakeReported) {
        // F3, F4, O3: the step-down must be reported when the deadline comes,
        // so that the deregistered callbacks (an --exec child's SIGTERM) run
        // before another instance can take the lease.
        n.lateWakeReported = true;
        violation(QStringLiteral("F4: %1 leads until %2 but asks to be woken only at %3: its step-down "
                                 "would be reported late")
                          .arg(n.identity)
                          .arg(n.validUntil)
                          .arg(*wake));
    }
    qint64 at = std::max(m_now, n.host.simAt(*wake));
    if (n.spinReported)
        at = std::max(at, m_now + 1);
    if (at == n.timerAt)
        return; // the pending timer already fires then
    ++n.timerGen;
    n.timerAt = at;
    Event e;
    e.kind = Ev::Timer;
    e.slot = n.slot;
    e.incarnation = n.incarnation;
    e.id = n.timerGen;
    e.time = at;
    push(std::move(e));
}

qint64 World::latency(Node &n)
{
    if (n.slowMs >= 0) {
        n.lastTroubleAt = m_now + n.slowMs;
        return n.slowMs;
    }
    if (m_rng.happens(m_faults.longLatency)) {
        const qint64 ms = m_rng.between(0, m_faults.longLatencyMaxMs);
        n.lastTroubleAt = std::max(n.lastTroubleAt, m_now + ms);
        return ms;
    }
    return m_rng.between(0, m_faults.latencyMaxMs);
}

void World::send(Node &n, ElectorAction &request, quint64 id, bool write, qint64 local)
{
    const auto *update = std::get_if<action::Update>(&request);
    if (update && update->record.holder.isEmpty() && n.stopDeadline && local >= *n.stopDeadline) {
        // F5: the driver waits for the deregistered callbacks no longer than
        // the deadline; past it they may still run, so the lease must expire
        // rather than be handed over at once.
        violation(QStringLiteral("F5: %1 sends a release at %2, past the deadline %3 of the leadership "
                                 "that stop() ended")
                          .arg(n.identity)
                          .arg(local)
                          .arg(*n.stopDeadline));
    }
    if (write && !(update && update->record.holder.isEmpty())
        && (n.life == Life::Stopping || n.life == Life::Stopped)) {
        // F5: from stop() on, the release is the only write. Anything else
        // may take or keep a lease that nobody renews or releases.
        happen(Happening::WriteAfterStop, n);
        violation(QStringLiteral("F5: %1 sends a write after stop(): %2")
                          .arg(n.identity, actionText(request)));
    }
    n.sent[id] = Sent {local, write};
    if (n.sent.size() > 64)
        n.sent.erase(n.sent.begin());
    if (partitioned(n) || m_rng.happens(m_faults.requestLost)) {
        n.lastLossAt = m_now;
        n.lastTroubleAt = std::max(n.lastTroubleAt, m_now);
        if (tracing())
            trace(QStringLiteral("%1 %2: request #%3 lost").arg(m_now).arg(n.identity).arg(id));
        return;
    }
    Event e;
    e.kind = Ev::Arrive;
    e.slot = n.slot;
    e.incarnation = n.incarnation;
    e.id = id;
    if (!write && m_stopNextReader && !n.termOpen && n.life == Life::Running) {
        // Stopped at this instant, after the read has left; no callbacks to wait for.
        Event stop;
        stop.kind = Ev::Stop;
        stop.slot = n.slot;
        stop.incarnation = n.incarnation;
        stop.id = 0;
        stop.time = m_now;
        push(std::move(stop));
        m_stopNextReader = false;
    }
    if (write && m_stopNextAcquirer >= 0 && !n.termOpen && n.life == Life::Running) {
        // Stopped at this instant, after the write has left.
        Event stop;
        stop.kind = Ev::Stop;
        stop.slot = n.slot;
        stop.incarnation = n.incarnation;
        stop.id = quint64(m_stopNextAcquirer);
        stop.time = m_now;
        push(std::move(stop));
        m_stopNextAcquirer = -1;
    }
    if (tracing())
        e.payload = request; // the trace prints it after this
    else
        e.payload = std::move(request);
    e.time = m_now + latency(n);
    push(std::move(e));
}

LeaseReply World::apply(const ElectorAction &request, bool &changed)
{
    changed = false;
    if (std::holds_alternative<action::Read>(request))
        return LeaseReply::ok(m_lease);
    if (const auto *c = std::get_if<action::Create>(&request)) {
        if (m_lease.exists)
            return LeaseReply::conflict(m_lease);
        m_lease.exists = true;
        m_lease.record = c->record;
        m_lease.version = QString::number(++m_version);
        changed = true;
        return LeaseReply::ok(m_lease);
    }
    if (const auto *u = std::get_if<action::Update>(&request)) {
        if (!m_lease.exists || m_lease.version != u->version)
            return LeaseReply::conflict(m_lease);
        m_lease.record = u->record;
        m_lease.version = QString::number(++m_version);
        changed = true;
        return LeaseReply::ok(m_lease);
    }
    return LeaseReply::error(QStringLiteral("not a request"));
}

void World::arrive(const Event &e)
{
    Node &n = m_nodes[std::size_t(e.slot)];
    bool changed = false;
    LeaseReply reply;
    if (m_rng.happens(m_faults.storeError)) {
        reply = LeaseReply::error(QStringLiteral("simulated store error"));
    } else {
        const LeaseState before = steering() ? m_lease : LeaseState();
        reply = apply(e.request(), changed);
        if (changed && steering())
            noteLeaseWrite(before);
        if (changed && m_rng.happens(m_faults.appliedError))
            reply = LeaseReply::error(QStringLiteral("simulated timeout after commit"));
        else if (reply.outcome == LeaseReply::Outcome::Conflict && m_rng.happens(m_faults.conflictWithoutState))
            reply = LeaseReply::conflict();
    }
    if (tracing())
        trace(QStringLiteral("%1 store: %2 from %3 -> %4")
                      .arg(m_now)
                      .arg(actionText(e.request()), QStringLiteral("n%1.%2").arg(e.slot).arg(e.incarnation),
                           replyText(reply)));
    if (changed) {
        if (m_lease.record.holder.isEmpty()) {
            Happening h;
            h.time = m_now;
            h.kind = Happening::ReleaseApplied;
            h.slot = e.slot;
            h.identity = QStringLiteral("n%1.%2").arg(e.slot).arg(e.incarnation);
            m_result.happenings.push_back(h);
            if (m_config.checkCleanHandover) {
                // Judged when some follower can act on it: alive, not
                // frozen, reaching the store, and not waiting for the answer
                // to a message lost within the last request timeout (L - R;
                // the Elector sends nothing while a request is outstanding).
                const qint64 stuck = (m_config.leaseMs - m_config.renewMs) * 2;
                const bool follower = std::any_of(m_nodes.begin(), m_nodes.end(), [&](const Node &o) {
                    return o.slot != e.slot && o.life == Life::Running && !o.frozen && !partitioned(o)
                            && m_now - o.lastLossAt > stuck;
                });
                m_handovers.push_back({m_now, e.slot, follower && !m_dropWatches});
            }
        }
        notifyWatchers();
    }
    if (m_rng.happens(m_faults.replyLost)) {
        n.lastLossAt = m_now;
        n.lastTroubleAt = std::max(n.lastTroubleAt, m_now);
        if (tracing())
            trace(QStringLiteral("%1 store: reply to #%2 lost").arg(m_now).arg(e.id));
        return;
    }
    Event r;
    r.kind = Ev::Reply;
    r.slot = e.slot;
    r.incarnation = e.incarnation;
    r.id = e.id;
    r.payload = std::move(reply);
    r.time = m_now + latency(n);
    push(std::move(r));
}

void World::notifyWatchers()
{
    for (Node &n : m_nodes) {
        if (n.life == Life::Dead)
            continue;
        if (m_dropWatches || m_rng.happens(m_faults.watchDropped)) {
            n.lastTroubleAt = std::max(n.lastTroubleAt, m_now);
            continue;
        }
        // One watch stream per instance: its events arrive in order.
        const qint64 at = std::max(n.lastWatchAt, m_now + m_rng.between(0, m_faults.watchDelayMaxMs));
        n.lastWatchAt = at;
        Event e;
        e.kind = Ev::Watch;
        e.slot = n.slot;
        e.incarnation = n.incarnation;
        e.payload = m_lease;
        e.time = at;
        push(std::move(e));
    }
}

Node *World::leader()
{
    for (Node &n : m_nodes) {
        if (n.life == Life::Dead || !n.elector)
            continue;
        n.clock->setMonotonicMs(n.host.localAt(m_now));
        if (n.elector->isLeader())
            return &n;
    }
    return nullptr;
}

Node *World::anyone(bool runningOnly)
{
    std::vector<Node *> candidates;
    for (Node &n : m_nodes) {
        if (n.life == Life::Running || (!runningOnly && n.life == Life::Stopping))
            candidates.push_back(&n);
    }
    if (candidates.empty())
        return nullptr;
    return candidates[std::size_t(m_rng.between(0, qint64(candidates.size()) - 1))];
}

void World::crash(Node &n)
{
    if (n.life == Life::Dead)
        return;
    happen(Happening::Crashed, n);
    if (tracing())
        trace(QStringLiteral("%1 %2: CRASH").arg(m_now).arg(n.identity));
    if (n.termOpen) {
        // Its authority ends now: a dead process runs no leader work.
        const bool broken = m_config.leaderKeepsAuthorityPastDeadline;
        closeTerm(n, broken ? m_now : std::min(m_now, n.deadlineSim), false);
    }
    // The work dies with its instance (the guard sees its parent go).
    leadershipEnded(n, m_now, false);
    n.life = Life::Dead;
    n.frozen = false;
    n.suspended = false;
    n.deferred.clear();
    ++n.timerGen;
    n.timerAt = -1;
    scheduleRestart(n);
}

void World::scheduleRestart(Node &n)
{
    Event e;
    e.kind = Ev::Restart;
    e.slot = n.slot;
    e.incarnation = n.incarnation;
    e.time = m_healthy ? m_now : m_now + m_rng.between(m_config.chaos.restartMinMs, m_config.chaos.restartMaxMs);
    push(std::move(e));
}

void World::freeze(Node &n, qint64 ms)
{
    if (n.frozen || n.life == Life::Dead)
        return;
    happen(Happening::Frozen, n);
    if (tracing())
        trace(QStringLiteral("%1 %2: FREEZE for %3 ms").arg(m_now).arg(n.identity).arg(ms));
    n.frozen = true;
    n.lastTroubleAt = std::max(n.lastTroubleAt, m_now + ms);
    Event e;
    e.kind = Ev::Thaw;
    e.slot = n.slot;
    e.incarnation = n.incarnation;
    e.time = m_now + ms;
    push(std::move(e));
}

void World::thaw(Node &n)
{
    n.frozen = false;
    happen(Happening::Thawed, n);
    if (tracing())
        trace(QStringLiteral("%1 %2: THAW with %3 calls due").arg(m_now).arg(n.identity).arg(n.deferred.size()));
    // Whatever was due comes first, in the order it was due; the elector must
    // enforce its own deadline (F4).
    std::vector<Event> due = std::move(n.deferred);
    n.deferred.clear();
    for (Event &e : due) {
        if (n.frozen)
            n.deferred.push_back(std::move(e));
        else
            dispatch(e);
    }
}

void World::suspend(Node &n, qint64 ms)
{
    if (n.frozen || n.life == Life::Dead)
        return;
    happen(Happening::Suspended, n);
    if (tracing())
        trace(QStringLiteral("%1 %2: SUSPEND for %3 ms").arg(m_now).arg(n.identity).arg(ms));
    n.frozen = true;
    n.suspended = true;
    n.suspendMs = ms;
    n.lastTroubleAt = std::max(n.lastTroubleAt, m_now + ms);
    // The pending timer counts only the time the host runs: it is replaced
    // at the resume by one that fires as late as the suspension was long.
    n.suspendedTimerAt = n.timerAt;
    ++n.timerGen;
    n.timerAt = -1;
    Event e;
    e.kind = Ev::Thaw;
    e.slot = n.slot;
    e.incarnation = n.incarnation;
    e.time = m_now + ms;
    push(std::move(e));
}

void World::resume(Node &n)
{
    n.frozen = false;
    n.suspended = false;
    happen(Happening::Resumed, n);
    if (m_config.clockStopsWhileSuspended) {
        // The wrong clock: it did not count the suspension.
        n.host.offset -= n.suspendMs;
        if (n.termOpen)
            n.deadlineSim = n.host.simAt(n.validUntil);
    }
    if (tracing())
        trace(QStringLiteral("%1 %2: RESUME with %3 messages due").arg(m_now).arg(n.identity).arg(n.deferred.size()));
    const quint64 generation = n.timerGen;
    // Replies and watch events that came while it slept are handled first;
    // each call re-arms the timer by the clock, as the driver does.
    std::vector<Event> due = std::move(n.deferred);
    n.deferred.clear();
    for (Event &e : due) {
        if (n.frozen)
            n.deferred.push_back(std::move(e));
        else
            dispatch(e);
    }
    if (n.timerGen == generation && n.suspendedTimerAt >= 0 && !n.frozen && n.life != Life::Dead) {
        // Nothing came: the old timer fires, late by the whole suspension.
        ++n.timerGen;
        n.timerAt = n.suspendedTimerAt + n.suspendMs;
        Event e;
        e.kind = Ev::Timer;
        e.slot = n.slot;
        e.incarnation = n.incarnation;
        e.id = n.timerGen;
        e.time = n.timerAt;
        push(std::move(e));
    }
}

void World::partition(Node &n, qint64 ms)
{
    if (n.life == Life::Dead)
        return;
    happen(Happening::Partitioned, n);
    if (tracing())
        trace(QStringLiteral("%1 %2: PARTITION for %3 ms").arg(m_now).arg(n.identity).arg(ms));
    n.partitionedUntil = std::max(n.partitionedUntil, m_now + ms);
    n.lastTroubleAt = std::max(n.lastTroubleAt, n.partitionedUntil);
}

void World::stopNode(Node &n, qint64 releaseDelay)
{
    if (n.life != Life::Running || n.frozen)
        return;
    happen(Happening::StopCalled, n);
    if (steering())
        stopRoster(n);
    n.life = Life::Stopping;
    n.stopDeadline.reset();
    n.clock->setMonotonicMs(n.host.localAt(m_now));
    if (n.elector->isLeader())
        n.stopDeadline = n.elector->validUntilMono();
    call(n, "stop", std::nullopt, [](Elector &el) { return el.stop(); });
    if (n.life != Life::Stopping)
        return;
    // As ClusterService does (F5): a follower releases at once; a leader
    // waits for its deregistered callbacks (releaseDelay), but no longer
    // than its deadline, past which it leaves the lease to expire. A freeze
    // can still deliver the release late: the Elector must refuse it then.
    Event e;
    e.kind = Ev::Release;
    e.slot = n.slot;
    e.incarnation = n.incarnation;
    e.time = n.stopDeadline ? m_now + releaseDelay : m_now;
    Event giveUp = e;
    giveUp.kind = Ev::GiveUp;
    giveUp.time = n.stopDeadline ? n.host.simAt(*n.stopDeadline) : e.time;
    if (e.time < giveUp.time || !n.stopDeadline)
        push(std::move(e));
    if (n.stopDeadline)
        push(std::move(giveUp));
}

void World::finishStop(Node &n)
{
    if (n.life != Life::Stopping)
        return;
    n.life = Life::Stopped;
    scheduleRestart(n);
}

void World::chaos()
{
    if (m_healthy)
        return;
    const Chaos &c = m_config.chaos;
    {
        Event e;
        e.kind = Ev::Chaos;
        e.time = m_now + std::max<qint64>(1, qint64(m_rng.exponential(3'600'000.0 / c.eventsPerHour)));
        push(std::move(e));
    }
    if (m_now < m_quietUntil)
        return;
    const double total = c.crash + c.freeze + c.suspend + c.partition + c.stop;
    double pick = m_rng.chance() * total;
    Node *target = m_rng.happens(c.leaderBias) ? leader() : nullptr;
    if (!target)
        target = anyone(false);
    if (!target)
        return;
    if ((pick -= c.crash) < 0) {
        crash(*target);
    } else if ((pick -= c.freeze) < 0) {
        freeze(*target, m_rng.between(1, c.freezeMaxMs));
    } else if ((pick -= c.suspend) < 0) {
        suspend(*target, m_rng.between(1, c.freezeMaxMs));
    } else if ((pick -= c.partition) < 0) {
        partition(*target, m_rng.between(1, c.partitionMaxMs));
    } else {
        const qint64 delay = m_rng.between(0, c.releaseDelayMaxMs);
        if (target->life == Life::Running && !target->frozen) {
            stopNode(*target, delay);
            if (c.quietAfterStop)
                m_quietUntil = m_now + delay + m_config.leaseMs + m_config.renewMs;
        }
    }
}

void World::script(const ScriptStep &step)
{
    if (step.kind == ScriptKind::DropWatches) {
        m_dropWatches = true;
        return;
    }
    if (step.kind == ScriptKind::StopNextAcquirer) {
        m_stopNextAcquirer = step.durationMs;
        return;
    }
    if (step.kind == ScriptKind::StopNextReader) {
        m_stopNextReader = true;
        return;
    }
    if (step.kind == ScriptKind::AskHandover) {
        askHandover(step);
        return;
    }
    if (step.kind == ScriptKind::Drain || step.kind == ScriptKind::Undrain) {
        drain(step.slot, step.kind == ScriptKind::Drain);
        return;
    }
    if (step.kind == ScriptKind::CrashNextSuccessor) {
        m_crashNextSuccessor = true;
        return;
    }
    if (step.kind == ScriptKind::PartitionNextSuccessor) {
        m_partitionNextSuccessor = step.durationMs;
        return;
    }
    Node *target = step.slot >= 0 ? &m_nodes[std::size_t(step.slot)] : leader();
    if (!target) {
        violation(QStringLiteral("the script wanted a leader at %1 and there was none").arg(m_now));
        return;
    }
    switch (step.kind) {
    case ScriptKind::CrashLeader:
        crash(*target);
        break;
    case ScriptKind::FreezeLeader:
        freeze(*target, step.durationMs);
        break;
    case ScriptKind::PartitionLeader:
        partition(*target, step.durationMs);
        break;
    case ScriptKind::StopLeader:
        stopNode(*target, step.durationMs);
        break;
    case ScriptKind::SlowLeader:
        target->slowMs = step.durationMs;
        break;
    case ScriptKind::SuspendLeader:
        suspend(*target, step.durationMs);
        break;
    case ScriptKind::DropWatches:
    case ScriptKind::StopNextAcquirer:
    case ScriptKind::StopNextReader:
    case ScriptKind::AskHandover:
    case ScriptKind::Drain:
    case ScriptKind::Undrain:
    case ScriptKind::CrashNextSuccessor:
    case ScriptKind::PartitionNextSuccessor:
        break;
    }
}

void World::askHandover(const ScriptStep &step)
{
    // What `baton handover` writes: the holder's record, a new version, with
    // the successor and who asked; holder and times unchanged (H1).
    if (!m_lease.exists || m_lease.record.holder.isEmpty()) {
        violation(QStringLiteral("the script asked for a handover at %1 and nobody held the lease").arg(m_now));
        return;
    }
    const Node *leading = leader();
    int slot = step.slot < 0 ? 0 : step.slot;
    if (leading && leading->slot == slot)
        slot = (slot + 1) % int(m_nodes.size());
    const Node &successor = m_nodes[std::size_t(slot)];
    m_handoverDelayMs = step.durationMs;
    m_lease.record.successor = configuredId(successor);
    m_lease.record.handoverRequestedBy = QStringLiteral("operator");
    m_lease.version = QString::number(++m_version);
    m_result.handoverSuccessors.push_back(successor.identity);
    if (tracing())
        trace(QStringLiteral("%1 operator: hand over to %2").arg(m_now).arg(successor.identity));
    notifyWatchers();
}

void World::healthy()
{
    m_healthy = true;
    m_result.healthyAt = m_now;
    Faults f;
    f.latencyMaxMs = HealthyLatencyMs;
    f.watchDelayMaxMs = HealthyLatencyMs;
    m_faults = f;
    m_dropWatches = false;
    Happening h;
    h.time = m_now;
    h.kind = Happening::Healthy;
    m_result.happenings.push_back(h);
    if (tracing())
        trace(QStringLiteral("%1 HEALTHY from now on").arg(m_now));
    for (Node &n : m_nodes) {
        n.slowMs = -1;
        n.partitionedUntil = -1;
    }
    for (Node &n : m_nodes) {
        if (n.frozen)
            n.suspended ? resume(n) : thaw(n);
    }
    for (Node &n : m_nodes) {
        if (n.life == Life::Dead || n.life == Life::Stopped)
            startNode(n);
    }
    // The faulty phase is over once its last message has landed.
    qint64 from = m_now;
    for (const Key &k : m_queue) {
        const Event &e = m_pool[k.index];
        if (e.kind == Ev::Arrive || e.kind == Ev::Reply || e.kind == Ev::Watch || e.kind == Ev::Release)
            from = std::max(from, e.time);
    }
    m_result.healthyFrom = from;
    // F6: a leader within leaseDuration + renewInterval, as the slowest clock
    // counts them, plus a few round trips.
    const qint64 slowest = Million - m_config.maxRatePpm;
    const qint64 bound = (m_config.leaseMs + m_config.renewMs) * Million / slowest + 1
            + 6 * HealthyLatencyMs + HealthyLatencyMs + 2;
    m_result.livenessDeadline = from + bound;
    if (steering()) {
        // A drained instance defers to a candidate it still sees live even
        // when that one cannot take the lease yet (a resumed host whose timer
        // fires late): until its record lapses (3 heartbeats) and the next
        // listing after that.
        m_result.livenessDeadline += 4 * m_config.leaseMs * Million / slowest + 1;
    }
    Event end;
    end.kind = Ev::End;
    end.time = m_result.livenessDeadline + 2 * (m_config.leaseMs + m_config.renewMs);
    if (steering()) {
        // Time for the restarted to be seen and earn the hysteresis, and
        // for the leader to hand over to the one preferred (H2, H3).
        const qint64 preferAfter = m_config.steering.preferAfterMs * Million / slowest + 1;
        end.time = std::max(end.time, from + preferAfter + 8 * m_config.leaseMs + 2 * m_config.renewMs);
    }
    push(std::move(end));
}

// Scheduled work: the decisions are TickPlanner's; the harness carries out
// its actions as ScheduledRunner does. The work is a child process: it runs
// on while its instance is frozen, dies with a crash, and the exec guard
// kills it when the authority's deadline comes (F4), frozen instance or not.

QDateTime World::wallNow(const Node &n) const
{
    return QDateTime::fromMSecsSinceEpoch(WallEpochMs + n.wall.localAt(m_now), QTimeZone::utc());
}

qint64 tickMs(const QString &name)
{
    return QDateTime::fromString(name, Qt::ISODate).toMSecsSinceEpoch() - WallEpochMs;
}

void World::leadershipEnded(Node &n, qint64 end, bool alive)
{
    if (!ticking())
        return;
    ++n.tickGen;
    if (!alive) {
        // The process is gone, and its work with it.
        if (n.work) {
            TickRun &r = m_result.runs[*n.work];
            if (r.end < 0)
                r.end = std::max(r.start, end);
            n.work.reset();
        }
        return;
    }
    carryOut(n, n.planner->leadershipEnded(wallNow(n)));
}

void World::carryOut(Node &n, const QList<TickPlanner::Action> &actions)
{
    using Kind = TickPlanner::Action::Kind;
    for (const TickPlanner::Action &a : actions) {
        switch (a.kind) {
        case Kind::ReadRecords: {
            RunOp op;
            op.kind = RunOp::List;
            op.purpose = RunOp::Review;
            op.token = a.record.token;
            sendRunOp(n, op);
            break;
        }
        case Kind::Claim:
        case Kind::TakeOver:
        case Kind::RecordSkip: {
            // The driver's duty: nothing is claimed past the deadline.
            const bool broken = m_config.ticks.broken == TickConfig::Broken::PastDeadline;
            if (!leads(n) && !broken) {
                if (a.kind != Kind::RecordSkip)
                    carryOut(n, n.planner->claimAnswered(a.record, TickPlanner::ClaimAnswer::Failed, wallNow(n)));
                break;
            }
            RunOp op;
            op.kind = a.kind == Kind::TakeOver ? RunOp::Replace : RunOp::Claim;
            op.purpose = a.kind == Kind::RecordSkip ? RunOp::None : RunOp::Answer;
            op.record = a.record;
            op.earlier = a.earlier;
            if (a.kind == Kind::RecordSkip)
                ++m_result.skippedTicks;
            sendRunOp(n, op);
            if (a.kind == Kind::Claim && m_config.ticks.broken == TickConfig::Broken::RunBeforeRecord)
                startWork(n, a.record);
            break;
        }
        case Kind::MarkInterrupted:
        case Kind::Settle: {
            RunOp op;
            op.kind = RunOp::Replace;
            op.record = a.record;
            op.earlier = a.earlier;
            sendRunOp(n, op);
            break;
        }
        case Kind::StartWork:
            if (m_config.ticks.broken == TickConfig::Broken::RunBeforeRecord)
                break; // started with the claim
            if (!leads(n) && m_config.ticks.broken != TickConfig::Broken::PastDeadline) {
                // The exec guard refuses to start work past the deadline.
                carryOut(n, n.planner->runEnded(RunRecord::interrupted, wallNow(n)));
                break;
            }
            startWork(n, a.record);
            break;
        case Kind::InterruptWork: {
            // The guard stopped the work when the authority ended (the term's end).
            QString outcome = RunRecord::interrupted;
            if (n.work) {
                TickRun &r = m_result.runs[*n.work];
                if (r.end < 0)
                    r.end = std::max(r.start, m_result.terms[n.term].end);
                if (r.completed)
                    outcome = RunRecord::succeeded; // it had ended, unseen while frozen
                n.work.reset();
            }
            carryOut(n, n.planner->runEnded(outcome, wallNow(n)));
            break;
        }
        }
    }
}

void World::armTick(Node &n)
{
    ++n.tickGen;
    const QDateTime wake = n.planner ? n.planner->wakeAt() : QDateTime();
    if (!wake.isValid() || n.life == Life::Dead)
        return;
    Event e;
    e.kind = Ev::TickDue;
    e.slot = n.slot;
    e.incarnation = n.incarnation;
    e.id = n.tickGen;
    e.time = std::max(m_now, n.wall.simAt(wake.toMSecsSinceEpoch() - WallEpochMs));
    push(std::move(e));
}

void World::startWork(Node &n, const RunRecord &record)
{
    TickRun r;
    r.tick = tickMs(record.tick);
    r.slot = n.slot;
    r.identity = n.identity;
    r.token = record.token;
    r.attempt = record.attempt;
    r.term = n.term;
    r.dueAt = n.wall.simAt(r.tick);
    r.wallAtClaim = record.start.toMSecsSinceEpoch() - WallEpochMs;
    r.wallAtTermStart = n.wall.localAt(m_result.terms[n.term].start);
    r.start = m_now;
    m_result.runs.push_back(r);
    n.work = m_result.runs.size() - 1;
    if (tracing())
        trace(QStringLiteral("%1 %2: RUN tick %3 (attempt %4, token %5)")
                      .arg(m_now)
                      .arg(n.identity)
                      .arg(r.tick)
                      .arg(r.attempt)
                      .arg(r.token));
    Event e;
    e.kind = Ev::RunEnd;
    e.slot = n.slot;
    e.incarnation = n.incarnation;
    e.id = *n.work;
    e.time = m_now + m_rng.between(m_config.ticks.runMinMs, m_config.ticks.runMaxMs);
    push(std::move(e));
}

void World::onRunEnd(Event &e)
{
    TickRun &r = m_result.runs[std::size_t(e.id)];
    Node &n = m_nodes[std::size_t(e.slot)];
    if (r.end < 0) {
        // The work exits now, unless the guard killed it at the deadline.
        if (n.incarnation == e.incarnation && n.termOpen && n.term == r.term && m_now < n.deadlineSim) {
            r.end = m_now;
            r.completed = true;
        } else {
            r.end = std::max(r.start, std::min(m_now, n.deadlineSim));
        }
        if (tracing())
            trace(QStringLiteral("%1 %2: END tick %3 %4")
                          .arg(m_now)
                          .arg(r.identity)
                          .arg(r.tick)
                          .arg(r.completed ? "completed" : "killed"));
    }
    // The instance learns it when it runs (a frozen one at the thaw).
    if (!reachable(n, e))
        return;
    if (n.work != std::optional<std::size_t>(std::size_t(e.id)))
        return;
    n.work.reset();
    carryOut(n, n.planner->runEnded(r.completed ? RunRecord::succeeded : RunRecord::interrupted, wallNow(n)));
    armTick(n);
}

void World::sendRunOp(Node &n, RunOp op)
{
    const quint64 id = m_nextRunOp++;
    m_runOps[id] = std::move(op);
    Event e;
    e.slot = n.slot;
    e.incarnation = n.incarnation;
    e.id = id;
    if (partitioned(n) || m_rng.happens(m_faults.requestLost)) {
        // The store client gives up after its request timeout.
        m_runOps[id].error = true;
        e.kind = Ev::RunReply;
        e.time = m_now + (m_config.leaseMs - m_config.renewMs);
    } else {
        e.kind = Ev::RunArrive;
        e.time = m_now + latency(n);
    }
    push(std::move(e));
}

void World::runArrive(const Event &e)
{
    RunOp &op = m_runOps[e.id];
    Node &n = m_nodes[std::size_t(e.slot)];
    bool changed = false;
    if (m_rng.happens(m_faults.storeError)) {
        op.error = true;
    } else if (op.kind == RunOp::List) {
        op.ok = true;
        for (const auto &[tick, record] : m_runRecords)
            op.listed.append(record);
    } else {
        const auto it = m_runRecords.find(op.record.tick);
        const bool conditional = m_config.ticks.broken != TickConfig::Broken::ClaimNotConditional;
        const bool free = op.kind == RunOp::Claim ? (it == m_runRecords.end() || !conditional)
                                                  : (it != m_runRecords.end() && it->second.version == op.earlier.version);
        if (free) {
            op.record.version = QString::number(++m_runVersion);
            m_runRecords[op.record.tick] = op.record;
            op.ok = true;
            changed = true;
            m_result.runWrites.push_back(RunWrite {m_now, tickMs(op.record.tick), op.record.instance, op.record.token,
                                                   op.record.attempt, op.record.outcome});
            if (m_rng.happens(m_faults.appliedError)) {
                op.ok = false;
                op.error = true;
            }
        }
    }
    if (tracing())
        trace(QStringLiteral("%1 store: run op #%2 (%3 %4 %5 by n%6.%7) -> %8")
                      .arg(m_now)
                      .arg(e.id)
                      .arg(op.kind == RunOp::List ? "list" : op.kind == RunOp::Claim ? "claim" : "replace")
                      .arg(op.record.tick, op.record.outcome)
                      .arg(e.slot)
                      .arg(e.incarnation)
                      .arg(op.error ? "error" : op.ok ? (changed ? "written" : "ok") : "conflict"));
    Event r;
    r.kind = Ev::RunReply;
    r.slot = e.slot;
    r.incarnation = e.incarnation;
    r.id = e.id;
    if (m_rng.happens(m_faults.replyLost)) {
        op.ok = false;
        op.error = true;
        r.time = m_now + (m_config.leaseMs - m_config.renewMs);
    } else {
        r.time = m_now + latency(n);
    }
    push(std::move(r));
}

void World::runReply(Event &e)
{
    Node &n = m_nodes[std::size_t(e.slot)];
    if (n.incarnation != e.incarnation || n.life == Life::Dead) {
        m_runOps.erase(e.id);
        return;
    }
    RunOp &op = m_runOps[e.id];
    if (partitioned(n) && !op.error) {
        // The answer is lost: the store client gives up after its request timeout.
        op.ok = false;
        op.error = true;
        e.time = m_now + (m_config.leaseMs - m_config.renewMs);
        push(std::move(e));
        return;
    }
    if (n.frozen) {
        n.deferred.push_back(std::move(e));
        return;
    }
    const RunOp answered = std::move(op);
    m_runOps.erase(e.id);
    switch (answered.purpose) {
    case RunOp::None:
        return;
    case RunOp::Review:
        if (!answered.ok)
            return; // as the runner: a warning, and the ticks go on
        carryOut(n, n.planner->recordsListed(answered.token, answered.listed, wallNow(n)));
        break;
    case RunOp::Answer: {
        const auto answer = answered.ok ? TickPlanner::ClaimAnswer::Claimed
                : answered.error        ? TickPlanner::ClaimAnswer::Failed
                                        : TickPlanner::ClaimAnswer::Taken;
        carryOut(n, n.planner->claimAnswered(answered.record, answer, wallNow(n)));
        break;
    }
    }
    armTick(n);
}

// Steering (H2, H3): each instance's roster is carried out here as
// CandidateRoster does it: read its record at start, write it every
// heartbeat (the lease duration) conditional on the version it wrote,
// keep an operator's drain on a conflict, list the candidates, and apply
// the product's SteeringPolicy: the Elector's stand-by gate, and the H1
// handover on the leader. The candidate records suffer the lease's faults.

QString World::configuredId(const Node &n) const
{
    if (m_config.oneIdentity)
        return QStringLiteral("worker");
    // Real instances keep their instanceId across restarts, and a drain with it.
    if (steering())
        return QStringLiteral("n%1").arg(n.slot);
    return n.identity;
}

int World::priorityOf(int slot) const
{
    const auto &p = m_config.steering.priority;
    return std::size_t(slot) < p.size() ? p[std::size_t(slot)] : 0;
}

const CandidateRecord *World::storedCandidate(const Node &n) const
{
    const auto it = m_candidates.find(configuredId(n));
    return it == m_candidates.end() ? nullptr : &it->second;
}

void World::startRoster(Node &n)
{
    n.policy = std::make_unique<SteeringPolicy>(selfOf(n));
    n.mine.reset();
    n.rosterAttempt = 1;
    n.firstWrite = true;
    n.knownDrained.reset();
    n.rosterBusy = false;
    n.rosterStopped = false;
    n.standBy = false;
    n.firstBeatAt = -1;
    armBeat(n, n.host.localAt(m_now));
}

bool World::isStandby(const Node &n) const
{
    const auto &standby = m_config.steering.standby;
    return std::find(standby.begin(), standby.end(), n.slot) != standby.end();
}

SteeringPolicy::Self World::selfOf(const Node &n) const
{
    // As the roster: its drain as last known from its writes and the
    // listings; before any (or after failed ones), as started.
    const SteeringConfig &sc = m_config.steering;
    SteeringPolicy::Self self;
    self.instance = configuredId(n);
    self.priority = priorityOf(n.slot);
    self.drained = n.knownDrained.value_or(isStandby(n));
    self.preferAfterMs = sc.preferAfterMs;
    if (sc.broken == SteeringConfig::Broken::IgnoresHysteresis)
        self.preferAfterMs = 0;
    if (sc.broken == SteeringConfig::Broken::MovesOnEqualPriority)
        self.priority -= 1; // the others' equal priority looks higher to it
    return self;
}

void World::armBeat(Node &n, qint64 atLocal)
{
    ++n.beatGen;
    Event e;
    e.kind = Ev::Beat;
    e.slot = n.slot;
    e.incarnation = n.incarnation;
    e.id = n.beatGen;
    e.time = std::max(m_now, n.host.simAt(atLocal));
    push(std::move(e));
}

CandidateRecord World::heartbeatRecord(const Node &n, const CandidateRecord &base) const
{
    CandidateRecord r = base;
    r.instance = configuredId(n);
    r.incarnation = n.identity;
    r.priority = priorityOf(n.slot);
    r.heartbeat = n.clock->wallNow();
    r.heartbeatIntervalMs = m_config.leaseMs;
    r.left = false;
    return r;
}

void World::beat(Node &n)
{
    if (n.life != Life::Running || n.rosterStopped)
        return;
    armBeat(n, n.host.localAt(m_now) + m_config.leaseMs);
    if (n.rosterBusy)
        return; // the last heartbeat is still on its way
    n.rosterBusy = true;
    CandOp op;
    if (!n.mine) {
        op.kind = CandOp::Read;
        op.record.instance = configuredId(n);
    } else {
        op.kind = CandOp::Replace;
        op.earlier = *n.mine;
        op.record = heartbeatRecord(n, *n.mine);
    }
    n.rosterAttempt = 1;
    sendCandOp(n, std::move(op));
}

void World::stopRoster(Node &n)
{
    n.rosterStopped = true;
    ++n.beatGen;
    if (!n.mine)
        return;
    // A clean stop: the record says the candidate left; its drain stays.
    CandOp op;
    op.kind = CandOp::Replace;
    op.earlier = *n.mine;
    op.record = heartbeatRecord(n, *n.mine);
    op.record.left = true;
    op.last = true;
    sendCandOp(n, std::move(op));
}

void World::sendCandOp(Node &n, CandOp op)
{
    const quint64 id = m_nextCandOp++;
    m_candOps[id] = std::move(op);
    Event e;
    e.slot = n.slot;
    e.incarnation = n.incarnation;
    e.id = id;
    if (partitioned(n) || m_rng.happens(m_faults.requestLost)) {
        // The store client gives up after its request timeout.
        m_candOps[id].error = true;
        n.lastTroubleAt = std::max(n.lastTroubleAt, m_now);
        e.kind = Ev::CandReply;
        e.time = m_now + (m_config.leaseMs - m_config.renewMs);
    } else {
        e.kind = Ev::CandArrive;
        e.time = m_now + latency(n);
    }
    push(std::move(e));
}

void World::candArrive(const Event &e)
{
    CandOp &op = m_candOps[e.id];
    Node &n = m_nodes[std::size_t(e.slot)];
    const QString instance = op.record.instance;
    const auto it = m_candidates.find(instance);
    bool changed = false;
    if (m_rng.happens(m_faults.storeError)) {
        op.error = true;
    } else if (op.kind == CandOp::List) {
        op.ok = true;
        for (const auto &[name, record] : m_candidates)
            op.listed.append(record);
    } else if (op.kind == CandOp::Read) {
        op.ok = true;
        if (it != m_candidates.end())
            op.read = it->second;
    } else {
        const bool free = op.kind == CandOp::Create ? it == m_candidates.end()
                                                    : it != m_candidates.end() && it->second.version == op.earlier.version;
        if (free) {
            const bool drainChanged = it == m_candidates.end() || it->second.drained != op.record.drained;
            op.record.version = QString::number(++m_candVersion);
            m_candidates[instance] = op.record;
            if (drainChanged)
                m_drainedSince[instance] = m_now;
            if (e.incarnation == n.incarnation && op.record.incarnation == n.identity && n.firstBeatAt < 0
                && !op.record.left)
                n.firstBeatAt = m_now;
            if (!op.record.left)
                m_firstWriteOf.emplace(op.record.incarnation, m_now);
            op.ok = true;
            changed = true;
            if (m_rng.happens(m_faults.appliedError)) {
                op.ok = false;
                op.error = true;
            }
        }
    }
    if (op.error)
        n.lastTroubleAt = std::max(n.lastTroubleAt, m_now);
    if (tracing())
        trace(QStringLiteral("%1 store: candidate op #%2 (%3 %4 by n%5.%6) -> %7")
                      .arg(m_now)
                      .arg(e.id)
                      .arg(op.kind == CandOp::List ? "list" : op.kind == CandOp::Read ? "read"
                                   : op.kind == CandOp::Create ? "create" : "replace")
                      .arg(op.kind == CandOp::List ? QString() : instance
                                   + (op.record.drained ? QStringLiteral(" drained") : QString()))
                      .arg(e.slot)
                      .arg(e.incarnation)
                      .arg(op.error ? "error" : op.ok ? (changed ? "written" : "ok") : "conflict"));
    Event r;
    r.kind = Ev::CandReply;
    r.slot = e.slot;
    r.incarnation = e.incarnation;
    r.id = e.id;
    if (m_rng.happens(m_faults.replyLost)) {
        op.ok = false;
        op.error = true;
        n.lastTroubleAt = std::max(n.lastTroubleAt, m_now);
        r.time = m_now + (m_config.leaseMs - m_config.renewMs);
    } else {
        r.time = m_now + latency(n);
    }
    push(std::move(r));
}

void World::candReply(Event &e)
{
    Node &n = m_nodes[std::size_t(e.slot)];
    if (n.incarnation != e.incarnation || n.life == Life::Dead) {
        m_candOps.erase(e.id);
        return;
    }
    CandOp &op = m_candOps[e.id];
    if (partitioned(n) && !op.error) {
        // The answer is lost: the store client gives up after its request timeout.
        op.ok = false;
        op.error = true;
        e.time = m_now + (m_config.leaseMs - m_config.renewMs);
        push(std::move(e));
        return;
    }
    if (n.frozen) {
        n.deferred.push_back(std::move(e));
        return;
    }
    const CandOp answered = std::move(op);
    m_candOps.erase(e.id);
    if (answered.last || n.rosterStopped || n.life != Life::Running)
        return;
    rosterAnswered(n, answered);
}

void World::rosterAnswered(Node &n, const CandOp &op)
{
    auto list = [&] {
        CandOp l;
        l.kind = CandOp::List;
        sendCandOp(n, std::move(l));
    };
    switch (op.kind) {
    case CandOp::Read: {
        if (!op.ok) {
            list();
            return;
        }
        // The drain is the store's (an operator's drain or undrain wins);
        // `--standby` counts until the first write succeeds.
        CandidateRecord base;
        if (op.read)
            base = *op.read;
        CandOp write;
        write.record = heartbeatRecord(n, base);
        if (!base.drained) {
            write.record.drained = isStandby(n) && n.firstWrite;
            write.record.drainedBy = write.record.drained ? QStringLiteral("standby") : QString();
        }
        write.kind = op.read ? CandOp::Replace : CandOp::Create;
        if (op.read)
            write.earlier = *op.read;
        sendCandOp(n, std::move(write));
        return;
    }
    case CandOp::Create:
    case CandOp::Replace:
        if (op.ok) {
            n.mine = op.record;
            n.firstWrite = false;
            n.knownDrained = op.record.drained;
        } else if (!op.error && n.rosterAttempt < 3) {
            // Written by someone else (an operator): read it, keep its drain, write again.
            ++n.rosterAttempt;
            CandOp read;
            read.kind = CandOp::Read;
            read.record.instance = configuredId(n);
            sendCandOp(n, std::move(read));
            return;
        } else {
            n.mine.reset(); // read again at the next heartbeat
        }
        list();
        return;
    case CandOp::List:
        n.rosterBusy = false;
        if (!op.ok)
            return;
        for (const CandidateRecord &r : op.listed) {
            if (r.instance == configuredId(n) && r.incarnation == n.identity)
                n.knownDrained = r.drained;
        }
        n.policy->observe(op.listed, n.host.localAt(m_now));
        applyDecision(n);
        return;
    }
}

void World::applyDecision(Node &n)
{
    if (n.life != Life::Running || n.frozen || !n.policy)
        return;
    const qint64 local = n.host.localAt(m_now);
    n.clock->setMonotonicMs(local);
    n.policy->setSelf(selfOf(n));
    const bool leading = n.elector->isLeader();
    const SteeringDecision d = n.policy->decide(leading, local);
    if (d.standBy != n.standBy)
        setStandBy(n, d.standBy);
    if (!leading || d.handOverTo.isEmpty())
        return;
    const bool drained = d.why == SteeringDecision::Why::Drained;
    SteeringHandover h;
    h.time = m_now;
    h.fromSlot = n.slot;
    h.to = d.handOverTo;
    h.drained = drained;
    m_result.steeringHandovers.push_back(h);
    // H2, H3: the steering settles: a lease handed back and forth is a
    // leadership that starts and stops its work again and again.
    m_recentMoves.push_back(m_now);
    while (m_recentMoves.front() <= m_now - m_config.leaseMs)
        m_recentMoves.pop_front();
    if (m_recentMoves.size() > MaxMovesPerLease) {
        // Counted: steeringSweep requires none.
        if (m_result.steeringThrashes++ == 0)
            m_result.firstThrash = QStringLiteral("at %1 the lease moved %2 times by steering within one lease "
                                                  "duration (the last: %3 to %4, %5)")
                                           .arg(m_now)
                                           .arg(m_recentMoves.size())
                                           .arg(n.identity, d.handOverTo,
                                                drained ? QStringLiteral("drained") : QStringLiteral("preferred"));
        if (tracing())
            trace(QStringLiteral("%1 the lease goes back and forth").arg(m_now));
    }
    if (tracing())
        trace(QStringLiteral("%1 %2: steering hands over to %3 (%4)")
                      .arg(m_now)
                      .arg(n.identity, d.handOverTo, drained ? QStringLiteral("drained") : QStringLiteral("preferred")));
    if (!drained) {
        const SteeringConfig &sc = m_config.steering;
        // H2: equal priorities never move the lease.
        const bool allEqual = std::all_of(m_nodes.begin(), m_nodes.end(),
                                          [&](const Node &o) { return priorityOf(o.slot) == priorityOf(0); });
        if (allEqual)
            steeringViolation(QStringLiteral("H2: %1 hands over to %2 by preference, but every priority is %3")
                                      .arg(n.identity, d.handOverTo)
                                      .arg(priorityOf(0)));
        // The process of the successor as the leader last saw it: a
        // restart it has not listed yet is not its to know.
        QString seen;
        for (const CandidateSighting &c : n.policy->sightings(local)) {
            if (c.record.instance == d.handOverTo)
                seen = c.record.incarnation;
        }
        const auto firstWrite = m_firstWriteOf.find(seen);
        for (const Node &o : m_nodes) {
            if (configuredId(o) != d.handOverTo)
                continue;
            if (priorityOf(o.slot) <= priorityOf(n.slot))
                steeringViolation(QStringLiteral("H2: %1 (priority %2) hands over by preference to %3 (priority %4)")
                                          .arg(n.identity)
                                          .arg(priorityOf(n.slot))
                                          .arg(d.handOverTo)
                                          .arg(priorityOf(o.slot)));
            // H2: only to a candidate that has run for the hysteresis on
            // the leader's clock (the truth: since the process the leader
            // saw last first wrote its record).
            const qint64 fastest = Million + m_config.maxRatePpm;
            const qint64 least = sc.preferAfterMs * Million / fastest - 1;
            if (firstWrite == m_firstWriteOf.end() || m_now - firstWrite->second < least)
                steeringViolation(QStringLiteral("H2: %1 hands over by preference to %2, whose process %3 has "
                                                 "announced itself only since %4 (less than %5 ms)")
                                          .arg(n.identity, d.handOverTo, seen)
                                          .arg(firstWrite == m_firstWriteOf.end() ? -1 : firstWrite->second)
                                          .arg(sc.preferAfterMs));
        }
    }
    for (Node &o : m_nodes) {
        if (configuredId(o) != d.handOverTo || o.life == Life::Dead)
            continue;
        if (m_crashNextSuccessor) {
            m_crashNextSuccessor = false;
            crash(o);
        } else if (m_partitionNextSuccessor >= 0) {
            partition(o, m_partitionNextSuccessor);
            m_partitionNextSuccessor = -1;
        }
    }
    const QString to = d.handOverTo;
    const QString by = drained ? QStringLiteral("drain") : QStringLiteral("preferred holder");
    call(n, "requestHandover", std::nullopt, [&](Elector &el) { return el.requestHandover(to, by); });
}

void World::setStandBy(Node &n, bool on)
{
    n.standBy = on;
    if (m_config.steering.broken == SteeringConfig::Broken::IgnoresGate)
        return;
    if (tracing())
        trace(QStringLiteral("%1 %2: %3").arg(m_now).arg(n.identity, on ? "stands by" : "campaigns again"));
    call(n, "setStandingBy", std::nullopt, [on](Elector &el) { return el.setStandingBy(on); });
}

void World::operatorDrains()
{
    if (m_healthy)
        return;
    Event next;
    next.kind = Ev::Operator;
    next.time = m_now + std::max<qint64>(1, qint64(m_rng.exponential(3'600'000.0 / m_config.steering.drainsPerHour)));
    push(std::move(next));
    const double pick = m_rng.chance();
    const int slot = int(m_rng.between(0, qint64(m_nodes.size()) - 1));
    if (pick < 0.35)
        drain(-1, true);
    else if (pick < 0.6)
        drain(slot, true);
    else if (pick < 0.85)
        drain(slot, false);
    else
        drain(-2, pick < 0.925);
}

void World::drain(int slot, bool on)
{
    std::vector<const Node *> targets;
    if (slot == -2) {
        for (const Node &n : m_nodes)
            targets.push_back(&n);
    } else if (slot == -1) {
        if (const Node *l = leader())
            targets.push_back(l);
    } else {
        targets.push_back(&m_nodes[std::size_t(slot)]);
    }
    for (const Node *n : targets) {
        // `baton drain`: a read-modify-write of the instance's record; one
        // that has none gets one, left, so that it comes up drained.
        const QString instance = configuredId(*n);
        auto it = m_candidates.find(instance);
        if (it == m_candidates.end()) {
            CandidateRecord r;
            r.instance = instance;
            r.left = true;
            it = m_candidates.emplace(instance, r).first;
        }
        CandidateRecord &r = it->second;
        if (r.drained != on)
            m_drainedSince[instance] = m_now;
        r.drained = on;
        r.drainedBy = on ? QStringLiteral("operator") : QString();
        r.version = QString::number(++m_candVersion);
        on ? ++m_result.drains : ++m_result.undrains;
        if (tracing())
            trace(QStringLiteral("%1 operator: %2 %3").arg(m_now).arg(on ? "drain" : "undrain", instance));
    }
}

void World::judgeTakeover(const Node &n, qint64 token)
{
    // H3: a drained instance takes no lease while a candidate that is not
    // drained is live, unless the lease was kept for it by a handover.
    // Judged where the instance could know: both have run without a fault
    // for long enough to have written and listed their records.
    if (m_reservedTakes.count(token))
        return;
    const qint64 since = m_now - (3 * m_config.leaseMs + 2 * m_config.renewMs);
    const CandidateRecord *self = storedCandidate(n);
    const auto selfSince = m_drainedSince.find(configuredId(n));
    if (!self || !self->drained || selfSince == m_drainedSince.end() || selfSince->second >= since
        || !troubleFree(n, since))
        return;
    for (const Node &o : m_nodes) {
        if (o.slot == n.slot || !troubleFree(o, since) || o.firstBeatAt < 0 || o.firstBeatAt >= since)
            continue;
        const CandidateRecord *other = storedCandidate(o);
        const auto otherSince = m_drainedSince.find(configuredId(o));
        if (!other || other->drained || other->left || other->incarnation != o.identity
            || otherSince == m_drainedSince.end() || otherSince->second >= since)
            continue;
        steeringViolation(QStringLiteral("H3: %1, drained since %2, took the lease (token %3) while %4, not "
                                         "drained, was live")
                                  .arg(n.identity)
                                  .arg(selfSince->second)
                                  .arg(token)
                                  .arg(o.identity));
        return;
    }
}

void World::noteLeaseWrite(const LeaseState &before)
{
    const LeaseRecord &now = m_lease.record;
    if (now.holder.isEmpty() && !now.successor.isEmpty() && now.successor != anySuccessor) {
        // H1: the lease kept for a successor; judged when it must have run out.
        m_reservations.push_back({m_now, now.successor, m_lease.version});
        const qint64 slowest = Million - m_config.maxRatePpm;
        const qint64 bound = m_faults.watchDelayMaxMs + (m_config.leaseMs + m_config.renewMs) * Million / slowest
                + 6 * m_faults.latencyMaxMs + 2;
        Event judge;
        judge.kind = Ev::JudgeReservation;
        judge.id = m_reservations.size() - 1;
        judge.time = m_now + bound;
        push(std::move(judge));
    }
    if (!now.holder.isEmpty() && before.exists && before.record.holder.isEmpty()
        && before.record.successor == now.holder)
        m_reservedTakes.insert(now.transitions);
}

void World::judgeReservation(std::size_t index)
{
    const Reservation &r = m_reservations[index];
    // Taken, or written over (an acquisition whose answer was lost counts:
    // the reservation no longer holds the lease back).
    const bool taken = m_lease.version != r.version
            || std::any_of(m_result.terms.begin(), m_result.terms.end(),
                           [&](const Term &t) { return t.start >= r.appliedAt; });
    if (taken) {
        ++m_result.reservationsJudged;
        return;
    }
    // Nobody took it: fine unless an instance other than the successor, not
    // drained and untouched by any fault, was there to take it once the
    // reservation had run out (one lease duration).
    const qint64 since = r.appliedAt - 2 * (m_config.leaseMs - m_config.renewMs);
    for (const Node &o : m_nodes) {
        if (configuredId(o) == r.successor || !troubleFree(o, since))
            continue;
        const CandidateRecord *c = storedCandidate(o);
        const auto drainedSince = m_drainedSince.find(configuredId(o));
        if (c && c->drained)
            continue;
        if (drainedSince != m_drainedSince.end() && drainedSince->second >= r.appliedAt - 3 * m_config.leaseMs)
            continue;
        ++m_result.reservationsJudged;
        steeringViolation(QStringLiteral("H1: the lease kept for %1 at %2 was still not taken at %3, though %4 "
                                         "could take it once the reservation ran out")
                                  .arg(r.successor)
                                  .arg(r.appliedAt)
                                  .arg(m_now)
                                  .arg(o.identity));
        return;
    }
}

void World::judgeFinalLeader()
{
    // H2, H3: once the faults are over, the highest-priority live candidate
    // that is not drained leads (any, when all are drained).
    const Node *leading = nullptr;
    int best = std::numeric_limits<int>::min();
    for (const Node &n : m_nodes) {
        if (n.termOpen && m_now < n.deadlineSim)
            leading = &n;
        const CandidateRecord *c = storedCandidate(n);
        if (n.life == Life::Running && c && !c->drained && !c->left)
            best = std::max(best, priorityOf(n.slot));
    }
    m_result.finalLeader = leading ? leading->slot : -1;
    if (!leading || best == std::numeric_limits<int>::min())
        return;
    const CandidateRecord *c = storedCandidate(*leading);
    if ((c && c->drained) || priorityOf(leading->slot) != best)
        steeringViolation(QStringLiteral("H2/H3: at the end %1 leads (priority %2%3) while a live candidate of "
                                         "priority %4 is not drained")
                                  .arg(leading->identity)
                                  .arg(priorityOf(leading->slot))
                                  .arg(c && c->drained ? QStringLiteral(", drained") : QString())
                                  .arg(best));
}

void World::steeringViolation(const QString &what)
{
    ++m_result.steeringViolations;
    violation(what);
}

void World::happen(Happening::Kind kind, const Node &n, StopReason reason, bool released, qint64 reported)
{
    Happening h;
    h.time = m_now;
    h.kind = kind;
    h.slot = n.slot;
    h.identity = n.identity;
    h.reason = reason;
    h.released = released;
    h.localNow = n.host.localAt(m_now);
    h.reportedMono = reported;
    m_result.happenings.push_back(std::move(h));
}

void World::violation(const QString &what)
{
    if (m_result.firstViolationAt < 0)
        m_result.firstViolationAt = m_now;
    if (m_result.violations.size() < 50)
        m_result.violations.append(QStringLiteral("at %1: %2").arg(m_now).arg(what));
    if (tracing())
        trace(QStringLiteral("%1 VIOLATION %2").arg(m_now).arg(what));
}

void World::trace(const QString &line)
{
    if (m_now > m_config.traceUntilMs)
        return;
    m_trace.push_back(line);
    while (m_trace.size() > std::size_t(m_config.traceLines))
        m_trace.pop_front();
}

} // namespace

SimResult simulate(const SimConfig &config, quint64 seed)
{
    World world(config, seed);
    return world.run();
}

namespace {

/*! S1-S3 on the runs of scheduled work, from outside: the runs, the records the store took, the terms. */
void judgeRuns(const SimResult &result, Verdict &v, const std::function<void(qint64)> &at)
{
    const TickConfig &tc = result.config.ticks;
    auto problem = [&](qint64 t, const QString &text) {
        ++v.runProblems;
        at(t);
        if (v.runProblems <= 8)
            v.problems.append(QStringLiteral("at %1: %2").arg(t).arg(text));
    };
    auto endOf = [&](const TickRun &r) { return r.end < 0 ? result.endMs : r.end; };

    for (const TickRun &r : result.runs) {
        // S1: the record of this run, carrying its token, was in the store before the command started.
        const bool recorded = std::any_of(result.runWrites.begin(), result.runWrites.end(), [&](const RunWrite &w) {
            return w.tick == r.tick && w.identity == r.identity && w.token == r.token && w.attempt == r.attempt
                    && w.outcome == RunRecord::running && w.time <= r.start;
        });
        if (!recorded)
            problem(r.start, QStringLiteral("S1: %1 ran tick %2 (attempt %3) without its run record written first")
                                     .arg(r.identity)
                                     .arg(r.tick)
                                     .arg(r.attempt));
        // S1: work runs on the leader: it starts within the authority it was claimed under.
        const Term &under = result.terms[r.term];
        if (r.token != under.token || r.start < under.start || r.start > under.end)
            problem(r.start, QStringLiteral("S1: %1 started tick %2 at %3 outside its leadership (token %4, %5 to %6)")
                                     .arg(r.identity)
                                     .arg(r.tick)
                                     .arg(r.start)
                                     .arg(under.token)
                                     .arg(under.start)
                                     .arg(under.end));
        // S2: a tick nobody ran when it was due runs only as the catch-up window says: the
        // latest one before the leadership began, once, within the window (it may wait
        // for a run going, under overlap queue). The runner still runs a tick it
        // missed by less than a second of its wall clock (a timer that fires late).
        const Term &term = result.terms[r.term];
        const qint64 lateMs = 1000 * Million / (Million - result.config.maxRatePpm) + 1;
        if (r.attempt == 1 && r.dueAt + lateMs < term.start) {
            const qint64 latest = floorDiv(WallEpochMs + r.wallAtTermStart, tc.periodMs) * tc.periodMs - WallEpochMs;
            if (tc.catchUpMs <= 0 || r.tick != latest || r.wallAtTermStart - r.tick > tc.catchUpMs)
                problem(r.start, QStringLiteral("S2: %1 ran tick %2, due at %3 before its leadership began at %4: "
                                                "not the latest tick within the catch-up window of %5 ms")
                                         .arg(r.identity)
                                         .arg(r.tick)
                                         .arg(r.dueAt)
                                         .arg(term.start)
                                         .arg(tc.catchUpMs));
        }
    }

    // S2: never two runs of one tick. The one exception: under the rerun
    // policy, a run whose leadership ended may run again, after it, under
    // another leadership, as a later attempt.
    std::map<qint64, std::vector<const TickRun *>> byTick;
    for (const TickRun &r : result.runs)
        byTick[r.tick].push_back(&r);
    for (auto &[tick, runs] : byTick) {
        std::sort(runs.begin(), runs.end(), [](const TickRun *a, const TickRun *b) { return a->start < b->start; });
        for (std::size_t i = 1; i < runs.size(); ++i) {
            const TickRun &a = *runs[i - 1];
            const TickRun &b = *runs[i];
            if (b.start < endOf(a)) {
                problem(b.start, QStringLiteral("S2: two runs of tick %1 at once: %2 from %3 while %4 runs until %5")
                                         .arg(tick)
                                         .arg(b.identity)
                                         .arg(b.start)
                                         .arg(a.identity)
                                         .arg(endOf(a)));
            } else if (!tc.rerunInterrupted) {
                problem(b.start, QStringLiteral("S2: tick %1 ran twice: by %2 at %3 (%4), again by %5 at %6")
                                         .arg(tick)
                                         .arg(a.identity)
                                         .arg(a.start)
                                         .arg(a.completed ? "completed" : "interrupted")
                                         .arg(b.identity)
                                         .arg(b.start));
            } else if (b.attempt <= a.attempt || b.start < result.terms[a.term].end || b.term == a.term) {
                problem(b.start, QStringLiteral("S2: tick %1 ran again (attempt %2, by %3 at %4) although the "
                                                "leadership of its earlier run (attempt %5, by %6) lasted until %7")
                                         .arg(tick)
                                         .arg(b.attempt)
                                         .arg(b.identity)
                                         .arg(b.start)
                                         .arg(a.attempt)
                                         .arg(a.identity)
                                         .arg(result.terms[a.term].end));
            }
        }
    }

    // S3: a run still going at the next tick delays or skips it: runs never overlap.
    std::vector<const TickRun *> all;
    for (const TickRun &r : result.runs)
        all.push_back(&r);
    std::sort(all.begin(), all.end(), [](const TickRun *a, const TickRun *b) { return a->start < b->start; });
    const TickRun *longest = nullptr;
    for (const TickRun *r : all) {
        if (longest && r->start < endOf(*longest) && r->tick != longest->tick)
            problem(r->start, QStringLiteral("S3: %1 runs tick %2 from %3 while tick %4 runs until %5 (%6)")
                                      .arg(r->identity)
                                      .arg(r->tick)
                                      .arg(r->start)
                                      .arg(longest->tick)
                                      .arg(endOf(*longest))
                                      .arg(longest->identity));
        if (!longest || endOf(*r) > endOf(*longest))
            longest = r;
    }
}

} // namespace

Verdict judge(const SimResult &result)
{
    Verdict v;
    v.problems = result.violations;
    v.steeringProblems = result.steeringViolations;
    v.firstProblemAt = result.firstViolationAt;
    auto at = [&v](qint64 t) {
        if (v.firstProblemAt < 0 || t < v.firstProblemAt)
            v.firstProblemAt = t;
    };
    const std::vector<Term> &terms = result.terms;

    // F1, F4: authority intervals never overlap. Terms are recorded in the
    // order they start.
    const Term *holder = nullptr;
    for (const Term &t : terms) {
        if (t.end <= t.start)
            continue;
        if (holder && t.start < holder->end) {
            ++v.overlaps;
            at(t.start);
            if (v.overlaps <= 5)
                v.problems.append(QStringLiteral("F1/F4: two leaders: %1 leads from %2 while %3 leads until %4 "
                                                 "(overlap of %5 ms)")
                                          .arg(t.identity)
                                          .arg(t.start)
                                          .arg(holder->identity)
                                          .arg(holder->end)
                                          .arg(std::min(holder->end, t.end) - t.start));
        }
        if (!holder || t.end > holder->end)
            holder = &t;
    }

    // F7: fencing tokens strictly increase from one leader to the next.
    const Term *previous = nullptr;
    for (const Term &t : terms) {
        if (previous) {
            const bool otherLeader = t.identity != previous->identity;
            if (otherLeader ? t.token <= previous->token : t.token < previous->token) {
                at(t.start);
                v.problems.append(QStringLiteral("F7: %1 leads from %2 with token %3 after %4 with token %5")
                                          .arg(t.identity)
                                          .arg(t.start)
                                          .arg(t.token)
                                          .arg(previous->identity)
                                          .arg(previous->token));
            }
        }
        if (!previous || t.identity != previous->identity)
            ++v.leaderChanges;
        previous = &t;
    }

    // F6, F1: once the store is healthy and someone is alive, a leader comes
    // within L + R and stays.
    if (result.config.healthyPhase && result.healthyAt >= 0
        && !result.config.leaderKeepsAuthorityPastDeadline) {
        const Term *last = terms.empty() ? nullptr : &terms.back();
        // Steering may move the lease after the first leader of the healthy
        // phase: then a leader by the deadline, and one at the end.
        const bool ledByDeadline = std::any_of(terms.begin(), terms.end(), [&](const Term &t) {
            return t.start <= result.livenessDeadline && (t.openAtEnd || t.end > result.livenessDeadline);
        });
        const bool late = result.config.steering.enabled ? !ledByDeadline
                                                         : (last && last->start > result.livenessDeadline);
        if (!last || !last->openAtEnd || late) {
            at(result.livenessDeadline);
            v.problems.append(
                    QStringLiteral("F6: healthy from %1 (last fault message landed at %2), expected a leader "
                                   "by %3 that stays until %4; last term: %5")
                            .arg(result.healthyAt)
                            .arg(result.healthyFrom)
                            .arg(result.livenessDeadline)
                            .arg(result.endMs)
                            .arg(last ? QStringLiteral("%1 from %2 to %3%4")
                                                .arg(last->identity)
                                                .arg(last->start)
                                                .arg(last->end)
                                                .arg(last->openAtEnd ? QStringLiteral(" (open)") : QString())
                                      : QStringLiteral("none")));
        }
    }
    if (result.config.ticks.enabled)
        judgeRuns(result, v, at);
    return v;
}

QString describeSteering(const SteeringConfig &s)
{
    if (!s.enabled)
        return {};
    QStringList priorities;
    for (int p : s.priority)
        priorities.append(QString::number(p));
    QStringList standby;
    for (int slot : s.standby)
        standby.append(QStringLiteral("n%1").arg(slot));
    return QStringLiteral(", steering: priorities %1, prefer after %2 ms, standby [%3], drains %4/h")
            .arg(priorities.join(QLatin1Char(' ')))
            .arg(s.preferAfterMs)
            .arg(standby.join(QLatin1Char(' ')))
            .arg(s.drainsPerHour, 0, 'g', 3);
}

QString describe(const SimConfig &c)
{
    const Faults &f = c.faults;
    return QStringLiteral("%1 instances, L=%2 R=%3, rates ±%4ppm, latency ≤%5 (p=%6 ≤%7), lost req %8 reply %9, "
                          "errors %10 applied-errors %11, bare conflicts %12, watch drop %13 delay ≤%14, chaos %15/h%16")
            .arg(c.instances)
            .arg(c.leaseMs)
            .arg(c.renewMs)
            .arg(c.maxRatePpm)
            .arg(f.latencyMaxMs)
            .arg(f.longLatency, 0, 'g', 2)
            .arg(f.longLatencyMaxMs)
            .arg(f.requestLost, 0, 'g', 2)
            .arg(f.replyLost, 0, 'g', 2)
            .arg(f.storeError, 0, 'g', 2)
            .arg(f.appliedError, 0, 'g', 2)
            .arg(f.conflictWithoutState, 0, 'g', 2)
            .arg(f.watchDropped, 0, 'g', 2)
            .arg(f.watchDelayMaxMs)
            .arg(c.chaos.eventsPerHour, 0, 'g', 3)
            .arg(c.checkCleanHandover ? QStringLiteral(", clean handovers judged") : QString())
            + (c.oneIdentity ? QStringLiteral(", one instanceId for all") : QString()) + describeSteering(c.steering);
}

QString describeFailure(const SimResult &result, const Verdict &verdict)
{
    QStringList lines;
    lines << QStringLiteral("seed %1 failed (replay with BATON_SIM_SEED=%1): %2")
                     .arg(result.seed)
                     .arg(describe(result.config));
    for (qsizetype i = 0; i < verdict.problems.size() && i < 10; ++i)
        lines << QStringLiteral("  problem: ") + verdict.problems.at(i);
    if (!result.trace.isEmpty()) {
        lines << QStringLiteral("  last events (sim ms, instance, local ms):");
        for (const QString &t : result.trace)
            lines << QStringLiteral("    ") + t;
    }
    return lines.join(QLatin1Char('\n'));
}

SimConfig sweepConfig(quint64 seed)
{
    // A stream of its own, so that the world's randomness does not depend on
    // how the configuration was drawn.
    Random r(seed * 0x9E3779B97F4A7C15ULL + 0x5151);
    SimConfig c;
    c.instances = int(r.between(2, 5));
    c.leaseMs = r.between(40, 300) * 100;
    c.renewMs = r.between(std::max<qint64>(1000, c.leaseMs / 10), c.leaseMs * 7 / 10);
    // The library claims to tolerate clock rates off by (L-R)/(3L+R) on each host.
    const double claimed = double(c.leaseMs - c.renewMs) / double(3 * c.leaseMs + c.renewMs);
    const auto nearClaim = qint64(0.9 * claimed * double(Million));
    c.maxRatePpm = r.happens(0.2) ? nearClaim : std::min<qint64>(20000, nearClaim);
    c.startSpreadMs = r.between(0, c.renewMs);
    c.durationMs = 3'600'000;

    const bool clean = r.happens(0.25);
    Faults &f = c.faults;
    if (clean) {
        f.latencyMaxMs = r.between(1, 20);
        f.watchDelayMaxMs = r.between(1, 20);
    } else {
        f.requestLost = r.chance() * 0.1;
        f.replyLost = r.chance() * 0.1;
        f.storeError = r.chance() * 0.1;
        f.appliedError = r.chance() * 0.05;
        f.watchDropped = r.chance() * 0.5;
        f.conflictWithoutState = r.happens(0.5) ? 1.0 : 0.0;
        f.longLatency = r.chance() * 0.03;
        f.latencyMaxMs = r.between(1, 300);
        f.longLatencyMaxMs = c.leaseMs * 3 / 2;
        f.watchDelayMaxMs = r.between(1, 1000);
    }
    Chaos &ch = c.chaos;
    ch.eventsPerHour = double(r.between(5, 60));
    ch.suspend = 0.5;
    ch.freezeMaxMs = 3 * c.leaseMs;
    ch.partitionMaxMs = 3 * c.leaseMs;
    ch.restartMinMs = 1000;
    ch.restartMaxMs = 2 * c.leaseMs;
    // Sometimes the deregistered callbacks outlast the deadline: then no release.
    ch.releaseDelayMaxMs = c.leaseMs;
    ch.quietAfterStop = clean;
    c.checkCleanHandover = clean;
    return c;
}

} // namespace baton::sim
