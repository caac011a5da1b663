#include "kubecredentials.h"

#include <baton/clock.h>
#include "logging.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QProcess>
#include <QTimer>

namespace baton {

KubeCredentials::KubeCredentials(KubeClientConfig config, const Clock *clock, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_clock(clock ? clock : &Clock::system())
{
}

KubeCredentials::~KubeCredentials()
{
    // A plugin still running answers no one; QProcess reaps it as it goes.
    if (m_plugin) {
        m_plugin->disconnect(this);
        m_plugin->kill();
    }
}

bool KubeCredentials::readTokenFile(QString *errorString)
{
    // Bound service account tokens and mounted Secrets rotate: the file is
    // read at every request. Its time and size cannot tell a rotation: a
    // new token often has the old one's length, and a copy that keeps
    // times (cp -p, rsync -t) keeps the old modification time too. A file
    // of a few hundred bytes per renewal costs less than a lost lease.
    QFile file(m_config.tokenFile);
    if (!file.open(QIODevice::ReadOnly)) {
        *errorString = QStringLiteral("token file %1 cannot be read: %2")
                               .arg(m_config.tokenFile, file.errorString());
        return false;
    }
    const QString token = QString::fromUtf8(file.read(64 * 1024)).trimmed();
    if (token.isEmpty()) {
        *errorString = QStringLiteral("token file %1 is empty").arg(m_config.tokenFile);
        return false;
    }
    if (!m_fileToken.isEmpty() && token != m_fileToken)
        qCInfo(lcKube).noquote() << QStringLiteral("token file %1 changed: using the new token")
                                            .arg(m_config.tokenFile);
    m_fileToken = token;
    return true;
}

void KubeCredentials::get(Callback done)
{
    KubeCredential credential;
    credential.clientCertPem = m_config.clientCertPem;
    credential.clientKeyPem = m_config.clientKeyPem;
    if (m_config.exec) {
        const bool fresh = m_haveExec
                && (!m_execExpiry.isValid() || m_clock->wallNow() < m_execExpiry);
        if (fresh) {
            KubeCredential fromPlugin = m_exec;
            if (fromPlugin.clientCertPem.isEmpty()) {
                fromPlugin.clientCertPem = credential.clientCertPem;
                fromPlugin.clientKeyPem = credential.clientKeyPem;
            }
            done(fromPlugin, {});
            return;
        }
        m_waiting.append(std::move(done));
        if (!m_plugin)
            runPlugin();
        return;
    }
    QString error;
    if (!m_config.tokenFile.isEmpty()) {
        if (!readTokenFile(&error)) {
            done({}, error);
            return;
        }
        credential.authorization = "Bearer " + m_fileToken.toUtf8();
    } else if (!m_config.token.isEmpty()) {
        credential.authorization = "Bearer " + m_config.token.toUtf8();
    }
    done(credential, {});
}

void KubeCredentials::invalidate()
{
    m_haveExec = false;
    m_fileToken.clear();
}

QByteArray KubeCredentials::execInfo() const
{
    QJsonObject spec {{QStringLiteral("interactive"), false}};
    if (m_config.exec->provideClusterInfo) {
        QJsonObject cluster {{QStringLiteral("server"), m_config.server.toString()}};
        if (!m_config.tlsServerName.isEmpty())
            cluster.insert(QStringLiteral("tls-server-name"), m_config.tlsServerName);
        if (m_config.insecureSkipTlsVerify)
            cluster.insert(QStringLiteral("insecure-skip-tls-verify"), true);
        if (!m_config.caPem.isEmpty())
            cluster.insert(QStringLiteral("certificate-authority-data"),
                           QString::fromLatin1(m_config.caPem.toBase64()));
        spec.insert(QStringLiteral("cluster"), cluster);
    }
    return QJsonDocument(QJsonObject {{QStringLiteral("apiVersion"), m_config.exec->apiVersion},
                                      {QStringLiteral("kind"), QStringLiteral("ExecCredential")},
                                      {QStringLiteral("spec"), spec}})
            .toJson(QJsonDocument::Compact);
}

void KubeCredentials::runPlugin()
{
    const KubeExecConfig &exec = *m_config.exec;
    ++m_pluginRuns;
    m_plugin = new QProcess(this);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const auto &[name, value] : exec.env)
        env.insert(name, value);
    env.insert(QStringLiteral("KUBERNETES_EXEC_INFO"), QString::fromUtf8(execInfo()));
    m_plugin->setProcessEnvironment(env);
    auto *timeout = new QTimer(m_plugin);
    timeout->setSingleShot(true);
    connect(timeout, &QTimer::timeout, this, [this] {
        pluginDone(-1, true, QStringLiteral("no answer within %1 ms").arg(m_pluginTimeoutMs));
    });
    connect(m_plugin, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        pluginDone(exitCode, status != QProcess::NormalExit, {});
    });
    connect(m_plugin, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            pluginDone(-1, true, m_plugin->errorString());
    });
    qCDebug(lcKube).noquote() << QStringLiteral("running the credential plugin %1").arg(exec.command);
    timeout->start(m_pluginTimeoutMs);
    m_plugin->start(exec.command, exec.args);
    m_plugin->closeWriteChannel(); // not interactive: nothing to read from us
}

void KubeCredentials::pluginDone(int exitCode, bool crashed, const QString &why)
{
    if (!m_plugin)
        return;
    QProcess *plugin = m_plugin;
    m_plugin = nullptr;
    plugin->disconnect(this);
    if (plugin->state() != QProcess::NotRunning)
        plugin->kill();
    const QByteArray out = plugin->readAllStandardOutput();
    const QString stderrText = QString::fromLocal8Bit(plugin->readAllStandardError().left(2000)).trimmed();
    plugin->deleteLater();

    const KubeExecConfig &exec = *m_config.exec;
    const QString who = QStringLiteral("credential plugin %1 (%2)").arg(exec.command, exec.origin);
    auto fail = [&](const QString &what) {
        deliver(QStringLiteral("%1 %2%3").arg(who, what,
                                               stderrText.isEmpty() ? QString()
                                                                    : QStringLiteral("; its stderr: ") + stderrText));
    };
    if (!why.isEmpty())
        return fail(QStringLiteral("failed: %1").arg(why));
    if (crashed || exitCode != 0)
        return fail(QStringLiteral("failed with exit code %1").arg(exitCode));
    QJsonParseError parseError;
    const QJsonObject reply = QJsonDocument::fromJson(out, &parseError).object();
    if (parseError.error != QJsonParseError::NoError)
        return fail(QStringLiteral("printed something that is not an ExecCredential (%1)")
                            .arg(parseError.errorString()));
    if (reply.value(QStringLiteral("apiVersion")).toString() != exec.apiVersion)
        return fail(QStringLiteral("answered with apiVersion \"%1\", not the \"%2\" it was asked for")
                            .arg(reply.value(QStringLiteral("apiVersion")).toString(), exec.apiVersion));
    if (reply.value(QStringLiteral("kind")).toString() != QStringLiteral("ExecCredential"))
        return fail(QStringLiteral("answered with kind \"%1\", not ExecCredential")
                            .arg(reply.value(QStringLiteral("kind")).toString()));
    const QJsonObject status = reply.value(QStringLiteral("status")).toObject();
    const QString token = status.value(QStringLiteral("token")).toString();
    const QString cert = status.value(QStringLiteral("clientCertificateData")).toString();
    const QString key = status.value(QStringLiteral("clientKeyData")).toString();
    if (token.isEmpty() && (cert.isEmpty() || key.isEmpty()))
        return fail(QStringLiteral("gave neither status.token nor status.clientCertificateData "
                                   "with status.clientKeyData"));
    if (cert.isEmpty() != key.isEmpty())
        return fail(QStringLiteral("gave a client certificate without its key, or a key without "
                                   "its certificate"));
    QDateTime expiry;
    const QJsonValue expiryValue = status.value(QStringLiteral("expirationTimestamp"));
    if (!expiryValue.isUndefined() && !expiryValue.isNull()) {
        expiry = QDateTime::fromString(expiryValue.toString(), Qt::ISODateWithMs);
        if (!expiry.isValid())
            return fail(QStringLiteral("gave an expirationTimestamp \"%1\" that is not RFC 3339")
                                .arg(expiryValue.toString()));
    }
    m_exec = {};
    if (!token.isEmpty())
        m_exec.authorization = "Bearer " + token.toUtf8();
    m_exec.clientCertPem = cert.toUtf8();
    m_exec.clientKeyPem = key.toUtf8();
    m_execExpiry = expiry;
    m_haveExec = true;
    qCDebug(lcKube).noquote() << QStringLiteral("%1 gave a credential valid until %2")
                                         .arg(who, expiry.isValid() ? expiry.toString(Qt::ISODate)
                                                                    : QStringLiteral("further notice"));
    deliver({});
}

void KubeCredentials::deliver(const QString &errorString)
{
    const QList<Callback> waiting = std::exchange(m_waiting, {});
    QPointer<KubeCredentials> self(this);
    for (const Callback &done : waiting) {
        if (!self)
            return;
        if (!errorString.isEmpty()) {
            done({}, errorString);
            continue;
        }
        KubeCredential credential = m_exec;
        if (credential.clientCertPem.isEmpty()) {
            credential.clientCertPem = m_config.clientCertPem;
            credential.clientKeyPem = m_config.clientKeyPem;
        }
        done(credential, {});
    }
}

} // namespace baton
