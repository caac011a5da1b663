#include "etcdwatchhub.h"

#include "etcdwatch.h"
#include "etcdwatchstream.h"

#include <utility>

namespace baton {

EtcdWatchHub::EtcdWatchHub(EtcdClient *client, const QByteArray &keyPrefix, const QString &first,
                           QObject *parent, bool holdRequests)
    : QObject(parent)
    , m_stream(new EtcdWatchStream(client, keyPrefix, first, this, holdRequests))
{
    connect(m_stream, &EtcdWatchStream::entryChanged, this,
            [this](const StoreEntry &entry, qint64 revision) {
        for (const QPointer<EtcdWatch> &watch : watchersOf(entry.key))
            if (watch && watch->takeNews(revision, entry.key))
                Q_EMIT watch->entryChanged(entry);
    });
    connect(m_stream, &EtcdWatchStream::entryRemoved, this,
            [this](const QString &key, qint64 revision) {
        for (const QPointer<EtcdWatch> &watch : watchersOf(key))
            if (watch && watch->takeNews(revision, key))
                Q_EMIT watch->entryRemoved(key);
    });
    connect(m_stream, &EtcdWatchStream::resynchronise, this, [this] {
        QList<QPointer<EtcdWatch>> all;
        for (const QList<EtcdWatch *> &watches : std::as_const(m_byPrefix))
            for (EtcdWatch *watch : watches)
                all.append(watch);
        for (const QPointer<EtcdWatch> &watch : all)
            if (watch)
                Q_EMIT watch->resynchronise();
    });
}

void EtcdWatchHub::add(EtcdWatch *watch)
{
    m_byPrefix[watch->prefix()].append(watch);
    ++m_lengths[watch->prefix().size()];
    m_stream->include(watch->prefix(), watch->floor());
}

void EtcdWatchHub::remove(EtcdWatch *watch)
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

bool EtcdWatchHub::vouchesFor(qint64 knownAt) const
{
    return m_stream->vouchesFor(knownAt);
}

QList<QPointer<EtcdWatch>> EtcdWatchHub::watchersOf(const QString &key) const
{
    QList<QPointer<EtcdWatch>> found;
    for (auto it = m_lengths.cbegin(); it != m_lengths.cend() && it.key() <= key.size(); ++it) {
        const auto watches = m_byPrefix.constFind(key.left(it.key()));
        if (watches != m_byPrefix.cend())
            for (EtcdWatch *watch : *watches)
                found.append(watch);
    }
    return found;
}

} // namespace baton
