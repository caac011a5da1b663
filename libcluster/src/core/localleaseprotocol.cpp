#include "localleaseprotocol.h"

namespace baton {

LocalLeaseBackend::LocalLeaseBackend(const QString &leaseName, QObject *parent)
    : LeaseBackend(parent)
    , m_leaseName(leaseName)
{
    // A free lease that counted no term yet: the first term's fencing token
    // is 0, as it always was for the only instance.
    m_state.exists = true;
    m_state.record.transitions = -1;
    m_state.version = QString::number(m_writes);
}

QString LocalLeaseBackend::describe() const
{
    return QStringLiteral("cluster:%1 in this process only").arg(m_leaseName);
}

void LocalLeaseBackend::read(Callback done)
{
    answer(std::move(done), LeaseReply::ok(m_state));
}

void LocalLeaseBackend::create(const LeaseRecord &record, const std::optional<HistoryEntry> &change,
                               Callback done)
{
    Q_UNUSED(change); // no history: nobody else will ever hold this lease
    answer(std::move(done), m_state.exists ? LeaseReply::conflict(m_state) : write(record));
}

void LocalLeaseBackend::update(const LeaseRecord &record, const QString &version,
                               const std::optional<HistoryEntry> &change, Callback done)
{
    Q_UNUSED(change);
    answer(std::move(done),
           version == m_state.version ? write(record) : LeaseReply::conflict(m_state));
}

bool LocalLeaseBackend::startWatching()
{
    return true;
}

LeaseReply LocalLeaseBackend::write(const LeaseRecord &record)
{
    m_state.exists = true;
    m_state.record = record;
    m_state.version = QString::number(++m_writes);
    return LeaseReply::ok(m_state);
}

void LocalLeaseBackend::answer(Callback done, LeaseReply reply)
{
    // As every backend: the answer comes on a later event-loop turn.
    QMetaObject::invokeMethod(
            this, [done = std::move(done), reply = std::move(reply)] { done(reply); },
            Qt::QueuedConnection);
}

} // namespace baton
