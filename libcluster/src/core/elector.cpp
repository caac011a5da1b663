#include "elector.h"

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
    return (m_params.leaseDurationMs + m_params.renewIntervalMs) / 2;
}

qint64 Elector::requestTimeout() const
{
    // F3: a leader that has no answer within leaseDuration - renewInterval
    // stops leading; followers use the same bound so that a lost reply never
    // stalls the election.
    return m_params.leaseDurationMs - m_params.renewIntervalMs;
}

ElectorActions Elector::start()
{
    ElectorActions out;
    if (m_started)
        return out;
    m_started = true;
    beginAttempt(out); // F1: the first attempt runs at start
    return out;
}

ElectorActions Elector::onTimer()
{
    ElectorActions out;
    enforceDeadline(out);
    if (!m_started)
        return out;
    if (m_step != Step::None && now() >= m_requestStart + requestTimeout()) {
        const Step timedOut = m_step;
        ++m_request; // a late reply to the abandoned request is ignored
        m_step = Step::None;
        const QString message =
                QStringLiteral("no answer within %1 ms").arg(requestTimeout());
        if (timedOut == Step::Release) {
            out.push_back(action::ReleaseFinished {false, message});
        } else {
            if (m_leading)
                stepDown(StopReason::RenewFailed, out);
            finishAttempt(out, AttemptOutcome::Error, message);
            if (m_releaseRequested)
                startRelease(out); // the write it waited for will never answer
        }
    }
    if (m_step == Step::None && !m_stopping && now() >= m_nextAttempt)
        beginAttempt(out);
    return out;
}

ElectorActions Elector::onReply(quint64 request, const LeaseReply &reply)
{
    ElectorActions out;
    enforceDeadline(out);
    if (m_step == Step::None || request != m_request)
        return out; // late: the attempt it belonged to has been given up

    const Step step = m_step;
    m_step = Step::None;
    switch (step) {
    case Step::Read:
        handleReadReply(reply, out);
        break;
    case Step::Write:
        handleWriteReply(reply, out);
        break;
    case Step::Release:
        handleReleaseReply(reply, out);
        break;
    case Step::None:
        break;
    }
    return out;
}

void Elector::handleReadReply(const LeaseReply &reply, ElectorActions &out)
{
    if (reply.outcome != LeaseReply::Outcome::Ok) {
        finishAttempt(out, AttemptOutcome::Error,
                      reply.errorString.isEmpty() ? QStringLiteral("read refused")
                                                  : reply.errorString);
        return;
    }
    m_lease.observe(reply.state, out);
    m_readThisAttempt = true;
    continueAttempt(out);
}

void Elector::handleWriteReply(const LeaseReply &reply, ElectorActions &out)
{
    switch (reply.outcome) {
    case LeaseReply::Outcome::Ok: {
        if (!reply.state.exists || !m_lease.isMine(reply.state.record)) {
            // R5: a store (or something in front of it: an admission webhook
            // that strips unknown annotations) that answers our write with a
            // record that is not ours would leave this instance leading on a
            // lease it cannot recognise, renew or release. Never lead on it.
            m_lease.forget();
            if (m_leading)
                stepDown(StopReason::RenewFailed, out);
            finishAttempt(out, AttemptOutcome::Error,
                          QStringLiteral("the store answered the write with a record that is not "
                                         "this instance's (holder \"%1\", incarnation \"%2\"): "
                                         "something between this instance and the store rewrites it")
                                  .arg(reply.state.record.holder, reply.state.record.holderIncarnation));
            break;
        }
        m_lease.observe(reply.state, out);
        if (m_attemptIsRenewal) {
            if (!m_leading) {
                // F4: the deadline passed while the renewal was on its way;
                // its success must not make this instance leader again.
                finishAttempt(out, AttemptOutcome::Error,
                              QStringLiteral("renewal answered after the step-down deadline"));
                m_nextAttempt = now();
                return;
            }
            m_validUntil = m_attemptStart + stepDownDelay();
            finishAttempt(out, AttemptOutcome::Renewed);
            return;
        }
        if (now() >= m_attemptStart + stepDownDelay()) {
            finishAttempt(out, AttemptOutcome::Error,
                          QStringLiteral("acquisition answered after the step-down deadline"));
            m_nextAttempt = now();
            // A stop that waited for this answer ends now: nothing else
            // would wake it (a follower arms no deadline timer).
            if (m_releaseRequested)
                startRelease(out);
            return;
        }
        if (m_stopping) {
            // F5: a stopping instance never starts leading. The lease it won
            // is given back at once: nothing ran under it, so the release may
            // come as late as the authority the write would have given.
            m_validUntil = m_attemptStart + stepDownDelay();
            finishAttempt(out, AttemptOutcome::Acquired);
            if (m_releaseRequested)
                startRelease(out);
            return;
        }
        becomeLeader(reply.state, out);
        finishAttempt(out, AttemptOutcome::Acquired);
        return;
    }
    case LeaseReply::Outcome::Conflict:
        if (reply.stateKnown)
            m_lease.observe(reply.state, out);
        else
            m_lease.forget(); // read again before the next write
        if (m_leading)
            stepDown(StopReason::TakenOver, out); // F3
        finishAttempt(out, AttemptOutcome::Conflict);
        break;
    case LeaseReply::Outcome::Error:
        if (m_leading)
            stepDown(StopReason::RenewFailed, out); // F3
        finishAttempt(out, AttemptOutcome::Error, reply.errorString);
        break;
    }
    if (m_releaseRequested)
        startRelease(out);
}

ElectorActions Elector::onWatch(const LeaseState &state)
{
    ElectorActions out;
    enforceDeadline(out);
    if (!m_started)
        return out;
    if (!m_lease.differsFrom(state))
        return out;
    if (m_leading) {
        // A watch event may be older than the reply that made this instance
        // leader, and versions are opaque, so it cannot tell the truth by
        // itself: the conditional renewal it triggers does (F3, F8).
        if (!state.exists || !m_lease.isMine(state.record))
            m_nextAttempt = now();
        return out;
    }
    m_lease.observe(state, out);
    // F8: a release is seen at once and taken at once; any other change
    // re-arms the expiry instant from now.
    const bool free = !state.exists || state.record.holder.isEmpty();
    if (!m_stopping && free) {
        m_nextAttempt = now();
        // A request that may be lost must not hold the takeover back until
        // its timeout: every write is conditional, so giving it up is safe
        // even if it was applied.
        if (m_step == Step::Read || m_step == Step::Write) {
            ++m_request;
            m_step = Step::None;
            finishAttempt(out, AttemptOutcome::Error,
                          QStringLiteral("abandoned: the lease was seen free meanwhile"));
            m_nextAttempt = now();
        }
    } else {
        scheduleNextAttempt();
    }
    if (m_step == Step::None && !m_stopping && now() >= m_nextAttempt)
        beginAttempt(out);
    return out;
}

bool Elector::isLeader() const
{
    return m_leading && now() < m_validUntil;
}

std::optional<qint64> Elector::nextWakeMono() const
{
    if (!m_started)
        return std::nullopt;
    std::optional<qint64> wake;
    auto consider = [&wake](qint64 instant) {
        wake = wake ? std::min(*wake, instant) : instant;
    };
    if (m_leading)
        consider(m_validUntil);
    if (m_step != Step::None)
        consider(m_requestStart + requestTimeout());
    else if (!m_stopping)
        consider(m_nextAttempt);
    return wake;
}

void Elector::enforceDeadline(ElectorActions &out)
{
    // F4: checked on every entry, so that a process resuming from a freeze
    // steps down before it acts on anything else.
    if (m_leading && now() >= m_validUntil)
        stepDown(StopReason::Deadline, out);
}

void Elector::beginAttempt(ElectorActions &out)
{
    m_attemptStart = now();
    m_readThisAttempt = false;
    m_attemptIsRenewal = m_leading;
    continueAttempt(out);
}

void Elector::continueAttempt(ElectorActions &out)
{
    if (m_stopping) {
        // F5: once stop() has begun, the only write is the release. A read
        // sent before the stop must not lead to an acquisition that nobody
        // would renew or release: the others would wait a whole lease.
        m_step = Step::None;
        return;
    }
    if (m_attemptIsRenewal) {
        if (!m_leading) {
            finishAttempt(out, AttemptOutcome::Error, QStringLiteral("no longer leading"));
            return;
        }
        LeaseRecord record = m_lease.state().record;
        record.renewTime = m_clock.wallNow();
        record.leaseDurationMs = m_params.leaseDurationMs;
        send(out, Step::Write, action::Update {0, record, m_lease.state().version});
        return;
    }
    if (!m_lease.known()) {
        send(out, Step::Read, action::Read {0});
        return;
    }
    if (!m_lease.state().exists) {
        const LeaseRecord record = acquisitionRecord(0);
        send(out, Step::Write, action::Create {0, record, m_lease.recordedChange(record)});
        return;
    }
    // R5: a record with our identity but another incarnation is another
    // process's, and waits for its expiry like any other holder's.
    const LeaseState &observed = m_lease.state();
    if (observed.record.holder.isEmpty() || m_lease.isMine(observed.record) || m_lease.expired()) {
        const LeaseRecord record = acquisitionRecord(m_lease.state().record.transitions + 1);
        send(out, Step::Write,
             action::Update {0, record, m_lease.state().version, m_lease.recordedChange(record)});
        return;
    }
    if (!m_readThisAttempt) {
        send(out, Step::Read, action::Read {0});
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

void Elector::finishAttempt(ElectorActions &out, AttemptOutcome outcome, QString error)
{
    m_step = Step::None;
    out.push_back(action::AttemptFinished {outcome, now() - m_attemptStart, std::move(error)});
    m_nextAttempt = std::max(now(), m_attemptStart + m_params.renewIntervalMs);
    if (!m_leading)
        scheduleNextAttempt();
}

void Elector::scheduleNextAttempt()
{
    if (m_leading || !m_lease.known() || !m_lease.state().exists)
        return;
    if (m_lease.state().record.holder.isEmpty()) {
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
    m_leading = true;
    m_token = state.record.transitions;
    m_validUntil = m_attemptStart + stepDownDelay();
    out.push_back(action::BecameLeader {m_token, m_validUntil});
}

void Elector::stepDown(StopReason reason, ElectorActions &out)
{
    m_leading = false;
    out.push_back(action::StoppedLeading {reason, std::min(m_validUntil, now())});
}

quint64 Elector::send(ElectorActions &out, Step step, ElectorAction request)
{
    m_step = step;
    m_requestStart = now();
    const quint64 id = ++m_request;
    std::visit(
            [id](auto &a) {
                if constexpr (requires { a.request; })
                    a.request = id;
            },
            request);
    out.push_back(std::move(request));
    return id;
}

} // namespace baton
