#pragma once

#include "httperror.h"

#include <baton/store.h>

#include <QHash>
#include <QMap>
#include <QPointer>
#include <QTimer>

namespace baton {

class EtcdStore;
class HttpStream;

/*!
 * One `/v3/watch` stream over a key prefix (EtcdStore::watch()).
 *
 * It starts at the current revision (a watch reports changes, not the
 * past). A broken stream (connection lost, etcd restarted, server error) is
 * opened again on the next endpoint after a short back-off, from the
 * revision after the last one seen, so no change is lost. When that revision
 * has been compacted away, it emits resynchronise() and watches again from
 * the compaction revision, the oldest still known, so nothing after that is
 * lost either. A stream that is not confirmed (`created`) within the store's
 * timeout counts as broken; with credentials the token is then renewed, as
 * etcd 3.4 answers a watch with an expired token with silence.
 */
class EtcdWatch : public StoreWatch
{
    Q_OBJECT
public:
    EtcdWatch(EtcdStore *store, const QString &prefix, QObject *parent);
    ~EtcdWatch() override;

    /*! The revision the next stream starts from (tests). */
    qint64 nextRevision() const { return m_nextRevision; }

    /*!
     * Widens the watched range to take in the keys under \a prefix. An open
     * stream is replaced (once per turn of the event loop, however many
     * prefixes came) by one over the wider range, from the next revision,
     * so nothing is lost for the keys already watched.
     */
    void include(const QString &prefix);

Q_SIGNALS:
    /*! A stream was confirmed by etcd (tests, and the store's ordering). */
    void streamCreated();

private:
    void open();
    void onMessage(const QJsonObject &message);
    void onBroken(const HttpError &error);
    void broken(const QString &why, bool endpointAtFault);
    void scheduleReopen();
    void started();

    QPointer<EtcdStore> m_store;
    QString m_prefix;
    QByteArray m_rangeKey;
    QByteArray m_rangeEnd;
    HttpStream *m_stream = nullptr;
    int m_streamEndpoint = -1;
    QByteArray m_streamToken;
    QTimer m_createdTimer;
    QTimer m_reopenTimer;
    QTimer m_widenTimer;
    qint64 m_nextRevision = 0;
    int m_failures = 0;
    bool m_everStarted = false;
    bool m_reopening = false;
};

class EtcdSharedWatch;

/*!
 * One EtcdWatch that the watches of single keys of one kind
 * (`cluster:<lease name>`) share, over the smallest range that holds their
 * keys (not the whole kind: other processes' elections stay out of it). Over HTTP/1.1 a watch
 * stream holds a connection for as long as it lives, and Qt opens at most
 * six connections per host: a process in more than a few elections (SPEC
 * P3) would otherwise have every connection taken by its watches and its
 * renewals queued behind them until they time out. A change is handed to
 * the watches whose prefix starts its key; the stream goes when the last of
 * them does.
 */
class EtcdWatchHub : public QObject
{
    Q_OBJECT
public:
    /*! \a first: the first watch's prefix, the range the stream starts with. */
    EtcdWatchHub(EtcdStore *store, const QString &first);

    void add(EtcdSharedWatch *watch);
    void remove(EtcdSharedWatch *watch);
    /*! Its last watch went: it is deleted soon, and a new watch needs a new hub. */
    bool retiring() const { return m_byPrefix.isEmpty(); }

private:
    /*! The watches whose prefix starts \a key, as guarded pointers (a slot may delete any). */
    QList<QPointer<EtcdSharedWatch>> watchersOf(const QString &key) const;

    EtcdWatch *m_watch = nullptr;
    QHash<QString, QList<EtcdSharedWatch *>> m_byPrefix;
    // Prefix length -> how many watches have a prefix that long: a key is
    // looked up once per distinct length, not compared with every watch.
    QMap<qsizetype, int> m_lengths;
};

/*! A watch of the keys under a prefix, served by an EtcdWatchHub's stream. */
class EtcdSharedWatch : public StoreWatch
{
    Q_OBJECT
public:
    EtcdSharedWatch(EtcdWatchHub *hub, const QString &prefix, QObject *parent);
    ~EtcdSharedWatch() override;

    QString prefix() const { return m_prefix; }

private:
    QPointer<EtcdWatchHub> m_hub;
    QString m_prefix;
};

} // namespace baton
