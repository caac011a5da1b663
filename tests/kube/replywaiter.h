#pragma once

#include "leasebackend.h"

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

} // namespace baton::test
