#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

class QJsonObject;

namespace baton {

class Application;
class ClusterService;
class LeaseObserver;
class Store;

/*! What a probe of one election found: the worst of its steps, and a line or two each. */
struct ProbeFinding
{
    /*! As monitoring plugins count: 0 OK, 1 warning, 2 critical, 3 unknown. */
    int severity = 0;
    /*! One line for the summary: `lease "cron": etcd Registry reached and writable`. */
    QString summary;
    /*! The steps, one line each; a failed step is followed by a `fix:` line. */
    QStringList details;
};

/*!
 * `baton check`'s visit to the store of one election of a loaded
 * configuration: what join would need of it, without taking part and
 * without changing any data. A file Registry's folder must exist (or be
 * creatable) and take a file from this user, and its lease is read through
 * a read-only copy of the store (LeaseObserver::open, as `baton status`
 * opens one); an etcd Registry, the configuration's own store started by
 * CheckCommand, must answer (name, connection, TLS, authentication), let
 * the lease key be read, and let it be written, which a transaction whose
 * comparison can never hold shows without writing; on Kubernetes the Lease
 * objects of the namespace must be listable. Ends with finished(), once.
 */
class ElectionProbe : public QObject
{
    Q_OBJECT
public:
    ElectionProbe(Application &application, ClusterService &cluster, QObject *parent = nullptr);
    ~ElectionProbe() override;

    /*! Starts; finished() comes on a later turn of the event loop. */
    void start();
    ProbeFinding finding() const { return m_finding; }

Q_SIGNALS:
    void finished();

private:
    void probeStore(const QString &storeName);
    /*! A file Registry's folder, then its lease through a read-only copy of the store. */
    void probeFolder(const QString &folder, bool defaultRegistry);
    void probeKubernetes();
    /*! Opens the store described by \a service (its type and parameters), read-only. */
    Store *openStore(const QJsonObject &service);
    void readLease(Store *store, bool thenWrite);
    void tryWrite(Store *store);
    void pass(const QString &step);
    void fail(int severity, const QString &step, const QString &message, const QString &fix);
    void finish(const QString &summary);
    QString leaseText() const;

    Application &m_application;
    ClusterService &m_cluster;
    LeaseObserver *m_observer = nullptr;
    ProbeFinding m_finding;
    /*! The worst step that failed, as the summary says it. */
    QString m_firstFailure;
    /*! The store, for the summary: `file Registry /var/lib/baton`. */
    QString m_what;
    bool m_done = false;
};

} // namespace baton
