#pragma once

#include <chrono>
#include <QMap>
#include <QString>

namespace baton {

/*!
 * One election described in code, as a configuration file's cluster
 * service describes it; Application::addCluster() builds the service:
 *
 * \code
 * using namespace std::chrono_literals;
 * baton::ElectionOptions election;
 * election.leaseName = QStringLiteral("cron");
 * election.leaseDuration = 10s;
 * election.renewInterval = 2s;
 * ClusterService *cluster = app.addCluster(QStringLiteral("cluster"), election, &error);
 * \endcode
 *
 * The values are those of the configuration (docs/reference/configuration.md) and are
 * checked by the same rules, with the same messages, when the service starts:
 * a renewal interval not lower than the lease duration, an empty lease name
 * and so on are refused by Application::init(). Each default is the
 * configuration's default.
 */
struct ElectionOptions
{
    /*! Where the lease lives. */
    enum class Backend {
        /*! A Registry entry (`Webda/StoreClusterService`), in the Registry or in #store. */
        Store,
        /*! A Kubernetes Lease (`Webda/KubernetesClusterService`), reached as #kubernetes says. */
        Kubernetes,
        /*! In this process (`Webda/LocalClusterService`): a single instance, always leading. */
        Local,
    };

    /*! How a Kubernetes election reaches the API server; every field may stay empty. */
    struct Kubernetes
    {
        /*! A kubeconfig; empty: `KUBECONFIG`, `~/.kube/config`, then the in-cluster one. */
        QString config;
        /*! The kubeconfig's context; empty: its current context. */
        QString context;
        /*! The Lease's namespace; empty: `POD_NAMESPACE`, the pod's, the context's, `default`. */
        QString namespaceName;
        /*! A bearer token's file, read again when it changes; empty: the kubeconfig's. */
        QString tokenFile;
        /*! How long one request to the API server may take. */
        std::chrono::milliseconds timeout {5000};
    };

    /*! The name of the lease: one election per name. */
    QString leaseName = QStringLiteral("leader");
    /*! How long a lease is valid without a renewal. */
    std::chrono::milliseconds leaseDuration {15000};
    /*! Time between two attempts to acquire or renew; lower than #leaseDuration. */
    std::chrono::milliseconds renewInterval {5000};
    /*! This instance's identity, unique per process; empty: `<host>-<pid>-<random>`. */
    QString instanceId;
    /*!
     * Preference, -1000 to 1000; not for Local: the leader hands the lease
     * over to a candidate of a higher priority once that one has run
     * unchanged for #preferAfter. Equal priorities never move the lease.
     */
    int priority = 0;
    /*! How long a candidate of a higher priority must have run unchanged before it gets the lease; 0 or more. */
    std::chrono::milliseconds preferAfter {30000};
    /*!
     * Start drained: take no lease while another candidate that is not
     * drained runs, and hand it over when leading; not for Local. An
     * operator's `baton undrain` ends it.
     */
    bool standby = false;
    /*!
     * What this candidate says it is, in Kubernetes' label syntax
     * (`{"zone", "b"}`); not for Local: `baton handover --to zone=b` hands
     * the lease to a running candidate that matches.
     */
    QMap<QString, QString> labels;
    /*! How many holder changes the lease keeps for observers, 0 to 1000; not for Local. */
    int historyLength = 20;
    /*! Where the lease lives. */
    Backend backend = Backend::Store;
    /*! For Backend::Store: the store service that keeps the lease; empty: the Registry. */
    QString store;
    /*! For Backend::Kubernetes. */
    Kubernetes kubernetes;
};

} // namespace baton
