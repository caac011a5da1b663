// Stand-in until the real store lands: every call fails.
#include "memorystore.h"
namespace baton {
MemoryStore::MemoryStore(const QString &n, const QJsonObject &p, Application *a) : Store(n, p, a) {}
MemoryStore::~MemoryStore() = default;
bool MemoryStore::init(QString *) { return true; }
void MemoryStore::get(const QString &, Callback) {}
void MemoryStore::create(const QString &, const QJsonObject &, Callback) {}
void MemoryStore::update(const QString &, const QJsonObject &, const QString &, Callback) {}
void MemoryStore::remove(const QString &, const QString &, Callback) {}
void MemoryStore::list(const QString &, Callback) {}
StoreWatch *MemoryStore::watch(const QString &, QObject *) { return nullptr; }
}
