// The Elector's handover to a named successor (H1): stop leading as for a
// release, then write the lease free and kept for the successor alone.
#include "elector.h"

#include <baton/clock.h>

#include <algorithm>

namespace baton {

ElectorActions Elector::requestHandover(const QString &to, const QString &by)
{
    ElectorActions out;
    enforceDeadline(out);
    if (m_state == State::Leading && !to.isEmpty() && to != m_params.identity)
        beginHandover(out, to, by);
    return checked(std::move(out));
}

void Elector::beginHandover(ElectorActions &out, const QString &to, const QString &by)
{
    m_successor = to;
    m_handoverBy = by;
    m_handoverAsked = false;
    m_releaseRetries = 0;
    out.push_back(action::HandoverRequested {to, by});
    // As a stop's step-down (F5): the work ends before the lease is given.
    moveTo(State::HandingOver);
    m_token = -1;
    out.push_back(action::StoppedLeading {StopReason::HandedOver, std::min(m_validUntil, now())});
}

ElectorActions Elector::handOver()
{
    ElectorActions out;
    enforceDeadline(out);
    if (m_state != State::HandingOver || m_handoverAsked)
        return checked(std::move(out));
    m_handoverAsked = true;
    // A renewal on its way changes the version: the write waits for its answer.
    if (!m_inFlight)
        startHandover(out);
    return checked(std::move(out));
}

void Elector::handOverIfAsked(ElectorActions &out)
{
    if (m_state == State::HandingOver && m_handoverAsked && !m_inFlight)
        startHandover(out);
}

void Elector::startHandover(ElectorActions &out, bool retry)
{
    if (!m_lease.heldByMe()) {
        finishHandover(out, false, QStringLiteral("not the holder any more"));
        return;
    }
    if (now() >= m_validUntil) {
        // F5: never past the deadline, where others may act on the expiry.
        finishHandover(out, false,
                       QStringLiteral("past the step-down deadline; the lease is left to expire"));
        return;
    }
    if (!retry)
        m_releaseRetries = 0;
    LeaseRecord record = freedRecord();
    if (m_successor != anySuccessor) {
        // The reservation lasts one lease duration from when each reader
        // sees it, by its own clock: a successor that is gone costs no more.
        record.successor = m_successor;
        record.handoverRequestedBy = m_handoverBy;
        record.leaseDurationMs = m_params.leaseDurationMs;
    }
    send(out, Request::Kind::Release, action::Update {0, record, m_lease.state().version});
}

void Elector::handleHandoverReply(const LeaseReply &reply, ElectorActions &out)
{
    if (reply.outcome == LeaseReply::Outcome::Ok) {
        m_lease.observe(reply.state, out);
        finishHandover(out, true, {});
        return;
    }
    if (reply.outcome == LeaseReply::Outcome::Conflict && reply.stateKnown) {
        m_lease.observe(reply.state, out);
        if (m_lease.heldByMe() && ++m_releaseRetries <= kMaxReleaseRetries) {
            startHandover(out, /*retry=*/true);
            return;
        }
        finishHandover(out, false, QStringLiteral("the lease changed hands"));
        return;
    }
    finishHandover(out, false,
                   reply.errorString.isEmpty() ? QStringLiteral("handover refused")
                                               : reply.errorString);
}

void Elector::finishHandover(ElectorActions &out, bool done, QString detail)
{
    out.push_back(action::HandedOver {m_successor, done, std::move(detail)});
    moveTo(State::Following);
    m_handoverAsked = false;
    // Back to following: a lease kept for another is awaited like a held one.
    m_nextAttempt = now();
    if (m_lease.known() && !m_lease.freeForMe())
        m_nextAttempt = std::max(now(), m_lease.expiryMono());
}

void Elector::giveUpLateHandover(ElectorActions &out)
{
    // The deregistered callbacks did not end before the deadline: the lease
    // is left to expire, as a stop leaves it (F5).
    if (m_state == State::HandingOver && !m_inFlight && now() >= m_validUntil)
        finishHandover(out, false,
                       QStringLiteral("deregistered callbacks still running at the step-down "
                                      "deadline; the lease is left to expire"));
}

} // namespace baton
