#include "application_p.h"

#include "configscanner.h"
#include "filestore.h"
#include "localclusterservice.h"
#include "logging.h"
#include "parameters.h"
#include "signalstop.h"

#include <baton/clusterservice.h>
#include <baton/servicefactory.h>
#include <baton/store.h>

#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>

#include <memory>

namespace baton {

namespace {

Application *s_current = nullptr;

const QString registryName = QStringLiteral("Registry");

} // namespace

ApplicationPrivate::ApplicationPrivate(Application *qq)
    : q(qq)
    , host(qq)
{
}

Remover ApplicationPrivate::addPending(LeaderCallback fn, LeaderCallback deregisteredFn,
                                       QObject *context)
{
    const quint64 id = ++lastPendingId;
    QPointer<Application> application = q;
    Remover remover([application, id] {
        // Removed before its cluster started: it never ran, so nothing to undo.
        if (application)
            get(application)->pending.removeIf(
                    [id](const PendingRegistration &p) { return p.id == id; });
    });
    pending.append(PendingRegistration {id, std::move(fn), std::move(deregisteredFn), context,
                                        context != nullptr, remover});
    return remover;
}

void ApplicationPrivate::attachPending(ClusterService &cluster)
{
    pendingAttached = true;
    const QList<PendingRegistration> waiting = std::exchange(pending, {});
    for (const PendingRegistration &p : waiting) {
        if (p.hadContext && !p.context)
            continue; // W6: its context went away before the cluster started
        const Remover attached = cluster.addRegistration(p.fn, p.deregisteredFn, p.context);
        p.remover.retarget([attached] { attached(); });
    }
}

ClusterService &ApplicationPrivate::localCluster()
{
    if (!local) {
        auto *cluster = new LocalClusterService(QStringLiteral("local"), {}, q);
        cluster->setParent(q);
        QString ignored;
        cluster->init(&ignored);
        local = cluster;
    }
    return *local;
}

ClusterService &processLocalCluster()
{
    // Without an Application the QCoreApplication owns the local cluster;
    // without either (plain code, tests) it lives as long as the process.
    static QPointer<ClusterService> cluster;
    static std::unique_ptr<ClusterService> unowned;
    if (!cluster) {
        auto *created = new LocalClusterService(QStringLiteral("local"), {}, nullptr);
        QString ignored;
        created->init(&ignored);
        if (QCoreApplication::instance())
            created->setParent(QCoreApplication::instance());
        else
            unowned.reset(created);
        cluster = created;
    }
    return *cluster;
}

Application::Application(QObject *parent)
    : QObject(parent)
    , d(std::make_unique<ApplicationPrivate>(this))
{
    s_current = this;
}

Application::~Application()
{
    if (s_current == this)
        s_current = nullptr;
    d->releaseSignals();
    // Services are children; delete them last-first, as they were started.
    for (auto it = d->services.rbegin(); it != d->services.rend(); ++it)
        delete *it;
    d->services.clear();
}

Application *Application::current()
{
    return s_current;
}

bool Application::init(QString *errorString)
{
    if (d->initialised || d->initialising) {
        *errorString = QStringLiteral("the application is already initialised");
        return false;
    }
    d->initialising = true;
    for (int i = 0; i < d->services.size(); ++i) {
        Service *service = d->services.at(i);
        QString error;
        if (!service->init(&error)) {
            // Returned, not logged too: a caller that prints it would show it twice.
            *errorString = locateError(service->name(), error);
            // Refused: stop what already started, so that nothing is left running.
            for (int j = i - 1; j >= 0; --j)
                d->services.at(j)->stop();
            d->initialising = false;
            return false;
        }
        auto *cluster = qobject_cast<ClusterService *>(service);
        if (cluster && !d->pendingAttached)
            d->attachPending(*cluster); // W7: waiting registrations start with it
    }
    d->initialising = false;
    d->initialised = true;
    if (!d->pendingAttached)
        d->attachPending(d->localCluster()); // W8
    // Before the election begins, so that even a first acquisition is
    // released when a stop comes at once (F5).
    if (d->stopOnSignals)
        d->catchSignals();
    // The services hear it after the application's own receivers, as when
    // they connected to started() themselves during init().
    QPointer<Application> self = this;
    Q_EMIT started();
    if (self)
        Q_EMIT d->host.started();
    return true;
}

QString Application::locateError(const QString &serviceName, const QString &errorString) const
{
    const auto service = d->locations.constFind(serviceName);
    if (service == d->locations.cend())
        return d->sourceName.isEmpty() ? errorString
                                       : QStringLiteral("%1: %2").arg(d->sourceName, errorString);
    if (service->line == 0)
        return errorString; // built in code (addCluster): no place in a file
    return locateRefusal(d->sourceName, *service, errorString);
}

bool Application::isInitialised() const
{
    return d->initialised;
}

void Application::stop()
{
    if (d->stopping)
        return;
    d->stopping = true;
    d->stopIndex = int(d->services.size());
    if (d->local) {
        // The local cluster goes first: it was made for the code that runs on top.
        connect(d->local, &Service::stopped, this, [this] { d->stopNext(); },
                Qt::SingleShotConnection);
        d->local->stop();
        return;
    }
    d->stopNext();
}

void ApplicationPrivate::stopNext()
{
    if (stopIndex == 0) {
        if (defaultRegistry)
            defaultRegistry->stop();
        QMetaObject::invokeMethod(
                q,
                [app = q] {
                    get(app)->stopped = true;
                    Q_EMIT app->stopped();
                    if (get(app)->exitWhenStopped && QCoreApplication::instance())
                        QCoreApplication::exit(0);
                },
                Qt::QueuedConnection);
        return;
    }
    // Adjacent cluster services stop together: each releases its own lease
    // and none waits on another, so a thousand elections stop in the time
    // of one release, not of a thousand in a row. Any other service still
    // stops alone, after everything configured after it.
    const auto isCluster = [this](int i) { return qobject_cast<ClusterService *>(services.at(i)) != nullptr; };
    int first = stopIndex - 1;
    if (isCluster(first))
        while (first > 0 && isCluster(first - 1))
            --first;
    const int last = stopIndex - 1;
    stopIndex = first;
    auto running = std::make_shared<int>(last - first + 1);
    for (int i = last; i >= first; --i) {
        Service *service = services.at(i);
        QObject::connect(service, &Service::stopped, q,
                         [this, running] {
                             if (--*running == 0)
                                 stopNext();
                         },
                         Qt::SingleShotConnection);
        service->stop();
    }
}

void ApplicationPrivate::catchSignals()
{
    if (signalStop || !initialised)
        return;
    signalStop = SignalStop::install(q);
    if (!signalStop)
        return;
    QObject::connect(signalStop, &SignalStop::received, q, [this](int signalNumber) {
        qCInfo(lcConfig).noquote()
                << QStringLiteral("signal %1: stopping cleanly (a second one ends the process at once)")
                           .arg(signalNumber);
        exitWhenStopped = true;
        if (stopped)
            QCoreApplication::exit(0);
        else
            q->stop();
    });
}

void ApplicationPrivate::releaseSignals()
{
    delete signalStop;
}

void Application::setStopOnSignals(bool enabled)
{
    d->stopOnSignals = enabled;
    if (enabled)
        d->catchSignals();
    else
        d->releaseSignals();
}

bool Application::stopOnSignals() const
{
    return d->stopOnSignals;
}

Service *Application::service(const QString &name) const
{
    for (Service *service : d->services)
        if (service->name() == name)
            return service;
    return nullptr;
}

QList<Service *> Application::services() const
{
    return d->services;
}

ClusterService *Application::firstCluster() const
{
    for (Service *service : d->services)
        if (auto *cluster = qobject_cast<ClusterService *>(service))
            return cluster;
    return nullptr;
}

Store *Application::registry()
{
    if (auto *configured = qobject_cast<Store *>(service(registryName)))
        return configured;
    if (!d->defaultRegistry) {
        // B1: with no store configured, the processes of one host share a
        // FileStore in the data folder and elect correctly with no setup.
        auto *store = new FileStore(registryName,
                                    {{QStringLiteral("folder"),
                                      QDir(dataFolder()).filePath(QStringLiteral("registry"))}},
                                    this);
        store->setType(QStringLiteral("Webda/FileStore"));
        QString error;
        if (!store->init(&error)) {
            qCWarning(lcConfig).noquote() << "the default Registry cannot start:" << error;
            delete store;
            return nullptr;
        }
        // R8: an election meant for several hosts, run without a shared
        // store, would elect one leader per host, silently.
        qCWarning(lcConfig).noquote()
                << QStringLiteral("no Registry in the configuration: the elections are of this host "
                                  "only, in the default file Registry at %1; participants on other "
                                  "hosts elect leaders of their own (for one election across hosts, "
                                  "configure a shared store, such as etcd, as the Registry)")
                           .arg(store->parameters().value(QStringLiteral("folder")).toString());
        d->defaultRegistry = store;
    }
    return d->defaultRegistry;
}

QString Application::dataFolder() const
{
    const QString configured = qEnvironmentVariable("BATON_DATA_DIR");
    if (!configured.isEmpty())
        return configured;
    QString location = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (location.isEmpty())
        location = QDir::home().filePath(QStringLiteral(".local/share/baton"));
    return location;
}

} // namespace baton
