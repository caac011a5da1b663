#pragma once

#include <baton/store.h>

#include "etcdlistmirror.h"
#include "etcdupdatequeue.h"
#include "followedlistings.h"
#include "leaseprotocolsource.h"
#include "versionfloor.h"

#include <QJsonObject>
#include <QList>
#include <QPointer>

namespace baton {

class EtcdClient;
class EtcdRangeBatcher;
class EtcdUpdateBatcher;
class EtcdWatchHub;

/*!
 * `Webda/EtcdStore` (B1): the Registry in etcd v3. Keys are the store keys
 * after `prefix`; values are the documents as compact JSON, so `etcdctl get
 * cluster:leader` shows them; a version is the key's `mod_revision`.
 *
 * - create: one txn, `create_revision == 0`, whose failure branch reads the
 *   key, so a lost race shows the winner with no second request.
 * - update: one txn, `mod_revision == version`; updates that come while
 *   one is waiting for etcd share the next txn, with the lease renewals
 *   (EtcdUpdateBatcher).
 * - createWith, updateWith: the same comparison and read, and both puts
 *   in one txn, so the side document (a lease's history) and the record
 *   never disagree; an updateWith goes alone, not in a shared txn.
 * - conditional remove: one txn, `mod_revision == version`.
 * - list: a range over the prefix; watch: the store's one `/v3/watch`
 *   stream, whose range widens to take in each new watch (EtcdWatchHub).
 *   A followed prefix (FollowedListings) is listed from the stream once
 *   a range primed it (EtcdListMirror).
 *
 * Parameters (EtcdSettings): `endpoints` (list of http/https URLs,
 * required), `prefix`, `username` + `password` or `passwordFile`, `tls`
 * (`ca`, `cert`, `key`, `insecureSkipVerify`), `timeout` (ms, default
 * 5000). Every request goes through an EtcdClient: endpoints, failover,
 * authentication and deadlines are its business, so an answer, good or
 * bad, always comes within `timeout`.
 *
 * The election and the observers do not go through this interface: they
 * speak etcd through an EtcdLeaseProtocol on this store's client
 * (openLeaseProtocol()), which writes the same keys and values.
 *
 * A request that timed out may still have been applied: a retried
 * conditional write then reports a Conflict showing its own write, which the
 * election treats like any lost race.
 */
class EtcdStore : public Store, public VersionFloor, public LeaseProtocolSource, public FollowedListings
{
    Q_OBJECT
public:
    EtcdStore(const QString &name, const QJsonObject &parameters, Application *application);
    /*! The parameters this type takes; the configuration refuses others (P1). */
    static QStringList parameterNames();
    ~EtcdStore() override;

    bool init(QString *errorString) override;

    void get(const QString &key, Callback done) override;
    void create(const QString &key, const QJsonObject &document, Callback done) override;
    void update(const QString &key, const QJsonObject &document, const QString &version,
                Callback done) override;
    void createWith(const QString &key, const QJsonObject &document, const StoreSideWrite &side,
                    Callback done) override;
    void updateWith(const QString &key, const QJsonObject &document, const QString &version,
                    const StoreSideWrite &side, Callback done) override;
    void remove(const QString &key, const QString &version, Callback done) override;
    void list(const QString &prefix, Callback done) override;
    /*! A watch on the store's shared stream, which resumes after breaks and recovers from compaction. */
    StoreWatch *watch(const QString &prefix, QObject *parent) override;

    QString describe() const;
    /*! How many times this store authenticated (tests of the re-authentication). */
    int authentications() const;
    /*!
     * The newest revision seen in any reply or watch event: every revision
     * of a key that a read or a watch found gone is below it, since its
     * deletion came after them (F7).
     */
    qint64 versionFloor(const QString &) const override;
    std::unique_ptr<LeaseProtocol> openLeaseProtocol(int historyLength) override;
    void followListing(const QString &prefix) override;
    void unfollowListing(const QString &prefix) override;

    /*! The client every request goes through; null until init() succeeds. */
    EtcdClient *client() const { return m_client; }
    /*! The updates of the client, shared by the store and the lease protocol. */
    EtcdUpdateBatcher *updateBatcher() const { return m_batcher; }
    /*! What goes before every store key in etcd. */
    QByteArray keyPrefix() const { return m_prefix; }

private:
    QByteArray fullKey(const QString &key) const { return m_prefix + key.toUtf8(); }
    /*! A watch of \a prefix on \a hub, which is made first if there is none. */
    EtcdWatch *watchOn(QPointer<EtcdWatchHub> &hub, const QString &prefix, QObject *parent, bool holdRequests);
    /*! Answers \a done that init() has not succeeded, and says whether it had to. */
    bool refuseUninitialised(const Callback &done);
    void deliver(const Callback &done, StoreResult result);
    StoreResult badReply(const QString &operation, const QString &key, const QString &why) const;
    /*! What a conditional write answers when its comparison failed, from the key's range. */
    StoreResult notApplied(const QString &operation, const QString &key, const QString &version,
                           const QJsonObject &range) const;
    /*! What a delete that applied answers. */
    StoreResult removed(const QString &key, const QJsonObject &deleteResponse) const;
    /*! Reads \a key and reports it as the Conflict (or NotFound) of a write that could not apply. */
    void reportCurrent(const QString &operation, const QString &key, const QString &version,
                       Callback done);

    /*! create() and createWith(): \a side is none for a create of one key. */
    /*!
     * Delivers \a result, of the write whose txn \a answer answered, once
     * \a side (its second operation) is written.
     */
    void finishSide(const QJsonObject &answer, const std::optional<StoreSideWrite> &side,
                    const StoreResult &result, const Callback &done);
    void createKeys(const QString &key, const QJsonObject &document,
                    const std::optional<StoreSideWrite> &side, Callback done);
    EtcdClient *m_client = nullptr;
    QByteArray m_prefix;
    int m_timeoutMs = 0;
    QPointer<EtcdWatchHub> m_hub;
    /*!
     * The followed listings' own stream: in the leases' one, the span from
     * `candidate:` to `cluster:` would bring every lease of the store
     * between them, other processes' included. It holds no request back:
     * a copy is vouched for only from where its stream has every change.
     */
    QPointer<EtcdWatchHub> m_listingHub;
    /*! A child of m_client: it goes with it. */
    EtcdUpdateBatcher *m_batcher = nullptr;
    /*! get(): together in txns when many are asked at once (list() goes alone). */
    EtcdRangeBatcher *m_reads = nullptr;
    EtcdListMirrors m_mirrors;
};

} // namespace baton
