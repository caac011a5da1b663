#include "etcdwatchhub.h"

#include "etcdsharedwatch.h"
#include "etcdstore.h"
#include "etcdwatch.h"

#include <utility>

namespace baton {

EtcdWatchHub::EtcdWatchHub(EtcdStore *store, const QString &first)
    : QObject(store)
    , m_watch(new EtcdWatch(store, first, this))
{
    connect(m_watch, &StoreWatch::entryChanged, this, [this](const StoreEntry &entry) {
        for (const QPointer<EtcdSharedWatch> &watch : watchersOf(entry.key))
            if (watch && watch->takeNews(m_watch->eventRevision(), entry.key))
                Q_EMIT watch->entryChanged(entry);
    });
    connect(m_watch, &StoreWatch::entryRemoved, this, [this](const QString &key) {
        for (const QPointer<EtcdSharedWatch> &watch : watchersOf(key))
            if (watch && watch->takeNews(m_watch->eventRevision(), key))
                Q_EMIT watch->entryRemoved(key);
    });
    connect(m_watch, &StoreWatch::resynchronise, this, [this] {
        QList<QPointer<EtcdSharedWatch>> all;
        for (const QList<EtcdSharedWatch *> &watches : std::as_const(m_byPrefix))
            for (EtcdSharedWatch *watch : watches)
                all.append(watch);
        for (const QPointer<EtcdSharedWatch> &watch : all)
            if (watch)
                Q_EMIT watch->resynchronise();
    });
}

void EtcdWatchHub::add(EtcdSharedWatch *watch)
{
    m_byPrefix[watch->prefix()].append(watch);
    ++m_lengths[watch->prefix().size()];
    m_watch->include(watch->prefix(), watch->floor());
}

void EtcdWatchHub::remove(EtcdSharedWatch *watch)
{
    const auto it = m_byPrefix.find(watch->prefix());
    if (it == m_byPrefix.end() || !it->removeOne(watch))
        return;
    if (it->isEmpty())
        m_byPrefix.erase(it);
    const auto length = m_lengths.find(watch->prefix().size());
    if (--length.value() == 0)
        m_lengths.erase(length);
    if (m_byPrefix.isEmpty())
        deleteLater();
}

QList<QPointer<EtcdSharedWatch>> EtcdWatchHub::watchersOf(const QString &key) const
{
    QList<QPointer<EtcdSharedWatch>> found;
    for (auto it = m_lengths.cbegin(); it != m_lengths.cend() && it.key() <= key.size(); ++it) {
        const auto watches = m_byPrefix.constFind(key.left(it.key()));
        if (watches != m_byPrefix.cend())
            for (EtcdSharedWatch *watch : *watches)
                found.append(watch);
    }
    return found;
}

} // namespace baton
