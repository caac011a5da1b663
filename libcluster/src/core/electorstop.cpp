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
        out.push_back(action::ReleaseFinished {true, {}});
        return;
    }
    if (reply.outcome == LeaseReply::Outcome::Conflict && reply.stateKnown) {
        m_lease.observe(reply.state, out);
        if (reply.state.exists && m_lease.isMine(reply.state.record)
            && ++m_releaseRetries <= maxReleaseRetries) {
            startRelease(out, /*retry=*/true);
            return;
        }
        out.push_back(action::ReleaseFinished {false, QStringLiteral("the lease changed hands")});
        return;
    }
    out.push_back(action::ReleaseFinished {false, reply.errorString.isEmpty()
                                                          ? QStringLiteral("release refused")
                                                          : reply.errorString});
}

ElectorActions Elector::stop()
{
    ElectorActions out;
    enforceDeadline(out);
    m_stopping = true;
    if (m_leading)
        stepDown(StopReason::Stopping, out);
    return out;
}

ElectorActions Elector::release()
{
    ElectorActions out;
    enforceDeadline(out);
    m_releaseRequested = true;
    // A write on its way may be winning the lease right now: its answer
    // decides whether there is anything to release.
    if (m_step == Step::Write && !m_attemptIsRenewal)
        return out;
    startRelease(out);
    return out;
}

void Elector::startRelease(ElectorActions &out, bool retry)
{
    m_releaseRequested = false;
    if (!m_lease.heldByMe()) {
        out.push_back(action::ReleaseFinished {false, QStringLiteral("not the holder")});
        return;
    }
    if (now() >= m_validUntil) {
        // F5: never past the deadline. Others may already act on the lease's
        // expiry, and leader work that outlived it must not be followed by
        // a release that makes the lease free at once.
        out.push_back(action::ReleaseFinished {
                false, QStringLiteral("past the step-down deadline; the lease is left to expire")});
        return;
    }
    if (!retry)
        m_releaseRetries = 0;
    sendRelease(out);
}

void Elector::sendRelease(ElectorActions &out)
{
    LeaseRecord record = m_lease.state().record;
    record.holder.clear();
    record.holderIncarnation.clear();
    record.leaseDurationMs = releasedLeaseDurationMs;
    record.renewTime = m_clock.wallNow();
    record.acquireTime = record.renewTime;
    send(out, Step::Release, action::Update {0, record, m_lease.state().version});
}

} // namespace baton
