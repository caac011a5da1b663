#pragma once

#include "etcdclient.h"
#include "httperror.h"

#include <baton/store.h>

#include <QPointer>
#include <QTimer>

namespace baton {

class HttpStream;

/*!
 * One `/v3/watch` stream over a key range that can widen, through an
 * EtcdClient. EtcdWatchHub hands its events to the watches it serves.
 *
 * It starts at the current revision (a watch reports changes, not the
 * past). A broken stream (connection lost, etcd restarted, server error) is
 * opened again on the next endpoint after a short back-off, from the
 * revision after the last one seen, so no change is lost. When that revision
 * has been compacted away, it emits resynchronise() and watches again from
 * the compaction revision, the oldest still known, so nothing after that is
 * lost either. A stream that is not confirmed (`created`) within the
 * client's timeout counts as broken; the token is then renewed, as etcd 3.4
 * answers a watch with an expired token with silence. Until its first
 * stream is confirmed (or fails), the client's requests wait, so that it
 * sees every write made after it was asked for.
 */
class EtcdWatchStream : public QObject
{
    Q_OBJECT
public:
    /*!
     * Keys are read without \a keyPrefix; the range starts as the keys
     * under \a prefix. \a holdRequests: the client's requests wait until
     * the first stream is confirmed, so that a watch made before a write
     * sees it even with no revision to start from.
     */
    EtcdWatchStream(EtcdClient *client, const QByteArray &keyPrefix, const QString &prefix,
                    QObject *parent, bool holdRequests = true);
    ~EtcdWatchStream() override;

    /*! The revision the next stream starts from (tests). */
    qint64 nextRevision() const { return m_nextRevision; }
    /*!
     * Whether a copy of keys in the range, complete at revision \a knownAt
     * and kept with every change delivered since, is current: a stream is
     * open over the whole range, confirmed by etcd and unbroken since, and
     * has delivered every change up to the revision etcd had when it
     * confirmed it (or the copy is at least that new), and nothing between
     * the copy and now went undelivered (compacted away, or before a first
     * stream that had no revision to start from). Right after a stream
     * opens again it is still replaying what it missed, and a copy older
     * than that is not current yet.
     */
    bool vouchesFor(qint64 knownAt) const
    {
        return m_stream && m_confirmedAt > 0 && !m_widenTimer.isActive() && knownAt + 1 >= m_gaplessFrom
            && (m_nextRevision > m_confirmedAt || knownAt >= m_confirmedAt);
    }

    /*!
     * Widens the watched range to take in the keys under \a prefix, whose
     * changes after revision \a floor are wanted. An open stream is
     * replaced (once per turn of the event loop, however many prefixes
     * came) by one over the wider range, from the revision after the
     * lowest floor or from the next revision, whichever is older: the
     * stream may have moved past a write to the new keys made after their
     * floor, and nothing is lost for the keys already watched. What comes
     * twice that way is for the receiver to drop (EtcdWatch::takeNews()).
     */
    void include(const QString &prefix, qint64 floor = 0);

Q_SIGNALS:
    /*! A stream was confirmed by etcd (tests). */
    void streamCreated();
    /*! \a revision: the event's mod_revision (0: unknown). */
    void entryChanged(const baton::StoreEntry &entry, qint64 revision);
    void entryRemoved(const QString &key, qint64 revision);
    /*! Changes were lost to compaction: what is known must be read again. */
    void resynchronise();

private:
    void open();
    void onOpened(HttpStream *stream, const EtcdClient::StreamOrigin &origin,
                  const EtcdClient::Failure &failed);
    void onMessage(const QJsonObject &message);
    /*! Emits the events of one message, unless a receiver deletes this stream meanwhile. */
    void deliverEvents(const QJsonArray &events);
    void onBroken(const HttpError &error);
    void broken(const QString &why, bool endpointAtFault);
    void closeStream();
    void scheduleReopen();
    void started();

    QPointer<EtcdClient> m_client;
    QByteArray m_keyPrefix;
    QString m_prefix;
    QByteArray m_rangeKey;
    QByteArray m_rangeEnd;
    HttpStream *m_stream = nullptr;
    EtcdClient::StreamOrigin m_origin;
    QTimer m_createdTimer;
    QTimer m_reopenTimer;
    QTimer m_widenTimer;
    qint64 m_nextRevision = 0;
    /*! The oldest revision a widening wants the next stream to start from (0: none). */
    qint64 m_replayFrom = 0;
    int m_failures = 0;
    bool m_opening = false;
    /*! Every change from this revision on has been delivered, or will be, in order. */
    qint64 m_gaplessFrom = 0;
    /*! The revision etcd had when it confirmed the open stream (`created`); 0: not confirmed. */
    qint64 m_confirmedAt = 0;
    bool m_everStarted = false;
};

} // namespace baton
