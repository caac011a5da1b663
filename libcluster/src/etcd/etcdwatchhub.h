#pragma once

#include <QHash>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QString>

namespace baton {

class EtcdStore;
class EtcdWatch;
class EtcdSharedWatch;

/*!
 * One EtcdWatch that the watches of single keys of one kind
 * (`cluster:<lease name>`) share, over the span from their lowest to their
 * highest key (not the whole kind: other processes' elections outside the
 * span stay out of it; those inside it arrive and are dropped here). The
 * span only grows: it is not narrowed when watches go.
 * Over HTTP/1.1 a watch stream holds a connection for as long as it lives,
 * and Qt opens at most six connections per host: a process in more than a few elections
 * (P3) would otherwise have every connection taken by its watches and its
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

} // namespace baton
