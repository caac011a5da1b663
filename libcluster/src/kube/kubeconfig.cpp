#include "kubeconfig.h"
#include "kubeconfigfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

namespace baton {

QString KubeClientConfig::describe() const
{
    QString auth;
    if (exec)
        auth = QStringLiteral("exec plugin %1").arg(exec->command);
    else if (!tokenFile.isEmpty())
        auth = QStringLiteral("token file %1").arg(tokenFile);
    else if (!token.isEmpty())
        auth = QStringLiteral("bearer token");
    else if (!clientCertPem.isEmpty())
        auth = QStringLiteral("client certificate");
    else
        auth = QStringLiteral("no credentials");
    return QStringLiteral("%1, server %2, namespace \"%3\" (%4), %5")
            .arg(source, server.toDisplayString(), namespaceName, namespaceSource, auth);
}

namespace kubeconfig {

namespace {

bool isDnsLabel(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"));
    return name.size() <= 63 && re.match(name).hasMatch();
}

bool fromCluster(const QProcessEnvironment &env, KubeClientConfig *config, QString *errorString)
{
    const QString host = env.value(QStringLiteral("KUBERNETES_SERVICE_HOST"));
    const QString port = env.value(QStringLiteral("KUBERNETES_SERVICE_PORT"));
    const QString dir = serviceAccountDir(env);
    QUrl url;
    url.setScheme(QStringLiteral("https"));
    url.setHost(host);
    bool portOk = false;
    url.setPort(port.toInt(&portOk));
    if (!portOk || !url.isValid()) {
        *errorString = QStringLiteral("in-cluster configuration: KUBERNETES_SERVICE_HOST \"%1\" and "
                                      "KUBERNETES_SERVICE_PORT \"%2\" do not make a URL")
                               .arg(host, port);
        return false;
    }
    config->server = url;
    const QString where = QStringLiteral("in-cluster configuration");
    if (!readFile(dir + QStringLiteral("/ca.crt"), &config->caPem, QStringLiteral("CA file"), where,
                  errorString))
        return false;
    config->tokenFile = dir + QStringLiteral("/token");
    if (!QFileInfo(config->tokenFile).isReadable()) {
        *errorString = QStringLiteral("%1: the service account token %2 cannot be read")
                               .arg(where, config->tokenFile);
        return false;
    }
    config->inCluster = true;
    config->source = QStringLiteral("in-cluster configuration (%1)").arg(dir);
    return true;
}

} // namespace

QString serviceAccountDir(const QProcessEnvironment &env)
{
    const QString overridden = env.value(QStringLiteral("BATON_SERVICEACCOUNT_DIR"));
    return overridden.isEmpty() ? QStringLiteral("/var/run/secrets/kubernetes.io/serviceaccount")
                                : overridden;
}

bool resolve(const KubeConfigOptions &options, const QProcessEnvironment &env,
             KubeClientConfig *config, QString *errorString)
{
    *config = {};
    QStringList files;
    if (!options.configPath.isEmpty()) {
        if (!QFileInfo::exists(options.configPath)) {
            *errorString = QStringLiteral("kubeconfig %1 does not exist (parameter \"config\")")
                                   .arg(options.configPath);
            return false;
        }
        files << options.configPath;
    } else if (!env.value(QStringLiteral("KUBECONFIG")).isEmpty()) {
        const QStringList listed = env.value(QStringLiteral("KUBECONFIG"))
                                           .split(QLatin1Char(':'), Qt::SkipEmptyParts);
        for (const QString &file : listed)
            if (QFileInfo::exists(file) && !files.contains(file))
                files << file; // missing files are skipped, as kubectl does
        if (files.isEmpty()) {
            *errorString = QStringLiteral("none of the KUBECONFIG files exists: %1").arg(listed.join(QLatin1Char(':')));
            return false;
        }
    } else {
        const QString home = env.value(QStringLiteral("HOME"), QDir::homePath());
        const QString fallback = home + QStringLiteral("/.kube/config");
        if (QFileInfo::exists(fallback))
            files << fallback;
    }

    QString contextNamespace;
    if (!files.isEmpty()) {
        if (!fromKubeconfig(files, options, config, &contextNamespace, errorString))
            return false;
    } else if (env.contains(QStringLiteral("KUBERNETES_SERVICE_HOST"))
               && env.contains(QStringLiteral("KUBERNETES_SERVICE_PORT"))) {
        if (!fromCluster(env, config, errorString))
            return false;
    } else {
        *errorString = QStringLiteral("no Kubernetes configuration: no \"config\" parameter, no "
                                      "KUBECONFIG, no ~/.kube/config, and not in a pod "
                                      "(KUBERNETES_SERVICE_HOST is not set)");
        return false;
    }

    // B4: parameter, POD_NAMESPACE, service account, context, default.
    QFile saNamespace(serviceAccountDir(env) + QStringLiteral("/namespace"));
    QString fromFile;
    if (saNamespace.open(QIODevice::ReadOnly))
        fromFile = QString::fromUtf8(saNamespace.read(256)).trimmed();
    if (!options.namespaceName.isEmpty()) {
        config->namespaceName = options.namespaceName;
        config->namespaceSource = QStringLiteral("the namespace parameter");
    } else if (!env.value(QStringLiteral("POD_NAMESPACE")).isEmpty()) {
        config->namespaceName = env.value(QStringLiteral("POD_NAMESPACE"));
        config->namespaceSource = QStringLiteral("POD_NAMESPACE");
    } else if (!fromFile.isEmpty()) {
        config->namespaceName = fromFile;
        config->namespaceSource = saNamespace.fileName();
    } else if (!contextNamespace.isEmpty()) {
        config->namespaceName = contextNamespace;
        config->namespaceSource = QStringLiteral("context \"%1\"").arg(config->contextName);
    } else {
        config->namespaceName = QStringLiteral("default");
        config->namespaceSource = QStringLiteral("the default");
    }
    if (!isDnsLabel(config->namespaceName)) {
        *errorString = QStringLiteral("namespace \"%1\" (from %2) is not a DNS-1123 label: lower-case "
                                      "letters, digits and '-', at most 63 characters")
                               .arg(config->namespaceName, config->namespaceSource);
        return false;
    }
    return true;
}

} // namespace kubeconfig
} // namespace baton