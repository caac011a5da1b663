#include "kubeconfigfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>

#include <yaml-cpp/yaml.h>

namespace baton::kubeconfig {

namespace {

struct Entry
{
    YAML::Node body; // the `cluster`, `user` or `context` map
    QString file;
    QString where; // `users[2] "alice" in /path`
};

struct Merged
{
    QHash<QString, Entry> clusters;
    QHash<QString, Entry> users;
    QHash<QString, Entry> contexts;
    QString currentContext;
    QStringList files;
};

QString str(const std::string &s)
{
    return QString::fromStdString(s);
}

/*! A scalar as a string; false when the node is there but not a scalar. */
bool scalar(const YAML::Node &map, const char *key, QString *out)
{
    const YAML::Node node = map[key];
    if (!node || node.IsNull())
        return true;
    if (!node.IsScalar())
        return false;
    *out = str(node.Scalar());
    return true;
}

QString resolvePath(const QString &path, const QString &file)
{
    if (path.isEmpty() || QDir::isAbsolutePath(path))
        return path;
    return QFileInfo(file).absoluteDir().absoluteFilePath(path);
}

} // namespace

bool readFile(const QString &path, QByteArray *content, const QString &what, const QString &where,
              QString *errorString)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *errorString = QStringLiteral("%1: %2 %3 cannot be read: %4")
                               .arg(where, what, path, file.errorString());
        return false;
    }
    *content = file.read(4 * 1024 * 1024);
    return true;
}

namespace {

bool loadFile(const QString &path, Merged *merged, QString *errorString)
{
    YAML::Node root;
    try {
        root = YAML::LoadFile(path.toStdString());
    } catch (const YAML::ParserException &e) {
        *errorString = QStringLiteral("kubeconfig %1:%2:%3: malformed YAML: %4")
                               .arg(path)
                               .arg(e.mark.line + 1)
                               .arg(e.mark.column + 1)
                               .arg(str(e.msg));
        return false;
    } catch (const YAML::Exception &e) {
        *errorString = QStringLiteral("kubeconfig %1 cannot be read: %2").arg(path, str(e.msg));
        return false;
    }
    merged->files << path;
    if (!root || root.IsNull())
        return true; // an empty file defines nothing, as kubectl reads it
    if (!root.IsMap()) {
        *errorString = QStringLiteral("kubeconfig %1: the document is not a map of clusters, users "
                                      "and contexts")
                               .arg(path);
        return false;
    }
    struct List
    {
        const char *key;
        const char *item;
        QHash<QString, Entry> *into;
    };
    for (const List &list : {List {"clusters", "cluster", &merged->clusters},
                             List {"users", "user", &merged->users},
                             List {"contexts", "context", &merged->contexts}}) {
        const YAML::Node items = root[list.key];
        if (!items || items.IsNull())
            continue;
        if (!items.IsSequence()) {
            *errorString = QStringLiteral("kubeconfig %1: %2 must be a list").arg(path, QLatin1String(list.key));
            return false;
        }
        for (std::size_t i = 0; i < items.size(); ++i) {
            const YAML::Node item = items[i];
            QString name;
            const QString position = QStringLiteral("%1[%2]").arg(QLatin1String(list.key)).arg(i);
            if (!item.IsMap() || !scalar(item, "name", &name) || name.isEmpty()) {
                *errorString = QStringLiteral("kubeconfig %1: %2 has no name").arg(path, position);
                return false;
            }
            const YAML::Node body = item[list.item];
            if (body && !body.IsNull() && !body.IsMap()) {
                *errorString = QStringLiteral("kubeconfig %1: %2 \"%3\": %4 must be a map")
                                       .arg(path, position, name, QLatin1String(list.item));
                return false;
            }
            // kubectl's merge: the first file that defines a name keeps it.
            if (!list.into->contains(name))
                list.into->insert(name, Entry {body ? body : YAML::Node(YAML::NodeType::Map), path,
                                               QStringLiteral("%1 \"%2\" in %3").arg(position, name, path)});
        }
    }
    QString current;
    if (!scalar(root, "current-context", &current)) {
        *errorString = QStringLiteral("kubeconfig %1: current-context must be a string").arg(path);
        return false;
    }
    if (merged->currentContext.isEmpty())
        merged->currentContext = current;
    return true;
}

bool readCluster(const Entry &entry, KubeClientConfig *config, QString *errorString)
{
    const YAML::Node &c = entry.body;
    auto bad = [&](const QString &field, const QString &why) {
        *errorString = QStringLiteral("%1: %2 %3").arg(entry.where, field, why);
        return false;
    };
    QString server;
    QString caFile;
    QString caData;
    QString insecure;
    QString proxy;
    if (!scalar(c, "server", &server) || !scalar(c, "certificate-authority", &caFile)
        || !scalar(c, "certificate-authority-data", &caData)
        || !scalar(c, "insecure-skip-tls-verify", &insecure)
        || !scalar(c, "tls-server-name", &config->tlsServerName) || !scalar(c, "proxy-url", &proxy))
        return bad(QStringLiteral("a field"), QStringLiteral("must be a string"));
    const QUrl url(server, QUrl::StrictMode);
    if (server.isEmpty())
        return bad(QStringLiteral("server"), QStringLiteral("is missing"));
    if (!url.isValid() || url.host().isEmpty()
        || (url.scheme() != QLatin1String("https") && url.scheme() != QLatin1String("http")))
        return bad(QStringLiteral("server"),
                   QStringLiteral("\"%1\" is not an http(s) URL").arg(server));
    if (!proxy.isEmpty())
        return bad(QStringLiteral("proxy-url"), QStringLiteral("is not supported by baton"));
    config->server = url;
    if (!insecure.isEmpty() && insecure != QLatin1String("true") && insecure != QLatin1String("false"))
        return bad(QStringLiteral("insecure-skip-tls-verify"),
                   QStringLiteral("must be true or false, not \"%1\"").arg(insecure));
    config->insecureSkipTlsVerify = insecure == QLatin1String("true");
    if (config->insecureSkipTlsVerify && (!caFile.isEmpty() || !caData.isEmpty()))
        return bad(QStringLiteral("insecure-skip-tls-verify"),
                   QStringLiteral("cannot be used together with a certificate authority (kubectl "
                                  "refuses it too): choose one"));
    if (!caData.isEmpty()) {
        // The data wins over the file, as in kubectl.
        const auto decoded = QByteArray::fromBase64Encoding(caData.toLatin1(),
                                                            QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded)
            return bad(QStringLiteral("certificate-authority-data"), QStringLiteral("is not base64"));
        config->caPem = *decoded;
    } else if (!caFile.isEmpty()) {
        if (!readFile(resolvePath(caFile, entry.file), &config->caPem,
                      QStringLiteral("certificate-authority"), entry.where, errorString))
            return false;
    }
    return true;
}

bool readExec(const Entry &entry, const YAML::Node &e, KubeClientConfig *config, QString *errorString)
{
    auto bad = [&](const QString &field, const QString &why) {
        *errorString = QStringLiteral("%1: exec %2 %3").arg(entry.where, field, why);
        return false;
    };
    if (!e.IsMap())
        return bad(QString(), QStringLiteral("must be a map"));
    KubeExecConfig exec;
    exec.origin = entry.where;
    QString interactive;
    QString provide;
    if (!scalar(e, "apiVersion", &exec.apiVersion) || !scalar(e, "command", &exec.command)
        || !scalar(e, "interactiveMode", &interactive) || !scalar(e, "provideClusterInfo", &provide))
        return bad(QStringLiteral("fields"), QStringLiteral("must be strings"));
    if (exec.apiVersion != QLatin1String("client.authentication.k8s.io/v1")
        && exec.apiVersion != QLatin1String("client.authentication.k8s.io/v1beta1"))
        return bad(QStringLiteral("apiVersion"),
                   QStringLiteral("\"%1\" is not client.authentication.k8s.io/v1 or v1beta1")
                           .arg(exec.apiVersion));
    if (exec.command.isEmpty())
        return bad(QStringLiteral("command"), QStringLiteral("is missing"));
    // A relative command with a folder in it is relative to the kubeconfig file.
    if (exec.command.contains(QLatin1Char('/')))
        exec.command = resolvePath(exec.command, entry.file);
    if (exec.apiVersion.endsWith(QLatin1String("/v1")) && interactive.isEmpty())
        return bad(QStringLiteral("interactiveMode"),
                   QStringLiteral("is required with client.authentication.k8s.io/v1"));
    if (interactive == QLatin1String("Always"))
        return bad(QStringLiteral("interactiveMode"),
                   QStringLiteral("is Always, but baton runs credential plugins without a "
                                  "terminal: use IfAvailable or Never"));
    exec.provideClusterInfo = provide == QLatin1String("true");
    const YAML::Node args = e["args"];
    if (args && !args.IsNull()) {
        if (!args.IsSequence())
            return bad(QStringLiteral("args"), QStringLiteral("must be a list of strings"));
        for (const YAML::Node &a : args) {
            if (!a.IsScalar())
                return bad(QStringLiteral("args"), QStringLiteral("must be a list of strings"));
            exec.args << str(a.Scalar());
        }
    }
    const YAML::Node env = e["env"];
    if (env && !env.IsNull()) {
        if (!env.IsSequence())
            return bad(QStringLiteral("env"), QStringLiteral("must be a list of {name, value}"));
        for (const YAML::Node &v : env) {
            QString name;
            QString value;
            if (!v.IsMap() || !scalar(v, "name", &name) || !scalar(v, "value", &value) || name.isEmpty())
                return bad(QStringLiteral("env"), QStringLiteral("must be a list of {name, value}"));
            exec.env.append({name, value});
        }
    }
    config->exec = exec;
    return true;
}

bool readUser(const Entry &entry, KubeClientConfig *config, QString *errorString)
{
    const YAML::Node &u = entry.body;
    auto bad = [&](const QString &why) {
        *errorString = QStringLiteral("%1: %2").arg(entry.where, why);
        return false;
    };
    QString token;
    QString tokenFile;
    QString certFile;
    QString certData;
    QString keyFile;
    QString keyData;
    QString username;
    QString password;
    if (!scalar(u, "token", &token) || !scalar(u, "tokenFile", &tokenFile)
        || !scalar(u, "client-certificate", &certFile) || !scalar(u, "client-certificate-data", &certData)
        || !scalar(u, "client-key", &keyFile) || !scalar(u, "client-key-data", &keyData)
        || !scalar(u, "username", &username) || !scalar(u, "password", &password))
        return bad(QStringLiteral("credential fields must be strings"));
    if ((!username.isEmpty() || !password.isEmpty()) && (!token.isEmpty() || !tokenFile.isEmpty()))
        return bad(QStringLiteral("username/password cannot be used together with a token"));
    if (!username.isEmpty() || !password.isEmpty())
        return bad(QStringLiteral("username/password (basic authentication) is not supported by "
                                  "Kubernetes API servers since 1.19; use a token, a client "
                                  "certificate or an exec plugin"));
    if (u["auth-provider"])
        return bad(QStringLiteral("auth-provider plugins are not supported; use an exec credential "
                                  "plugin"));
    config->token = token;
    if (!tokenFile.isEmpty()) {
        config->tokenFile = resolvePath(tokenFile, entry.file);
        if (!QFileInfo(config->tokenFile).isReadable())
            return bad(QStringLiteral("tokenFile %1 cannot be read").arg(config->tokenFile));
    }
    const bool hasCert = !certFile.isEmpty() || !certData.isEmpty();
    const bool hasKey = !keyFile.isEmpty() || !keyData.isEmpty();
    if (hasCert != hasKey)
        return bad(hasCert ? QStringLiteral("client-certificate given without client-key")
                           : QStringLiteral("client-key given without client-certificate"));
    if (!certData.isEmpty()) {
        const auto decoded = QByteArray::fromBase64Encoding(certData.toLatin1(),
                                                            QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded)
            return bad(QStringLiteral("client-certificate-data is not base64"));
        config->clientCertPem = *decoded;
    } else if (!certFile.isEmpty()
               && !readFile(resolvePath(certFile, entry.file), &config->clientCertPem,
                            QStringLiteral("client-certificate"), entry.where, errorString)) {
        return false;
    }
    if (!keyData.isEmpty()) {
        const auto decoded = QByteArray::fromBase64Encoding(keyData.toLatin1(),
                                                            QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded)
            return bad(QStringLiteral("client-key-data is not base64")); // never its content (R2)
        config->clientKeyPem = *decoded;
    } else if (!keyFile.isEmpty()
               && !readFile(resolvePath(keyFile, entry.file), &config->clientKeyPem,
                            QStringLiteral("client-key"), entry.where, errorString)) {
        return false;
    }
    const YAML::Node exec = u["exec"];
    if (exec && !exec.IsNull() && !readExec(entry, exec, config, errorString))
        return false;
    return true;
}

} // namespace

bool fromKubeconfig(const QStringList &files, const KubeConfigOptions &options,
                    KubeClientConfig *config, QString *contextNamespace, QString *errorString)
{
    Merged merged;
    for (const QString &file : files)
        if (!loadFile(file, &merged, errorString))
            return false;
    const QString list = merged.files.join(QStringLiteral(", "));
    const QString contextName = options.context.isEmpty() ? merged.currentContext : options.context;
    if (contextName.isEmpty()) {
        *errorString = QStringLiteral("kubeconfig %1: no current-context, and no \"context\" "
                                      "parameter")
                               .arg(list);
        return false;
    }
    const auto context = merged.contexts.constFind(contextName);
    if (context == merged.contexts.constEnd()) {
        *errorString = QStringLiteral("kubeconfig %1: context \"%2\" is not defined")
                               .arg(list, contextName);
        return false;
    }
    QString clusterName;
    QString userName;
    if (!scalar(context->body, "cluster", &clusterName) || !scalar(context->body, "user", &userName)
        || !scalar(context->body, "namespace", contextNamespace)) {
        *errorString = QStringLiteral("%1: cluster, user and namespace must be strings").arg(context->where);
        return false;
    }
    const auto cluster = merged.clusters.constFind(clusterName);
    if (clusterName.isEmpty() || cluster == merged.clusters.constEnd()) {
        *errorString = QStringLiteral("%1: cluster \"%2\" is not defined").arg(context->where, clusterName);
        return false;
    }
    if (!readCluster(*cluster, config, errorString))
        return false;
    if (!userName.isEmpty()) {
        const auto user = merged.users.constFind(userName);
        if (user == merged.users.constEnd()) {
            *errorString = QStringLiteral("%1: user \"%2\" is not defined").arg(context->where, userName);
            return false;
        }
        if (!readUser(*user, config, errorString))
            return false;
    }
    config->contextName = contextName;
    config->source = QStringLiteral("kubeconfig %1 (context \"%2\")").arg(list, contextName);
    return true;
}

} // namespace baton::kubeconfig
