#include "leasescript.h"

#include <baton/clock.h>
#include <batoninternal/leasecodec.h>
#include <batoninternal/registrykey.h>
#include <baton/leaseobserver.h>

#include <baton/store.h>

#include <QDateTime>
#include <QPointer>

namespace baton {

LeaseScript::LeaseScript(Store *store, const Clock *clock, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_clock(clock)
{
}

void LeaseScript::resume(const QString &lease, const QString &holder, qint64 transitions, const QDateTime &acquired)
{
    State &state = m_states[lease];
    state.holder = holder;
    state.transitions = transitions;
    state.acquireMs = acquired.toMSecsSinceEpoch();
}

void LeaseScript::write(const QString &lease, const QString &holder, qint64 leaseDurationMs, Done done)
{
    const bool known = m_states.contains(lease);
    State &state = m_states[lease];
    LeaseRecord record;
    record.holder = holder;
    record.leaseDurationMs = leaseDurationMs;
    const QDateTime now = m_clock ? m_clock->wallNow().toUTC() : QDateTime::currentDateTimeUtc();
    if (!known || state.holder != holder) {
        if (known && !holder.isEmpty())
            ++state.transitions;
        state.acquireMs = now.toMSecsSinceEpoch();
    }
    record.transitions = state.transitions;
    record.acquireTime = QDateTime::fromMSecsSinceEpoch(state.acquireMs, Qt::UTC);
    record.renewTime = now;
    state.holder = holder;

    const QString key = registryLeasePrefix + lease;
    ++m_pending;
    QPointer<LeaseScript> self(this);
    auto finish = [self, lease, done](const StoreResult &result) {
        if (self) {
            --self->m_pending;
            if (result.ok())
                self->m_states[lease].version = result.entry.version;
        }
        if (done)
            done(result.ok());
    };
    // A lease resume()d has a history but no record written yet.
    if (state.version.isEmpty())
        m_store->create(key, leasecodec::encode(record), finish);
    else
        m_store->update(key, leasecodec::encode(record), state.version, finish);
}

} // namespace baton
