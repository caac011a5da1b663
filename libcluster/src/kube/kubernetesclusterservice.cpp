#include "kubernetesclusterservice.h"

#include "jsonutil.h"
#include "kubeconfig.h"
#include "kubernetesleasebackend.h"
#include "logging.h"

#include <QProcessEnvironment>

namespace baton {

namespace {

constexpr int defaultTimeoutMs = 5000;
constexpr int maxTimeoutMs = 600000;

} // namespace

std::unique_ptr<LeaseBackend> KubernetesClusterService::createLeaseBackend(QString *errorString)
{
    auto refuse = [&](const QString &parameter, const QJsonValue &value, const QString &rule) {
        *errorString = QStringLiteral("service \"%1\": parameter \"%2\" = %3: %4")
                               .arg(name(), parameter, jsonutil::describe(value), rule);
        return nullptr;
    };
    // P1: the API refuses other names; say so before any request.
    if (!KubernetesLeaseBackend::isValidLeaseName(leaseName()))
        return refuse(QStringLiteral("leaseName"), leaseName(),
                      QStringLiteral("a Kubernetes Lease name must be a DNS-1123 subdomain: at most "
                                     "253 lower-case letters, digits, '-' and '.', starting and "
                                     "ending with a letter or digit"));
    KubeConfigOptions options;
    for (const auto &[key, target] : {std::pair {QStringLiteral("config"), &options.configPath},
                                      std::pair {QStringLiteral("context"), &options.context},
                                      std::pair {QStringLiteral("namespace"), &options.namespaceName}}) {
        const QJsonValue value = parameters().value(key);
        if (value.isUndefined() || value.isNull())
            continue;
        if (!value.isString() || value.toString().isEmpty())
            return refuse(key, value, QStringLiteral("it must be a non-empty string"));
        *target = value.toString();
    }
    int timeoutMs = defaultTimeoutMs;
    const QJsonValue timeout = parameters().value(QStringLiteral("timeout"));
    if (!timeout.isUndefined() && !timeout.isNull()) {
        if (!jsonutil::isInteger(timeout) || timeout.toDouble() < 1 || timeout.toDouble() > maxTimeoutMs)
            return refuse(QStringLiteral("timeout"), timeout,
                          QStringLiteral("it must be a whole number of milliseconds from 1 to %1")
                                  .arg(maxTimeoutMs));
        timeoutMs = int(timeout.toDouble());
    }

    KubeClientConfig config;
    QString error;
    if (!kubeconfig::resolve(options, QProcessEnvironment::systemEnvironment(), &config, &error)) {
        *errorString = QStringLiteral("service \"%1\": %2").arg(name(), error);
        return nullptr;
    }
    auto backend = std::make_unique<KubernetesLeaseBackend>(config, leaseName(), timeoutMs);
    if (!backend->setUp(&error)) {
        *errorString = QStringLiteral("service \"%1\": %2").arg(name(), error);
        return nullptr;
    }
    if (config.insecureSkipTlsVerify)
        qCWarning(lcKube).noquote() << QStringLiteral("service \"%1\": insecure-skip-tls-verify is set in %2: "
                                                      "the API server's certificate is NOT verified")
                                               .arg(name(), config.source);
    qCInfo(lcKube).noquote() << QStringLiteral("service \"%1\": %2").arg(name(), config.describe());
    return backend;
}

} // namespace baton
