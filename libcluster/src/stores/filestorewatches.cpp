#include "filestorewatches.h"

#include "folderevents.h"
#include "logging.h"
#include "storesupport.h"

#include <QFileInfo>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace baton {

using namespace storesupport;
using Status = StoreResult::Status;
using Head = VersionFolder::Head;

FolderScan scanFolder(const VersionFolder &files, const QString &prefix)
{
    FolderScan found;
    QString error;
    const QHash<QString, VersionFolder::KeyFiles> listed = files.listFiles(prefix, &error);
    if (!error.isEmpty()) {
        found.errors.append(error);
        return found;
    }
    for (auto it = listed.cbegin(); it != listed.cend(); ++it) {
        const Head head = files.readHead(it.key(), &it.value());
        if (head.result.ok()) {
            found.entries.insert(it.key(), head.result.entry);
        } else if (head.result.status != Status::NotFound) { // NotFound: removed
            found.unreadable.insert(it.key(), head.result.errorString);
            found.errors.append(head.result.errorString);
        }
    }
    return found;
}

FileStoreWatches::FileStoreWatches(const VersionFolder &files, QObject *parent)
    : QObject(parent)
    , m_files(files)
{ }

StoreWatch *FileStoreWatches::add(const QString &prefix, QObject *parent)
{
    if (!m_events) {
        // Before the first listing: a change made while it runs is told after.
        auto *events = new FolderEvents(this);
        QString error;
        if (!events->start(m_files.path(), &error)) {
            qCWarning(lcStore).noquote()
                    << m_files.describe() << "cannot watch" << m_files.path() << ":" << error;
            delete events;
            return nullptr;
        }
        m_events = events;
        connect(m_events, &FolderEvents::namesChanged, this, &FileStoreWatches::namesChanged);
        connect(m_events, &FolderEvents::lost, this, [this] {
            m_lost = true;
            schedule();
        });
    }
    auto *watch = new StoreWatch(parent);
    WatchState state;
    state.prefix = prefix;
    // Starts from what is there now: a watch reports changes, not the past.
    const FolderScan found = scanFolder(m_files, prefix);
    for (auto it = found.entries.cbegin(); it != found.entries.cend(); ++it) {
        state.seen.insert(it.key(), it->version);
        quint64 &known = m_known[it.key()];
        known = std::max(known, it->version.toULongLong());
    }
    m_watches.insert(watch, state);
    m_byPrefix[prefix].append(watch);
    ++m_prefixLengths[prefix.size()];
    // The pointer is only a key here: it is never dereferenced once destroyed.
    connect(watch, &QObject::destroyed, this, [this, watch] { remove(watch); });
    return watch;
}

void FileStoreWatches::remove(StoreWatch *watch)
{
    const auto state = m_watches.constFind(watch);
    if (state == m_watches.cend())
        return;
    const QString prefix = state->prefix;
    m_watches.erase(state);
    QList<StoreWatch *> &sharing = m_byPrefix[prefix];
    sharing.removeOne(watch);
    if (sharing.isEmpty())
        m_byPrefix.remove(prefix);
    if (--m_prefixLengths[prefix.size()] == 0)
        m_prefixLengths.remove(prefix.size());
}

QList<StoreWatch *> FileStoreWatches::watchesOf(const QString &key) const
{
    QList<StoreWatch *> watches;
    for (auto length = m_prefixLengths.cbegin();
         length != m_prefixLengths.cend() && length.key() <= key.size(); ++length) {
        const auto found = m_byPrefix.constFind(key.left(length.key()));
        if (found != m_byPrefix.cend())
            watches.append(*found);
    }
    return watches;
}

void FileStoreWatches::namesChanged(const QStringList &names)
{
    for (const QString &name : names) {
        // Temporary files and the earlier layout's dot files are not records.
        if (!name.endsWith(QLatin1String(".json")))
            continue;
        QString key;
        quint64 version = 0;
        if (!VersionFolder::parseFileName(name, &key, &version) || watchesOf(key).isEmpty())
            continue;
        quint64 &named = m_named[key];
        named = std::max(named, version);
        if (version == 0)
            m_readWhole.insert(key);
    }
    if (!m_named.isEmpty())
        schedule();
}

void FileStoreWatches::schedule()
{
    // Coalesces what one pass of the event loop brings.
    if (m_scheduled)
        return;
    m_scheduled = true;
    QTimer::singleShot(0, this, &FileStoreWatches::readChanges);
}

void FileStoreWatches::readChanges()
{
    m_scheduled = false;
    QList<Change> changes;
    if (std::exchange(m_lost, false)) {
        m_named.clear();
        m_readWhole.clear();
        rescan(&changes);
    } else {
        const QHash<QString, quint64> named = std::exchange(m_named, {});
        const QSet<QString> whole = std::exchange(m_readWhole, {});
        for (auto it = named.cbegin(); it != named.cend(); ++it) {
            const std::optional<Head> head = whole.contains(it.key())
                    ? std::optional<Head>(m_files.readHead(it.key()))
                    : readChanged(it.key(), it.value());
            if (head)
                compare(it.key(), *head, &changes);
        }
    }
    emitChanges(changes);
}

std::optional<Head> FileStoreWatches::readChanged(const QString &key, quint64 named) const
{
    const quint64 known = m_known.value(key);
    if (named > known) {
        // Versions are made one after another and named in that order, so
        // the highest named is the record, unless it was collected already:
        // then a newer one exists, and a listing finds it.
        const Head head = m_files.readVersion(key, named);
        if (head.result.status == Status::NotFound && head.version == 0)
            return m_files.readHead(key);
        return head;
    }
    // An older version collected, or one a frozen writer linked too late:
    // the record is the one known while its file is there.
    if (named < known
        && QFileInfo::exists(m_files.filePath(VersionFolder::fileName(key, known))))
        return std::nullopt;
    return m_files.readHead(key);
}

void FileStoreWatches::compare(const QString &key, const Head &head, QList<Change> *changes)
{
    if (head.version != 0) {
        quint64 &known = m_known[key];
        known = std::max(known, head.version);
    }
    const QList<StoreWatch *> watches = watchesOf(key);
    if (head.result.ok()) {
        m_warned.remove(key);
        for (StoreWatch *watch : watches) {
            QHash<QString, QString> &seen = m_watches[watch].seen;
            if (seen.value(key) != head.result.entry.version) {
                seen.insert(key, head.result.entry.version);
                changes->append({ watch, head.result.entry, false });
            }
        }
    } else if (head.result.status == Status::NotFound) {
        m_warned.remove(key);
        for (StoreWatch *watch : watches) {
            if (m_watches[watch].seen.remove(key))
                changes->append({ watch, StoreEntry { key, {}, {} }, true });
        }
    } else {
        // Unreadable or unavailable is still there: neither changed nor removed.
        warnUnreadable(key, head.result.errorString);
    }
}

void FileStoreWatches::warnUnreadable(const QString &key, const QString &error)
{
    const auto warned = m_warned.constFind(key);
    if (warned != m_warned.cend() && *warned == error)
        return;
    qCWarning(lcStore).noquote() << error;
    m_warned.insert(key, error);
}

void FileStoreWatches::rescan(QList<Change> *changes)
{
    const FolderScan found = scanFolder(m_files, QString());
    if (found.entries.isEmpty() && found.unreadable.isEmpty()) {
        for (const QString &error : found.errors)
            qCWarning(lcStore).noquote() << error;
    }
    for (auto it = found.unreadable.cbegin(); it != found.unreadable.cend(); ++it)
        warnUnreadable(it.key(), it.value());
    for (const StoreEntry &entry : found.entries) {
        if (!watchesOf(entry.key).isEmpty())
            compare(entry.key, Head { success(entry), entry.version.toULongLong() }, changes);
    }
    for (auto it = m_watches.begin(); it != m_watches.end(); ++it) {
        const QStringList seen = it->seen.keys();
        for (const QString &key : seen) {
            if (found.entries.contains(key) || found.unreadable.contains(key))
                continue;
            // A listing may miss a record being replaced (its new name and
            // its old both): read it by its names before calling it removed.
            // Unreadable or unavailable is still there; only NotFound is gone.
            const Head again = m_files.readHead(key);
            if (again.result.status != Status::NotFound) {
                if (again.result.ok() && again.result.entry.version != it->seen.value(key)) {
                    it->seen.insert(key, again.result.entry.version);
                    changes->append({ it.key(), again.result.entry, false });
                }
                continue;
            }
            it->seen.remove(key);
            changes->append({ it.key(), StoreEntry { key, {}, {} }, true });
        }
    }
}

void FileStoreWatches::emitChanges(const QList<Change> &changes)
{
    // Emitted after the bookkeeping: a receiver may destroy its watch, or
    // write to the store, while we emit.
    for (const Change &change : changes) {
        if (!change.watch)
            continue;
        if (change.removed)
            Q_EMIT change.watch->entryRemoved(change.entry.key);
        else
            Q_EMIT change.watch->entryChanged(change.entry);
    }
}

} // namespace baton
