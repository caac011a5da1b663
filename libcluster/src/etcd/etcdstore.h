#pragma once

#include <baton/store.h>

#include "etcdupdatequeue.h"
#include "versionfloor.h"

#include <QDeadlineTimer>
#include <QHash>
#include <QList>
#include <QPointer>
#include <QSet>
#include <QUrl>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>

namespace baton {

class EtcdWatch;
class EtcdWatchHub;
struct HttpError;
class HttpClient;
class SecretFile;
class HttpStream;

/*!
 * `Webda/EtcdStore` (B1): the Registry in etcd v3, over etcd's JSON
 * API (its gRPC gateway) through the HTTP helper. Keys are the store keys
 * after `prefix`; values are the documents as compact JSON, so `etcdctl get
 * cluster:leader` shows them; a version is the key's `mod_revision`.
 *
 * - create: one txn, `create_revision == 0`, whose failure branch reads the
 *   key, so a lost race shows the winner with no second request.
 * - update: one txn, `mod_revision == version`; updates that come while
 *   one is waiting for etcd share the next txn (EtcdUpdateQueue).
 * - conditional remove: one txn, `mod_revision == version`.
 * - list: a range over the prefix; watch: a `/v3/watch` stream (EtcdWatch).
 *
 * Parameters: `endpoints` (list of http/https URLs, required), `prefix`,
 * `username` + `password`, `tls` (`ca`, `cert`, `key`, `insecureSkipVerify`),
 * `timeout` (ms, default 5000). A request that fails to reach an endpoint
 * (refused, timed out, TLS, 5xx) moves to the next one, each attempt getting
 * its share of what is left of `timeout`, so an answer, good or bad, always
 * comes within `timeout`. With a username, the store authenticates first
 * and once more when etcd answers "invalid auth token". The password and the
 * token are never logged nor put in a message (R2).
 *
 * A request that timed out may still have been applied: a retried
 * conditional write then reports a Conflict showing its own write, which the
 * election treats like any lost race.
 */
class EtcdStore : public Store, public VersionFloor
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
    void remove(const QString &key, const QString &version, Callback done) override;
    void list(const QString &prefix, Callback done) override;
    /*! A `/v3/watch` stream that resumes after breaks and recovers from compaction. */
    StoreWatch *watch(const QString &prefix, QObject *parent) override;

    QString describe() const;
    /*! How many times this store authenticated (tests of the re-authentication). */
    int authentications() const { return m_authentications; }
    int timeoutMs() const { return m_timeoutMs; }
    QByteArray keyPrefix() const { return m_prefix; }
    /*! The newest revision a reply to this store's requests reported (0: none yet). */
    qint64 knownRevision() const { return m_knownRevision; }
    /*!
     * The newest revision seen in any reply or watch event: every revision
     * of a key that a read or a watch found gone is below it, since its
     * deletion came after them (F7).
     */
    qint64 versionFloor(const QString &) const override { return m_knownRevision; }

private:
    friend class EtcdWatch;
    using Failure = std::optional<StoreResult>;
    using ReplyHandler = std::function<void(const QJsonObject &json, const Failure &failure)>;

    struct Request
    {
        QString path;
        QJsonObject body;
        ReplyHandler done;
        /*! When set, takes instead of done a failure that is etcd refusing what was sent. */
        ReplyHandler refused;
        QDeadlineTimer deadline;
        int attempts = 0;
        bool reauthenticated = false;
        bool isAuthentication = false;
        QString lastError;
    };
    using RequestPtr = std::shared_ptr<Request>;

    bool hasCredentials() const { return !m_username.isEmpty(); }
    QByteArray fullKey(const QString &key) const;
    /*! The message of a failed operation, with any secret masked (R2). */
    QString redact(QString text) const;
    StoreResult badReply(const QString &operation, const QString &key, const QString &why) const;
    /*! \a error's message; a TLS failure also names the TLS files, so the operator knows which. */
    QString explainFailure(const HttpError &error) const;
    /*! The TLS files in use, and whether a client certificate is among them. */
    QString tlsNotes() const;

    /*! POSTs \a body to \a path on the current endpoint, with rotation, auth and deadline. */
    void call(const QString &path, const QJsonObject &body, ReplyHandler done);
    void call(const QString &path, const QJsonObject &body, ReplyHandler done,
              QDeadlineTimer deadline, ReplyHandler refused = {});
    void send(const RequestPtr &request);
    void finish(const RequestPtr &request, const QJsonObject &json, const Failure &failure);
    void authenticate();
    /*! Runs \a then once a token is there (or failed); at once when none is needed. */
    void withToken(std::function<void(const Failure &)> then);
    void endpointFailed(int endpoint, const QString &why);
    void invalidateToken(const QByteArray &token);

    /*! Reads \a key and reports it as the Conflict (or NotFound) of a write that could not apply. */
    /*! What a lost conditional put answers, given the key's current entry (if any). */
    using LostRace = std::function<StoreResult(const std::optional<StoreEntry> &current)>;
    void putIf(const QString &operation, const QString &key, const QJsonObject &document,
               const QJsonObject &compare, LostRace lost, Callback done);
    /*! Sends what m_updates lets go now. */
    void sendUpdates();
    void sendUpdateBatch(QList<EtcdUpdateQueue::Update> batch);
    /*! Answers each update of a transaction, or queues again those that lost only by company. */
    void settleUpdates(QList<EtcdUpdateQueue::Update> batch, const QJsonObject &json,
                       const Failure &failed);
    /*! etcd refused a whole transaction for what it holds: smaller ones may pass. */
    void settleRefusedUpdates(QList<EtcdUpdateQueue::Update> batch, const StoreResult &refusal);
    /*! Less time than this left, an update is answered rather than sent. */
    qint64 minimumSendMs() const { return m_timeoutMs / 2; }
    void reportCurrent(const QString &operation, const QString &key, const QString &version,
                       Callback done);
    void deliver(Callback done, StoreResult result);

    // For EtcdWatch.
    QUrl endpointUrl(int endpoint, const QString &path) const;
    int currentEndpoint() const { return m_current; }
    HttpStream *openStream(const QString &path, const QJsonObject &body, QObject *parent,
                           int *endpoint, QByteArray *token);
    void watchStarting(EtcdWatch *watch);
    void watchStarted(EtcdWatch *watch);
    void noteRevision(qint64 revision) { m_knownRevision = std::max(m_knownRevision, revision); }

    HttpClient *m_http = nullptr;
    SecretFile *m_passwordFile = nullptr;
    QList<QUrl> m_endpoints;
    int m_current = 0;
    QByteArray m_prefix;
    QString m_username;
    /*! "tls.ca FILE, tls.cert FILE, tls.key FILE" as configured, for TLS failures. */
    QString m_tlsFiles;
    bool m_usesHttps = false;
    bool m_hasClientCertificate = false;
    QString m_password;
    QByteArray m_token;
    bool m_authenticating = false;
    int m_authentications = 0;
    QList<std::function<void(const Failure &)>> m_tokenWaiters;
    int m_timeoutMs = 5000;
    bool m_initialised = false;
    // Requests issued while a new watch is being set up wait for it, so that
    // a watch sees every write issued after watch() returned.
    QSet<EtcdWatch *> m_startingWatches;
    QHash<QString, QPointer<EtcdWatchHub>> m_hubs;
    QList<RequestPtr> m_held;
    EtcdUpdateQueue m_updates;
    qint64 m_knownRevision = 0;
};

} // namespace baton
