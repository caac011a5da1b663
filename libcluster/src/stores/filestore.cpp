#include "filestore.h"

#include "logging.h"
#include <batoninternal/privatefiles.h>
#include "storesupport.h"

#include <baton/application.h>

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QJsonDocument>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>

#include <fcntl.h>
#include <unistd.h>

namespace baton {

using namespace storesupport;
using Status = StoreResult::Status;

namespace {

const QString kTypeName = QStringLiteral("Webda/FileStore");
const QString kSuffix = QStringLiteral(".json");
const QString kTemporaryPrefix = QStringLiteral(".tmp-");
// The earlier layout's version counter, read to carry its versions on.
const QString kLegacySequenceFileName = QStringLiteral(".sequence");
// Longest file name most Linux file systems accept.
constexpr qsizetype kMaxFileNameBytes = 255;
// A registry document is a few hundred bytes; anything near this is not one.
constexpr qint64 kMaxFileSize = 16 * 1024 * 1024;
// A reader whose file is collected under it lists again; each time, a newer
// version exists, so only a flood of writes can exhaust this.
constexpr int kMaxReadTries = 100;
// A temporary file is linked milliseconds after it is made. One this old was
// left by a writer that died; removing a live writer's only fails its link,
// so this age is tidiness, not safety, and the wall clock is good enough.
constexpr qint64 kAbandonedTemporaryAgeMs = 60000;

/*! Splits `<key>.<version>.json` (or the earlier `<key>.json`, version 0). */
bool parseFileName(const QString &fileName, QString *key, quint64 *version)
{
    if (!fileName.endsWith(kSuffix))
        return false;
    const QString stem = fileName.chopped(kSuffix.size());
    // An encoded key has no '.': the first one, if any, starts the version.
    const qsizetype dot = stem.indexOf(QLatin1Char('.'));
    QString encoded = stem;
    quint64 number = 0;
    if (dot >= 0) {
        const QString digits = stem.mid(dot + 1);
        bool ok = !digits.isEmpty() && !digits.startsWith(QLatin1Char('0'));
        for (const QChar c : digits)
            ok = ok && c >= QLatin1Char('0') && c <= QLatin1Char('9');
        number = ok ? digits.toULongLong(&ok) : 0;
        if (!ok)
            return false;
        encoded = stem.left(dot);
    }
    const QString decoded = QUrl::fromPercentEncoding(encoded.toLatin1());
    // Files not written by a FileStore (`a b.json`, `x.07.json`) are not keys.
    if (QString::fromLatin1(QUrl::toPercentEncoding(decoded, ":", ".")) != encoded)
        return false;
    *key = decoded;
    *version = number;
    return true;
}

QString systemError(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

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
    // Writes take no lock any more; a configuration of the earlier layout
    // still names a lock timeout, which is checked as it was and not used.
    const bool lockTimeoutGiven = parameters().contains(QLatin1String("lockTimeout"));
    reader.duration(QStringLiteral("lockTimeout"), 0, 0, 600000);
    if (!accept(errorString, reader))
        return false;
    if (lockTimeoutGiven)
        qCInfo(lcStore).noquote() << service << "ignores parameter lockTimeout: writes take no lock";

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
    return true;
}

QString FileStore::folder() const
{
    return m_folder;
}

void FileStore::setWriteStepHook(std::function<void(WriteStep)> hook)
{
    m_writeStepHook = std::move(hook);
}

void FileStore::step(WriteStep at)
{
    if (m_writeStepHook)
        m_writeStepHook(at);
}

QString FileStore::fileNameForKey(const QString &key, quint64 version)
{
    // '.' is encoded so that no key can name `.`, `..`, or the store's own
    // dot files, and so that the first '.' starts the version; ':' is kept
    // so that `cluster:leader.7.json` reads as its key.
    return QString::fromLatin1(QUrl::toPercentEncoding(key, ":", ".")) + QLatin1Char('.')
            + QString::number(version) + kSuffix;
}

QString FileStore::keyForFileName(const QString &fileName)
{
    QString key;
    quint64 version = 0;
    return parseFileName(fileName, &key, &version) ? key : QString();
}

QString FileStore::pathOf(const QString &fileName) const
{
    return m_folder + QLatin1Char('/') + fileName;
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
    // Room for the longest version a counter of 64 bits can reach.
    const QString longest = fileNameForKey(key, std::numeric_limits<quint64>::max());
    if (longest.toUtf8().size() > kMaxFileNameBytes) {
        return failure(Status::Unavailable,
                       QStringLiteral("%1: key \"%2\" is too long for a file name in %3")
                           .arg(describe(), key.left(64) + QStringLiteral("..."), m_folder));
    }
    return std::nullopt;
}

QHash<QString, FileStore::KeyFiles> FileStore::listFiles(const QString &prefix,
                                                         QString *errorString) const
{
    QHash<QString, KeyFiles> found;
    QDir dir(m_folder);
    if (!dir.exists()) {
        *errorString = QStringLiteral("%1: folder %2 no longer exists").arg(describe(), m_folder);
        return found;
    }
    // Hidden files are listed for the empty key (`.1.json`); the store's
    // temporary files and the earlier layout's dot files do not end in `.json`.
    const QStringList fileNames
            = dir.entryList({ QStringLiteral("*") + kSuffix }, QDir::Files | QDir::Hidden);
    for (const QString &fileName : fileNames) {
        QString key;
        quint64 version = 0;
        if (parseFileName(fileName, &key, &version) && key.startsWith(prefix))
            found[key].versions.insert(version, fileName);
    }
    return found;
}

FileStore::Head FileStore::readHead(const QString &key, const KeyFiles *files) const
{
    KeyFiles listed;
    if (files)
        listed = *files;
    for (int tries = 0; tries < kMaxReadTries; ++tries) {
        if (tries > 0 || !files) {
            QString error;
            QHash<QString, KeyFiles> all = listFiles(key, &error);
            if (!error.isEmpty())
                return { failure(Status::Unavailable, error), 0 };
            listed = all.value(key);
        }
        if (listed.versions.isEmpty()) {
            return { failure(Status::NotFound,
                             QStringLiteral("%1: no key \"%2\" (no file of it in %3)")
                                     .arg(describe(), key, m_folder)),
                     0 };
        }
        const quint64 highest = listed.versions.lastKey();
        Head head = readVersionFile(key, highest, listed.versions.last());
        // Collected between listing and reading: a newer version exists.
        if (head.result.status == Status::NotFound && head.version == 0)
            continue;
        // The earlier layout's file alone is the record; beside version
        // files it is a leftover, unless an older process still writes it.
        if (highest != 0 && listed.versions.contains(0)) {
            const Head legacy = readVersionFile(key, 0, listed.versions.value(0));
            if (legacy.version > highest) {
                return { failure(Status::BadReply,
                                 QStringLiteral("%1: file %2 has version %3, newer than %4: a "
                                                "process of an earlier Baton still writes to "
                                                "this folder; stop it")
                                         .arg(describe(), pathOf(listed.versions.value(0)))
                                         .arg(legacy.version)
                                         .arg(highest)),
                         highest };
            }
        }
        return head;
    }
    return { failure(Status::Unavailable,
                     QStringLiteral("%1: key \"%2\" changed under every one of %3 reads")
                             .arg(describe(), key)
                             .arg(kMaxReadTries)),
             0 };
}

FileStore::Head FileStore::readVersionFile(const QString &key, quint64 version,
                                           const QString &fileName) const
{
    const QString path = pathOf(fileName);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (!file.exists())
            return {
                failure(Status::NotFound, QStringLiteral("%1: %2 is gone").arg(describe(), path)), 0
            };
        return { failure(Status::Unavailable,
                         QStringLiteral("%1: cannot read %2: %3")
                                 .arg(describe(), path, file.errorString())),
                 version };
    }
    auto bad = [&](const QString &why) {
        return Head { failure(Status::BadReply,
                              QStringLiteral("%1: file %2 %3").arg(describe(), path, why)),
                      version };
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
    const QString versionText = envelope.value(QLatin1String("version")).toString();
    bool numeric = false;
    const quint64 stored = versionText.toULongLong(&numeric);
    const bool removed = envelope.value(QLatin1String("removed")).toBool();
    if (!json.isObject() || !numeric || stored == 0
        || (!removed && !envelope.value(QLatin1String("document")).isObject())) {
        return bad(
                QStringLiteral("lacks the envelope {\"version\": \"<n>\", \"document\": {...}}"));
    }
    if (version != 0 && stored != version)
        return bad(QStringLiteral("holds version %1, not the %2 of its name")
                           .arg(stored)
                           .arg(version));
    const QJsonValue storedKey = envelope.value(QLatin1String("key"));
    if (!storedKey.isUndefined() && storedKey.toString() != key)
        return bad(QStringLiteral("holds key \"%1\", not \"%2\"").arg(storedKey.toString(), key));
    if (removed) {
        // The removal's version goes with the answer: F7's token carries on
        // above it when the key is created again.
        StoreResult gone = failure(Status::NotFound,
                                   QStringLiteral("%1: no key \"%2\" (removed at version %3)")
                                           .arg(describe(), key, versionText));
        gone.entry.key = key;
        gone.entry.version = versionText;
        return { gone, stored };
    }
    return { success(StoreEntry { key, envelope.value(QLatin1String("document")).toObject(),
                                  versionText }),
             stored };
}

std::optional<quint64> FileStore::legacySequence(StoreResult *refusal) const
{
    const QString path = pathOf(kLegacySequenceFileName);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (!file.exists())
            return 0;
        *refusal = failure(
            Status::Unavailable,
            QStringLiteral("%1: cannot read %2: %3").arg(describe(), path, file.errorString()));
        return std::nullopt;
    }
    bool ok = false;
    const quint64 sequence = file.read(64).trimmed().toULongLong(&ok);
    if (!ok) {
        *refusal = failure(
            Status::BadReply,
            QStringLiteral("%1: file %2 does not hold a decimal counter").arg(describe(), path));
        return std::nullopt;
    }
    return sequence;
}

bool FileStore::writeTemporary(const QByteArray &data, QString *path, QString *errorString) const
{
    // mkstemp() makes the file 0600 whatever the umask (R2).
    QByteArray name = QFile::encodeName(pathOf(kTemporaryPrefix + QStringLiteral("XXXXXX")));
    const int fd = ::mkstemp(name.data());
    if (fd < 0) {
        *errorString = QStringLiteral("%1: cannot create a file in %2: %3")
                               .arg(describe(), m_folder, systemError(errno));
        return false;
    }
    *path = QFile::decodeName(name);
    qsizetype written = 0;
    while (written < data.size()) {
        const ssize_t n = ::write(fd, data.constData() + written, size_t(data.size() - written));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        written += n;
    }
    // Synced before it gets its name: a power cut never leaves a version
    // whose name exists and whose content does not.
    const bool ok = written == data.size() && ::fsync(fd) == 0;
    const int error = errno;
    ::close(fd);
    if (!ok) {
        *errorString = QStringLiteral("%1: cannot write %2: %3")
                               .arg(describe(), *path, systemError(error));
        ::unlink(name.constData());
    }
    return ok;
}

bool FileStore::syncFolder(QString *errorString) const
{
    const QByteArray folder = QFile::encodeName(m_folder);
    const int fd = ::open(folder.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const bool ok = fd >= 0 && ::fsync(fd) == 0;
    const int error = errno;
    if (fd >= 0)
        ::close(fd);
    if (!ok) {
        *errorString = QStringLiteral("%1: cannot sync folder %2: %3")
                               .arg(describe(), m_folder, systemError(error));
    }
    return ok;
}

StoreResult FileStore::conflictWith(const QString &key, const QString &why) const
{
    const Head now = readHead(key);
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
        const std::optional<quint64> sequence = legacySequence(&refusal);
        if (!sequence)
            return refusal;
        next = *sequence + 1;
    }
    QJsonObject envelope { { QStringLiteral("key"), key },
                           { QStringLiteral("version"), QString::number(next) } };
    if (document)
        envelope.insert(QStringLiteral("document"), *document);
    else
        envelope.insert(QStringLiteral("removed"), true);

    QString temporary;
    QString error;
    const QByteArray data = QJsonDocument(envelope).toJson(QJsonDocument::Indented);
    if (!writeTemporary(data, &temporary, &error))
        return failure(Status::Unavailable, error);
    step(WriteStep::WroteTemporary);

    // link() never replaces a name: of all the writers of this version,
    // exactly one creates it, whoever else is frozen where.
    const QString target = pathOf(fileNameForKey(key, next));
    const int linked = ::link(QFile::encodeName(temporary).constData(),
                              QFile::encodeName(target).constData());
    const int linkError = errno;
    ::unlink(QFile::encodeName(temporary).constData());
    if (linked != 0) {
        if (linkError == EEXIST)
            return conflictWith(key, QStringLiteral("was written first by another writer "
                                                    "(version %1)")
                                             .arg(next));
        return failure(Status::Unavailable,
                       QStringLiteral("%1: cannot create %2: %3")
                               .arg(describe(), target, systemError(linkError)));
    }
    step(WriteStep::LinkedVersion);
    // Until the folder is synced, a power cut could lose the new name, and
    // with it an acquisition that others already saw.
    if (!syncFolder(&error))
        return failure(Status::Unavailable, error);

    // A writer frozen between reading and linking may have created a version
    // that was won and collected long ago: once a version is collected a
    // newer one always exists, so finding none proves the version is ours.
    QString listError;
    const KeyFiles files = listFiles(key, &listError).value(key);
    if (!listError.isEmpty())
        return failure(Status::Unavailable, listError);
    if (!files.versions.isEmpty() && files.versions.lastKey() > next) {
        return conflictWith(key,
                            QStringLiteral("has moved past version %1 (to %2)")
                                    .arg(next)
                                    .arg(files.versions.lastKey()));
    }
    step(WriteStep::Verified);
    collect(key, next);
    qCDebug(lcStore).noquote() << describe() << (document ? "wrote" : "removed") << key
                               << "version" << next;
    if (!document)
        return head.result;
    return success(StoreEntry { key, *document, QString::number(next) });
}

void FileStore::collect(const QString &key, quint64 version) const
{
    QString error;
    const KeyFiles files = listFiles(key, &error).value(key);
    for (auto it = files.versions.cbegin(); it != files.versions.cend() && it.key() < version; ++it)
        QFile::remove(pathOf(it.value()));

    const QDateTime abandoned = QDateTime::currentDateTime().addMSecs(-kAbandonedTemporaryAgeMs);
    const QFileInfoList temporaries = QDir(m_folder).entryInfoList(
            { kTemporaryPrefix + QStringLiteral("*") }, QDir::Files | QDir::Hidden);
    for (const QFileInfo &temporary : temporaries) {
        if (temporary.lastModified() < abandoned)
            QFile::remove(temporary.absoluteFilePath());
    }
}

void FileStore::get(const QString &key, Callback done)
{
    if (auto refused = refuseKey(key)) {
        deliver(std::move(done), *refused);
        return;
    }
    deliver(std::move(done), readHead(key).result);
}

void FileStore::create(const QString &key, const QJsonObject &document, Callback done)
{
    if (auto refused = refuseKey(key)) {
        deliver(std::move(done), *refused);
        return;
    }
    const Head head = readHead(key);
    step(WriteStep::ReadCurrent);
    StoreResult result;
    if (head.result.ok()) {
        result = conflict(head.result.entry,
                          QStringLiteral("%1: key \"%2\" already exists").arg(describe(), key));
    } else if (head.result.status != Status::NotFound) {
        result = head.result;
    } else {
        result = writeNext(key, head, document);
    }
    finishWrite(std::move(done), result);
}

void FileStore::update(const QString &key, const QJsonObject &document, const QString &version,
                       Callback done)
{
    if (auto refused = refuseKey(key)) {
        deliver(std::move(done), *refused);
        return;
    }
    const Head head = readHead(key);
    step(WriteStep::ReadCurrent);
    StoreResult result;
    if (!head.result.ok()) {
        result = head.result;
    } else if (head.result.entry.version != version) {
        result = conflict(head.result.entry,
                          QStringLiteral("%1: key \"%2\" has version %3, not %4")
                                  .arg(describe(), key, head.result.entry.version, version));
    } else {
        result = writeNext(key, head, document);
    }
    finishWrite(std::move(done), result);
}

void FileStore::remove(const QString &key, const QString &version, Callback done)
{
    if (auto refused = refuseKey(key)) {
        deliver(std::move(done), *refused);
        return;
    }
    Head head = readHead(key);
    step(WriteStep::ReadCurrent);
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
    finishWrite(std::move(done), result);
}

void FileStore::finishWrite(Callback done, const StoreResult &result)
{
    deliver(std::move(done), result);
    if (result.ok())
        scheduleRescan();
}

FileStore::Scan FileStore::scan(const QString &prefix) const
{
    Scan found;
    QString error;
    const QHash<QString, KeyFiles> files = listFiles(prefix, &error);
    if (!error.isEmpty()) {
        found.errors.append(error);
        return found;
    }
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        const Head head = readHead(it.key(), &it.value());
        if (head.result.ok()) {
            found.entries.insert(it.key(), head.result.entry);
        } else if (head.result.status != Status::NotFound) { // NotFound: removed
            found.unreadable.insert(it.key());
            found.errors.append(head.result.errorString);
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
    // Coalesces the bursts a single write causes (temporary file, link, collection).
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
