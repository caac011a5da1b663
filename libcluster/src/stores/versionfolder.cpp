#include "versionfolder.h"

#include "boundedread.h"
#include "filestoresteps.h"
#include "storesupport.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

namespace baton {

using namespace storesupport;
using Status = StoreResult::Status;

namespace {

const QString kSuffix = QStringLiteral(".json");
// A registry document is a few hundred bytes; anything near this is not one.
constexpr qint64 kMaxFileSize = 16 * 1024 * 1024;
// A reader whose file is collected under it lists again; each time, a newer
// version exists, so only a flood of writes can exhaust this.
constexpr int kMaxReadTries = 100;
// Versions found by name past the last one that exists, before the probe
// gives up: a process that last read the key this many writes ago no longer
// finds it when every listing misses it. A stat() each, only then.
constexpr int kMaxProbeMisses = 1000;

} // namespace

VersionFolder::VersionFolder(const QString &path, const QString &description)
    : m_path(path)
    , m_description(description)
{ }

QString VersionFolder::filePath(const QString &fileName) const
{
    return m_path + QLatin1Char('/') + fileName;
}

QString VersionFolder::fileName(const QString &key, quint64 version)
{
    // '.' is encoded so that no key can name `.`, `..`, or the store's own
    // dot files, and so that the first '.' starts the version; ':' is kept
    // so that `cluster:leader.7.json` reads as its key. Version 0 is the
    // earlier layout's `cluster:leader.json`, as parseFileName() reads it.
    const QString encoded = QString::fromLatin1(QUrl::toPercentEncoding(key, ":", "."));
    if (version == 0)
        return encoded + kSuffix;
    return encoded + QLatin1Char('.') + QString::number(version) + kSuffix;
}

bool VersionFolder::parseFileName(const QString &fileName, QString *key, quint64 *version)
{
    filestoresteps::count(filestoresteps::Work::NameParsed);
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

QString VersionFolder::systemError(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

QHash<QString, VersionFolder::KeyFiles> VersionFolder::listFiles(const QString &prefix,
                                                                 QString *errorString,
                                                                 QStringList *temporaries) const
{
    return listNames(prefix, false, errorString, temporaries);
}

QHash<QString, VersionFolder::KeyFiles> VersionFolder::listNames(const QString &prefix, bool exact,
                                                                 QString *errorString,
                                                                 QStringList *temporaries) const
{
    QHash<QString, KeyFiles> found;
    if (temporaries)
        temporaries->clear();
    // Each character of a key is encoded alone, so the encoded prefix starts
    // every name under it: the names of other keys are passed over as bytes,
    // never decoded. A prefix cut inside a character matches more, not less.
    QString cut = prefix;
    if (!cut.isEmpty() && cut.back().isHighSurrogate())
        cut.chop(1);
    QByteArray match = QUrl::toPercentEncoding(cut, ":", ".");
    if (exact) // an encoded key has no '.': its own names go on with one
        match += '.';
    const QByteArray suffix = kSuffix.toLatin1();
    const QByteArray temporary(kTemporaryPrefix.data(), kTemporaryPrefix.size());

    filestoresteps::count(filestoresteps::Work::FolderListed);
    const QByteArray folder = QFile::encodeName(m_path);
    DIR *dir = ::opendir(folder.constData());
    if (!dir) {
        const int error = errno;
        *errorString = error == ENOENT || error == ENOTDIR
                ? QStringLiteral("%1: folder %2 no longer exists").arg(describe(), m_path)
                : QStringLiteral("%1: cannot list folder %2: %3")
                          .arg(describe(), m_path, systemError(error));
        return found;
    }
    // The store's temporary files and the earlier layout's dot files do not
    // end in `.json`; the empty key's names are hidden ones (`.1.json`).
    while (const struct dirent *entry = ::readdir(dir)) {
        const QByteArrayView name(entry->d_name);
        if (temporaries && name.startsWith(temporary)) {
            temporaries->append(QFile::decodeName(entry->d_name));
            continue;
        }
        if (!name.startsWith(match) || !name.endsWith(suffix) || !isFile(folder, *entry))
            continue;
        QString key;
        quint64 version = 0;
        if (parseFileName(QFile::decodeName(entry->d_name), &key, &version)
            && (exact ? key == prefix : key.startsWith(prefix)))
            found[key].versions.insert(version, QFile::decodeName(entry->d_name));
    }
    ::closedir(dir);
    return found;
}

bool VersionFolder::isFile(const QByteArray &folder, const struct dirent &entry)
{
    if (entry.d_type == DT_REG)
        return true;
    if (entry.d_type != DT_LNK && entry.d_type != DT_UNKNOWN)
        return false;
    // A link to a file counts as one, as it does for every read of it.
    struct stat info;
    const QByteArray path = folder + '/' + entry.d_name;
    return ::stat(path.constData(), &info) == 0 && S_ISREG(info.st_mode);
}

VersionFolder::Head VersionFolder::readHead(const QString &key, const KeyFiles *files) const
{
    KeyFiles listed;
    if (files)
        listed = *files;
    for (int tries = 0; tries < kMaxReadTries; ++tries) {
        if (tries > 0 || !files) {
            QString error;
            listed = listKey(key, &error);
            if (!error.isEmpty())
                return { failure(Status::Unavailable, error), 0 };
        }
        if (listed.versions.isEmpty())
            listed = probeVersions(key);
        if (listed.versions.isEmpty()) {
            return { failure(Status::NotFound,
                             QStringLiteral("%1: no key \"%2\" (no file of it in %3)")
                                     .arg(describe(), key, m_path)),
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
            // Equal counts too: the leftover of a migration is always older
            // than the version that replaced it.
            if (legacy.version >= highest) {
                return { failure(Status::BadReply,
                                 QStringLiteral("%1: file %2 has version %3, not older than %4: a "
                                                "process of an earlier Baton still writes to "
                                                "this folder; stop it")
                                         .arg(describe(), filePath(listed.versions.value(0)))
                                         .arg(legacy.version)
                                         .arg(highest)),
                         highest };
            }
        }
        if (head.version != 0)
            noteVersion(key, head.version);
        return head;
    }
    return { failure(Status::Unavailable,
                     QStringLiteral("%1: key \"%2\" changed under every one of %3 reads")
                             .arg(describe(), key)
                             .arg(kMaxReadTries)),
             0 };
}

std::optional<VersionFolder::Head> VersionFolder::readOwnNewest(const QString &key,
                                                                quint64 version,
                                                                const QString &writer) const
{
    if (version == 0 || version == std::numeric_limits<quint64>::max() || writer.isEmpty())
        return std::nullopt;
    auto named = [this, &key](quint64 v) { return QFileInfo::exists(filePath(fileName(key, v))); };
    if (named(version + 1) || named(0))
        return std::nullopt;
    Head head = readVersionFile(key, version, fileName(key, version));
    if (head.version == 0)
        return std::nullopt;
    // Another writer's file under that name is a frozen writer's late link,
    // made after ours was collected: only a listing finds the record then.
    if (head.writer != writer)
        return std::nullopt;
    noteVersion(key, head.version);
    return head;
}

VersionFolder::Head VersionFolder::readVersionFile(const QString &key, quint64 version,
                                           const QString &fileName) const
{
    const QString path = filePath(fileName);
    QFile file(path);
    filestoresteps::count(filestoresteps::Work::FileRead);
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
    const QJsonDocument json = QJsonDocument::fromJson(readUpTo(&file, kMaxFileSize + 1), &parseError);
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
        return { gone, stored, envelope.value(QLatin1String("writer")).toString() };
    }
    return { success(StoreEntry { key, envelope.value(QLatin1String("document")).toObject(),
                                  versionText }),
             stored, envelope.value(QLatin1String("writer")).toString() };
}

VersionFolder::KeyFiles VersionFolder::listKey(const QString &key, QString *errorString,
                                               QStringList *temporaries) const
{
    KeyFiles listed = listNames(key, true, errorString, temporaries).value(key);
    // A key seen once always has a file (its highest version is kept), so a
    // listing without one missed it: the race is transient, and the next
    // listing is what ends it, before the names are probed one by one.
    for (int tries = 1; listed.versions.isEmpty() && m_seen.contains(key) && tries < kMaxReadTries
         && errorString->isEmpty();
         ++tries)
        listed = listNames(key, true, errorString, temporaries).value(key);
    return listed;
}

VersionFolder::KeyFiles VersionFolder::probeVersions(const QString &key) const
{
    KeyFiles found;
    const auto seen = m_seen.constFind(key);
    if (seen == m_seen.cend())
        return found;
    // Each write makes the version after the highest one, so the record is
    // at the one seen or above; one already collected has a newer one. Only
    // the newest is kept after a write, so the versions in between are gone:
    // the probe goes on far until it finds one, then to two past the last.
    quint64 version = *seen;
    for (int misses = 0; misses < kMaxProbeMisses && (found.versions.isEmpty() || misses < 2);
         ++version) {
        const QString name = fileName(key, version);
        if (QFileInfo::exists(filePath(name))) {
            found.versions.insert(version, name);
            misses = 0;
        } else if (!found.versions.isEmpty() || version > *seen) {
            ++misses;
        }
    }
    return found;
}

void VersionFolder::noteVersion(const QString &key, quint64 version) const
{
    quint64 &seen = m_seen[key];
    seen = std::max(seen, version);
}

QString VersionFolder::writtenOver(const QString &key, quint64 version) const
{
    QFile file(filePath(fileName(key, version)));
    filestoresteps::count(filestoresteps::Work::FileRead);
    if (!file.open(QIODevice::ReadOnly) || file.size() > kMaxFileSize)
        return QString();
    const QJsonObject envelope = QJsonDocument::fromJson(file.readAll()).object();
    return envelope.value(QLatin1String("over")).toString();
}

bool VersionFolder::newestVersion(const QString &key, quint64 *version, QString *errorString,
                                  Listed *listed) const
{
    QString error;
    Listed found;
    found.files = listKey(key, &error, &found.temporaries);
    if (!error.isEmpty()) {
        *errorString = error;
        return false;
    }
    if (found.files.versions.isEmpty())
        found.files = probeVersions(key);
    *version = found.files.versions.isEmpty() ? 0 : found.files.versions.lastKey();
    if (listed)
        *listed = found;
    return true;
}

VersionFolder::Head VersionFolder::readVersion(const QString &key, quint64 version) const
{
    Head head = readVersionFile(key, version, fileName(key, version));
    if (head.version != 0)
        noteVersion(key, head.version);
    return head;
}

} // namespace baton
