// Stand-in until the real store lands: every call fails.
#include "filestore.h"
namespace baton {
FileStore::FileStore(const QString &n, const QJsonObject &p, Application *a) : Store(n, p, a) {}
FileStore::~FileStore() = default;
bool FileStore::init(QString *) { return true; }
void FileStore::get(const QString &, Callback) {}
void FileStore::create(const QString &, const QJsonObject &, Callback) {}
void FileStore::update(const QString &, const QJsonObject &, const QString &, Callback) {}
void FileStore::remove(const QString &, const QString &, Callback) {}
void FileStore::list(const QString &, Callback) {}
StoreWatch *FileStore::watch(const QString &, QObject *) { return nullptr; }
}
namespace baton {
QString FileStore::folder() const { return {}; }
}
