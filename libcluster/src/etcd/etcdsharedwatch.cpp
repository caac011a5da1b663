#include "etcdsharedwatch.h"

#include "etcdwatchhub.h"

namespace baton {

EtcdSharedWatch::EtcdSharedWatch(EtcdWatchHub *hub, const QString &prefix, qint64 floor,
                                 QObject *parent)
    : StoreWatch(parent)
    , m_hub(hub)
    , m_prefix(prefix)
    , m_floor(floor)
{
    hub->add(this);
}

EtcdSharedWatch::~EtcdSharedWatch()
{
    if (m_hub)
        m_hub->remove(this);
}

} // namespace baton
