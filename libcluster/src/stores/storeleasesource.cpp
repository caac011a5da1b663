#include "storeleasesource.h"

#include <batoninternal/leasecodec.h>
#include <batoninternal/leasehistory.h>
#include "logging.h"
#include <batoninternal/registrykey.h>

#include <baton/store.h>

#include <QSet>

namespace baton {

StoreLeaseSource::StoreLeaseSource(Store *store, QObject *parent)
    : LeaseSource(parent)
    , m_store(store)
{
}

StoreLeaseSource::~StoreLeaseSource() = default;

QString StoreLeaseSource::describe() const
{
    return registryLeasePrefix + QLatin1Char('*');
}

SourcedLease StoreLeaseSource::fromEntry(const StoreEntry &entry)
{
    SourcedLease lease;
    lease.name = entry.key.mid(registryLeasePrefix.size());
    lease.version = entry.version;
    // R1: shown as unreadable, never guessed at.
    lease.valid = leasecodec::decode(entry.document, &lease.record, &lease.error);
    if (!lease.valid)
        lease.record = LeaseRecord {};
    return lease;
}

void StoreLeaseSource::start()
{
    if (m_running || !m_store)
        return;
    m_running = true;
    m_watch = m_store->watch(registryLeasePrefix, this);
    if (!m_watch)
        return;
    connect(m_watch, &StoreWatch::entryChanged, this, [this](const StoreEntry &entry) {
        if (!entry.key.startsWith(registryLeasePrefix))
            return;
        const SourcedLease lease = fromEntry(entry);
        if (m_listing)
            m_touchedDuringList.insert(lease.name, lease);
        Q_EMIT changed(lease);
    });
    connect(m_watch, &StoreWatch::entryRemoved, this, [this](const QString &key) {
        if (!key.startsWith(registryLeasePrefix))
            return;
        const QString name = key.mid(registryLeasePrefix.size());
        if (m_listing)
            m_touchedDuringList.insert(name, std::nullopt);
        Q_EMIT removed(name);
    });
    connect(m_watch, &StoreWatch::resynchronise, this, &LeaseSource::resynchronise);
}

void StoreLeaseSource::stop()
{
    m_running = false;
    delete m_watch;
    m_watch = nullptr;
}

void StoreLeaseSource::list()
{
    if (!m_running || !m_store || m_listing)
        return;
    m_listing = true;
    m_touchedDuringList.clear();
    QPointer<StoreLeaseSource> self(this);
    m_store->list(registryLeasePrefix, [self](const StoreResult &leases) {
        if (!self)
            return;
        if (!self->m_running || !self->m_store) {
            self->m_listing = false;
            return;
        }
        if (!leases.ok()) {
            self->m_listing = false;
            qCWarning(lcStore).noquote() << QStringLiteral("observer: cannot list %1: %2")
                                                    .arg(self->describe(), leases.errorString);
            Q_EMIT self->listFailed(leases.errorString);
            return;
        }
        // The histories after the leases: one written in between is newer
        // than its lease, which the observer takes as it comes (it knows a
        // change by its transitions, whichever way it heard of it).
        self->m_store->list(leasehistory::registryPrefix, [self, leases](const StoreResult &histories) {
            if (!self)
                return;
            self->m_listing = false;
            if (self->m_running)
                self->finishList(leases.entries, histories);
        });
    });
}

void StoreLeaseSource::finishList(const QList<StoreEntry> &entries, const StoreResult &histories)
{
    // What the watch said during the lists is newer than the lists.
    QList<SourcedLease> leases;
    QSet<QString> seen;
    for (const StoreEntry &entry : entries) {
        if (!entry.key.startsWith(registryLeasePrefix))
            continue;
        const QString name = entry.key.mid(registryLeasePrefix.size());
        seen.insert(name);
        const auto touched = m_touchedDuringList.constFind(name);
        if (touched == m_touchedDuringList.constEnd())
            leases.append(fromEntry(entry));
        else if (touched->has_value())
            leases.append(**touched);
    }
    for (auto it = m_touchedDuringList.cbegin(); it != m_touchedDuringList.cend(); ++it)
        if (it->has_value() && !seen.contains(it.key()))
            leases.append(**it);
    m_touchedDuringList.clear();

    if (!histories.ok()) {
        // The leases are worth showing without their past.
        qCWarning(lcStore).noquote() << QStringLiteral("observer: cannot list %1*: %2")
                                                .arg(leasehistory::registryPrefix, histories.errorString);
        Q_EMIT listed(leases);
        return;
    }
    QHash<QString, QJsonObject> stored;
    for (const StoreEntry &entry : histories.entries)
        if (entry.key.startsWith(leasehistory::registryPrefix))
            stored.insert(entry.key.mid(leasehistory::registryPrefix.size()), entry.document);
    for (SourcedLease &lease : leases) {
        QList<HistoryEntry> changes;
        const auto document = stored.constFind(lease.name);
        if (document != stored.constEnd() && !leasehistory::decode(*document, &changes, &lease.historyError))
            changes.clear();
        lease.history = changes;
    }
    Q_EMIT listed(leases);
}

} // namespace baton
