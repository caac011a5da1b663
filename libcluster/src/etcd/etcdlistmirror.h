#pragma once

#include <baton/store.h>

#include <QHash>
#include <QList>
#include <QMap>
#include <QObject>
#include <QString>

#include <functional>

namespace baton {

class EtcdWatch;

/*!
 * The entries under one prefix as the store's watch shows them, so that
 * EtcdStore::list() of a followed prefix (FollowedListings) is answered
 * without a range. Primed by the answer of a range the store sends anyway;
 * after it, every watch event newer than that answer and every write of
 * this store (at the revision etcd gave it, so that a write is in the next
 * listing even before its event arrives) applies by revision: an entry
 * never goes back to an older one. It answers only while its watch's
 * stream vouches that it is current (confirmed, unbroken, replayed up to
 * where etcd was when it opened, with no change lost to compaction since
 * the copy's listing); otherwise the store ranges, and that answer primes
 * it again.
 */
class EtcdListMirror : public QObject
{
    Q_OBJECT
public:
    /*! Takes \a watch: a watch of the followed prefix, made before the priming range is sent. */
    EtcdListMirror(EtcdWatch *watch, QObject *parent);

    /*! Whether a listing may be answered from entries(). */
    bool serves() const;
    /*! By key, as etcd lists them. */
    const QList<StoreEntry> &entries() const { return m_entries; }

    /*! A range of the prefix is on its way: the events until its answer are kept. */
    void rangeSent();
    /*! Its answer: every entry, all readable, as of \a revision; none: it failed or had unreadable ones. */
    void rangeAnswered(const std::optional<QList<StoreEntry>> &entries, qint64 revision);
    /*! This store wrote \a entry; its version is the revision of the write. */
    void written(const StoreEntry &entry);

private:
    struct Change
    {
        StoreEntry entry;
        qint64 revision = 0;
        bool removed = false;
    };
    void take(const Change &change);
    void apply(const Change &change);

    EtcdWatch *m_watch;
    QList<StoreEntry> m_entries;
    bool m_primed = false;
    /*! The revision of the listing the copy started from. */
    qint64 m_primedAt = 0;
    int m_rangesOnTheirWay = 0;
    /*! The changes since the oldest range on its way was sent: its answer may be older. */
    QList<Change> m_early;
};

/*!
 * The mirrors of one EtcdStore, one per followed prefix, each made when
 * its prefix is first listed (its watch needs the store's client) and
 * gone with its last follower.
 */
class EtcdListMirrors
{
public:
    using MakeWatch = std::function<EtcdWatch *(const QString &prefix, QObject *parent)>;
    explicit EtcdListMirrors(MakeWatch makeWatch);
    ~EtcdListMirrors();

    void follow(const QString &prefix);
    void unfollow(const QString &prefix);
    /*! The mirror of \a prefix, made now if it is followed and has none; null when not followed. */
    EtcdListMirror *mirrorFor(const QString &prefix);
    /*! Tells every mirror whose prefix starts the written entry's key. */
    void written(const StoreEntry &entry);
    /*! Drops every mirror (a new client: its watches spoke to the old one); made again when listed. */
    void restart();

private:
    struct Followed
    {
        int followers = 0;
        EtcdListMirror *mirror = nullptr;
    };
    MakeWatch m_makeWatch;
    QHash<QString, Followed> m_followed;
    // Prefix length -> how many followed prefixes are that long: a written
    // key is looked up once per distinct length, not against every prefix.
    QMap<qsizetype, int> m_lengths;
};

} // namespace baton
