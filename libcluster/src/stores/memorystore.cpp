#include "memorystore.h"

#include "listslice.h"
#include "logging.h"
#include "sidewrite.h"
#include "storesupport.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>
#include <QTimer>

#include <algorithm>

namespace baton {

using namespace storesupport;
using Status = StoreResult::Status;

namespace {

const QString kTypeName = QStringLiteral("Webda/MemoryStore");

} // namespace

MemoryStore::MemoryStore(const QString &name, const QJsonObject &parameters,
                         Application *application)
    : Store(name, parameters, application)
{ }

MemoryStore::~MemoryStore() = default;

QStringList MemoryStore::parameterNames()
{
    return {QStringLiteral("persistence.path")};
}

bool MemoryStore::init(QString *errorString)
{
    const QString service = describeForParameters(*this, kTypeName);
    const QJsonValue persistence = parameters().value(QLatin1String("persistence"));
    QString path;
    if (!persistence.isUndefined() && !persistence.isNull()) {
        if (!persistence.isObject()) {
            return refuse(
                errorString, service, QStringLiteral("persistence"), persistence,
                QStringLiteral("it must be an object such as {\"path\": \"store.json\"}"));
        }
        const QJsonValue pathValue = persistence.toObject().value(QLatin1String("path"));
        if (!pathValue.isUndefined() && !pathValue.isNull()) {
            if (!pathValue.isString() || pathValue.toString().isEmpty()) {
                return refuse(errorString, service, QStringLiteral("persistence.path"), pathValue,
                              QStringLiteral("it must be a non-empty string naming a file"));
            }
            path = pathValue.toString();
            const QFileInfo folder(QFileInfo(path).absolutePath());
            if (!folder.isDir()) {
                return refuse(
                    errorString, service, QStringLiteral("persistence.path"), pathValue,
                    QStringLiteral("its folder %1 must exist").arg(folder.absoluteFilePath()));
            }
        }
    }
    m_persistencePath = path;
    if (!m_persistencePath.isEmpty() && !load(errorString)) {
        m_persistencePath.clear();
        return false;
    }
    return true;
}

bool MemoryStore::load(QString *errorString)
{
    QFile file(m_persistencePath);
    if (!file.exists())
        return true; // created by the first change
    const QString where = QStringLiteral("%1: persistence file %2")
                              .arg(describeService(*this, kTypeName), m_persistencePath);
    auto fail = [&](const QString &why) {
        if (errorString)
            *errorString = QStringLiteral("%1 %2").arg(where, why);
        return false;
    };
    if (!file.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot be read: %1").arg(file.errorString()));
    QJsonParseError parseError;
    const QJsonDocument json = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return fail(QStringLiteral("is not valid JSON (%1 at offset %2)")
                        .arg(parseError.errorString())
                        .arg(parseError.offset));
    }
    if (!json.isObject())
        return fail(QStringLiteral("is not a JSON object"));
    const QJsonObject root = json.object();
    bool counterOk = false;
    const quint64 lastVersion
        = root.value(QLatin1String("lastVersion")).toString().toULongLong(&counterOk);
    if (!counterOk)
        return fail(QStringLiteral("lacks a \"lastVersion\" counter (a decimal string)"));
    if (!root.value(QLatin1String("documents")).isObject())
        return fail(QStringLiteral("lacks a \"documents\" object"));

    QMap<QString, Document> documents;
    const QJsonObject entries = root.value(QLatin1String("documents")).toObject();
    for (auto it = entries.begin(); it != entries.end(); ++it) {
        const QJsonObject entry = it.value().toObject();
        bool versionOk = false;
        Document document;
        document.version = entry.value(QLatin1String("version")).toString().toULongLong(&versionOk);
        if (!versionOk || !entry.value(QLatin1String("document")).isObject()) {
            return fail(QStringLiteral("has no valid \"version\" and \"document\" for key \"%1\"")
                            .arg(it.key()));
        }
        document.document = entry.value(QLatin1String("document")).toObject();
        documents.insert(it.key(), document);
    }
    // A hand-edited file whose counter fell behind its documents must not
    // make the counter hand out a version that an entry already has.
    quint64 highest = lastVersion;
    for (const Document &document : std::as_const(documents))
        highest = std::max(highest, document.version);
    m_documents = documents;
    m_lastVersion = highest;
    m_loadedVersion = highest;
    qCDebug(lcStore) << "MemoryStore" << name() << "loaded" << m_documents.size()
                     << "documents from" << m_persistencePath;
    return true;
}

bool MemoryStore::persist(QString *errorString) const
{
    QJsonObject documents;
    for (auto it = m_documents.cbegin(); it != m_documents.cend(); ++it) {
        documents.insert(it.key(),
                         QJsonObject { { QStringLiteral("version"), QString::number(it->version) },
                                       { QStringLiteral("document"), it->document } });
    }
    const QJsonObject root { { QStringLiteral("lastVersion"), QString::number(m_lastVersion) },
                             { QStringLiteral("documents"), documents } };

    QSaveFile file(m_persistencePath);
    const bool written = file.open(QIODevice::WriteOnly)
        && file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)
        && file.write(QJsonDocument(root).toJson(QJsonDocument::Indented)) >= 0 && file.commit();
    if (!written && errorString) {
        *errorString
            = QStringLiteral("%1: cannot write persistence file %2: %3")
                  .arg(describeService(*this, kTypeName), m_persistencePath, file.errorString());
    }
    return written;
}

qint64 MemoryStore::versionFloor(const QString &key) const
{
    const auto current = m_documents.constFind(key);
    if (current != m_documents.constEnd())
        return qint64(current->version);
    return qint64(m_removedVersions.value(key, m_loadedVersion));
}

StoreEntry MemoryStore::entryFor(const QString &key) const
{
    return entryOf(key, m_documents.value(key));
}

StoreEntry MemoryStore::entryOf(const QString &key, const Document &document)
{
    return StoreEntry { key, document.document, QString::number(document.version) };
}

void MemoryStore::deliver(Callback done, StoreResult result)
{
    deliverLater(this, std::move(done), std::move(result));
}

bool MemoryStore::commit(const QList<Change> &changes, QString *errorString)
{
    // What the touched keys held, to undo: only those, as the store may hold thousands.
    struct Before
    {
        QString key;
        std::optional<Document> document;
        std::optional<quint64> removedVersion;
    };
    QList<Before> before;
    for (const Change &change : changes) {
        const QString &key = change.first;
        const auto document = m_documents.constFind(key);
        const auto removed = m_removedVersions.constFind(key);
        before.append({ key,
                        document == m_documents.constEnd() ? std::nullopt
                                                           : std::optional(*document),
                        removed == m_removedVersions.constEnd() ? std::nullopt
                                                                : std::optional(*removed) });
    }
    const quint64 previousLastVersion = m_lastVersion;

    for (const auto &[key, document] : changes) {
        if (document) {
            m_documents.insert(key, Document { *document, ++m_lastVersion });
        } else if (const auto current = m_documents.constFind(key);
                   current != m_documents.constEnd()) {
            m_removedVersions.insert(key, current->version);
            m_documents.erase(current);
        }
    }

    if (!m_persistencePath.isEmpty() && !persist(errorString)) {
        // Undo, so that memory never holds what a restarted process would not find.
        m_lastVersion = previousLastVersion;
        for (auto it = before.crbegin(); it != before.crend(); ++it) {
            if (it->document)
                m_documents.insert(it->key, *it->document);
            else
                m_documents.remove(it->key);
            if (it->removedVersion)
                m_removedVersions.insert(it->key, *it->removedVersion);
            else
                m_removedVersions.remove(it->key);
        }
        qCWarning(lcStore).noquote() << *errorString;
        return false;
    }
    return true;
}

void MemoryStore::notifyWatches(const QString &key)
{
    const bool present = m_documents.contains(key);
    const StoreEntry entry = present ? entryFor(key) : StoreEntry {};
    for (auto it = m_watchPrefixes.cbegin(); it != m_watchPrefixes.cend(); ++it) {
        if (!key.startsWith(it.value()))
            continue;
        StoreWatch *watch = it.key();
        // Queued on the watch: a watch destroyed meanwhile simply gets nothing.
        if (present) {
            QMetaObject::invokeMethod(
                watch, [watch, entry] { Q_EMIT watch->entryChanged(entry); }, Qt::QueuedConnection);
        } else {
            QMetaObject::invokeMethod(
                watch, [watch, key] { Q_EMIT watch->entryRemoved(key); }, Qt::QueuedConnection);
        }
    }
}

void MemoryStore::get(const QString &key, Callback done)
{
    if (!m_documents.contains(key)) {
        deliver(
            std::move(done),
            failure(
                Status::NotFound,
                QStringLiteral("%1: no key \"%2\"").arg(describeService(*this, kTypeName), key)));
        return;
    }
    deliver(std::move(done), success(entryFor(key)));
}

void MemoryStore::commitAndDeliver(const QString &key, const QJsonObject &document,
                                   Callback done, const std::optional<StoreSideWrite> &side)
{
    QList<Change> changes { { key, document } };
    // R7: the side document goes on the version it was built from, in the
    // same commit; another writer's since is built on or left alone.
    std::optional<QJsonObject> sideDocument;
    if (side) {
        sideDocument = sidewrite::documentOver(
                *side, m_documents.contains(side->key) ? std::optional(entryFor(side->key))
                                                       : std::nullopt);
    }
    if (sideDocument)
        changes.append({ side->key, *sideDocument });
    QString error;
    if (!commit(changes, &error)) {
        deliver(std::move(done), failure(Status::Unavailable, error));
        return;
    }
    deliver(std::move(done), success(entryFor(key)));
    notifyWatches(key);
    if (sideDocument)
        notifyWatches(side->key);
}

void MemoryStore::create(const QString &key, const QJsonObject &document, Callback done)
{
    createWith(key, document, {}, std::move(done));
}

void MemoryStore::createWith(const QString &key, const QJsonObject &document,
                             const StoreSideWrite &side, Callback done)
{
    if (m_documents.contains(key)) {
        deliver(std::move(done),
                conflict(entryFor(key),
                         QStringLiteral("%1: key \"%2\" already exists")
                             .arg(describeService(*this, kTypeName), key)));
        return;
    }
    commitAndDeliver(key, document, std::move(done),
                     side.key.isEmpty() ? std::nullopt : std::optional(side));
}

std::optional<StoreResult> MemoryStore::refuseUpdate(const QString &key,
                                                     const QString &version) const
{
    const QString service = describeService(*this, kTypeName);
    if (!m_documents.contains(key))
        return failure(Status::NotFound,
                       QStringLiteral("%1: no key \"%2\" to update").arg(service, key));
    const StoreEntry current = entryFor(key);
    if (current.version != version)
        return conflict(current, QStringLiteral("%1: key \"%2\" has version %3, not %4")
                                         .arg(service, key, current.version, version));
    return std::nullopt;
}

void MemoryStore::update(const QString &key, const QJsonObject &document, const QString &version,
                         Callback done)
{
    updateWith(key, document, version, {}, std::move(done));
}

void MemoryStore::updateWith(const QString &key, const QJsonObject &document,
                             const QString &version, const StoreSideWrite &side, Callback done)
{
    if (auto refused = refuseUpdate(key, version)) {
        deliver(std::move(done), *refused);
        return;
    }
    commitAndDeliver(key, document, std::move(done),
                     side.key.isEmpty() ? std::nullopt : std::optional(side));
}

void MemoryStore::remove(const QString &key, const QString &version, Callback done)
{
    const QString service = describeService(*this, kTypeName);
    if (!m_documents.contains(key)) {
        deliver(std::move(done),
                failure(Status::NotFound,
                        QStringLiteral("%1: no key \"%2\" to remove").arg(service, key)));
        return;
    }
    const StoreEntry current = entryFor(key);
    if (!version.isEmpty() && current.version != version) {
        deliver(std::move(done),
                conflict(current,
                         QStringLiteral("%1: key \"%2\" has version %3, not %4")
                             .arg(service, key, current.version, version)));
        return;
    }
    QString error;
    if (!commit({ { key, std::nullopt } }, &error)) {
        deliver(std::move(done), failure(Status::Unavailable, error));
        return;
    }
    deliver(std::move(done), success(current));
    notifyWatches(key);
}

struct MemoryStore::Listing
{
    QString prefix;
    Callback done;
    StoreResult result;
};

void MemoryStore::list(const QString &prefix, Callback done)
{
    auto listing = std::make_shared<Listing>();
    listing->prefix = prefix;
    listing->done = std::move(done);
    listSome(listing);
}

void MemoryStore::listSome(const std::shared_ptr<Listing> &listing)
{
    // A few milliseconds a turn: copying 20,000 entries in one took a
    // dashboard's window 40 ms. Each slice goes on after the last key it
    // copied, so a key written meanwhile is listed as it was or as it is
    // now, and one removed after it was copied is still listed: as a list
    // of files is, and as a watch started before the list corrects.
    QElapsedTimer turn;
    turn.start();
    QList<StoreEntry> &entries = listing->result.entries;
    auto it = entries.isEmpty() ? std::as_const(m_documents).lowerBound(listing->prefix)
                                : std::as_const(m_documents).upperBound(entries.constLast().key);
    const qsizetype before = entries.size();
    for (; it != m_documents.cend() && it.key().startsWith(listing->prefix); ++it) {
        if (entries.size() > before && turn.elapsed() >= kListSliceMs) {
            QTimer::singleShot(0, this, [this, listing] { listSome(listing); });
            return;
        }
        entries.append(entryOf(it.key(), it.value()));
    }
    deliver(std::move(listing->done), std::move(listing->result));
}

StoreWatch *MemoryStore::watch(const QString &prefix, QObject *parent)
{
    auto *watch = new StoreWatch(parent);
    m_watchPrefixes.insert(watch, prefix);
    // The pointer is only a key here: it is never dereferenced once destroyed.
    connect(watch, &QObject::destroyed, this, [this, watch] { m_watchPrefixes.remove(watch); });
    return watch;
}

} // namespace baton
