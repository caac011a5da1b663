#include "kubernetesclusterservice.h"

#include "clusterservice_p.h"
#include "kubeconfig.h"
#include "kubernetesleaseprotocol.h"
#include "logging.h"
#include "parameters.h"
#include "secretfile.h"

#include <baton/electionoptions.h>

#include <QProcessEnvironment>

namespace baton {

namespace {

constexpr int maxTimeoutMs = 600000;
constexpr int maxHistoryLength = 1000;

} // namespace

QStringList KubernetesClusterService::parameterNames()
{
    return clusterParameterNames() << steeringParameterNames() << QStringLiteral("config") << QStringLiteral("context")
                                   << QStringLiteral("namespace") << QStringLiteral("timeout")
                                   << QStringLiteral("tokenFile") << QStringLiteral("historyLength");
}

KubernetesClusterService::KubernetesClusterService(const QString &name, const QJsonObject &parameters,
                                                   Application *application)
    : ClusterService(name, parameters, application)
{
    ClusterServicePrivate::setLeaseProtocolFactory(
            this, [this](QString *errorString) { return createLeaseProtocol(errorString); });
}

std::unique_ptr<LeaseProtocol> KubernetesClusterService::createLeaseProtocol(QString *errorString)
{
    return createProtocol(errorString, true);
}

std::unique_ptr<KubernetesLeaseProtocol> KubernetesClusterService::createProtocol(QString *errorString, bool announce)
{
    ParameterReader reader(ParameterReader::describeService(name(), type()), parameters());
    // P1: the API refuses other names; say so before any request.
    if (!KubernetesLeaseProtocol::isValidLeaseName(leaseName()))
        reader.refuse(QStringLiteral("leaseName"), leaseName(),
                      QStringLiteral("a Kubernetes Lease name must be a DNS-1123 subdomain: at most "
                                     "253 lower-case letters, digits, '-' and '.', starting and "
                                     "ending with a letter or digit"));
    KubeConfigOptions options;
    options.configPath = reader.string(QStringLiteral("config"));
    options.context = reader.string(QStringLiteral("context"));
    options.namespaceName = reader.string(QStringLiteral("namespace"));
    const int timeoutMs = int(reader.duration(QStringLiteral("timeout"),
                                              ElectionOptions::Kubernetes().timeout.count(),
                                              ParameterReader::kMinStoreTimeoutMs,
                                              maxTimeoutMs));
    const QString tokenFile = reader.string(QStringLiteral("tokenFile"));
    const int historyLength = int(reader.integer(QStringLiteral("historyLength"), leasehistory::defaultLength, 0,
                                                 maxHistoryLength));
    QString tokenWarning;
    QString tokenError;
    if (reader.ok() && !tokenFile.isEmpty()
        && !SecretFile::check(SecretFile::resolve(tokenFile), &tokenError, &tokenWarning))
        reader.refuse(QStringLiteral("tokenFile"), tokenFile, tokenError);
    if (!reader.ok()) {
        *errorString = reader.errorString();
        return nullptr;
    }
    if (!tokenWarning.isEmpty() && announce)
        qCWarning(lcKube).noquote() << ParameterReader::describeService(name(), type())
                                    << "parameter \"tokenFile\":" << tokenWarning;

    KubeClientConfig config;
    QString error;
    if (!kubeconfig::resolve(options, QProcessEnvironment::systemEnvironment(), &config, &error)) {
        *errorString = QStringLiteral("service \"%1\": %2").arg(name(), error);
        return nullptr;
    }
    if (!tokenFile.isEmpty()) {
        // A mounted Secret wins over the kubeconfig's own credentials; it is
        // read again whenever it changes, like the service account's token.
        config.tokenFile = SecretFile::resolve(tokenFile);
        config.token.clear();
        config.exec.reset();
    }
    auto backend = std::make_unique<KubernetesLeaseProtocol>(config, false, timeoutMs);
    backend->setHistoryLength(historyLength);
    if (!backend->setUp(&error)) {
        *errorString = QStringLiteral("service \"%1\": %2").arg(name(), error);
        return nullptr;
    }
    if (!announce)
        return backend;
    if (config.insecureSkipTlsVerify)
        qCWarning(lcKube).noquote() << QStringLiteral("service \"%1\": insecure-skip-tls-verify is set in %2: "
                                                      "the API server's certificate is NOT verified")
                                               .arg(name(), config.source);
    qCInfo(lcKube).noquote() << QStringLiteral("service \"%1\": %2").arg(name(), config.describe());
    return backend;
}

} // namespace baton
