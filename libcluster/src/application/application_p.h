#pragma once

#include <baton/application.h>
#include <baton/leadercallback.h>
#include <baton/remover.h>

#include "configscanner.h"
#include "servicehost.h"

#include <QHash>
#include <QPointer>

namespace baton {

class ClusterService;
class SignalStop;
class Store;

/*! The application as its services see it (ServiceHost). */
class ApplicationHost final : public ServiceHost
{
public:
    explicit ApplicationHost(Application *application)
        : ServiceHost(application)
        , q(application)
    {
    }

    bool isStarted() const override { return q->isInitialised(); }
    QString dataFolder() const override { return q->dataFolder(); }
    Service *service(const QString &name) const override { return q->service(name); }
    Store *registry() override { return q->registry(); }

private:
    Application *q;
};

class ApplicationPrivate
{
public:
    explicit ApplicationPrivate(Application *q);

    /*! A registration made before the cluster service existed (W7). */
    struct PendingRegistration
    {
        quint64 id = 0;
        LeaderCallback fn;
        LeaderCallback deregisteredFn;
        QPointer<QObject> context;
        bool hadContext = false;
        Remover remover;
    };

    static ApplicationPrivate *get(Application *application) { return application->d.get(); }
    Remover addPending(LeaderCallback fn, LeaderCallback deregisteredFn, QObject *context);
    void attachPending(ClusterService &cluster);
    ClusterService &localCluster();
    void stopNext();
    /*! setStopOnSignals(): catches SIGTERM and SIGINT for a clean stop, then the end of the event loop. */
    void catchSignals();
    void releaseSignals();

    Application *q;
    ApplicationHost host;
    QString sourceName;
    QList<Service *> services; // configuration order
    QHash<QString, ConfiguredService> locations; // where each service and its parameters are
    bool initialising = false;
    bool initialised = false;
    bool pendingAttached = false;
    bool stopping = false;
    int stopIndex = 0;
    bool stopped = false;
    bool stopOnSignals = true;
    bool exitWhenStopped = false;
    QPointer<SignalStop> signalStop;
    QPointer<Store> defaultRegistry;
    QPointer<ClusterService> local;
    QList<PendingRegistration> pending;
    quint64 lastPendingId = 0;
};

/*! The process-wide local cluster used when there is no Application at all (W8). */
ClusterService &processLocalCluster();

} // namespace baton
