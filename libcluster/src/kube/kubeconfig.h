#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <optional>

namespace baton {

/*! A kubeconfig `exec` credential plugin (client.authentication.k8s.io v1 or v1beta1). */
struct KubeExecConfig
{
    QString apiVersion;
    QString command;
    QStringList args;
    QList<QPair<QString, QString>> env;
    bool provideClusterInfo = false;
    /*! Where it was configured, for messages: `users[0] "alice" in /home/a/.kube/config`. */
    QString origin;
};

/*!
 * Everything needed to talk to one Kubernetes API server, resolved from a
 * kubeconfig or from the pod's service account (B4). Secrets (token,
 * key) are held only to be sent; describe() never shows them (R2).
 */
struct KubeClientConfig
{
    QUrl server;
    /*! PEM CA certificates; empty means the system's CAs. */
    QByteArray caPem;
    bool insecureSkipTlsVerify = false;
    QString tlsServerName;
    /*! PEM client certificate and key (file contents or inline data). */
    QByteArray clientCertPem;
    QByteArray clientKeyPem;
    QString token;
    /*! Re-read when it changes (kubeconfig tokenFile, or the in-cluster token). */
    QString tokenFile;
    std::optional<KubeExecConfig> exec;
    /*! The namespace the Lease lives in, after the B4 rules. */
    QString namespaceName;
    /*! Where that namespace came from: `the namespace parameter`, `POD_NAMESPACE`... */
    QString namespaceSource;
    bool inCluster = false;
    /*! `kubeconfig /x (context "c")` or `in-cluster configuration`, for messages. */
    QString source;
    QString contextName;

    QString describe() const;
};

/*! How to find the configuration: the service's parameters. */
struct KubeConfigOptions
{
    /*! The `config` parameter: one kubeconfig file instead of KUBECONFIG and ~/.kube/config. */
    QString configPath;
    QString context;
    QString namespaceName;
};

/*!
 * Reads kubeconfig files with yaml-cpp and the in-cluster files, and applies
 * the kubectl rules: `config`, else the `KUBECONFIG` files merged (the first
 * file that names an entry or a current-context wins; missing files are
 * skipped; relative paths resolve against the file's folder), else
 * `~/.kube/config`, else the in-cluster configuration
 * (`KUBERNETES_SERVICE_HOST`/`_PORT`, the service account folder,
 * overridable with `BATON_SERVICEACCOUNT_DIR` for tests). Namespace: the
 * parameter, `POD_NAMESPACE`, the service account's namespace file, the
 * context's namespace, then `default`.
 *
 * Errors name the file and the entry (R1). Reads only small local
 * files; runs no plugin (KubeCredentials does, asynchronously).
 */
namespace kubeconfig {

QString serviceAccountDir(const QProcessEnvironment &env);

bool resolve(const KubeConfigOptions &options, const QProcessEnvironment &env,
             KubeClientConfig *config, QString *errorString);

} // namespace kubeconfig
} // namespace baton
