#pragma once

#include <baton/baton_export.h>
#include <baton/leaserecord.h>

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace baton {

class Clock;
class LeaseObserverPrivate;
class Store;

/*! One lease as an observer sees it (O2). */
struct ObservedLease
{
    /*! The lease name, or `namespace/name` on Kubernetes. */
    QString name;
    /*! False when the entry could not be read as a lease (then see error). */
    bool valid = false;
    /*! When not valid: the field and what is wrong with it. */
    QString error;
    /*! What the lease says (empty when not valid). */
    LeaseRecord record;
    /*! The store's opaque version of the record: a new version is a change. */
    QString version;
    /*! When this observer first saw the current version: the F2 clock. */
    qint64 changedMono = 0;
    /*! When this observer first saw the current holder (or the lease, at start). */
    qint64 holderSinceMono = 0;
    /*! Holder changes this observer has seen. */
    int changesSeen = 0;
    /*! The holder's lease ran out with no change seen (F2, this observer's clock). */
    bool expired = false;

    /*! Milliseconds since the record last changed, by this observer's clock. */
    qint64 sinceChangeMs(qint64 nowMono) const { return nowMono - changedMono; }
};

/*! One holder change seen by an observer. */
struct LeaseFailover
{
    /*! The lease whose holder changed. */
    QString lease;
    /*! The previous holder; empty when there was none. */
    QString from;
    /*! The new holder; empty for a release. */
    QString to;
    /*!
     * first-acquire, released, expired, taken-over: as in the event stream
     * (O5). "expired" when the previous holder had not renewed for half a
     * lease or more as this observer saw it (its successor judged the
     * expiry on its own clock, which may run a little ahead of ours).
     */
    QString why;
    /*! When this observer saw it, UTC wall clock (display only). */
    QDateTime when;
    /*! When this observer saw it, on its monotonic clock. */
    qint64 mono = 0;
    /*!
     * Milliseconds without a leader before \a to took the lease: from the
     * release seen or, when \a from stopped renewing (a crash), from its
     * last renewal this observer saw (or its record's renewal time, when
     * that is earlier), not from the expiry. 0 for a take-over, -1 when
     * unknown (first-acquire) or not yet taken up (a release nobody has
     * taken).
     */
    qint64 gapMs = -1;
    /*! The record's transitions after the change (F7). */
    qint64 transitions = 0;
    /*!
     * Read from the lease's stored history, as the new holder recorded it
     * (O2), rather than seen by this observer: then \a when and \a gapMs are
     * by the new holder's clocks, and \a mono is this observer's estimate.
     */
    bool recorded = false;
};

/*!
 * Where a LeaseObserver reads leases, for LeaseObserver::open(): a
 * configuration file's Registry, a store named by URL, a store described
 * by its service configuration (a form), or the Lease objects of a
 * Kubernetes namespace. Only the fields of the chosen kind are read.
 */
struct LeaseSourceOptions
{
    /*! Which of the four sources. */
    enum class Kind {
        /*! The Registry of the configuration file configPath (the host's default Registry when it names none). */
        Configuration,
        /*!
         * The store at storeUrl: `file:///folder`, or etcd endpoints
         * `http://host:2379` (`https://`, `etcd://`, `etcds://`),
         * comma-separated. Credentials never come from a URL (R2): use
         * user and passwordFile.
         */
        StoreUrl,
        /*! The store storeService describes: `type` and its parameters (B1), secrets included. */
        StoreService,
        /*! Lease objects through a kubeconfig (B4, B5: get, list and watch only). */
        Kubernetes,
    };
    /*! The source to open. */
    Kind kind = Kind::Configuration;

    /*! Configuration: the configuration file. */
    QString configPath;

    /*! StoreUrl: the store's URL. */
    QString storeUrl;
    /*! StoreUrl on etcd: the CA bundle that verifies the servers (`tls.ca`). */
    QString caFile;
    /*! StoreUrl on etcd: the client certificate (`tls.cert`). */
    QString certFile;
    /*! StoreUrl on etcd: the client certificate's key (`tls.key`). */
    QString keyFile;
    /*! StoreUrl on etcd: the user name (`username`). */
    QString user;
    /*! StoreUrl on etcd: a file holding the password (`passwordFile`). */
    QString passwordFile;
    /*! StoreUrl on etcd: the key prefix (`prefix`). */
    QString prefix;

    /*! StoreService: the store's service configuration, with its `type`. */
    QJsonObject storeService;

    /*! Kubernetes: the kubeconfig file; empty: KUBECONFIG, then ~/.kube/config. */
    QString kubeconfigPath;
    /*! Kubernetes: the context; empty: the current one. */
    QString kubeContext;
    /*! Kubernetes: the namespace; empty: POD_NAMESPACE, ..., the context's, `default` (B4). */
    QString namespaceName;
    /*! Kubernetes: every namespace instead of one. */
    bool allNamespaces = false;
    /*! Kubernetes: a bearer token that replaces the kubeconfig's credentials; never logged (R2). */
    QString token;

    /*!
     * Stores only: look without writing. A file store then creates no
     * folder and works on one it may not write; leave it false when the
     * caller will write through LeaseObserver::store() (to join).
     */
    bool readOnly = true;
};


/*!
 * Lists and watches every lease of a store (the `cluster:*` entries,
 * O2) or of a Kubernetes namespace, without taking part, and keeps each
 * lease's state and failover history while it runs. Judges expiry as a
 * follower does (F2): by its own monotonic clock, from when it saw the
 * record change; the records' times are shown, never trusted. Where the
 * source cannot watch, it lists again every pollInterval().
 *
 * open() is the one way to reach a source by its description; the state,
 * history and expiry are the same whatever the source.
 *
 * No printing and no widgets: `baton status` formats it, and the dashboard
 * models it.
 *
 * \code
 * LeaseSourceOptions where;
 * where.kind = LeaseSourceOptions::Kind::StoreUrl;
 * where.storeUrl = QStringLiteral("http://etcd-1:2379");
 * QString error;
 * LeaseObserver *observer = LeaseObserver::open(where, this, &error);
 * if (!observer)
 *     qWarning().noquote() << error;
 * \endcode
 */
class BATON_EXPORT LeaseObserver : public QObject
{
    Q_OBJECT
public:
    /*! Why open() failed. */
    enum class OpenError {
        /*! It did not. */
        NoError,
        /*! The description is wrong: a bad URL, configuration or kubeconfig, an unknown store type. */
        BadInput,
        /*! The description is right but the store refused to start (a missing folder, say). */
        SourceUnavailable,
    };

    /*!
     * Opens the source \a options describe and returns an observer of it,
     * not started yet, owned by \a parent; the observer owns what it
     * opened. On failure returns nullptr, \a errorString says what was
     * wrong and where (never a secret, R2) and \a error, when given, why.
     * Nothing is written to the source; only the store is started, never
     * a configuration's cluster services (looking never joins). \a clock
     * defaults to the system's.
     */
    static LeaseObserver *open(const LeaseSourceOptions &options, QObject *parent, QString *errorString,
                               OpenError *error = nullptr, const Clock *clock = nullptr);

    /*! Observes the `cluster:*` entries of \a store, which the caller keeps alive. */
    explicit LeaseObserver(Store *store, const Clock *clock = nullptr, QObject *parent = nullptr);
    /*! Stops, and deletes what open() opened. */
    ~LeaseObserver() override;

    /*! What is observed, for messages: `cluster:*`, `Leases in namespace prod at ...`. */
    QString describeSource() const;
    /*! What an empty source means, for people: `no cluster:* entries in the Registry`. */
    QString describeEmpty() const;
    /*!
     * Asks the holder of the lease \a name to hand it over to the instance
     * \a to (`"*"`: to whoever takes it, a plain release), as `baton
     * handover` does: one conditional write that adds the request and who
     * asked (\a requestedBy) to the record and keeps every other field. It
     * makes nobody the holder and shortens no lease; the holder hands over
     * itself. \a done(ok, message) is called once: what was asked, or what
     * was wrong (nothing written then). The source must not have been
     * opened read-only.
     */
    void requestHandover(const QString &name, const QString &to, const QString &requestedBy,
                         std::function<void(bool ok, const QString &message)> done);
    /*!
     * As requestHandover(), to the candidate that the label selector
     * \a selector (`zone=b`, `tier in (a,b),!old`) picks among those the
     * lease's candidate records announce: running, not drained, not the
     * holder; of the highest priority, then of the first instance id.
     * Nothing is written when the holder matches already (\a done says so,
     * ok) or when no candidate matches (\a done says what each lacked).
     */
    void requestHandoverToMatching(const QString &name, const QString &selector, const QString &requestedBy,
                                   std::function<void(bool ok, const QString &message)> done);
    /*! The store observed; null on Kubernetes, which has none. */
    Store *store() const;
    /*!
     * Whether store() is the default Registry: a configuration without one,
     * whose elections are then among the processes of this host only.
     */
    bool isDefaultRegistry() const;

    /*! Lists every \a ms where the source cannot watch, or after a failed list. */
    void setPollInterval(int ms);
    /*! 1000 ms unless set. */
    int pollInterval() const;

    /*! Starts the watch, then the first list; ready() follows it. */
    void start();
    /*! Stops listing and watching; nothing is emitted after it. */
    void stop();
    /*! Whether the first list has been answered. */
    bool isReady() const;

    /*! Every lease, sorted by name. */
    QList<ObservedLease> leases() const;
    /*! The lease \a name, if there is one. */
    std::optional<ObservedLease> lease(const QString &name) const;
    /*!
     * Every holder change, oldest first: those the leases' stored
     * histories hold (recorded), then those seen since start().
     */
    QList<LeaseFailover> history() const;
    /*! The clock it judges by. */
    const Clock &clock() const;

    /*! \a history as CSV (RFC 4180), a header line first. */
    static QByteArray historyToCsv(const QList<LeaseFailover> &history);
    /*! \a history as one JSON document: `{"v": 1, "history": [...]}`. */
    static QByteArray historyToJson(const QList<LeaseFailover> &history);

Q_SIGNALS:
    /*! The first list has been read (or failed: see storeError()). */
    void ready();
    /*! A lease appeared or its record changed (every renewal). */
    void leaseChanged(const QString &name);
    /*! A lease is gone from the source. */
    void leaseRemoved(const QString &name);
    /*! The holder changed; also appended to history(). */
    void failover(const baton::LeaseFailover &change);
    /*!
     * A lease released as this observer saw it was taken up: the release's
     * row in history() (index \a row) now names its new holder and the time
     * without a leader. A clean handover is one change, not a release and
     * a first acquisition; failover() is not emitted for it.
     */
    void handedOver(int row, const baton::LeaseFailover &change);
    /*!
     * A change read from the stored history before its record arrived
     * (history() row \a row, unchanged) is now seen: told here once, where
     * a change seen first is told by failover(), which is not emitted for it.
     */
    void storedChangeSeen(int row, const baton::LeaseFailover &change);
    /*!
     * Changes from the leases' stored histories (LeaseFailover::recorded)
     * were added to history() after ready(), in their places by time: read
     * again from the whole history. The first list's are there before
     * ready(), without this signal.
     */
    void historyRead();
    /*!
     * Before ready(): changes from the leases' stored histories just added
     * to history(), each lease's oldest first. The first list of thousands
     * of leases is read a slice at a time, and this is each slice's share,
     * so that a model need not read the whole history at ready(). A lease's
     * changes come in one such signal, unless (on Kubernetes) a change of
     * the lease brought more before ready().
     */
    void storedHistoryAdded(const QList<baton::LeaseFailover> &changes);
    /*! The holder's lease ran out as this observer sees it. */
    void leaseExpired(const QString &name);
    /*! Listing failed; the observer keeps trying (R4). */
    void storeError(const QString &message);

private:
    friend class LeaseObserverPrivate;
    /*! Takes \a d, made by the library for a place open() found. */
    LeaseObserver(LeaseObserverPrivate *d, QObject *parent);

    std::unique_ptr<LeaseObserverPrivate> d;
};

} // namespace baton

Q_DECLARE_METATYPE(baton::LeaseFailover)
