// The Elector's answers to the replies of its requests: reads, acquiring
// writes and renewals (releases and handovers are in their own files).
#include "elector.h"

#include <baton/clock.h>

namespace baton {

ElectorActions Elector::onReply(quint64 request, const LeaseReply &reply)
{
    ElectorActions out;
    enforceDeadline(out);
    if (!m_inFlight || request != m_request)
        return out; // late: the attempt it belonged to has been given up

    switch (endRequest().kind) {
    case Request::Kind::Read:
        handleReadReply(reply, out);
        break;
    case Request::Kind::Acquire:
        handleWriteReply(reply, /*renewal=*/false, out);
        break;
    case Request::Kind::Renew:
        handleWriteReply(reply, /*renewal=*/true, out);
        break;
    case Request::Kind::Release:
        handleReleaseReply(reply, out);
        break;
    }
    return checked(std::move(out));
}

void Elector::handleReadReply(const LeaseReply &reply, ElectorActions &out)
{
    if (reply.outcome != LeaseReply::Outcome::Ok) {
        finishAttempt(out, AttemptOutcome::Error,
                      reply.errorString.isEmpty() ? QStringLiteral("read refused")
                                                  : reply.errorString,
                      reply.errorKind);
        return;
    }
    m_lease.observe(reply.state, out);
    continueAcquisition(out, /*afterRead=*/true);
}

void Elector::handleWriteReply(const LeaseReply &reply, bool renewal, ElectorActions &out)
{
    switch (reply.outcome) {
    case LeaseReply::Outcome::Ok: {
        if (!reply.state.exists || !m_lease.isMine(reply.state.record)) {
            // R5: a store (or something in front of it: an admission webhook
            // that strips unknown annotations) that answers our write with a
            // record that is not ours would leave this instance leading on a
            // lease it cannot recognise, renew or release. Never lead on it.
            m_lease.forget();
            if (m_state == State::Leading)
                stepDown(StopReason::RenewFailed, out);
            finishAttempt(out, AttemptOutcome::Error,
                          QStringLiteral("the store answered the write with a record that is not "
                                         "this instance's (holder \"%1\", incarnation \"%2\"): "
                                         "something between this instance and the store rewrites it")
                                  .arg(reply.state.record.holder, reply.state.record.holderIncarnation));
            break;
        }
        m_lease.observe(reply.state, out);
        if (renewal) {
            if (m_state == State::HandingOver) {
                // Sent before the handover began: the handover writes on
                // the version it made, and the leadership stays given up.
                finishAttempt(out, AttemptOutcome::Renewed);
                handOverIfAsked(out);
                return;
            }
            if (m_state != State::Leading) {
                // F4: the deadline passed while the renewal was on its way;
                // its success must not make this instance leader again.
                finishAttempt(out, AttemptOutcome::Error,
                              QStringLiteral("renewal answered after the step-down deadline"));
                m_nextAttempt = now();
                return;
            }
            m_validUntil = m_attemptStart + stepDownDelay();
            finishAttempt(out, AttemptOutcome::Renewed);
            if (m_otherSeenDuringRequest)
                m_nextAttempt = now();
            return;
        }
        if (now() >= m_attemptStart + stepDownDelay()) {
            finishAttempt(out, AttemptOutcome::Error,
                          QStringLiteral("acquisition answered after the step-down deadline"));
            m_nextAttempt = now();
            // A stop that waited for this answer ends now: nothing else
            // would wake it (a follower arms no deadline timer).
            releaseIfAsked(out);
            return;
        }
        if (stopping()) {
            // F5: a stopping instance never starts leading. The lease it won
            // is given back at once: nothing ran under it, so the release may
            // come as late as the authority the write would have given.
            m_validUntil = m_attemptStart + stepDownDelay();
            finishAttempt(out, AttemptOutcome::Acquired);
            releaseIfAsked(out);
            return;
        }
        becomeLeader(reply.state, out);
        finishAttempt(out, AttemptOutcome::Acquired);
        if (m_otherSeenDuringRequest)
            m_nextAttempt = now();
        return;
    }
    case LeaseReply::Outcome::Conflict:
        if (reply.stateKnown)
            m_lease.observe(reply.state, out);
        else
            m_lease.forget(); // read again before the next write
        if (m_state == State::Leading && renewal && m_lease.heldByMe()) {
            // Still ours: someone wrote the record without taking it, as an
            // operator asking for a handover does. That never ends a
            // leadership; the renewal is sent again at once on the new
            // version, unless the write asked this instance to hand over.
            finishAttempt(out, AttemptOutcome::Conflict);
            const LeaseRecord &record = m_lease.state().record;
            if (!record.successor.isEmpty() && record.successor != m_params.identity)
                beginHandover(out, record.successor, record.handoverRequestedBy);
            else
                m_nextAttempt = now();
            break;
        }
        if (m_state == State::Leading)
            stepDown(StopReason::TakenOver, out); // F3
        finishAttempt(out, AttemptOutcome::Conflict);
        break;
    case LeaseReply::Outcome::Error:
        if (m_state == State::Leading)
            stepDown(StopReason::RenewFailed, out); // F3
        finishAttempt(out, AttemptOutcome::Error, reply.errorString, reply.errorKind);
        break;
    }
    releaseIfAsked(out);
    handOverIfAsked(out);
}

} // namespace baton
