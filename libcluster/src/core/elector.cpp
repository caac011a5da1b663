#include "elector.h"

#include "renewalslot.h"

#include <baton/clock.h>

#include <algorithm>

namespace baton {

Elector::Elector(ElectorParams params, const Clock &clock)
    : m_params(std::move(params))
    , m_clock(clock)
    , m_lease(m_params, clock)
{
}

qint64 Elector::now() const
{
    return m_clock.monotonicMs();
}

qint64 Elector::stepDownDelay() const
{
    // About a century: never reached, and far from overflowing the boot clock.
    constexpr qint64 kUnboundedMs = qint64(100) * 365 * 24 * 3600 * 1000;
    if (!m_params.boundedByLease)
        return kUnboundedMs;
    return (m_params.leaseDurationMs + m_params.renewIntervalMs) / 2;
}

qint64 Elector::requestTimeout() const
{
    // F3: a leader that has no answer within leaseDuration - renewInterval
    // stops leading; followers use the same bound so that a lost reply never
    // stalls the election.
    return m_params.leaseDurationMs - m_params.renewIntervalMs;
}

bool Elector::stopping() const
{
    return m_state == State::Stopping || m_state == State::Releasing || m_state == State::Stopped;
}

bool Elector::consistent() const
{
    using Kind = Request::Kind;
    const std::optional<Kind> kind =
            m_inFlight ? std::optional<Kind>(m_inFlight->kind) : std::nullopt;
    switch (m_state) {
    case State::Idle:
        return !kind;
    case State::Following:
    case State::Leading:
        // In Following, a renewal sent in the last term: answered, never obeyed (F4).
        return !kind || kind == Kind::Renew;
    case State::Acquiring:
        return kind == Kind::Read || kind == Kind::Acquire;
    case State::HandingOver:
        // A renewal sent before the handover began, or the handover's write.
        return !kind || kind == Kind::Renew || kind == Kind::Release;
    case State::Stopping:
        return kind != Kind::Release;
    case State::Releasing:
        return kind == Kind::Acquire || kind == Kind::Release;
    case State::Stopped:
        // Requests of the campaign whose answers can only update what is seen.
        return !kind || kind == Kind::Read || kind == Kind::Renew;
    }
    return false;
}

ElectorActions Elector::checked(ElectorActions out) const
{
    Q_ASSERT(consistent());
    return out;
}

void Elector::moveTo(State next)
{
    // The edges of the table in docs/architecture.md; any other is a bug.
    const auto allowed = [this, next] {
        switch (m_state) {
        case State::Idle:
            return next == State::Following || next == State::Stopping;
        case State::Following:
            return next == State::Acquiring || next == State::Leading || next == State::Stopping;
        case State::Acquiring:
            return next == State::Following || next == State::Stopping;
        case State::Leading:
            return next == State::Following || next == State::Stopping || next == State::HandingOver;
        case State::HandingOver:
            return next == State::Following || next == State::Stopping || next == State::Releasing;
        case State::Stopping:
        case State::Releasing:
        case State::Stopped:
            return next == State::Releasing || next == State::Stopped;
        }
        return false;
    };
    Q_ASSERT(allowed());
    m_state = next;
}

Elector::Request Elector::endRequest()
{
    Q_ASSERT(m_inFlight);
    const Request ended = *m_inFlight;
    m_inFlight.reset();
    if (m_state == State::Acquiring)
        moveTo(State::Following);
    return ended;
}

ElectorActions Elector::start()
{
    ElectorActions out;
    if (m_state != State::Idle)
        return out;
    moveTo(State::Following);
    beginAttempt(out); // F1: the first attempt runs at start
    return checked(std::move(out));
}

ElectorActions Elector::onTimer()
{
    ElectorActions out;
    enforceDeadline(out);
    if (m_state == State::Idle)
        return out;
    if (m_inFlight && now() >= m_inFlight->sentMono + requestTimeout()) {
        ++m_request; // a late reply to the abandoned request is ignored
        const Request timedOut = endRequest();
        const QString message =
                QStringLiteral("no answer within %1 ms").arg(requestTimeout());
        if (timedOut.kind == Request::Kind::Release && m_state == State::HandingOver) {
            finishHandover(out, false, message);
        } else if (timedOut.kind == Request::Kind::Release) {
            finishRelease(out, false, message);
        } else {
            if (m_state == State::Leading)
                stepDown(StopReason::RenewFailed, out);
            finishAttempt(out, AttemptOutcome::Error, message);
            releaseIfAsked(out); // the write it waited for will never answer
            handOverIfAsked(out);
        }
    }
    giveUpLateHandover(out);
    if (!m_inFlight && campaigning() && now() >= m_nextAttempt)
        beginAttempt(out);
    return checked(std::move(out));
}

ElectorActions Elector::onWatch(const LeaseState &state)
{
    ElectorActions out;
    enforceDeadline(out);
    if (m_state == State::Idle)
        return out;
    if (!m_lease.differsFrom(state))
        return out;
    const bool other = !state.exists || !m_lease.isMine(state.record);
    // F1, F3: a record not ours, seen while our write is on its way, may be
    // newer than the answer that write will bring (a watch and a reply are
    // two streams, and versions are opaque): the write's success is then
    // checked at once by a conditional renewal, as a leader does below.
    if (m_inFlight && other)
        m_otherSeenDuringRequest = true;
    if (m_state == State::Leading) {
        // A watch event may be older than the reply that made this instance
        // leader, and versions are opaque, so it cannot tell the truth by
        // itself: the conditional renewal it triggers does (F3, F8). So
        // does a handover asked for: the renewal's conflict brings it.
        if (other || (state.exists && !state.record.successor.isEmpty()))
            m_nextAttempt = now();
        return out;
    }
    m_lease.observe(state, out);
    // F8: a release is seen at once and taken at once; any other change
    // re-arms the expiry instant from now. A lease kept for another
    // instance counts as held (H1).
    if (campaigning() && m_lease.freeForMe() && mayAcquire()) {
        m_nextAttempt = now();
        // A request that may be lost must not hold the takeover back until
        // its timeout: every write is conditional, so giving it up is safe
        // even if it was applied. (Not stopping: no release is on its way.)
        if (m_inFlight) {
            ++m_request;
            endRequest();
            finishAttempt(out, AttemptOutcome::Abandoned);
            m_nextAttempt = now();
        }
    } else {
        scheduleNextAttempt();
    }
    if (!m_inFlight && campaigning() && now() >= m_nextAttempt)
        beginAttempt(out);
    return checked(std::move(out));
}

ElectorActions Elector::setStandingBy(bool standingBy)
{
    ElectorActions out;
    enforceDeadline(out);
    if (m_standingBy == standingBy)
        return out;
    m_standingBy = standingBy;
    if (standingBy || m_state != State::Following)
        return checked(std::move(out));
    // The gate opened: a lease seen free or expired meanwhile is taken now.
    if (m_lease.known() && (m_lease.freeForMe() || m_lease.expired()))
        m_nextAttempt = now();
    else
        scheduleNextAttempt();
    if (!m_inFlight && campaigning() && now() >= m_nextAttempt)
        beginAttempt(out);
    return checked(std::move(out));
}

bool Elector::mayAcquire() const
{
    if (!m_standingBy)
        return true;
    const LeaseState &seen = m_lease.state();
    return m_lease.known() && seen.exists && seen.record.holder.isEmpty()
            && seen.record.successor == m_params.identity;
}

bool Elector::isLeader() const
{
    return m_state == State::Leading && now() < m_validUntil;
}

std::optional<qint64> Elector::nextWakeMono() const
{
    if (m_state == State::Idle)
        return std::nullopt;
    std::optional<qint64> wake;
    auto consider = [&wake](qint64 instant) {
        wake = wake ? std::min(*wake, instant) : instant;
    };
    if (m_state == State::Leading)
        consider(m_validUntil);
    if (m_inFlight)
        consider(m_inFlight->sentMono + requestTimeout());
    else if (m_state == State::HandingOver)
        consider(m_validUntil); // the handover is given up there
    else if (!stopping())
        consider(m_nextAttempt);
    return wake;
}

void Elector::enforceDeadline(ElectorActions &out)
{
    // F4: checked on every entry, so that a process resuming from a freeze
    // steps down before it acts on anything else.
    if (m_state == State::Leading && now() >= m_validUntil)
        stepDown(StopReason::Deadline, out);
}

void Elector::beginAttempt(ElectorActions &out)
{
    m_attemptStart = now();
    if (m_state != State::Leading) {
        continueAcquisition(out, /*afterRead=*/false);
        return;
    }
    LeaseRecord record = m_lease.state().record;
    record.renewTime = m_clock.wallNow();
    record.leaseDurationMs = m_params.leaseDurationMs;
    // A handover asked for reaches the leader by the conflict of a renewal,
    // which then hands over; a renewal that succeeds has none left to keep.
    record.successor.clear();
    record.handoverRequestedBy.clear();
    send(out, Request::Kind::Renew, action::Update {0, record, m_lease.state().version});
}

void Elector::continueAcquisition(ElectorActions &out, bool afterRead)
{
    if (!campaigning()) {
        // F5: once stop() has begun, the only write is the release. A read
        // sent before the stop must not lead to an acquisition that nobody
        // would renew or release: the others would wait a whole lease.
        return;
    }
    if (!m_lease.known()) {
        send(out, Request::Kind::Read, action::Read {0});
        return;
    }
    const LeaseState &observed = m_lease.state();
    if (!mayAcquire()) {
        // H3: standing by, it still reads, to see a reservation made for it.
        if (afterRead)
            finishAttempt(out, AttemptOutcome::Held);
        else
            send(out, Request::Kind::Read, action::Read {0});
        return;
    }
    if (!observed.exists) {
        const LeaseRecord record = acquisitionRecord(0);
        send(out, Request::Kind::Acquire, action::Create {0, record, m_lease.recordedChange(record)});
        return;
    }
    // R5: a record with our identity but another incarnation is another
    // process's, and waits for its expiry like any other holder's. Our own
    // record with a handover asked for is not taken back (H1): it was
    // asked away from this instance, which lost its leadership before it
    // could hand it over; it expires like any other.
    const bool ownAskedAway = m_lease.isMine(observed.record) && !observed.record.successor.isEmpty()
            && observed.record.successor != m_params.identity;
    if (m_lease.freeForMe() || (m_lease.isMine(observed.record) && !ownAskedAway)
        || m_lease.expired()) {
        const LeaseRecord record = acquisitionRecord(observed.record.transitions + 1);
        send(out, Request::Kind::Acquire,
             action::Update {0, record, observed.version, m_lease.recordedChange(record)});
        return;
    }
    if (!afterRead) {
        send(out, Request::Kind::Read, action::Read {0});
        return;
    }
    finishAttempt(out, AttemptOutcome::Held);
}

LeaseRecord Elector::acquisitionRecord(qint64 transitions) const
{
    LeaseRecord record;
    record.holder = m_params.identity;
    record.holderIncarnation = m_params.incarnation;
    record.leaseDurationMs = m_params.leaseDurationMs;
    record.acquireTime = m_clock.wallNow();
    record.renewTime = record.acquireTime;
    record.transitions = transitions;
    return record;
}

void Elector::finishAttempt(ElectorActions &out, AttemptOutcome outcome, QString error,
                            LeaseReply::ErrorKind why)
{
    Q_ASSERT(!m_inFlight);
    out.push_back(action::AttemptFinished {outcome, now() - m_attemptStart, std::move(error), why});
    // F8: a watched lease found held needs no poll: the watch's events and
    // the expiry instant (scheduleNextAttempt) bring the next attempt. The
    // read that checks the watch comes one renew interval within a lease,
    // so that the store is heard from within every lease duration (/readyz).
    const bool watchedAndHeld = m_followedByWatch && outcome == AttemptOutcome::Held;
    const qint64 pause = watchedAndHeld ? std::max(m_params.renewIntervalMs,
                                                   m_params.leaseDurationMs - m_params.renewIntervalMs)
                                        : m_params.renewIntervalMs;
    m_nextAttempt = std::max(now(), m_attemptStart + pause);
    // The leases one process holds renew together where the protocol
    // carries a slot's renewals in a few requests (etcd's txn).
    if (m_state != State::Leading)
        scheduleNextAttempt();
    else if (m_params.renewTogether)
        m_nextAttempt = std::max(now(), renewalSlotStart(m_nextAttempt, m_params.renewIntervalMs));
}

void Elector::scheduleNextAttempt()
{
    if (m_state == State::Leading || !m_lease.known() || !m_lease.state().exists)
        return;
    // Standing by, a free or expired lease is no reason to attempt: it
    // reads every renew interval, for a reservation (H3).
    if (!mayAcquire())
        return;
    if (m_lease.freeForMe()) {
        m_nextAttempt = now();
        return;
    }
    // F8: attempt at the instant the current lease expires, not at the next
    // tick after it.
    const qint64 expiry = m_lease.expiryMono();
    if (expiry > now())
        m_nextAttempt = std::min(m_nextAttempt, expiry);
}

void Elector::becomeLeader(const LeaseState &state, ElectorActions &out)
{
    moveTo(State::Leading);
    m_token = state.record.transitions;
    m_validUntil = m_attemptStart + stepDownDelay();
    out.push_back(action::BecameLeader {m_token, m_validUntil});
}

void Elector::stepDown(StopReason reason, ElectorActions &out)
{
    moveTo(State::Following);
    m_token = -1;
    out.push_back(action::StoppedLeading {reason, std::min(m_validUntil, now())});
}

void Elector::send(ElectorActions &out, Request::Kind kind, ElectorAction request)
{
    if (kind == Request::Kind::Release) {
        if (m_state != State::HandingOver) // the handover's write keeps its state
            moveTo(State::Releasing);
    }
    else if (kind == Request::Kind::Renew)
        Q_ASSERT(m_state == State::Leading);
    else
        moveTo(State::Acquiring);
    m_inFlight = Request {kind, now()};
    m_otherSeenDuringRequest = false;
    const quint64 id = ++m_request;
    std::visit(
            [id](auto &a) {
                if constexpr (requires { a.request; })
                    a.request = id;
            },
            request);
    out.push_back(std::move(request));
}

} // namespace baton
