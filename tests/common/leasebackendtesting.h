#pragma once

#include "leaseprotocol.h"
#include "leaserecord.h"

#include <QDateTime>

#include <QTest>

#include <optional>

namespace baton::test {

/*! The reply of one LeaseBackend request, waited for with the event loop. */
class ReplyWaiter
{
public:
    LeaseBackend::Callback callback()
    {
        return [this](const LeaseReply &reply) { m_reply = reply; };
    }
    bool wait()
    {
        return QTest::qWaitFor([this] { return m_reply.has_value(); }, 5000);
    }
    const LeaseReply &reply() const { return *m_reply; }

private:
    std::optional<LeaseReply> m_reply;
};

/*! A record of \a holder's term \a transitions, a 3 s lease taken and renewed now. */
inline LeaseRecord heldRecord(const QString &holder, qint64 transitions)
{
    LeaseRecord record;
    record.holder = holder;
    record.leaseDurationMs = 3000;
    record.acquireTime = QDateTime::currentDateTimeUtc();
    record.renewTime = record.acquireTime;
    record.transitions = transitions;
    return record;
}

} // namespace baton::test
