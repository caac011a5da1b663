#include "elector.h"

#include <baton/clock.h>

namespace baton {

namespace {

// client-go writes one second into a released lease; readers that judge
// expiry by the record then free it at once, as an empty holder does here.
constexpr qint64 releasedLeaseDurationMs = 1000;
// A release that loses a race only against our own in-flight renewal is
// retried with the newer version; anything else is left to expire.
constexpr int maxReleaseRetries = 3;

} // namespace

void Elector::handleReleaseReply(const LeaseReply &reply, ElectorActions &out)
{
    if (reply.outcome == LeaseReply::Outcome::Ok) {
        m_lease.observe(reply.state, out);
        finishRelease(out, true, {});
        return;
    }
    if (reply.outcome == LeaseReply::Outcome::Conflict && reply.stateKnown) {
        m_lease.observe(reply.state, out);
        if (reply.state.exists && m_lease.isMine(reply.state.record)
            && ++m_releaseRetries <= maxReleaseRetries) {
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
    if (!stopping())
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
    LeaseRecord record = m_lease.state().record;
    record.holder.clear();
    record.holderIncarnation.clear();
    record.leaseDurationMs = releasedLeaseDurationMs;
    record.renewTime = m_clock.wallNow();
    record.acquireTime = record.renewTime;
    send(out, Request::Kind::Release, action::Update {0, record, m_lease.state().version});
}

void Elector::finishRelease(ElectorActions &out, bool released, QString detail)
{
    out.push_back(action::ReleaseFinished {released, std::move(detail)});
    moveTo(State::Stopped);
}

} // namespace baton
