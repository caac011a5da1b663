#pragma once

#include "httperror.h"

#include <baton/store.h>

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
     * Widens the watched range to take in the keys under \a prefix, whose
     * changes after revision \a floor are wanted. An open stream is
     * replaced (once per turn of the event loop, however many prefixes
     * came) by one over the wider range, from the revision after the
     * lowest floor or from the next revision, whichever is older: the
     * stream may have moved past a write to the new keys made after their
     * floor, and nothing is lost for the keys already watched. What comes
     * twice that way is for the receiver to drop (EtcdSharedWatch).
     */
    void include(const QString &prefix, qint64 floor = 0);

    /*! While entryChanged or entryRemoved is emitted: that event's revision (0: unknown). */
    qint64 eventRevision() const { return m_eventRevision; }

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
    /*! The oldest revision a widening wants the next stream to start from (0: none). */
    qint64 m_replayFrom = 0;
    qint64 m_eventRevision = 0;
    int m_failures = 0;
    bool m_everStarted = false;
    bool m_reopening = false;
};

} // namespace baton
