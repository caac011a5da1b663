#include "servicehost.h"

#include <QHash>
#include <QMutex>

namespace baton {

namespace {

struct Hosts
{
    QMutex mutex;
    QHash<const Application *, ServiceHost *> byApplication;
};

Hosts &hosts()
{
    static Hosts all;
    return all;
}

} // namespace

ServiceHost::ServiceHost(const Application *application)
    : m_application(application)
{
    Hosts &all = hosts();
    QMutexLocker lock(&all.mutex);
    all.byApplication.insert(application, this);
}

ServiceHost::~ServiceHost()
{
    Hosts &all = hosts();
    QMutexLocker lock(&all.mutex);
    all.byApplication.remove(m_application);
}

ServiceHost *ServiceHost::find(const Application *application)
{
    if (!application)
        return nullptr;
    Hosts &all = hosts();
    QMutexLocker lock(&all.mutex);
    return all.byApplication.value(application);
}

} // namespace baton
