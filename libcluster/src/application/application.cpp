#include "application_p.h"

#include "configscanner.h"
#include "filestore.h"
#include "jsonutil.h"
#include "localclusterservice.h"
#include "logging.h"
#include "parameters.h"
#include "signalstop.h"

#include <baton/clusterservice.h>
#include <baton/servicefactory.h>
#include <baton/store.h>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QStandardPaths>

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

bool Application::loadConfigFile(const QString &path, QString *errorString)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *errorString = QStringLiteral("%1: cannot read the configuration: %2")
                               .arg(path, file.errorString());
        return false;
    }
    return loadConfig(file.readAll(), path, errorString);
}

bool Application::loadConfig(const QByteArray &json, const QString &sourceName,
                             QString *errorString)
{
    if (d->initialised) {
        *errorString = QStringLiteral("%1: the application has already started: load its "
                                      "configuration before init()")
                               .arg(sourceName);
        return false;
    }
    if (!d->sourceName.isEmpty()) {
        *errorString = QStringLiteral("%1: a configuration is already loaded, from %2: an "
                                      "application reads one")
                               .arg(sourceName, d->sourceName);
        return false;
    }
    if (!d->services.isEmpty()) {
        // Elections added in code come after the file's services (C2: the
        // file's order is the start order), so the file must come first.
        *errorString = QStringLiteral("%1: services were already added in code "
                                      "(Application::addCluster): load the configuration "
                                      "first, then add them")
                               .arg(sourceName);
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        int line = 0, column = 0;
        jsonutil::lineAndColumn(json, parseError.offset, &line, &column);
        *errorString = QStringLiteral("%1:%2:%3: malformed JSON: %4")
                               .arg(sourceName)
                               .arg(line)
                               .arg(column)
                               .arg(parseError.errorString());
        return false;
    }
    if (!document.isObject()) {
        *errorString = QStringLiteral("%1: the configuration must be a JSON object "
                                      "{\"services\": {...}}")
                               .arg(sourceName);
        return false;
    }
    // A misspelt "services" would leave an application with no service at
    // all, which elects nothing and says nothing: refused like any typo (P1).
    const QStringList rootKeys {QStringLiteral("services")};
    for (const QString &key : document.object().keys()) {
        if (rootKeys.contains(key))
            continue;
        const QString suggestion = parameters::closest(key, rootKeys);
        *errorString = QStringLiteral("%1: key \"%2\" = %3: unknown key at the top of the "
                                      "configuration, %4")
                               .arg(sourceName, key, parameters::shownValue(key, document.object().value(key)),
                                    suggestion.isEmpty()
                                            ? QStringLiteral("which holds only \"services\"")
                                            : QStringLiteral("did you mean \"%1\"?").arg(suggestion));
        return false;
    }
    const QJsonValue servicesValue = document.object().value(QStringLiteral("services"));
    if (!servicesValue.isUndefined() && !servicesValue.isObject()) {
        *errorString = QStringLiteral("%1: \"services\" must be an object of named services, not %2")
                               .arg(sourceName, jsonutil::describe(servicesValue));
        return false;
    }
    const QJsonObject servicesObject = servicesValue.toObject();

    QList<Service *> created;
    QHash<QString, ConfiguredService> locations;
    auto fail = [&](const QString &message) {
        qDeleteAll(created);
        *errorString = message;
        return false;
    };
    const QList<ConfiguredService> configuredServices = servicesInFileOrder(json);
    for (const ConfiguredService &configured : configuredServices) {
        if (configured.earlierLine == 0)
            continue;
        return fail(QStringLiteral("%1:%2:%3: service \"%4\" is defined twice, first at line %5 "
                                   "column %6: only one of them would be used, without a word; "
                                   "keep one")
                            .arg(sourceName)
                            .arg(configured.line)
                            .arg(configured.column)
                            .arg(configured.name)
                            .arg(configured.earlierLine)
                            .arg(configured.earlierColumn));
    }
    // Every service is read, so that all the mistakes are told at once,
    // each on its line, in file order.
    QStringList errors;
    for (const ConfiguredService &configured : configuredServices) {
        const QString where = QStringLiteral("%1:%2:%3")
                                      .arg(sourceName)
                                      .arg(configured.line)
                                      .arg(configured.column);
        for (const ConfiguredService::Repeat &repeat : configured.repeatedParameters)
            errors.append(QStringLiteral("%1:%2:%3: service \"%4\": parameter \"%5\" is given twice, "
                                         "first at line %6 column %7: only the last would be used, "
                                         "without a word; keep one")
                                  .arg(sourceName)
                                  .arg(repeat.at.line)
                                  .arg(repeat.at.column)
                                  .arg(configured.name, repeat.key)
                                  .arg(repeat.earlier.line)
                                  .arg(repeat.earlier.column));
        const QJsonValue entry = servicesObject.value(configured.name);
        const QString problem
                = entryProblem(where, configured.name, entry, ServiceFactory::types());
        if (!problem.isEmpty()) {
            errors.append(problem);
            continue;
        }
        const QJsonObject parameters = entry.toObject();
        const QJsonValue type = parameters.value(QStringLiteral("type"));
        const QString fullType = ServiceFactory::resolve(type.toString());
        Service *service = fullType.isEmpty()
                ? nullptr
                : ServiceFactory::create(fullType, configured.name, parameters, this);
        if (!service) {
            errors.append(
                    QStringLiteral("%1: service \"%2\": unknown type \"%3\" (known types: %4)")
                            .arg(where, configured.name, type.toString(),
                                 ServiceFactory::types().join(QStringLiteral(", "))));
            continue;
        }
        service->setType(fullType);
        service->setParent(this);
        created.append(service);
        // P1: what a type does not know is refused before anything starts;
        // a type that declared nothing is not checked.
        const QStringList declared = ServiceFactory::parameters(fullType);
        const QString unknown = declared.isEmpty()
                ? QString()
                : parameters::refuseUnknown(
                          ParameterReader::describeService(configured.name, fullType), parameters,
                          declared);
        if (!unknown.isEmpty())
            errors.append(locateRefusal(sourceName, configured, unknown));
        locations.insert(configured.name, configured);
    }
    if (!errors.isEmpty())
        return fail(errors.join(QLatin1Char('\n')));
    if (created.size() != servicesObject.size())
        return fail(QStringLiteral("%1: could not read the order of the services").arg(sourceName));
    d->services = created;
    d->locations = locations;
    d->sourceName = sourceName;
    return true;
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
    Service *service = services.at(--stopIndex);
    QObject::connect(service, &Service::stopped, q, [this] { stopNext(); },
                     Qt::SingleShotConnection);
    service->stop();
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
