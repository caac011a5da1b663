#include "filestoresteps.h"

#include <atomic>
#include <QHash>
#include <QMutex>
#include <QMutexLocker>

namespace baton::filestoresteps {

namespace {

// Stores live on the threads of their applications: the hooks are shared.
struct Hooks
{
    QMutex mutex;
    QHash<const FileStore *, Hook> byStore;
    /*! Whether any hook is set, so that the product's writes take no lock. */
    std::atomic<bool> any = false;
};

Hooks &hooks()
{
    static Hooks instance;
    return instance;
}

std::atomic<quint64> g_work[3] = {};

} // namespace

void setHook(const FileStore *store, Hook hook)
{
    Hooks &all = hooks();
    const QMutexLocker lock(&all.mutex);
    if (hook)
        all.byStore.insert(store, std::move(hook));
    else
        all.byStore.remove(store);
    all.any = !all.byStore.isEmpty();
}

void reach(const FileStore *store, WriteStep at)
{
    Hooks &all = hooks();
    if (!all.any)
        return;
    Hook hook;
    {
        const QMutexLocker lock(&all.mutex);
        hook = all.byStore.value(store);
    }
    // Outside the lock: a hook freezes this writer while another store writes.
    if (hook)
        hook(at);
}

void count(Work work)
{
    g_work[int(work)].fetch_add(1, std::memory_order_relaxed);
}

quint64 counted(Work work)
{
    return g_work[int(work)].load(std::memory_order_relaxed);
}

} // namespace baton::filestoresteps
