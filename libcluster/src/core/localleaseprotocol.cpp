#include "localleaseprotocol.h"

namespace baton {

namespace {

/*! Follows a lease that only its own candidate writes: never a change to tell. */
class SilentLeaseWatch final : public LeaseWatch
{
    Q_OBJECT
public:
    using LeaseWatch::LeaseWatch;
    void list() override
    {
        QMetaObject::invokeMethod(this, [this] { Q_EMIT listed({}); }, Qt::QueuedConnection);
    }
    bool isWatching() const override { return true; }
};

} // namespace

LocalLeaseProtocol::LocalLeaseProtocol(QObject *parent)
    : LeaseProtocol(parent)
{
}

QString LocalLeaseProtocol::describe() const
{
    return QStringLiteral("cluster:* in this process only");
}

QString LocalLeaseProtocol::describeLease(const QString &name) const
{
    return QStringLiteral("cluster:%1 in this process only").arg(name);
}

LeaseState &LocalLeaseProtocol::stateOf(const QString &name)
{
    auto it = m_leases.find(name);
    if (it == m_leases.end()) {
        // A free lease that counted no term yet: the first term's fencing
        // token is 0, as it always was for the only instance.
        LeaseState free;
        free.exists = true;
        free.record.transitions = -1;
        free.version = QString::number(0);
        it = m_leases.insert(name, free);
    }
    return *it;
}

void LocalLeaseProtocol::get(const QString &name, Callback done)
{
    answer(std::move(done), LeaseReply::ok(stateOf(name)));
}

void LocalLeaseProtocol::create(const QString &name, const LeaseRecord &record,
                                const std::optional<HistoryEntry> &change, Callback done)
{
    Q_UNUSED(change); // no history: nobody else will ever hold this lease
    LeaseState &state = stateOf(name);
    answer(std::move(done), state.exists ? LeaseReply::conflict(state) : write(state, record));
}

void LocalLeaseProtocol::update(const QString &name, const LeaseRecord &record,
                                const QString &version, const std::optional<HistoryEntry> &change,
                                Callback done)
{
    Q_UNUSED(change);
    LeaseState &state = stateOf(name);
    answer(std::move(done),
           version == state.version ? write(state, record) : LeaseReply::conflict(state));
}

void LocalLeaseProtocol::list(ListCallback done)
{
    QList<SourcedLease> leases;
    for (auto it = m_leases.cbegin(); it != m_leases.cend(); ++it)
        leases.append({it.key(), it->version, true, {}, it->record, {}, {}});
    QMetaObject::invokeMethod(
            this, [done = std::move(done), leases] { done(leases, QString()); },
            Qt::QueuedConnection);
}

LeaseWatch *LocalLeaseProtocol::watch(const QString &name, QObject *parent)
{
    Q_UNUSED(name);
    return new SilentLeaseWatch(parent);
}

LeaseReply LocalLeaseProtocol::write(LeaseState &state, const LeaseRecord &record)
{
    state.exists = true;
    state.record = record;
    state.version = QString::number(++m_writes);
    return LeaseReply::ok(state);
}

void LocalLeaseProtocol::answer(Callback done, LeaseReply reply)
{
    // As every protocol: the answer comes on a later event-loop turn.
    QMetaObject::invokeMethod(
            this, [done = std::move(done), reply = std::move(reply)] { done(reply); },
            Qt::QueuedConnection);
}

} // namespace baton

#include "localleaseprotocol.moc"
