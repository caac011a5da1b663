#pragma once

#include "kubeconfig.h"

#include <QDateTime>
#include <QObject>

#include <functional>

class QProcess;

namespace baton {

class Clock;

/*! What to present to the API server for one request. */
struct KubeCredential
{
    /*! The Authorization header's value (`Bearer ...`), or empty. Never logged (R2). */
    QByteArray authorization;
    /*! PEM client certificate and key, from the kubeconfig or an exec plugin. */
    QByteArray clientCertPem;
    QByteArray clientKeyPem;
};

/*!
 * The credentials of one KubeClientConfig, fresh for each request: a
 * static token; a token file re-read when it changes (kubeconfig
 * `tokenFile`, the rotating service account token); an exec plugin run
 * asynchronously (QProcess, no blocking) and cached until its
 * `expirationTimestamp`, run again after it, or after invalidate() (a 401).
 * Precedence as in client-go: exec, then tokenFile, then token.
 *
 * Messages name the plugin and carry its stderr, never its stdout (which
 * holds the token) nor any token or key (R2).
 */
class KubeCredentials : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const KubeCredential &credential, const QString &errorString)>;

    KubeCredentials(KubeClientConfig config, const Clock *clock, QObject *parent = nullptr);
    ~KubeCredentials() override;

    /*!
     * The credential for the next request. \a done runs exactly once: at
     * once when nothing needs to run, else when the plugin has answered.
     */
    void get(Callback done);
    /*! The server refused the last credential (401): the next get() fetches a new one. */
    void invalidate();

    /*! How long a plugin may take before it is killed (default 60 s). */
    void setPluginTimeout(int ms) { m_pluginTimeoutMs = ms; }
    /*! How many times the exec plugin ran, for tests. */
    int pluginRuns() const { return m_pluginRuns; }

private:
    bool readTokenFile(QString *errorString);
    void runPlugin();
    void pluginDone(int exitCode, bool crashed, const QString &why);
    void deliver(const QString &errorString);
    QByteArray execInfo() const;

    KubeClientConfig m_config;
    const Clock *m_clock;
    QString m_fileToken;

    QProcess *m_plugin = nullptr;
    QList<Callback> m_waiting;
    bool m_haveExec = false;
    KubeCredential m_exec;
    QDateTime m_execExpiry;
    int m_pluginTimeoutMs = 60000;
    int m_pluginRuns = 0;
};

} // namespace baton
