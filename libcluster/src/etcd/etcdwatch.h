#pragma once

#include <baton/store.h>

#include <QPointer>
#include <QStringList>
#include <QString>

namespace baton {

class EtcdWatchHub;

/*!
 * A watch of the keys under a prefix (EtcdStore::watch()), served by the
 * store's one stream through an EtcdWatchHub.
 */
class EtcdWatch : public StoreWatch
{
    Q_OBJECT
public:
    EtcdWatch(EtcdWatchHub *hub, const QString &prefix, qint64 floor, QObject *parent);
    ~EtcdWatch() override;

    QString prefix() const { return m_prefix; }
    /*!
     * The newest revision the store knew when this watch was made. A stream
     * widened for it replays its keys from where the stream was, which can
     * be older: those events are history, not news, and are not handed on.
     * Any write made after watch() returned has a higher revision.
     */
    qint64 floor() const { return m_floor; }

    /*!
     * Whether the change of \a key at \a revision is news to this watch,
     * remembered when it is: newer than the floor, and not handed on
     * already (a stream widened for another watch replays from that
     * watch's floor). Revisions come in order; one revision may change
     * several keys (a shared txn). Revision 0 (unknown) is always news:
     * better a change heard twice than one missed.
     */
    bool takeNews(qint64 revision, const QString &key);
    /*! The revision of the change last handed on (0: unknown), for its receivers. */
    qint64 newsRevision() const { return m_lastRevision; }
    /*!
     * Whether a copy of this watch's keys, complete at revision \a knownAt
     * and kept with every change handed on since, is current
     * (EtcdWatchStream::vouchesFor()).
     */
    bool vouchesFor(qint64 knownAt) const;

private:
    QPointer<EtcdWatchHub> m_hub;
    QString m_prefix;
    qint64 m_floor = 0;
    qint64 m_lastRevision = 0;
    /*!
     * Mostly one key (a lease's watch); up to a txn's keys for a prefix.
     * A list, not a QSet: a set's least storage is over a kilobyte, and
     * each election of a process has its own watch.
     */
    QStringList m_keysAtLastRevision;
};

} // namespace baton
