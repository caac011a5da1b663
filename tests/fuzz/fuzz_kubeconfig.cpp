// kubeconfig::resolve on an arbitrary file given as the `config` parameter
// (R1, R2, B4). resolve() reads files only, so the input goes through a
// file in a private temporary folder. A refused kubeconfig gets a message
// that names it; an accepted one has an http(s) server and a namespace; the
// description shown in logs never holds the token.

#include "fuzzsupport.h"

#include "kubeconfig.h"

#include <QFile>
#include <QTemporaryDir>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    baton::fuzz::ensureCoreApplication();
    static QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("config"));
    {
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
            baton::fuzz::fail("the kubeconfig can be written", __FILE__, __LINE__, path);
        file.write(baton::fuzz::bytes(data, size));
    }
    baton::KubeConfigOptions options;
    options.configPath = path;
    // No KUBECONFIG, no in-cluster variables: only the file under test counts.
    QProcessEnvironment env;
    env.insert(QStringLiteral("HOME"), dir.path());
    env.insert(QStringLiteral("BATON_SERVICEACCOUNT_DIR"), dir.filePath(QStringLiteral("none")));

    baton::KubeClientConfig config;
    QString error;
    if (!baton::kubeconfig::resolve(options, env, &config, &error)) {
        FUZZ_CHECK(!error.isEmpty(), QString());
        // Names where: the file, or for the namespace rules the context.
        FUZZ_CHECK(error.contains(path) || error.contains(QLatin1String("context \"")), error);
        return 0;
    }
    const QString scheme = config.server.scheme();
    FUZZ_CHECK(config.server.isValid() && !config.server.host().isEmpty()
                       && (scheme == QLatin1String("https") || scheme == QLatin1String("http")),
               config.server.toString());
    FUZZ_CHECK(!config.namespaceName.isEmpty(), config.describe());
    FUZZ_CHECK(!config.contextName.isEmpty(), config.describe());
    FUZZ_CHECK(!config.insecureSkipTlsVerify || config.caPem.isEmpty(), config.describe());
    // R2: the token may show in describe() only because another field shown
    // there happens to hold the same text.
    const QString described = config.describe();
    if (config.token.size() >= 8 && described.contains(config.token)) {
        const QString shownFields = config.source + config.server.toDisplayString() + config.namespaceName
                + config.namespaceSource + config.tokenFile + (config.exec ? config.exec->command : QString());
        FUZZ_CHECK(shownFields.contains(config.token), described);
    }
    return 0;
}
