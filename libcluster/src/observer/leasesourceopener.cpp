// LeaseObserver::open(): the one place that turns a description of a lease
// source (a configuration file, a store URL, a store's service
// configuration, a Kubernetes target) into a running-ready observer. `baton
// status` and the dashboard both come through here.

#include "leaseobserver_p.h"

#include "filestore.h"
#include "kubeconfig.h"
#include "kubernetesleaseprotocol.h"
#include "logging.h"
#include "secretfile.h"
#include "storeurl.h"

#include <baton/application.h>
#include <baton/servicefactory.h>
#include <baton/store.h>

#include <QDir>
#include <QJsonDocument>
#include <QProcessEnvironment>

namespace baton {

namespace {

// As KubernetesClusterService's default: one request may take this long.
constexpr int kubeTimeoutMs = 5000;

const QString registryName = QStringLiteral("Registry");

struct Failure
{
    LeaseObserver::OpenError error;
    QString message;
};

/*! The service configuration --store and its connection flags describe. */
QJsonObject storeServiceForUrl(const LeaseSourceOptions &options, QString *errorString)
{
    QJsonObject service = registryForStoreUrl(options.storeUrl, errorString);
    if (service.isEmpty())
        return {};
    QJsonObject tls;
    for (const auto &[key, value] : {std::pair {QStringLiteral("ca"), options.caFile},
                                     std::pair {QStringLiteral("cert"), options.certFile},
                                     std::pair {QStringLiteral("key"), options.keyFile}})
        if (!value.isEmpty())
            tls.insert(key, value);
    const bool connection = !tls.isEmpty() || !options.user.isEmpty() || !options.passwordFile.isEmpty()
            || !options.prefix.isEmpty();
    if (connection && service.value(QStringLiteral("type")) != QLatin1String("Webda/EtcdStore")) {
        *errorString = QStringLiteral("--prefix, --cacert, --cert, --key, --user and --password-file "
                                      "are for an etcd store (--store http://host:port)");
        return {};
    }
    if (!tls.isEmpty())
        service.insert(QStringLiteral("tls"), tls);
    if (!options.user.isEmpty())
        service.insert(QStringLiteral("username"), options.user);
    if (!options.passwordFile.isEmpty())
        service.insert(QStringLiteral("passwordFile"), options.passwordFile);
    if (!options.prefix.isEmpty())
        service.insert(QStringLiteral("prefix"), options.prefix);
    return service;
}

/*!
 * A configuration's Registry, or the one --store describes, loaded into an
 * Application of its own. Only the Registry starts: the configuration's
 * cluster services stay unstarted, so looking never joins an election.
 */
/*!
 * The parameters of the configuration's Kubernetes election, when its
 * elections are all on Kubernetes and it names no Registry: its Leases are
 * what there is to look at, not the host's default Registry.
 */
QJsonObject kubernetesElectionOf(const Application &app)
{
    if (app.service(registryName))
        return {};
    QJsonObject found;
    for (const Service *service : app.services()) {
        if (service->type() == QLatin1String("Webda/StoreClusterService"))
            return {};
        if (found.isEmpty() && service->type() == QLatin1String("Webda/KubernetesClusterService"))
            found = service->parameters();
    }
    return found;
}

std::optional<Failure> openRegistry(const LeaseSourceOptions &options, std::unique_ptr<Application> *application,
                                    Store **registry, std::unique_ptr<Store> *ownedDefault,
                                    QJsonObject *kubernetesElection)
{
    auto app = std::make_unique<Application>();
    QString error;
    bool loaded = false;
    if (options.kind == LeaseSourceOptions::Kind::StoreUrl) {
        const QJsonObject service = storeServiceForUrl(options, &error);
        loaded = !service.isEmpty()
                && app->loadConfig(QJsonDocument(QJsonObject {{QStringLiteral("services"),
                                                               QJsonObject {{registryName, service}}}})
                                           .toJson(),
                                   QStringLiteral("--store"), &error);
    } else {
        loaded = app->loadConfigFile(options.configPath, &error);
    }
    if (!loaded)
        return Failure {LeaseObserver::OpenError::BadInput, error};
    if (options.kind == LeaseSourceOptions::Kind::Configuration) {
        *kubernetesElection = kubernetesElectionOf(*app);
        if (!kubernetesElection->isEmpty())
            return std::nullopt;
    }
    Store *store = qobject_cast<Store *>(app->service(registryName));
    // Not one of the application's services: owned here, and by the
    // observer once it opens (destroyed before the application it names).
    std::unique_ptr<Store> defaultStore;
    if (!store) {
        // The default Registry, as Application::registry() makes it, minus
        // the creating when only looking.
        defaultStore = std::make_unique<FileStore>(
                registryName,
                QJsonObject {{QStringLiteral("folder"), QDir(app->dataFolder()).filePath(QStringLiteral("registry"))}},
                app.get());
        store = defaultStore.get();
    }
    if (auto *folderStore = qobject_cast<FileStore *>(store))
        folderStore->setReadOnly(options.readOnly);
    if (!store->init(&error)) {
        const QString where = options.kind == LeaseSourceOptions::Kind::StoreUrl ? QStringLiteral("--store")
                                                                                 : options.configPath;
        return Failure {LeaseObserver::OpenError::SourceUnavailable,
                        where.isEmpty() ? error : QStringLiteral("%1: %2").arg(where, error)};
    }
    *registry = store;
    *ownedDefault = std::move(defaultStore);
    *application = std::move(app);
    return std::nullopt;
}

/*! A store from its service configuration, as a connection form describes it. */
std::optional<Failure> openStoreService(const LeaseSourceOptions &options, std::unique_ptr<Store> *owned)
{
    QJsonObject parameters = options.storeService;
    const QString type = parameters.take(QStringLiteral("type")).toString();
    std::unique_ptr<Service> service(ServiceFactory::create(type, registryName, parameters, nullptr));
    auto *store = qobject_cast<Store *>(service.get());
    if (!store)
        return Failure {LeaseObserver::OpenError::BadInput,
                        QStringLiteral("%1 is not a store type this version knows").arg(type)};
    if (auto *folderStore = qobject_cast<FileStore *>(store))
        folderStore->setReadOnly(options.readOnly);
    QString error;
    if (!store->init(&error))
        return Failure {LeaseObserver::OpenError::SourceUnavailable, error};
    service.release();
    owned->reset(store);
    return std::nullopt;
}

std::optional<Failure> openKubernetes(const LeaseSourceOptions &options, const QString &tokenFile,
                                      LeaseProtocol **opened, QString *emptyText)
{
    KubeConfigOptions where;
    where.configPath = options.kubeconfigPath;
    where.context = options.kubeContext;
    where.namespaceName = options.namespaceName;
    KubeClientConfig config;
    QString error;
    if (!kubeconfig::resolve(where, QProcessEnvironment::systemEnvironment(), &config, &error))
        return Failure {LeaseObserver::OpenError::BadInput, error};
    if (!options.token.isEmpty()) {
        // The given token replaces the kubeconfig's credentials, so that the
        // operator knows which identity the API server sees.
        config.token = options.token;
        config.tokenFile.clear();
        config.exec.reset();
        config.clientCertPem.clear();
        config.clientKeyPem.clear();
    } else if (!tokenFile.isEmpty()) {
        // As the election reads it: a mounted Secret wins over the kubeconfig.
        config.tokenFile = SecretFile::resolve(tokenFile);
        QString warning;
        if (!SecretFile::check(config.tokenFile, &error, &warning))
            return Failure {LeaseObserver::OpenError::BadInput, QStringLiteral("\"tokenFile\": ") + error};
        config.token.clear();
        config.exec.reset();
    }
    auto source = std::make_unique<KubernetesLeaseProtocol>(config, options.allNamespaces, kubeTimeoutMs);
    if (!source->setUp(&error))
        return Failure {LeaseObserver::OpenError::BadInput, error};
    if (config.insecureSkipTlsVerify)
        qCWarning(lcKube).noquote() << QStringLiteral("insecure-skip-tls-verify is set in %1: the API "
                                                      "server's certificate is NOT verified")
                                               .arg(config.source);
    *emptyText = options.allNamespaces
            ? QStringLiteral("no Lease objects in any namespace")
            : QStringLiteral("no Lease objects in namespace %1").arg(config.namespaceName);
    *opened = source.release();
    return std::nullopt;
}

} // namespace

LeaseObserver *LeaseObserver::open(const LeaseSourceOptions &options, QObject *parent, QString *errorString,
                                   OpenError *error, const Clock *clock)
{
    std::unique_ptr<Application> application;
    std::unique_ptr<Store> ownedStore;
    Store *store = nullptr;
    LeaseProtocol *kubernetes = nullptr;
    QString emptyText;
    std::optional<Failure> failure;
    switch (options.kind) {
    case LeaseSourceOptions::Kind::Configuration:
    case LeaseSourceOptions::Kind::StoreUrl: {
        QJsonObject kubernetesElection;
        failure = openRegistry(options, &application, &store, &ownedStore, &kubernetesElection);
        if (!failure && !kubernetesElection.isEmpty()) {
            // The configuration's own Leases, where its election keeps them (B4).
            LeaseSourceOptions where;
            where.kind = LeaseSourceOptions::Kind::Kubernetes;
            where.kubeconfigPath = kubernetesElection.value(QStringLiteral("config")).toString();
            where.kubeContext = kubernetesElection.value(QStringLiteral("context")).toString();
            where.namespaceName = kubernetesElection.value(QStringLiteral("namespace")).toString();
            application.reset();
            failure = openKubernetes(where, kubernetesElection.value(QStringLiteral("tokenFile")).toString(),
                                     &kubernetes, &emptyText);
        }
        break;
    }
    case LeaseSourceOptions::Kind::StoreService:
        failure = openStoreService(options, &ownedStore);
        store = ownedStore.get();
        break;
    case LeaseSourceOptions::Kind::Kubernetes:
        failure = openKubernetes(options, QString(), &kubernetes, &emptyText);
        break;
    }
    if (error)
        *error = failure ? failure->error : OpenError::NoError;
    if (failure) {
        *errorString = failure->message;
        return nullptr;
    }
    LeaseObserver *observer = kubernetes ? LeaseObserverPrivate::create(kubernetes, clock, parent)
                                         : new LeaseObserver(store, clock, parent);
    observer->d->m_application = std::move(application);
    // openRegistry() owns a store only when it made the default one.
    observer->d->m_defaultRegistry = options.kind != LeaseSourceOptions::Kind::StoreService && ownedStore;
    observer->d->m_ownedStore = std::move(ownedStore);
    if (!emptyText.isEmpty())
        observer->d->m_emptyText = emptyText;
    return observer;
}

} // namespace baton
