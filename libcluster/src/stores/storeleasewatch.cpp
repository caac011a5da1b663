#include "storeleasewatch.h"

#include <batoninternal/registrykey.h>

#include <baton/store.h>

#include <utility>

namespace baton {

StoreLeaseWatch::StoreLeaseWatch(StoreLeaseProtocol *protocol, StoreWatch *followed,
                                 const QString &name, QObject *parent)
    : LeaseWatch(parent)
    , m_protocol(protocol)
    , m_followed(followed)
    , m_name(name)
{
    m_followed->setParent(this);
    connect(m_followed, &StoreWatch::entryChanged, this, [this](const StoreEntry &entry) {
        const QString leaseName = covered(entry.key);
        if (leaseName.isEmpty())
            return; // a prefix also matches longer lease names
        if (m_protocol)
            m_protocol->noteWatched(leaseName);
        const SourcedLease lease = StoreLeaseProtocol::fromEntry(entry);
        if (m_listing)
            m_touchedDuringList.insert(leaseName, lease);
        Q_EMIT changed(lease);
    });
    connect(m_followed, &StoreWatch::entryRemoved, this, [this](const QString &key) {
        const QString leaseName = covered(key);
        if (leaseName.isEmpty())
            return;
        // Removed, but at which version is for a read to say.
        if (m_protocol)
            m_protocol->noteWatched(leaseName);
        if (m_listing)
            m_touchedDuringList.insert(leaseName, std::nullopt);
        Q_EMIT removed(leaseName);
    });
    connect(m_followed, &StoreWatch::resynchronise, this, &LeaseWatch::resynchronise);
}

StoreLeaseWatch::~StoreLeaseWatch()
{
    // The store's watch goes first: nothing it still says reaches a half-destroyed watch.
    delete m_followed;
}

QString StoreLeaseWatch::covered(const QString &key) const
{
    if (!key.startsWith(registryLeasePrefix))
        return {};
    const QString name = key.mid(registryLeasePrefix.size());
    return m_name.isEmpty() || name == m_name ? name : QString();
}

void StoreLeaseWatch::list()
{
    if (!m_protocol || m_listing)
        return;
    m_listing = true;
    m_touchedDuringList.clear();
    QPointer<StoreLeaseWatch> self(this);
    m_protocol->listMerged(
            [self] {
                return self ? std::exchange(self->m_touchedDuringList, {})
                            : StoreLeaseProtocol::Touched {};
            },
            [self](const QList<SourcedLease> &leases, const QString &error) {
                if (!self)
                    return;
                self->m_listing = false;
                if (!error.isEmpty()) {
                    Q_EMIT self->listFailed(error);
                    return;
                }
                if (self->m_name.isEmpty()) {
                    Q_EMIT self->listed(leases);
                    return;
                }
                QList<SourcedLease> mine;
                for (const SourcedLease &lease : leases)
                    if (lease.name == self->m_name)
                        mine.append(lease);
                Q_EMIT self->listed(mine);
            });
}

} // namespace baton
