#include "etcdlistmirror.h"

#include "etcdwatch.h"

#include <algorithm>
#include <utility>

namespace baton {

namespace {

qint64 revisionOf(const StoreEntry &entry)
{
    return entry.version.toLongLong(); // 0 when unreadable: older than anything etcd gives
}

auto byKey(const QList<StoreEntry> &entries, const QString &key)
{
    return std::lower_bound(entries.cbegin(), entries.cend(), key,
                            [](const StoreEntry &entry, const QString &k) { return entry.key < k; });
}

} // namespace

EtcdListMirror::EtcdListMirror(EtcdWatch *watch, QObject *parent)
    : QObject(parent)
    , m_watch(watch)
{
    m_watch->setParent(this);
    connect(m_watch, &StoreWatch::entryChanged, this, [this](const StoreEntry &entry) {
        take({ entry, m_watch->newsRevision(), false });
    });
    connect(m_watch, &StoreWatch::entryRemoved, this, [this](const QString &key) {
        take({ StoreEntry { key, {}, {} }, m_watch->newsRevision(), true });
    });
}

bool EtcdListMirror::serves() const
{
    return m_primed && m_watch->vouchesFor(m_primedAt);
}

void EtcdListMirror::rangeSent()
{
    ++m_rangesOnTheirWay;
}

void EtcdListMirror::rangeAnswered(const std::optional<QList<StoreEntry>> &entries, qint64 revision)
{
    m_rangesOnTheirWay = std::max(0, m_rangesOnTheirWay - 1);
    // A copy that serves is current: an answer can only be older. One that
    // does not (a stream opened again, still replaying) starts over from a
    // newer answer, with the events that came since it was sent.
    if (entries && revision > m_primedAt && !serves()) {
        m_entries = *entries;
        m_primed = true;
        m_primedAt = revision;
        for (const Change &change : std::as_const(m_early))
            apply(change);
    }
    if (m_rangesOnTheirWay == 0)
        m_early.clear();
}

void EtcdListMirror::written(const StoreEntry &entry)
{
    // The watch hands changes on in order: past this write's revision, it
    // has shown it, and maybe a removal of the key since, which the write's
    // late answer must not undo.
    const qint64 revision = revisionOf(entry);
    if (revision > m_watch->newsRevision())
        take({ entry, revision, false });
}

void EtcdListMirror::take(const Change &change)
{
    if (m_rangesOnTheirWay > 0)
        m_early.append(change);
    if (m_primed)
        apply(change);
}

void EtcdListMirror::apply(const Change &change)
{
    // What a listing at m_primedAt showed already has every change up to it.
    // Revision 0 is a change the stream could not date: taken, as a watch
    // takes it (better a change heard twice than one missed).
    if (change.revision != 0 && change.revision <= m_primedAt)
        return;
    const auto found = byKey(m_entries, change.entry.key);
    const qsizetype at = found - m_entries.cbegin();
    const bool present = found != m_entries.cend() && found->key == change.entry.key;
    if (present && change.revision != 0 && revisionOf(*found) >= change.revision)
        return;
    if (change.removed) {
        if (present)
            m_entries.removeAt(at);
    } else if (present) {
        m_entries[at] = change.entry;
    } else {
        m_entries.insert(at, change.entry);
    }
}

EtcdListMirrors::EtcdListMirrors(MakeWatch makeWatch)
    : m_makeWatch(std::move(makeWatch))
{
}

EtcdListMirrors::~EtcdListMirrors()
{
    restart();
}

void EtcdListMirrors::follow(const QString &prefix)
{
    Followed &followed = m_followed[prefix];
    if (followed.followers++ == 0)
        ++m_lengths[prefix.size()];
}

void EtcdListMirrors::unfollow(const QString &prefix)
{
    const auto it = m_followed.find(prefix);
    if (it == m_followed.end() || --it->followers > 0)
        return;
    delete it->mirror;
    m_followed.erase(it);
    const auto length = m_lengths.find(prefix.size());
    if (--length.value() == 0)
        m_lengths.erase(length);
}

EtcdListMirror *EtcdListMirrors::mirrorFor(const QString &prefix)
{
    const auto it = m_followed.find(prefix);
    if (it == m_followed.end())
        return nullptr;
    if (!it->mirror) {
        if (EtcdWatch *watch = m_makeWatch(prefix, nullptr))
            it->mirror = new EtcdListMirror(watch, nullptr);
    }
    return it->mirror;
}

void EtcdListMirrors::written(const StoreEntry &entry)
{
    for (auto length = m_lengths.cbegin(); length != m_lengths.cend() && length.key() <= entry.key.size();
         ++length) {
        const auto it = m_followed.constFind(entry.key.left(length.key()));
        if (it != m_followed.cend() && it->mirror)
            it->mirror->written(entry);
    }
}

void EtcdListMirrors::restart()
{
    for (Followed &followed : m_followed) {
        delete followed.mirror;
        followed.mirror = nullptr;
    }
}

} // namespace baton
