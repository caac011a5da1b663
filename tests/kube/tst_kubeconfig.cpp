// Kubeconfig, in-cluster configuration and credentials (B4, R1, R2):
// every source in priority order, kubectl's merge of KUBECONFIG files, each
// credential kind, exec plugins (cache, expiry, re-run, failure), token
// rotation. Plugins are tiny shell scripts written by the test.

#include "manualclock.h"
#include "kubeconfig.h"
#include "kubecredentials.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace baton;

namespace {

const QString caPem = QStringLiteral("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");

struct Fetched
{
    bool done = false;
    KubeCredential credential;
    QString error;
};

} // namespace

class TestKubeConfig : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void namespaceFollowsB4Priority_data();
    void namespaceFollowsB4Priority();
    void kubeconfigFilesMergeAsKubectlDoes();
    void configParameterWinsOverKubeconfigVariable();
    void homeKubeConfigIsTheFallback();
    void inClusterConfiguration();
    void noConfigurationAtAllIsAClearError();
    void caDataWinsOverTheFile();
    void malformedKubeconfigs_data();
    void malformedKubeconfigs();
    void staticTokenAndTokenFile();
    void tokenFileRotation();
    void execPluginIsCachedUntilExpiry();
    void execPluginRerunsAfterA401();
    void execPluginGetsExecInfo();
    void execPluginGivesAClientCertificate();
    void failingPluginShowsStderrNeverTheToken();
    void pluginWithTheWrongApiVersionIsRefused();

private:
    QString write(const QString &name, const QByteArray &content, bool executable = false);
    QProcessEnvironment env() const;
    KubeClientConfig resolveOk(const KubeConfigOptions &options, const QProcessEnvironment &env);
    QString resolveError(const KubeConfigOptions &options, const QProcessEnvironment &env);
    QByteArray simpleConfig(const QString &ns = {}, const QByteArray &user = "  user:\n    token: static-token\n");
    QString plugin(const QString &name, const QByteArray &body);
    void fetchInto(KubeCredentials &credentials, Fetched *out);

    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestKubeConfig::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

QString TestKubeConfig::write(const QString &name, const QByteArray &content, bool executable)
{
    const QString path = m_dir->filePath(name);
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    file.write(content);
    file.close();
    if (executable)
        file.setPermissions(file.permissions() | QFileDevice::ExeOwner);
    return path;
}

QProcessEnvironment TestKubeConfig::env() const
{
    // Nothing from the machine running the tests: an empty HOME, no pod.
    QProcessEnvironment e;
    e.insert(QStringLiteral("HOME"), m_dir->filePath(QStringLiteral("home")));
    e.insert(QStringLiteral("BATON_SERVICEACCOUNT_DIR"), m_dir->filePath(QStringLiteral("sa")));
    return e;
}

KubeClientConfig TestKubeConfig::resolveOk(const KubeConfigOptions &options, const QProcessEnvironment &e)
{
    KubeClientConfig config;
    QString error;
    if (!kubeconfig::resolve(options, e, &config, &error))
        qWarning("unexpected error: %s", qPrintable(error));
    return config;
}

QString TestKubeConfig::resolveError(const KubeConfigOptions &options, const QProcessEnvironment &e)
{
    KubeClientConfig config;
    QString error;
    if (kubeconfig::resolve(options, e, &config, &error))
        return {};
    return error;
}

QByteArray TestKubeConfig::simpleConfig(const QString &ns, const QByteArray &user)
{
    QByteArray yaml = "apiVersion: v1\nkind: Config\ncurrent-context: dev\n"
                      "clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:6443\n"
                      "contexts:\n- name: dev\n  context:\n    cluster: c\n    user: u\n";
    if (!ns.isEmpty())
        yaml += "    namespace: " + ns.toUtf8() + "\n";
    yaml += "users:\n- name: u\n" + user;
    return yaml;
}

void TestKubeConfig::namespaceFollowsB4Priority_data()
{
    QTest::addColumn<QString>("parameter");
    QTest::addColumn<QString>("podNamespace");
    QTest::addColumn<QString>("saNamespace");
    QTest::addColumn<QString>("contextNamespace");
    QTest::addColumn<QString>("expected");
    QTest::newRow("the parameter wins over everything") << "p" << "pod" << "sa" << "ctx" << "p";
    QTest::newRow("POD_NAMESPACE comes next") << "" << "pod" << "sa" << "ctx" << "pod";
    QTest::newRow("then the service account's namespace file") << "" << "" << "sa" << "ctx" << "sa";
    QTest::newRow("then the context's namespace") << "" << "" << "" << "ctx" << "ctx";
    QTest::newRow("then default") << "" << "" << "" << "" << "default";
}

void TestKubeConfig::namespaceFollowsB4Priority()
{
    QFETCH(QString, parameter);
    QFETCH(QString, podNamespace);
    QFETCH(QString, saNamespace);
    QFETCH(QString, contextNamespace);
    QFETCH(QString, expected);
    QProcessEnvironment e = env();
    e.insert(QStringLiteral("KUBECONFIG"), write(QStringLiteral("kc"), simpleConfig(contextNamespace)));
    if (!podNamespace.isEmpty())
        e.insert(QStringLiteral("POD_NAMESPACE"), podNamespace);
    if (!saNamespace.isEmpty())
        write(QStringLiteral("sa/namespace"), saNamespace.toUtf8() + "\n");
    KubeConfigOptions options;
    options.namespaceName = parameter;
    QCOMPARE(resolveOk(options, e).namespaceName, expected);
}

void TestKubeConfig::kubeconfigFilesMergeAsKubectlDoes()
{
    write(QStringLiteral("one/ca.crt"), caPem.toUtf8());
    // The first file defines context "dev" and cluster "c" (a relative CA
    // path: its own folder), but no current-context.
    const QString one = write(QStringLiteral("one/config"),
                              "clusters:\n- name: c\n  cluster:\n    server: https://first:6443\n"
                              "    certificate-authority: ca.crt\n"
                              "contexts:\n- name: dev\n  context:\n    cluster: c\n    user: u\n    namespace: first-ns\n");
    // The second redefines both (ignored), defines user "u" and the current context.
    const QString two = write(QStringLiteral("two/config"),
                              "current-context: dev\n"
                              "clusters:\n- name: c\n  cluster:\n    server: https://second:6443\n"
                              "contexts:\n- name: dev\n  context:\n    cluster: c\n    user: u\n    namespace: second-ns\n"
                              "- name: other\n  context:\n    cluster: c\n"
                              "users:\n- name: u\n  user:\n    token: from-two\n");
    QProcessEnvironment e = env();
    e.insert(QStringLiteral("KUBECONFIG"),
             one + QStringLiteral(":") + m_dir->filePath(QStringLiteral("missing")) + QStringLiteral(":") + two);
    const KubeClientConfig config = resolveOk({}, e);
    QCOMPARE(config.server, QUrl(QStringLiteral("https://first:6443")));
    QCOMPARE(config.caPem, caPem.toUtf8());
    QCOMPARE(config.token, QStringLiteral("from-two"));
    QCOMPARE(config.namespaceName, QStringLiteral("first-ns"));
    QCOMPARE(config.contextName, QStringLiteral("dev"));
    KubeConfigOptions options;
    options.context = QStringLiteral("other");
    const KubeClientConfig other = resolveOk(options, e);
    QCOMPARE(other.namespaceName, QStringLiteral("default"));
    QVERIFY(other.token.isEmpty());
}

void TestKubeConfig::configParameterWinsOverKubeconfigVariable()
{
    QProcessEnvironment e = env();
    e.insert(QStringLiteral("KUBECONFIG"), write(QStringLiteral("a"), simpleConfig(QStringLiteral("from-variable"))));
    KubeConfigOptions options;
    options.configPath = write(QStringLiteral("b"), simpleConfig(QStringLiteral("from-parameter")));
    QCOMPARE(resolveOk(options, e).namespaceName, QStringLiteral("from-parameter"));
}

void TestKubeConfig::homeKubeConfigIsTheFallback()
{
    write(QStringLiteral("home/.kube/config"), simpleConfig(QStringLiteral("home-ns")));
    QProcessEnvironment e = env();
    // A pod's variables do not matter when a kubeconfig exists.
    e.insert(QStringLiteral("KUBERNETES_SERVICE_HOST"), QStringLiteral("10.0.0.1"));
    e.insert(QStringLiteral("KUBERNETES_SERVICE_PORT"), QStringLiteral("443"));
    const KubeClientConfig config = resolveOk({}, e);
    QCOMPARE(config.namespaceName, QStringLiteral("home-ns"));
    QVERIFY(!config.inCluster);
}

void TestKubeConfig::inClusterConfiguration()
{
    write(QStringLiteral("sa/token"), "sa-token\n");
    write(QStringLiteral("sa/ca.crt"), caPem.toUtf8());
    write(QStringLiteral("sa/namespace"), "team-a");
    QProcessEnvironment e = env();
    e.insert(QStringLiteral("KUBERNETES_SERVICE_HOST"), QStringLiteral("10.0.0.1"));
    e.insert(QStringLiteral("KUBERNETES_SERVICE_PORT"), QStringLiteral("443"));
    const KubeClientConfig config = resolveOk({}, e);
    QVERIFY(config.inCluster);
    QCOMPARE(config.server, QUrl(QStringLiteral("https://10.0.0.1:443")));
    QCOMPARE(config.caPem, caPem.toUtf8());
    QCOMPARE(config.tokenFile, m_dir->filePath(QStringLiteral("sa/token")));
    QCOMPARE(config.namespaceName, QStringLiteral("team-a"));
    QVERIFY(!config.describe().contains(QStringLiteral("sa-token")));
}

void TestKubeConfig::noConfigurationAtAllIsAClearError()
{
    const QString error = resolveError({}, env());
    QVERIFY2(error.contains(QStringLiteral("no Kubernetes configuration")), qPrintable(error));
}

void TestKubeConfig::caDataWinsOverTheFile()
{
    QProcessEnvironment e = env();
    e.insert(QStringLiteral("KUBECONFIG"),
             write(QStringLiteral("kc"),
                   "current-context: x\nclusters:\n- name: c\n  cluster:\n    server: https://h:1\n"
                   "    certificate-authority: /does/not/exist.crt\n"
                   "    certificate-authority-data: " + caPem.toUtf8().toBase64() + "\n"
                   "    tls-server-name: kubernetes.test\n"
                   "contexts:\n- name: x\n  context:\n    cluster: c\n"));
    const KubeClientConfig config = resolveOk({}, e);
    QCOMPARE(config.caPem, caPem.toUtf8());
    QCOMPARE(config.tlsServerName, QStringLiteral("kubernetes.test"));
}

void TestKubeConfig::malformedKubeconfigs_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QStringList>("mustMention");
    QTest::newRow("broken YAML names the line")
            << QByteArray("clusters:\n- name: c\n  cluster: [unclosed\n")
            << QStringList {QStringLiteral("malformed YAML"), QStringLiteral(":4:")};
    QTest::newRow("a list that is a map") << QByteArray("clusters: {a: b}\n")
                                          << QStringList {QStringLiteral("clusters must be a list")};
    QTest::newRow("an unknown context")
            << QByteArray("current-context: nope\n") << QStringList {QStringLiteral("context \"nope\" is not defined")};
    QTest::newRow("a context naming a missing cluster")
            << QByteArray("current-context: x\ncontexts:\n- name: x\n  context:\n    cluster: gone\n")
            << QStringList {QStringLiteral("contexts[0] \"x\""), QStringLiteral("cluster \"gone\" is not defined")};
    QTest::newRow("a server that is not a URL")
            << QByteArray("current-context: x\nclusters:\n- name: c\n  cluster:\n    server: \"not a url\"\n"
                          "contexts:\n- name: x\n  context:\n    cluster: c\n")
            << QStringList {QStringLiteral("clusters[0] \"c\""), QStringLiteral("server")};
    QTest::newRow("insecure-skip-tls-verify together with a CA")
            << QByteArray("current-context: x\nclusters:\n- name: c\n  cluster:\n    server: https://h:1\n"
                          "    insecure-skip-tls-verify: true\n    certificate-authority-data: eA==\n"
                          "contexts:\n- name: x\n  context:\n    cluster: c\n")
            << QStringList {QStringLiteral("insecure-skip-tls-verify"), QStringLiteral("cannot be used together")};
    QTest::newRow("a client certificate without its key")
            << QByteArray("current-context: x\nclusters:\n- name: c\n  cluster:\n    server: https://h:1\n"
                          "contexts:\n- name: x\n  context:\n    cluster: c\n    user: alice\n"
                          "users:\n- name: alice\n  user:\n    client-certificate-data: eA==\n")
            << QStringList {QStringLiteral("users[0] \"alice\""), QStringLiteral("without client-key")};
    QTest::newRow("username and password with a token")
            << QByteArray("current-context: x\nclusters:\n- name: c\n  cluster:\n    server: https://h:1\n"
                          "contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n"
                          "users:\n- name: u\n  user:\n    token: t\n    username: a\n    password: b\n")
            << QStringList {QStringLiteral("username/password cannot be used together with a token")};
    QTest::newRow("an exec plugin of v1 without interactiveMode")
            << QByteArray("current-context: x\nclusters:\n- name: c\n  cluster:\n    server: https://h:1\n"
                          "contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n"
                          "users:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                          "      command: get-token\n")
            << QStringList {QStringLiteral("users[0] \"u\""), QStringLiteral("interactiveMode")};
    QTest::newRow("an exec plugin of an unknown API version")
            << QByteArray("current-context: x\nclusters:\n- name: c\n  cluster:\n    server: https://h:1\n"
                          "contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n"
                          "users:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1alpha1\n"
                          "      command: get-token\n")
            << QStringList {QStringLiteral("v1alpha1")};
    QTest::newRow("a namespace that is not a DNS label")
            << QByteArray("current-context: x\nclusters:\n- name: c\n  cluster:\n    server: https://h:1\n"
                          "contexts:\n- name: x\n  context:\n    cluster: c\n    namespace: Team_A\n")
            << QStringList {QStringLiteral("Team_A"), QStringLiteral("context \"x\"")};
}

void TestKubeConfig::malformedKubeconfigs()
{
    // R1: the file and the entry are named; nothing is half-configured.
    QFETCH(QByteArray, yaml);
    QFETCH(QStringList, mustMention);
    const QString path = write(QStringLiteral("bad-config"), yaml);
    KubeConfigOptions options;
    options.configPath = path;
    const QString error = resolveError(options, env());
    QVERIFY2(!error.isEmpty(), "a malformed kubeconfig was accepted");
    if (!error.contains(QStringLiteral("namespace")))
        QVERIFY2(error.contains(path), qPrintable(error));
    for (const QString &part : mustMention)
        QVERIFY2(error.contains(part), qPrintable(QStringLiteral("\"%1\" not in: %2").arg(part, error)));
}

void TestKubeConfig::fetchInto(KubeCredentials &credentials, Fetched *out)
{
    auto result = std::make_shared<Fetched>();
    credentials.get([result](const KubeCredential &c, const QString &error) {
        result->done = true;
        result->credential = c;
        result->error = error;
    });
    QTRY_VERIFY_WITH_TIMEOUT(result->done, 10000);
    *out = *result;
}

// Fetches a credential, waiting for a plugin with QTRY (fails the test on a timeout).
#define FETCH(credentials) \
    [&] { \
        Fetched fetched_; \
        fetchInto(credentials, &fetched_); \
        return fetched_; \
    }()

void TestKubeConfig::staticTokenAndTokenFile()
{
    QProcessEnvironment e = env();
    e.insert(QStringLiteral("KUBECONFIG"), write(QStringLiteral("kc"), simpleConfig()));
    KubeCredentials plain(resolveOk({}, e), nullptr);
    QCOMPARE(FETCH(plain).credential.authorization, QByteArray("Bearer static-token"));

    // tokenFile wins over token (relative to the kubeconfig's folder).
    write(QStringLiteral("tok"), "file-token\n");
    e.insert(QStringLiteral("KUBECONFIG"),
             write(QStringLiteral("kc2"), simpleConfig({}, "  user:\n    token: static-token\n    tokenFile: tok\n")));
    KubeCredentials fromFile(resolveOk({}, e), nullptr);
    QCOMPARE(FETCH(fromFile).credential.authorization, QByteArray("Bearer file-token"));
}

void TestKubeConfig::tokenFileRotation()
{
    write(QStringLiteral("sa/token"), "first-token");
    write(QStringLiteral("sa/ca.crt"), caPem.toUtf8());
    QProcessEnvironment e = env();
    e.insert(QStringLiteral("KUBERNETES_SERVICE_HOST"), QStringLiteral("127.0.0.1"));
    e.insert(QStringLiteral("KUBERNETES_SERVICE_PORT"), QStringLiteral("6443"));
    KubeCredentials credentials(resolveOk({}, e), nullptr);
    QCOMPARE(FETCH(credentials).credential.authorization, QByteArray("Bearer first-token"));
    // The kubelet rotates the token: a different size and time.
    write(QStringLiteral("sa/token"), "second-longer-token");
    QCOMPARE(FETCH(credentials).credential.authorization, QByteArray("Bearer second-longer-token"));
}

QString TestKubeConfig::plugin(const QString &name, const QByteArray &body)
{
    return write(name, "#!/bin/sh\n" + body, true);
}

void TestKubeConfig::execPluginIsCachedUntilExpiry()
{
    test::ManualClock clock(1000, QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC));
    const QString runs = m_dir->filePath(QStringLiteral("runs"));
    const QString script = plugin(QStringLiteral("plugin.sh"),
                                  "echo run >> " + runs.toUtf8() + "\n"
                                  "n=$(wc -l < " + runs.toUtf8() + ")\n"
                                  "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                                  "\"status\":{\"token\":\"exec-token-'$n'\",\"expirationTimestamp\":\"2026-01-01T00:10:00Z\"}}'\n");
    QProcessEnvironment e = env();
    e.insert(QStringLiteral("KUBECONFIG"),
             write(QStringLiteral("kc"),
                   simpleConfig({}, "  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                                    "      interactiveMode: Never\n      command: ./plugin.sh\n")));
    KubeCredentials credentials(resolveOk({}, e), &clock);
    QCOMPARE(FETCH(credentials).credential.authorization, QByteArray("Bearer exec-token-1"));
    clock.advance(9 * 60 * 1000);
    QCOMPARE(FETCH(credentials).credential.authorization, QByteArray("Bearer exec-token-1"));
    QCOMPARE(credentials.pluginRuns(), 1);
    // Past expirationTimestamp: the plugin runs again.
    clock.advance(2 * 60 * 1000);
    QCOMPARE(FETCH(credentials).credential.authorization, QByteArray("Bearer exec-token-2"));
    QCOMPARE(credentials.pluginRuns(), 2);
}

void TestKubeConfig::execPluginRerunsAfterA401()
{
    const QString runs = m_dir->filePath(QStringLiteral("runs"));
    plugin(QStringLiteral("plugin.sh"),
           "echo run >> " + runs.toUtf8() + "\nn=$(wc -l < " + runs.toUtf8() + ")\n"
           "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
           "\"status\":{\"token\":\"t'$n'\"}}'\n");
    QProcessEnvironment e = env();
    e.insert(QStringLiteral("KUBECONFIG"),
             write(QStringLiteral("kc"),
                   simpleConfig({}, "  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
                                    "      command: ./plugin.sh\n")));
    KubeCredentials credentials(resolveOk({}, e), nullptr);
    QCOMPARE(FETCH(credentials).credential.authorization, QByteArray("Bearer t1"));
    QCOMPARE(FETCH(credentials).credential.authorization, QByteArray("Bearer t1"));
    credentials.invalidate(); // the server answered 401
    QCOMPARE(FETCH(credentials).credential.authorization, QByteArray("Bearer t2"));
}

void TestKubeConfig::execPluginGetsExecInfo()
{
    const QString seen = m_dir->filePath(QStringLiteral("seen"));
    plugin(QStringLiteral("plugin.sh"),
           "printf '%s' \"$KUBERNETES_EXEC_INFO\" > " + seen.toUtf8() + "\n"
           "printf '%s %s' \"$1\" \"$EXTRA\" >> " + seen.toUtf8() + "\n"
           "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"x\"}}'\n");
    QProcessEnvironment e = env();
    e.insert(QStringLiteral("KUBECONFIG"),
             write(QStringLiteral("kc"),
                   simpleConfig({}, "  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                                    "      interactiveMode: IfAvailable\n      provideClusterInfo: true\n"
                                    "      command: ./plugin.sh\n      args: [--flag]\n"
                                    "      env:\n      - name: EXTRA\n        value: extra-value\n")));
    KubeCredentials credentials(resolveOk({}, e), nullptr);
    QVERIFY(FETCH(credentials).error.isEmpty());
    QFile file(seen);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY2(text.contains("\"interactive\":false"), text.constData());
    QVERIFY2(text.contains("\"server\":\"https://127.0.0.1:6443\""), text.constData());
    QVERIFY2(text.contains("\"kind\":\"ExecCredential\""), text.constData());
    QVERIFY2(text.endsWith("--flag extra-value"), text.constData());
}

void TestKubeConfig::execPluginGivesAClientCertificate()
{
    plugin(QStringLiteral("plugin.sh"),
           "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
           "\"status\":{\"clientCertificateData\":\"CERT\",\"clientKeyData\":\"KEY\"}}'\n");
    QProcessEnvironment e = env();
    e.insert(QStringLiteral("KUBECONFIG"),
             write(QStringLiteral("kc"),
                   simpleConfig({}, "  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                                    "      interactiveMode: Never\n      command: ./plugin.sh\n")));
    KubeCredentials credentials(resolveOk({}, e), nullptr);
    const Fetched f = FETCH(credentials);
    QCOMPARE(f.credential.clientCertPem, QByteArray("CERT"));
    QCOMPARE(f.credential.clientKeyPem, QByteArray("KEY"));
    QVERIFY(f.credential.authorization.isEmpty());
}

void TestKubeConfig::failingPluginShowsStderrNeverTheToken()
{
    plugin(QStringLiteral("plugin.sh"),
           "echo '{\"status\":{\"token\":\"leaked-secret\"}}'\necho 'login expired: run sso login' >&2\nexit 3\n");
    QProcessEnvironment e = env();
    e.insert(QStringLiteral("KUBECONFIG"),
             write(QStringLiteral("kc"),
                   simpleConfig({}, "  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                                    "      interactiveMode: Never\n      command: ./plugin.sh\n")));
    KubeCredentials credentials(resolveOk({}, e), nullptr);
    const Fetched f = FETCH(credentials);
    QVERIFY2(f.error.contains(QStringLiteral("exit code 3")), qPrintable(f.error));
    QVERIFY2(f.error.contains(QStringLiteral("login expired: run sso login")), qPrintable(f.error));
    QVERIFY2(f.error.contains(QStringLiteral("plugin.sh")), qPrintable(f.error));
    QVERIFY(!f.error.contains(QStringLiteral("leaked-secret"))); // R2
}

void TestKubeConfig::pluginWithTheWrongApiVersionIsRefused()
{
    plugin(QStringLiteral("plugin.sh"),
           "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"secret-x\"}}'\n");
    QProcessEnvironment e = env();
    e.insert(QStringLiteral("KUBECONFIG"),
             write(QStringLiteral("kc"),
                   simpleConfig({}, "  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                                    "      interactiveMode: Never\n      command: ./plugin.sh\n")));
    KubeCredentials credentials(resolveOk({}, e), nullptr);
    const Fetched f = FETCH(credentials);
    QVERIFY2(f.error.contains(QStringLiteral("v1beta1")), qPrintable(f.error));
    QVERIFY(!f.error.contains(QStringLiteral("secret-x")));
}

QTEST_GUILESS_MAIN(TestKubeConfig)
#include "tst_kubeconfig.moc"
