#include "etcdwatch.h"

#include "etcdwatchhub.h"

namespace baton {

EtcdWatch::EtcdWatch(EtcdWatchHub *hub, const QString &prefix, qint64 floor, QObject *parent)
    : StoreWatch(parent)
    , m_hub(hub)
    , m_prefix(prefix)
    , m_floor(floor)
{
    hub->add(this);
}

EtcdWatch::~EtcdWatch()
{
    if (m_hub)
        m_hub->remove(this);
}

bool EtcdWatch::vouchesFor(qint64 knownAt) const
{
    return m_hub && m_hub->vouchesFor(knownAt);
}

bool EtcdWatch::takeNews(qint64 revision, const QString &key)
{
    if (revision == 0)
        return true;
    if (revision <= m_floor || revision < m_lastRevision)
        return false;
    if (revision == m_lastRevision) {
        if (m_keysAtLastRevision.contains(key))
            return false;
        m_keysAtLastRevision.append(key);
        return true;
    }
    m_lastRevision = revision;
    m_keysAtLastRevision.clear();
    m_keysAtLastRevision.append(key);
    return true;
}

} // namespace baton
