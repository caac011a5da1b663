#include "filestore.h"

#include "logging.h"
#include "privatefiles.h"
#include "storesupport.h"

#include <baton/application.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QJsonDocument>
#include <QElapsedTimer>
#include <QLockFile>
#include <QPointer>
#include <QSaveFile>
#include <QTimer>
#include <QUrl>

#include <algorithm>
#include <cmath>

namespace baton {

using namespace storesupport;
using Status = StoreResult::Status;

namespace {

const QString kTypeName = QStringLiteral("Webda/FileStore");
const QString kSuffix = QStringLiteral(".json");
const QString kLockFileName = QStringLiteral(".lock");
const QString kSequenceFileName = QStringLiteral(".sequence");
constexpr int kDefaultLockTimeoutMs = 2000;
// A write holds the lock for milliseconds; a lock this old belongs to a hung
// process. Dead processes are detected at once, whatever this value.
constexpr int kStaleLockTimeMs = 10000;
constexpr int kLockRetryMs = 2;
// Longest file name most Linux file systems accept.
constexpr qsizetype kMaxFileNameBytes = 255;
// A registry document is a few hundred bytes; anything near this is not one.
constexpr qint64 kMaxFileSize = 16 * 1024 * 1024;

constexpr QFile::Permissions kOwnerOnlyFile = privatefiles::kFile;

} // namespace

FileStore::FileStore(const QString &name, const QJsonObject &parameters, Application *application)
    : Store(name, parameters, application)
{ }

FileStore::~FileStore() = default;

QString FileStore::describe() const
{
    return describeService(*this, kTypeName);
}

QStringList FileStore::parameterNames()
{
    return {QStringLiteral("folder"), QStringLiteral("lockTimeout")};
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
        const QString dataFolder = application() ? application()->dataFolder() : QString();
        if (dataFolder.isEmpty()) {
            return refuse(errorString, service, QStringLiteral("folder"), folderValue,
                          QStringLiteral("it is required when there is no application data "
                                         "folder (which it defaults to, followed by /registry)"));
        }
        folder = dataFolder + QStringLiteral("/registry");
    }

    ParameterReader reader(service, parameters());
    // Zero is allowed: it means one attempt at the lock, no waiting.
    const int lockTimeoutMs = int(reader.duration(QStringLiteral("lockTimeout"),
                                                  kDefaultLockTimeoutMs, 0, 600000));
    if (!accept(errorString, reader))
        return false;

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
    m_folder = path;
    m_lockTimeoutMs = lockTimeoutMs;
    return true;
}

QString FileStore::folder() const
{
    return m_folder;
}

QString FileStore::fileNameForKey(const QString &key)
{
    // '.' is encoded so that no key can name `.`, `..`, or the store's own
    // dot files; ':' is kept so that `cluster:leader.json` reads as its key.
    return QString::fromLatin1(QUrl::toPercentEncoding(key, ":", ".")) + kSuffix;
}

QString FileStore::keyForFileName(const QString &fileName)
{
    if (!fileName.endsWith(kSuffix))
        return {};
    return QUrl::fromPercentEncoding(fileName.chopped(kSuffix.size()).toLatin1());
}

void FileStore::deliver(Callback done, StoreResult result)
{
    deliverLater(this, std::move(done), std::move(result));
}

std::optional<StoreResult> FileStore::refuseUnusable() const
{
    if (m_folder.isEmpty()) {
        return failure(
            Status::Unavailable,
            QStringLiteral("%1 is not initialised (init() not called or refused)").arg(describe()));
    }
    // A folder removed under us must not read as an empty store.
    if (!QFileInfo(m_folder).isDir()) {
        return failure(Status::Unavailable,
                       QStringLiteral("%1: folder %2 no longer exists").arg(describe(), m_folder));
    }
    return std::nullopt;
}

std::optional<StoreResult> FileStore::refuseKey(const QString &key) const
{
    if (auto refused = refuseUnusable())
        return refused;
    if (fileNameForKey(key).toUtf8().size() > kMaxFileNameBytes) {
        return failure(Status::Unavailable,
                       QStringLiteral("%1: key \"%2\" is too long for a file name in %3")
                           .arg(describe(), key.left(64) + QStringLiteral("..."), m_folder));
    }
    return std::nullopt;
}

StoreResult FileStore::readEntry(const QString &key) const
{
    return readFile(fileNameForKey(key), key);
}

StoreResult FileStore::readFile(const QString &fileName, const QString &key) const
{
    const QString path = m_folder + QLatin1Char('/') + fileName;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (!file.exists()) {
            return failure(
                Status::NotFound,
                QStringLiteral("%1: no key \"%2\" (no file %3)").arg(describe(), key, path));
        }
        return failure(
            Status::Unavailable,
            QStringLiteral("%1: cannot read %2: %3").arg(describe(), path, file.errorString()));
    }
    auto bad = [&](const QString &why) {
        return failure(Status::BadReply,
                       QStringLiteral("%1: file %2 %3").arg(describe(), path, why));
    };
    if (file.size() > kMaxFileSize)
        return bad(QStringLiteral("is larger than %1 bytes").arg(kMaxFileSize));
    QJsonParseError parseError;
    const QJsonDocument json = QJsonDocument::fromJson(file.read(kMaxFileSize + 1), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return bad(QStringLiteral("is not valid JSON (%1 at offset %2)")
                       .arg(parseError.errorString())
                       .arg(parseError.offset));
    }
    const QJsonObject envelope = json.object();
    const QString version = envelope.value(QLatin1String("version")).toString();
    if (!json.isObject() || version.isEmpty()
        || !envelope.value(QLatin1String("document")).isObject()) {
        return bad(
            QStringLiteral("lacks the envelope {\"version\": \"<n>\", \"document\": {...}}"));
    }
    const QJsonValue storedKey = envelope.value(QLatin1String("key"));
    if (!storedKey.isUndefined() && storedKey.toString() != key)
        return bad(QStringLiteral("holds key \"%1\", not \"%2\"").arg(storedKey.toString(), key));
    return success(
        StoreEntry { key, envelope.value(QLatin1String("document")).toObject(), version });
}

bool FileStore::tryUnderLock(const std::function<StoreResult()> &work, StoreResult *result,
                             bool lastTry)
{
    QLockFile lock(m_folder + QLatin1Char('/') + kLockFileName);
    lock.setStaleLockTime(kStaleLockTimeMs);
    if (lock.tryLock(0)) {
        // QLockFile creates it with the umask's mode; it outlives a crash.
        QFile::setPermissions(lock.fileName(), kOwnerOnlyFile);
        *result = work();
        return true;
    }
    if (!lastTry && lock.error() == QLockFile::LockFailedError)
        return false;

    QString why;
    qint64 pid = 0;
    QString host;
    QString application;
    switch (lock.error()) {
    case QLockFile::LockFailedError:
        why = lock.getLockInfo(&pid, &host, &application)
            ? QStringLiteral("held by %1 (pid %2 on %3)").arg(application).arg(pid).arg(host)
            : QStringLiteral("held by another process");
        why += QStringLiteral(" for more than %1 ms").arg(m_lockTimeoutMs);
        break;
    case QLockFile::PermissionError:
        why = QStringLiteral("cannot be created (permission denied)");
        break;
    default:
        why = QStringLiteral("cannot be taken");
        break;
    }
    const QString message
        = QStringLiteral("%1: lock file %2 %3").arg(describe(), lock.fileName(), why);
    qCWarning(lcStore).noquote() << message;
    *result = failure(Status::Unavailable, message);
    return true;
}

void FileStore::underLock(std::function<StoreResult()> work, Callback done)
{
    // The lock is held for a read and a rename, a millisecond or so. Rather
    // than QLockFile::tryLock(timeout), which sleeps the whole thread in
    // 100 ms steps, a busy lock is tried again from the event loop every
    // few milliseconds: the election never stalls, and a handover waiting
    // on another process's write takes milliseconds (SPEC F8).
    auto attempt = std::make_shared<LockedWrite>();
    attempt->work = std::move(work);
    attempt->done = std::move(done);
    attempt->since.start();
    tryLockedWrite(attempt);
}

void FileStore::tryLockedWrite(const std::shared_ptr<LockedWrite> &attempt)
{
    StoreResult result;
    const bool lastTry = attempt->since.elapsed() >= m_lockTimeoutMs;
    if (!tryUnderLock(attempt->work, &result, lastTry)) {
        QTimer::singleShot(kLockRetryMs, this, [this, attempt] { tryLockedWrite(attempt); });
        return;
    }
    deliver(std::move(attempt->done), result);
    if (result.ok())
        scheduleRescan();
}

std::optional<quint64> FileStore::nextVersion(const QString &currentVersion, StoreResult *refusal)
{
    const QString path = m_folder + QLatin1Char('/') + kSequenceFileName;
    quint64 sequence = 0;
    QFile file(path);
    if (file.open(QIODevice::ReadOnly)) {
        bool ok = false;
        sequence = file.read(64).trimmed().toULongLong(&ok);
        if (!ok) {
            *refusal = failure(Status::BadReply,
                               QStringLiteral("%1: file %2 does not hold a decimal counter")
                                   .arg(describe(), path));
            return std::nullopt;
        }
    } else if (file.exists()) {
        *refusal = failure(
            Status::Unavailable,
            QStringLiteral("%1: cannot read %2: %3").arg(describe(), path, file.errorString()));
        return std::nullopt;
    }
    // Never hand out the version the key has now, even if the counter file
    // was lost or restored from an old copy.
    const quint64 next = std::max(sequence, currentVersion.toULongLong()) + 1;
    QString error;
    if (!writeFileAtomically(kSequenceFileName, QByteArray::number(next) + '\n', &error)) {
        *refusal = failure(Status::Unavailable, error);
        return std::nullopt;
    }
    return next;
}

bool FileStore::writeFileAtomically(const QString &fileName, const QByteArray &data,
                                    QString *errorString) const
{
    QSaveFile file(m_folder + QLatin1Char('/') + fileName);
    const bool written = file.open(QIODevice::WriteOnly) && file.setPermissions(kOwnerOnlyFile)
        && file.write(data) == data.size() && file.commit();
    if (!written) {
        *errorString = QStringLiteral("%1: cannot write %2: %3")
                           .arg(describe(), file.fileName(), file.errorString());
    }
    return written;
}

StoreResult FileStore::writeEntry(const QString &key, const QJsonObject &document,
                                  const QString &currentVersion)
{
    StoreResult refusal;
    const std::optional<quint64> version = nextVersion(currentVersion, &refusal);
    if (!version)
        return refusal;
    QString error;
    const StoreEntry entry { key, document, QString::number(*version) };
    const QJsonObject envelope { { QStringLiteral("key"), key },
                                 { QStringLiteral("version"), entry.version },
                                 { QStringLiteral("document"), document } };
    if (!writeFileAtomically(fileNameForKey(key),
                             QJsonDocument(envelope).toJson(QJsonDocument::Indented), &error)) {
        return failure(Status::Unavailable, error);
    }
    qCDebug(lcStore).noquote() << describe() << "wrote" << key << "version" << entry.version;
    return success(entry);
}

void FileStore::get(const QString &key, Callback done)
{
    if (auto refused = refuseKey(key)) {
        deliver(std::move(done), *refused);
        return;
    }
    deliver(std::move(done), readEntry(key));
}

void FileStore::create(const QString &key, const QJsonObject &document, Callback done)
{
    if (auto refused = refuseKey(key)) {
        deliver(std::move(done), *refused);
        return;
    }
    underLock([this, key, document] {
        const StoreResult current = readEntry(key);
        if (current.ok()) {
            return conflict(current.entry,
                            QStringLiteral("%1: key \"%2\" already exists").arg(describe(), key));
        }
        if (current.status != Status::NotFound)
            return current;
        return writeEntry(key, document, QString());
    }, std::move(done));
}

void FileStore::update(const QString &key, const QJsonObject &document, const QString &version,
                       Callback done)
{
    if (auto refused = refuseKey(key)) {
        deliver(std::move(done), *refused);
        return;
    }
    underLock([this, key, document, version] {
        const StoreResult current = readEntry(key);
        if (!current.ok())
            return current;
        if (current.entry.version != version) {
            return conflict(current.entry,
                            QStringLiteral("%1: key \"%2\" has version %3, not %4")
                                .arg(describe(), key, current.entry.version, version));
        }
        return writeEntry(key, document, current.entry.version);
    }, std::move(done));
}

void FileStore::remove(const QString &key, const QString &version, Callback done)
{
    if (auto refused = refuseKey(key)) {
        deliver(std::move(done), *refused);
        return;
    }
    underLock([this, key, version] {
        StoreResult current = readEntry(key);
        // An unconditional remove also clears a corrupt file: it is the way out
        // of a BadReply. A conditional one cannot compare, so it changes nothing.
        const bool corrupt = current.status == Status::BadReply;
        if (!current.ok() && !(corrupt && version.isEmpty()))
            return current;
        if (!version.isEmpty() && current.entry.version != version) {
            return conflict(current.entry,
                            QStringLiteral("%1: key \"%2\" has version %3, not %4")
                                .arg(describe(), key, current.entry.version, version));
        }
        QFile file(m_folder + QLatin1Char('/') + fileNameForKey(key));
        if (!file.remove()) {
            return failure(Status::Unavailable,
                           QStringLiteral("%1: cannot remove %2: %3")
                               .arg(describe(), file.fileName(), file.errorString()));
        }
        if (corrupt) {
            qCWarning(lcStore).noquote() << describe() << "removed unreadable" << file.fileName();
            return StoreResult();
        }
        return success(current.entry);
    }, std::move(done));
}

FileStore::Scan FileStore::scan(const QString &prefix) const
{
    Scan found;
    // Hidden files are listed for the empty key (`.json`); the store's own dot
    // files and QSaveFile's temporary files do not end in `.json`.
    const QStringList fileNames = QDir(m_folder).entryList({ QStringLiteral("*") + kSuffix },
                                                           QDir::Files | QDir::Hidden, QDir::Name);
    for (const QString &fileName : fileNames) {
        const QString key = keyForFileName(fileName);
        // Files not written by a FileStore (`a.b.json`) are not keys.
        if (fileNameForKey(key) != fileName || !key.startsWith(prefix))
            continue;
        const StoreResult read = readFile(fileName, key);
        if (read.ok()) {
            found.entries.insert(key, read.entry);
        } else if (read.status != Status::NotFound) { // NotFound: removed meanwhile
            found.unreadable.insert(key);
            found.errors.append(read.errorString);
        }
    }
    return found;
}

void FileStore::list(const QString &prefix, Callback done)
{
    if (auto refused = refuseUnusable()) {
        deliver(std::move(done), *refused);
        return;
    }
    const Scan found = scan(prefix);
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
    if (m_folder.isEmpty())
        return nullptr;
    if (!m_watcher) {
        m_watcher = new QFileSystemWatcher(this);
        connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, &FileStore::scheduleRescan);
    }
    if (!m_watcher->directories().contains(m_folder) && !m_watcher->addPath(m_folder)) {
        qCWarning(lcStore).noquote() << describe() << "cannot watch" << m_folder;
        return nullptr;
    }

    auto *watch = new StoreWatch(parent);
    WatchState state;
    state.prefix = prefix;
    // Starts from what is there now: a watch reports changes, not the past.
    const Scan found = scan(prefix);
    for (auto it = found.entries.cbegin(); it != found.entries.cend(); ++it)
        state.seen.insert(it.key(), it->version);
    m_watches.insert(watch, state);
    // The pointer is only a key here: it is never dereferenced once destroyed.
    connect(watch, &QObject::destroyed, this, [this, watch] { m_watches.remove(watch); });
    return watch;
}

void FileStore::scheduleRescan()
{
    // Coalesces the bursts a single write causes (lock, counter, rename).
    if (m_rescanPending || m_watches.isEmpty())
        return;
    m_rescanPending = true;
    QTimer::singleShot(0, this, [this] {
        m_rescanPending = false;
        rescan();
    });
}

void FileStore::rescan()
{
    const Scan found = scan(QString());
    for (const QString &error : found.errors) {
        if (!m_warnedUnreadable.contains(error))
            qCWarning(lcStore).noquote() << error;
    }
    m_warnedUnreadable = QSet<QString>(found.errors.cbegin(), found.errors.cend());

    struct Change
    {
        QPointer<StoreWatch> watch;
        StoreEntry entry;
        bool removed = false;
    };
    QList<Change> changes;
    for (auto it = m_watches.begin(); it != m_watches.end(); ++it) {
        WatchState &state = it.value();
        for (const StoreEntry &entry : found.entries) {
            if (entry.key.startsWith(state.prefix)
                && state.seen.value(entry.key) != entry.version) {
                state.seen.insert(entry.key, entry.version);
                changes.append({ it.key(), entry, false });
            }
        }
        for (auto seen = state.seen.begin(); seen != state.seen.end();) {
            if (found.entries.contains(seen.key()) || found.unreadable.contains(seen.key())) {
                ++seen;
                continue;
            }
            changes.append({ it.key(), StoreEntry { seen.key(), {}, {} }, true });
            seen = state.seen.erase(seen);
        }
    }
    // Emitted after the bookkeeping: a receiver may destroy its watch, or
    // write to the store, while we emit.
    for (const Change &change : std::as_const(changes)) {
        if (!change.watch)
            continue;
        if (change.removed)
            Q_EMIT change.watch->entryRemoved(change.entry.key);
        else
            Q_EMIT change.watch->entryChanged(change.entry);
    }
}

} // namespace baton
