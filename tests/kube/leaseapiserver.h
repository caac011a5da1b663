#pragma once

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QSet>
#include <QSslCertificate>
#include <QSslKey>
#include <QUrl>

#include <deque>
#include <functional>
#include <map>

class QTcpServer;
class QUrlQuery;
class QTcpSocket;
class QTimer;

namespace baton::test {

class LeaseApiConnection;

/*!
 * A protocol-faithful stand-in for the Kubernetes API server, for the
 * `coordination.k8s.io/v1` Lease resource only. No real API server can be
 * installed on the machines that build Baton, so the tests run the
 * Kubernetes client against this one; the client cannot tell the
 * difference for anything it uses. It follows the API conventions and the
 * apiserver as summarised in the project's reference page
 * (shared/reference/kubernetes-lease.md: "Paths and verbs", "Errors: a
 * Status object"), and Kubernetes' api-conventions.md ("Concurrency Control
 * and Consistency", "Response Status Kind", "Watch").
 *
 * What it reproduces:
 * - HTTP/1.1 over TLS (server certificate from PEM files, see
 *   TestCertificates), keep-alive, chunked streaming for watches. Plain
 *   HTTP when no certificate is set. (Qt HttpServer 6.4 cannot stream, hence
 *   this small server.)
 * - Authentication: `Authorization: Bearer <token>`, or a client
 *   certificate signed by the client CA (user = its CN); anything else is
 *   401 with an `Unauthorized` Status.
 * - Authorisation per user and verb (get, list, watch, create, update,
 *   delete): 403 `Forbidden` with the apiserver's message naming the user,
 *   the verb, the resource and the namespace. Every authenticated request
 *   is counted per user and verb, allowed or denied (B5 tests).
 * - resourceVersion: one global counter, as a decimal string, bumped by each
 *   write; `uid` and `creationTimestamp` set on create.
 * - GET 200 / 404 `NotFound`; POST 201 / 409 `AlreadyExists`; PUT 200, 409
 *   `Conflict` on a stale resourceVersion, 422 `Invalid` without one on an
 *   existing Lease, 201 on a missing name (Leases allow create on update);
 *   an update that changes nothing keeps its resourceVersion and sends no
 *   watch event; an update replaces the labels, annotations, owner
 *   references and finalizers with those it carries (so one that leaves
 *   them out removes them) and keeps uid and creationTimestamp; DELETE 200
 *   with a Success Status / 404 (finalizers do not hold it back).
 * - Validation: name a DNS-1123 subdomain, `leaseDurationSeconds` > 0,
 *   `leaseTransitions` >= 0, `strategy` `OldestEmulationVersion` or a
 *   qualified name with a prefix (`baton.dev/steering`), a non-empty
 *   `preferredHolder` only with a `strategy` (coordinated leader
 *   election's ValidateLeaseSpec, 1.31): 422 `Invalid` with
 *   `details.causes` and the apiserver's messages. A MicroTime
 *   without exactly six fraction digits, or a field of the wrong JSON type,
 *   fails to decode: 400 `BadRequest`, as the apiserver answers (its
 *   decoder runs before validation).
 * - LIST: a `LeaseList` with `metadata.resourceVersion`, in one namespace or
 *   across all (`/apis/coordination.k8s.io/v1/leases`).
 * - WATCH (`watch=true` or `watch=1`): `resourceVersion` (empty or "0":
 *   synthetic ADDED events for the current objects first), bookmarks with
 *   `allowWatchBookmarks`, `timeoutSeconds` (the stream ends cleanly),
 *   `fieldSelector=metadata.name=X` (and `metadata.namespace=Y`). Events are
 *   kept in a bounded history; a watch from a resourceVersion older than the
 *   history gets 200, one ERROR event with a 410 `Expired` Status, and the
 *   end of the stream.
 * - `?timeout=<n>s` (which client-go adds) is accepted and ignored.
 * - core/v1 Events (`/api/v1/namespaces/<ns>/events`), as leader election
 *   records them: POST 201 with the stored object (uid, resourceVersion,
 *   creationTimestamp set), 409 `AlreadyExists` on a taken name, 422
 *   `Invalid` for a name that is not a DNS-1123 subdomain, an
 *   involvedObject in another namespace or a type other than Normal and
 *   Warning; LIST as an `EventList`, with `fieldSelector=involvedObject.name=X`.
 *   Every authenticated user may create and list them unless
 *   setEventsForbidden() says otherwise (403 with the apiserver's wording,
 *   for the core group ""). Counted as the verbs `events/create` and
 *   `events/list`.
 *
 * - core/v1 ConfigMaps (`/api/v1/namespaces/<ns>/configmaps[/<name>]`), as
 *   scheduled runs keep their records: POST 201 / 409 `AlreadyExists`, 422
 *   `Invalid` for a name that is not a DNS-1123 subdomain, 400 for `data`
 *   that does not map keys to strings; GET 200 / 404 `NotFound`; LIST as a
 *   `ConfigMapList` with an equality `labelSelector` (`k=v,k2=v2`); PUT 200,
 *   409 `Conflict` on a stale resourceVersion, unconditional without one, 404
 *   on a missing name (no create on update); DELETE 200 / 404, 409
 *   `Conflict` when `preconditions.resourceVersion` is not the stored one.
 *   Granted apart from Leases, as a Role grants them: the user's verbs name
 *   them `configmaps/<verb>` (get, list, create, update, delete), and they
 *   are counted so. No watch.
 *
 * Fault injection for tests: the next N requests fail with a status, a
 * delay before each answer, answers to one user's verb held back
 * (holdAnswers()), history compaction on demand, a watch that
 * lags behind the answers to writes (holdWatchEvents()), as a real
 * apiserver's does when its watch cache falls behind the store. And three
 * doors that the real server lacks: putRaw() stores an object without
 * validation, to show how the client handles Leases it cannot trust;
 * replayWatchEvent() sends an old event again on the open watches, after
 * newer ones (see there); putConfigMapRaw() writes a ConfigMap between
 * two requests of a client, as another client could.
 *
 * Not reproduced: PATCH, server-side apply, managedFields, label selectors
 * (but equality ones on ConfigMaps), watches of ConfigMaps,
 * namespaces as objects (every namespace exists), watch from a
 * resourceVersion in the future, HTTP/2.
 */
class LeaseApiServer : public QObject
{
    Q_OBJECT
public:
    explicit LeaseApiServer(QObject *parent = nullptr);
    ~LeaseApiServer() override;

    /*! TLS with this server certificate and key (PEM files); client certificates checked against \a clientCaFile. */
    bool setTls(const QString &certFile, const QString &keyFile, const QString &clientCaFile,
                QString *errorString);
    /*! Listens on 127.0.0.1, on \a port or a free one. */
    bool listen(QString *errorString, quint16 port = 0);
    QUrl url() const;

    /*! Grants \a verbs to \a user, authenticated by \a token. */
    void addToken(const QString &token, const QString &user, const QStringList &verbs);
    /*! Grants \a verbs to a user authenticated by a client certificate with CN \a user. */
    void addCertificateUser(const QString &user, const QStringList &verbs);
    void setVerbs(const QString &user, const QStringList &verbs);
    void removeToken(const QString &token);

    /*! Requests of \a user with \a verb: allowed ones, or denied (403) ones. */
    int count(const QString &user, const QString &verb, bool denied = false) const;
    /*! Verbs \a user used successfully at least once (authorised). */
    QSet<QString> verbsUsed(const QString &user) const;
    /*! All counters: {user: {verb: n, "denied-<verb>": n}}. */
    QJsonObject counters() const;
    void resetCounters();

    /*! How many events the watch history keeps (default 200). */
    void setHistoryLimit(int events);
    /*! Forgets the whole history: any watch from an older version gets 410. */
    void compactHistory();
    /*! Bookmarks every \a ms on watches that allow them (default 1000). */
    void setBookmarkInterval(int ms);
    /*! The next \a requests requests get \a status (a Status object) and change nothing. */
    void failNextRequests(int requests, int status = 500);
    /*! Each answer (and each watch's first line) is sent \a ms after the request. */
    void setResponseDelay(int ms);
    /*!
     * The answers to the next \a count requests of \a user with \a verb
     * (`get`, `update`, ...) are kept back: the request is carried out, its
     * answer sent only by releaseHeldAnswers(), as a slow network or server
     * would. answerHeld() tells when one is. Other requests, the watch's
     * included, are answered as usual.
     */
    void holdAnswers(const QString &user, const QString &verb, int count);
    /*! Sends the answers held back, on the connections still open. */
    void releaseHeldAnswers();
    /*! Ends every open watch stream cleanly, as a server restart or timeout would. */
    void endAllWatches();
    /*!
     * A lagging watch: from now on, events (and bookmarks) for the open
     * watches are kept back, in order, while the answers to requests go out
     * at once, until releaseWatchEvents() sends them. So a client sees the
     * answer to its write before the watch events of older versions.
     */
    void holdWatchEvents();
    /*! Sends the oldest \a count events held back (all when negative); events keep being held. */
    void releaseWatchEvents(int count = -1);
    /*! Sends every event held back and stops holding them. */
    void stopHoldingWatchEvents();
    int heldWatchEvents() const { return int(m_heldEvents.size()); }
    /*!
     * Test-only: sends the event that made \a resourceVersion again on every
     * open watch of its Lease, after any newer ones. The real server never
     * repeats an event within one stream; this puts into one stream what a
     * client sees across streams when it resumes a watch from an older
     * version, or when a relist is answered from a lagging cache: an older
     * object after a newer one. False when the history no longer has it.
     */
    bool replayWatchEvent(const QString &resourceVersion);

    /*! Answers every request on events with 403 Forbidden, as a Role without them would. */
    void setEventsForbidden(bool forbidden) { m_eventsForbidden = forbidden; }
    /*! The Events stored in \a ns, oldest first. */
    QList<QJsonObject> events(const QString &ns) const;

    /*! The stored ConfigMap, or an empty object. */
    QJsonObject configMap(const QString &ns, const QString &name) const;
    /*! The ConfigMaps stored in \a ns, by name. */
    QList<QJsonObject> configMaps(const QString &ns) const;
    /*! The stored Lease, or an empty object. */
    QJsonObject lease(const QString &ns, const QString &name) const;
    /*! Stores \a object as given (no validation: the test-only door), with a new resourceVersion. */
    QJsonObject putRaw(const QString &ns, const QString &name, const QJsonObject &object);
    /*!
     * Stores \a object as the ConfigMap \a name (no validation), with a new
     * resourceVersion: another client's write at a moment a test chooses
     * (in a slot of requestHandled(), between two requests of a client).
     */
    QJsonObject putConfigMapRaw(const QString &ns, const QString &name, const QJsonObject &object);
    QString resourceVersion() const;
    int watchCount() const;
    int requestCount() const { return m_requests; }

Q_SIGNALS:
    /*! After each answer: who, which verb (`events/create` for an Event), the status sent. */
    void requestHandled(const QString &user, const QString &verb, int status);
    void watchStarted();
    void answerHeld(const QString &user, const QString &verb);
    void watchEnded();

private:
    friend class LeaseApiConnection;
    struct User
    {
        QString name;
        QSet<QString> verbs;
    };
    struct Event
    {
        qint64 rv = 0;
        QString type;
        QString ns;
        QString name;
        QJsonObject object;
    };
    struct Watch
    {
        LeaseApiConnection *connection = nullptr;
        QString ns; // empty: all namespaces
        QString name; // empty: every name
        bool bookmarks = false;
    };
    struct Request;
    struct Answer;

    void incoming(QTcpSocket *socket);
    void handle(LeaseApiConnection *connection, const Request &request);
    Answer dispatch(LeaseApiConnection *connection, const Request &request, QString *user,
                    QString *verb, bool *streaming);
    Answer doGet(const QString &ns, const QString &name) const;
    Answer doList(const QString &ns) const;
    Answer doCreate(const QString &ns, const QByteArray &body);
    Answer doUpdate(const QString &ns, const QString &name, const QByteArray &body);
    Answer doDelete(const QString &ns, const QString &name);
    Answer dispatchEvents(const Request &request, const QString &user, const QString &path, QString *verb);
    Answer doCreateEvent(const QString &ns, const QByteArray &body);
    Answer doListEvents(const QString &ns, const QUrlQuery &query) const;
    Answer dispatchConfigMaps(const Request &request, const QString &user, QString *verb);
    Answer doListConfigMaps(const QString &ns, const QUrlQuery &query) const;
    bool startWatch(LeaseApiConnection *connection, const Request &request, const QString &ns,
                    const QString &name, Answer *error);
    void record(const QString &type, const QString &ns, const QString &name,
                const QJsonObject &object);
    void sendBookmarks();
    void sendOnWatch(LeaseApiConnection *connection, const QByteArray &line);
    void dropWatch(LeaseApiConnection *connection);
    QString nextResourceVersion();

    QTcpServer *m_server = nullptr;
    QList<QSslCertificate> m_certificateChain;
    QSslKey m_key;
    QList<QSslCertificate> m_clientCa;
    bool m_tls = false;

    QHash<QString, QString> m_tokens; // token -> user
    QHash<QString, User> m_users;
    QHash<QString, QHash<QString, int>> m_counters;

    std::map<std::pair<QString, QString>, QJsonObject> m_objects;
    qint64 m_rv = 0;
    std::deque<Event> m_history;
    qint64 m_compactedRv = 0;
    int m_historyLimit = 200;
    QList<Watch> m_watches;
    struct HeldEvent
    {
        LeaseApiConnection *connection = nullptr;
        QByteArray line;
    };
    bool m_holdWatchEvents = false;
    std::deque<HeldEvent> m_heldEvents;
    QSet<LeaseApiConnection *> m_connections;
    QTimer *m_bookmarkTimer = nullptr;

    struct HeldAnswer
    {
        LeaseApiConnection *connection = nullptr;
        std::function<void()> send;
    };
    QString m_holdUser;
    QString m_holdVerb;
    int m_holdAnswers = 0;
    QList<HeldAnswer> m_heldAnswers;
    int m_failRequests = 0;
    int m_failStatus = 500;
    int m_delayMs = 0;
    int m_requests = 0;
    qint64 m_uidCounter = 0;
    /*! Per namespace, in the order created. */
    QHash<QString, QList<QJsonObject>> m_events;
    bool m_eventsForbidden = false;
    std::map<std::pair<QString, QString>, QJsonObject> m_configMaps;
};

} // namespace baton::test
