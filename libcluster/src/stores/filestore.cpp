#include "filestore.h"

#include "earlierlayout.h"
#include "filestoresteps.h"
#include "filestorewatches.h"
#include "logging.h"
#include <batoninternal/privatefiles.h>
#include "storesupport.h"

#include "servicehost.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QUuid>

#include <algorithm>
#include <limits>

namespace baton {

using namespace storesupport;
using Status = StoreResult::Status;

namespace {

const QString kTypeName = QStringLiteral("Webda/FileStore");
// Longest file name most Linux file systems accept.
constexpr qsizetype kMaxFileNameBytes = 255;

} // namespace

FileStore::FileStore(const QString &name, const QJsonObject &parameters, Application *application)
    : Store(name, parameters, application)
{ }

FileStore::~FileStore()
{
    // A store made later at this address must not inherit a test's hook.
    filestoresteps::setHook(this, {});
}

QString FileStore::describe() const
{
    return describeService(*this, kTypeName);
}

QStringList FileStore::parameterNames()
{
    // Not lockTimeout: the earlier layout's lock is gone, and a parameter
    // that changes nothing is refused rather than believed (P1).
    return {QStringLiteral("folder")};
}

bool FileStore::init(QString *errorString)
{
    const QString service = describeForParameters(*this, kTypeName);
    const QJsonValue folderValue = parameters().value(QLatin1String("folder"));
    QString folder;
    if (!folderValue.isUndefined() && !folderValue.isNull()) {
        if (!folderValue.isString()) {
            return refuse(errorString, service, QStringLiteral("folder"), folderValue,
                          QStringLiteral("it must be a string naming a folder"));
        }
        folder = folderValue.toString();
    }
    if (folder.isEmpty()) {
        const ServiceHost *host = ServiceHost::of(*this);
        const QString dataFolder = host ? host->dataFolder() : QString();
        if (dataFolder.isEmpty()) {
            return refuse(errorString, service, QStringLiteral("folder"), folderValue,
                          QStringLiteral("it is required when there is no application data "
                                         "folder (which it defaults to, followed by /registry)"));
        }
        folder = dataFolder + QStringLiteral("/registry");
    }

    const QFileInfo info(folder);
    const QString path = info.absoluteFilePath();
    if (!info.exists() && m_readOnly) {
        return refuse(errorString, service, QStringLiteral("folder"), QJsonValue(path),
                      QStringLiteral("the folder does not exist (an observer never creates it)"));
    }
    if (!info.exists()) {
        // Owner-only, and so is each folder above it that we create (the
        // default data folder's parents); one that exists is left alone.
        // Several processes of one host start together: a folder that another
        // one created meanwhile is as good as our own.
        if (!privatefiles::makeFolder(path)) {
            if (errorString) {
                *errorString = QStringLiteral("%1: cannot create folder %2 (parameter folder)")
                                   .arg(service, path);
            }
            return false;
        }
        qCInfo(lcStore).noquote() << service << "created folder" << path;
    } else if (!info.isDir() || (!info.isWritable() && !m_readOnly)) {
        return refuse(errorString, service, QStringLiteral("folder"), QJsonValue(path),
                      QStringLiteral("it must be a writable folder"));
    }
    m_files.emplace(path, describe());
    return true;
}

QString FileStore::folder() const
{
    return m_files ? m_files->path() : QString();
}

QString FileStore::fileNameForKey(const QString &key, quint64 version)
{
    return VersionFolder::fileName(key, version);
}

QString FileStore::keyForFileName(const QString &fileName)
{
    QString key;
    quint64 version = 0;
    return VersionFolder::parseFileName(fileName, &key, &version) ? key : QString();
}

void FileStore::deliver(Callback done, StoreResult result)
{
    deliverLater(this, std::move(done), std::move(result));
}

std::optional<StoreResult> FileStore::refuseUnusable() const
{
    if (!m_files) {
        return failure(
            Status::Unavailable,
            QStringLiteral("%1 is not initialised (init() not called or refused)").arg(describe()));
    }
    // A folder removed under us must not read as an empty store.
    if (!QFileInfo(folder()).isDir()) {
        return failure(Status::Unavailable,
                       QStringLiteral("%1: folder %2 no longer exists").arg(describe(), folder()));
    }
    return std::nullopt;
}

std::optional<StoreResult> FileStore::refuseKey(const QString &key) const
{
    if (auto refused = refuseUnusable())
        return refused;
    // Room for the longest version a counter of 64 bits can reach.
    const QString longest = fileNameForKey(key, std::numeric_limits<quint64>::max());
    if (longest.toUtf8().size() > kMaxFileNameBytes) {
        return failure(Status::Unavailable,
                       QStringLiteral("%1: key \"%2\" is too long for a file name in %3")
                           .arg(describe(), key.left(64) + QStringLiteral("..."), folder()));
    }
    return std::nullopt;
}

std::optional<StoreResult> FileStore::refuseWrite(const QString &key) const
{
    if (auto refused = refuseKey(key))
        return refused;
    // Before the write reads what it writes over: an earlier writer's last
    // record must be in the folder by then.
    return earlierlayout::lockOutWriters(*m_files);
}

StoreResult FileStore::conflictWith(const QString &key, const QString &why) const
{
    const Head now = m_files->readHead(key);
    const QString message = QStringLiteral("%1: key \"%2\" %3").arg(describe(), key, why);
    if (now.result.ok())
        return conflict(now.result.entry, message);
    StoreResult result = failure(Status::Conflict, message);
    return result;
}

StoreResult FileStore::writeNext(const QString &key, const Head &head,
                                 const std::optional<QJsonObject> &document)
{
    quint64 next = head.version + 1;
    if (head.version == 0) {
        StoreResult refusal;
        const std::optional<quint64> sequence = earlierlayout::sequence(*m_files, &refusal);
        if (!sequence)
            return refusal;
        next = *sequence + 1;
    }
    // Names this write, and the one it writes over, so that the check after
    // the link can tell a version built on ours from one that came first.
    const QString writer = QUuid::createUuid().toString(QUuid::WithoutBraces);
    QJsonObject envelope { { QStringLiteral("key"), key },
                           { QStringLiteral("version"), QString::number(next) },
                           { QStringLiteral("writer"), writer } };
    if (!head.writer.isEmpty())
        envelope.insert(QStringLiteral("over"), head.writer);
    if (document)
        envelope.insert(QStringLiteral("document"), *document);
    else
        envelope.insert(QStringLiteral("removed"), true);

    QString temporary;
    QString error;
    const QByteArray data = QJsonDocument(envelope).toJson(QJsonDocument::Indented);
    if (!m_files->writeTemporary(data, &temporary, &error))
        return failure(Status::Unavailable, error);
    filestoresteps::reach(this, filestoresteps::WriteStep::WroteTemporary);

    switch (m_files->linkVersion(temporary, key, next, &error)) {
    case VersionFolder::Link::Created:
        break;
    case VersionFolder::Link::Taken:
        return conflictWith(key,
                            QStringLiteral("was written first by another writer (version %1)")
                                    .arg(next));
    case VersionFolder::Link::Failed:
        return failure(Status::Unavailable, error);
    }
    filestoresteps::reach(this, filestoresteps::WriteStep::LinkedVersion);
    // Until the folder is synced, a power cut could lose the new name, and
    // with it an acquisition that others already saw.
    if (!m_files->sync(&error))
        return failure(Status::Unavailable, error);

    // A writer frozen between reading and linking may have created a version
    // that was won and collected long ago: once a version is collected a
    // newer one always exists, so finding none proves the version is ours.
    // A newer one written over ours proves it too (a follower that took the
    // lease the moment we released it); any other newer one may have come
    // first, and the write is taken as lost. The names prove most writes
    // without listing the folder, which passes every name in it (with 5,000
    // leases, most of a renewal's work); every kListEveryVersions-th version
    // lists all the same, to collect what names cannot find (a frozen
    // writer's late link below ours, abandoned temporary files).
    const bool provedByNames = next % kListEveryVersions != 0 && m_files->provedWonByNames(key, next, head);
    VersionFolder::Listed listed;
    if (!provedByNames) {
        quint64 newest = 0;
        if (!m_files->newestVersion(key, &newest, &error, &listed))
            return failure(Status::Unavailable, error);
        if (newest > next && m_files->writtenOver(key, next + 1) != writer) {
            return conflictWith(
                    key, QStringLiteral("has moved past version %1 (to %2)").arg(next).arg(newest));
        }
    }
    filestoresteps::reach(this, filestoresteps::WriteStep::Verified);
    if (provedByNames)
        m_files->collectOverByNames(key, head);
    else
        m_files->collect(next, listed);
    m_ownWrites.insert(key, OwnWrite { next, writer });
    qCDebug(lcStore).noquote() << describe() << (document ? "wrote" : "removed") << key
                               << "version" << next;
    if (!document)
        return head.result;
    return success(StoreEntry { key, *document, QString::number(next) });
}

qint64 FileStore::versionFloor(const QString &key) const
{
    // Collection always keeps a key's highest version, a removal's included,
    // so it is at least every version the key ever had; a key with no file
    // starts counting above the earlier layout's counter. An error reads as
    // 0, and the create that follows then refuses a key that has any file.
    quint64 floor = m_files ? m_files->readHead(key).version : 0;
    if (floor == 0 && m_files) {
        StoreResult refusal;
        floor = earlierlayout::sequence(*m_files, &refusal).value_or(0);
    }
    m_floorsGiven.insert(key, floor);
    return qint64(std::min<quint64>(floor, std::numeric_limits<qint64>::max()));
}

void FileStore::get(const QString &key, Callback done)
{
    if (auto refused = refuseKey(key)) {
        deliver(std::move(done), *refused);
        return;
    }
    deliver(std::move(done), m_files->readHead(key).result);
}

void FileStore::create(const QString &key, const QJsonObject &document, Callback done)
{
    deliver(std::move(done), createNow(key, document));
}

void FileStore::createWith(const QString &key, const QJsonObject &document,
                           const StoreSideWrite &side, Callback done)
{
    const StoreResult result = createNow(key, document);
    if (result.ok())
        writeSideNow(side);
    deliver(std::move(done), result);
}

void FileStore::update(const QString &key, const QJsonObject &document, const QString &version,
                       Callback done)
{
    deliver(std::move(done), updateNow(key, document, version));
}

void FileStore::updateWith(const QString &key, const QJsonObject &document,
                           const QString &version, const StoreSideWrite &side, Callback done)
{
    const StoreResult result = updateNow(key, document, version);
    if (result.ok())
        writeSideNow(side);
    deliver(std::move(done), result);
}

StoreResult FileStore::createNow(const QString &key, const QJsonObject &document)
{
    if (auto refused = refuseWrite(key))
        return *refused;
    const Head head = m_files->readHead(key);
    filestoresteps::reach(this, filestoresteps::WriteStep::ReadCurrent);
    std::optional<quint64> floor;
    if (const auto given = m_floorsGiven.constFind(key); given != m_floorsGiven.cend()) {
        floor = *given;
        m_floorsGiven.erase(given);
    }
    if (head.result.ok())
        return conflict(head.result.entry,
                        QStringLiteral("%1: key \"%2\" already exists").arg(describe(), key));
    if (head.result.status != Status::NotFound)
        return head.result;
    if (floor && head.version > *floor) {
        // F7: another process created and removed the key since the floor
        // was read; a token derived from that floor may be one it handed out.
        return conflictWith(key, QStringLiteral("was written after its version floor %1 was "
                                                "read (it is at version %2)")
                                         .arg(*floor)
                                         .arg(head.version));
    }
    return writeNext(key, head, document);
}

StoreResult FileStore::updateNow(const QString &key, const QJsonObject &document,
                                 const QString &version)
{
    if (auto refused = refuseWrite(key))
        return *refused;
    // A renewal writes over the version this store wrote last: read by its
    // names, not by listing the folder; the check after the link lists it.
    std::optional<Head> newest;
    if (const auto own = m_ownWrites.constFind(key); own != m_ownWrites.cend()
        && QString::number(own->version) == version)
        newest = m_files->readOwnNewest(key, own->version, own->writer);
    const Head head = newest ? *std::move(newest) : m_files->readHead(key);
    filestoresteps::reach(this, filestoresteps::WriteStep::ReadCurrent);
    if (!head.result.ok())
        return head.result;
    if (head.result.entry.version != version)
        return conflict(head.result.entry,
                        QStringLiteral("%1: key \"%2\" has version %3, not %4")
                                .arg(describe(), key, head.result.entry.version, version));
    return writeNext(key, head, document);
}

void FileStore::remove(const QString &key, const QString &version, Callback done)
{
    if (auto refused = refuseWrite(key)) {
        deliver(std::move(done), *refused);
        return;
    }
    Head head = m_files->readHead(key);
    filestoresteps::reach(this, filestoresteps::WriteStep::ReadCurrent);
    // An unconditional remove also clears a corrupt file: it is the way out
    // of a BadReply. A conditional one cannot compare, so it changes nothing.
    const bool corrupt = head.result.status == Status::BadReply;
    StoreResult result;
    if (!head.result.ok() && !(corrupt && version.isEmpty())) {
        result = head.result;
    } else if (!version.isEmpty() && head.result.entry.version != version) {
        result = conflict(head.result.entry,
                          QStringLiteral("%1: key \"%2\" has version %3, not %4")
                                  .arg(describe(), key, head.result.entry.version, version));
    } else {
        if (corrupt) {
            qCWarning(lcStore).noquote()
                    << describe() << "removes unreadable" << key << ":" << head.result.errorString;
            head.result = StoreResult();
        }
        result = writeNext(key, head, std::nullopt);
    }
    deliver(std::move(done), result);
}

void FileStore::list(const QString &prefix, Callback done)
{
    if (auto refused = refuseUnusable()) {
        deliver(std::move(done), *refused);
        return;
    }
    const FolderScan found = scanFolder(*m_files, prefix);
    StoreResult result;
    QStringList keys = found.entries.keys();
    std::sort(keys.begin(), keys.end());
    for (const QString &key : std::as_const(keys))
        result.entries.append(found.entries.value(key));
    // The readable entries are still listed: one corrupt file must not hide
    // every other lease from an observer, but it is never silently absent.
    if (!found.errors.isEmpty()) {
        result.status = Status::BadReply;
        result.errorString = found.errors.join(QLatin1Char('\n'));
    }
    deliver(std::move(done), result);
}

StoreWatch *FileStore::watch(const QString &prefix, QObject *parent)
{
    if (!m_files)
        return nullptr;
    if (!m_watches)
        m_watches = new FileStoreWatches(*m_files, this);
    return m_watches->add(prefix, parent);
}

} // namespace baton
