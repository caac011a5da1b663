#pragma once

#include <QHash>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QString>

namespace baton {

class EtcdClient;
class EtcdWatch;
class EtcdWatchStream;

/*!
 * The one stream an etcd store's watches share, and who hears what. The
 * stream's range is the span from the lowest to the highest prefix watched
 * (not the whole key space: other processes' keys outside the span stay out
 * of it; those inside it arrive and are dropped here). The span only grows:
 * it is not narrowed when watches go.
 * Over HTTP/1.1 a watch stream holds a connection for as long as it lives,
 * and Qt opens at most six connections per host: a process in more than a
 * few elections (P3) would otherwise have every connection taken by its
 * watches and its renewals queued behind them until they time out. A change
 * is handed to the watches whose prefix starts its key and to which it is
 * news (EtcdWatch::takeNews()); the stream goes when the last of them does.
 */
class EtcdWatchHub : public QObject
{
    Q_OBJECT
public:
    /*!
     * \a first: the first watch's prefix, the range the stream starts with;
     * \a holdRequests as EtcdWatchStream takes it.
     */
    EtcdWatchHub(EtcdClient *client, const QByteArray &keyPrefix, const QString &first,
                 QObject *parent, bool holdRequests = true);

    void add(EtcdWatch *watch);
    void remove(EtcdWatch *watch);
    /*! Its last watch went: it is deleted soon, and a new watch needs a new hub. */
    bool retiring() const { return m_byPrefix.isEmpty(); }
    /*! EtcdWatchStream::vouchesFor(). */
    bool vouchesFor(qint64 knownAt) const;

private:
    /*! The watches whose prefix starts \a key, as guarded pointers (a slot may delete any). */
    QList<QPointer<EtcdWatch>> watchersOf(const QString &key) const;

    EtcdWatchStream *m_stream = nullptr;
    QHash<QString, QList<EtcdWatch *>> m_byPrefix;
    // Prefix length -> how many watches have a prefix that long: a key is
    // looked up once per distinct length, not compared with every watch.
    QMap<qsizetype, int> m_lengths;
};

} // namespace baton
