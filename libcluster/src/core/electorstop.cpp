#include "elector.h"

#include <baton/clock.h>

namespace baton {

void Elector::handleReleaseReply(const LeaseReply &reply, ElectorActions &out)
{
    if (m_state == State::HandingOver) {
        handleHandoverReply(reply, out);
        return;
    }
    if (reply.outcome == LeaseReply::Outcome::Ok) {
        m_lease.observe(reply.state, out);
        finishRelease(out, true, {});
        return;
    }
    if (reply.outcome == LeaseReply::Outcome::Conflict && reply.stateKnown) {
        m_lease.observe(reply.state, out);
        if (reply.state.exists && m_lease.isMine(reply.state.record)
            && ++m_releaseRetries <= kMaxReleaseRetries) {
            startRelease(out, /*retry=*/true);
            return;
        }
        finishRelease(out, false, QStringLiteral("the lease changed hands"));
        return;
    }
    finishRelease(out, false,
                  reply.errorString.isEmpty() ? QStringLiteral("release refused")
                                              : reply.errorString);
}

ElectorActions Elector::stop()
{
    ElectorActions out;
    enforceDeadline(out);
    if (m_state == State::Leading)
        stepDown(StopReason::Stopping, out);
    if (m_state == State::HandingOver && inFlight(Request::Kind::Release))
        moveTo(State::Releasing); // the handover's write on its way is the release
    else if (!stopping())
        moveTo(State::Stopping);
    return checked(std::move(out));
}

ElectorActions Elector::release()
{
    ElectorActions out;
    enforceDeadline(out);
    Q_ASSERT(stopping()); // the driver stops first (F5)
    // A write on its way may be winning the lease right now: its answer
    // decides whether there is anything to release.
    if (inFlight(Request::Kind::Acquire)) {
        moveTo(State::Releasing);
        return checked(std::move(out));
    }
    if (inFlight(Request::Kind::Release))
        return checked(std::move(out)); // a handover's write, already giving the lease up
    startRelease(out);
    return checked(std::move(out));
}

void Elector::releaseIfAsked(ElectorActions &out)
{
    // Releasing with nothing on its way: the acquiring write that release()
    // waited for has been answered or given up.
    if (m_state == State::Releasing && !m_inFlight)
        startRelease(out);
}

LeaseRecord Elector::freedRecord() const
{
    LeaseRecord record = m_lease.state().record;
    record.holder.clear();
    record.holderIncarnation.clear();
    record.successor.clear(); // a stop keeps the lease for nobody
    record.handoverRequestedBy.clear();
    record.leaseDurationMs = kReleasedLeaseDurationMs;
    record.renewTime = m_clock.wallNow();
    record.acquireTime = record.renewTime;
    return record;
}

void Elector::startRelease(ElectorActions &out, bool retry)
{
    if (!m_lease.heldByMe()) {
        finishRelease(out, false, QStringLiteral("not the holder"));
        return;
    }
    if (now() >= m_validUntil) {
        // F5: never past the deadline. Others may already act on the lease's
        // expiry, and leader work that outlived it must not be followed by
        // a release that makes the lease free at once.
        finishRelease(out, false,
                      QStringLiteral("past the step-down deadline; the lease is left to expire"));
        return;
    }
    if (!retry)
        m_releaseRetries = 0;
    send(out, Request::Kind::Release, action::Update {0, freedRecord(), m_lease.state().version});
}

void Elector::finishRelease(ElectorActions &out, bool released, QString detail)
{
    out.push_back(action::ReleaseFinished {released, std::move(detail)});
    moveTo(State::Stopped);
}

} // namespace baton
