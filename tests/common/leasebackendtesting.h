#pragma once

#include "leaseprotocol.h"
#include "leaserecord.h"

#include <QDateTime>
#include <QObject>

#include <QTest>

#include <memory>
#include <optional>

namespace baton::test {

/*! The reply of one LeaseProtocol request, waited for with the event loop. */
class ReplyWaiter
{
public:
    LeaseProtocol::Callback callback()
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

/*!
 * One lease of a real LeaseProtocol, asked as the election's driver asks
 * it: its requests name the lease, and its watch's news are kept as the
 * states the driver would hand the Elector.
 */
class OneLease
{
public:
    OneLease(std::unique_ptr<LeaseProtocol> protocol, const QString &name)
        : m_protocol(std::move(protocol))
        , m_name(name)
    {
    }

    LeaseProtocol &protocol() const { return *m_protocol; }
    void read(LeaseProtocol::Callback done) { m_protocol->get(m_name, std::move(done)); }
    void create(const LeaseRecord &record, const std::optional<HistoryEntry> &change,
                LeaseProtocol::Callback done)
    {
        m_protocol->create(m_name, record, change, std::move(done));
    }
    void update(const LeaseRecord &record, const QString &version,
                const std::optional<HistoryEntry> &change, LeaseProtocol::Callback done)
    {
        m_protocol->update(m_name, record, version, change, std::move(done));
    }
    /*! Starts the watch of this lease; false when the protocol cannot watch. */
    bool startWatching()
    {
        if (m_watch)
            return true;
        m_watch = m_protocol->watch(m_name, &m_context);
        if (!m_watch)
            return false;
        QObject::connect(m_watch, &LeaseWatch::changed, &m_context, [this](const SourcedLease &lease) {
            if (lease.valid)
                m_states.append(lease.state());
        });
        QObject::connect(m_watch, &LeaseWatch::removed, &m_context,
                         [this] { m_states.append(LeaseState {}); });
        QObject::connect(m_watch, &LeaseWatch::listed, &m_context, [this](const QList<SourcedLease> &leases) {
            for (const SourcedLease &lease : leases)
                if (lease.name == m_name) {
                    if (lease.valid)
                        m_states.append(lease.state());
                    return;
                }
            m_states.append(LeaseState {});
        });
        return true;
    }
    /*! What the watch told, oldest first. */
    const QList<LeaseState> &changes() const { return m_states; }

private:
    std::unique_ptr<LeaseProtocol> m_protocol;
    QString m_name;
    // After the protocol: the watch goes first.
    QObject m_context;
    LeaseWatch *m_watch = nullptr;
    QList<LeaseState> m_states;
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
