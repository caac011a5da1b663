#include "joincommand.h"

#include "electionmetrics.h"
#include "execsupervisor.h"
#include "signalwatcher.h"
#include "statusserver.h"

#include <baton/application.h>
#include <baton/clusterservice.h>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace baton {

namespace {

void complain(const QString &text)
{
    std::fprintf(stderr, "baton join: %s\n", qPrintable(text));
}

void onBrokenPipe(int)
{
}

/*!
 * A write to a stdout whose reader is gone then fails with EPIPE instead of
 * killing baton before it can release its lease. A handler rather than
 * SIG_IGN: exec() resets a handled signal, so the --exec command still
 * starts with SIGPIPE's default.
 */
void catchBrokenPipe()
{
    struct sigaction action {};
    action.sa_handler = &onBrokenPipe;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGPIPE, &action, nullptr);
}

} // namespace

JoinCommand::JoinCommand(Options options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
{
}

JoinCommand::~JoinCommand()
{
    // The command goes before the services it depends on.
    delete m_exec;
    m_exec = nullptr;
}

bool JoinCommand::load(QString *errorString)
{
    m_clusters.clear();
    m_application.reset(); // one current Application at a time
    m_application = std::make_unique<Application>();
    if (!m_application->loadConfigFile(m_options.configPath, errorString))
        return false;
    for (Service *service : m_application->services()) {
        if (auto *cluster = qobject_cast<ClusterService *>(service)) {
            // P1 before anything starts; also gives the lease name.
            if (!cluster->validate(errorString)) {
                *errorString = QStringLiteral("%1: %2").arg(m_options.configPath, *errorString);
                return false;
            }
            m_clusters.append(cluster);
        }
    }
    if (m_clusters.isEmpty()) {
        *errorString = QStringLiteral("%1: no cluster service to join (add one of type "
                                      "\"Webda/StoreClusterService\")")
                               .arg(m_options.configPath);
        return false;
    }
    return true;
}

bool JoinCommand::selectLeases(QString *errorString)
{
    if (m_options.leases.isEmpty())
        return true;
    QStringList known;
    for (ClusterService *cluster : std::as_const(m_clusters))
        known.append(cluster->leaseName());
    for (const QString &lease : std::as_const(m_options.leases)) {
        if (!known.contains(lease)) {
            *errorString = QStringLiteral("--lease %1: no cluster service of %2 has that lease "
                                          "name (it has: %3)")
                                   .arg(lease, m_options.configPath, known.join(QStringLiteral(", ")));
            return false;
        }
    }
    // The services of the other leases are left out of the configuration
    // altogether, so that they never start (P3: each election is its own).
    QFile file(m_options.configPath);
    if (!file.open(QIODevice::ReadOnly)) {
        *errorString = QStringLiteral("%1: %2").arg(m_options.configPath, file.errorString());
        return false;
    }
    QJsonObject config = QJsonDocument::fromJson(file.readAll()).object();
    QJsonObject services = config.value(QStringLiteral("services")).toObject();
    for (ClusterService *cluster : std::as_const(m_clusters))
        if (!m_options.leases.contains(cluster->leaseName()))
            services.remove(cluster->name());
    config.insert(QStringLiteral("services"), services);
    m_clusters.clear();
    m_application.reset();
    m_application = std::make_unique<Application>();
    if (!m_application->loadConfig(QJsonDocument(config).toJson(), m_options.configPath, errorString))
        return false;
    for (Service *service : m_application->services())
        if (auto *cluster = qobject_cast<ClusterService *>(service)) {
            if (!cluster->validate(errorString))
                return false;
            m_clusters.append(cluster);
        }
    // The command follows the first --lease named, whatever the file's order.
    std::stable_sort(m_clusters.begin(), m_clusters.end(), [this](ClusterService *a, ClusterService *b) {
        return m_options.leases.indexOf(a->leaseName()) < m_options.leases.indexOf(b->leaseName());
    });
    return true;
}

int JoinCommand::start()
{
    QString error;
    if (!load(&error) || !selectLeases(&error)) {
        complain(error);
        return BadUsage;
    }

    if (!m_options.exec.isEmpty()) {
        ExecSupervisor::Options exec;
        exec.command = m_options.exec;
        exec.graceMs = m_options.graceMs;
        exec.onExit = m_options.onExit == OnExit::StepDown ? ExecSupervisor::OnExit::StepDown
                                                           : ExecSupervisor::OnExit::Restart;
        m_exec = new ExecSupervisor(m_clusters.first(), exec);
        if (!m_exec->attach(&error)) {
            complain(QStringLiteral("lease \"%1\": %2").arg(m_clusters.first()->leaseName(), error));
            return BadUsage;
        }
        connect(m_exec, &ExecSupervisor::stepDownRequested, this, [this] { stopWith(CommandExited); });
        if (m_options.eventsJson)
            connect(m_exec, &ExecSupervisor::event, this, &JoinCommand::writeEvent);
    }

    if (m_options.explain) {
        for (ClusterService *cluster : std::as_const(m_clusters)) {
            std::printf("%s (lease \"%s\"): %s\n", qPrintable(cluster->name()),
                        qPrintable(cluster->leaseName()), qPrintable(cluster->timings().explain()));
            if (m_exec && cluster == m_clusters.first())
                std::printf("  --exec: SIGTERM when it stops leading, SIGKILL %lld ms later "
                            "(within the safety margin)\n",
                            m_exec->graceMs());
        }
        return Success;
    }

    QHostAddress listenAddress;
    quint16 listenPort = 0;
    if (!m_options.listen.isEmpty()
        && !StatusServer::parseAddress(m_options.listen, &listenAddress, &listenPort, &error)) {
        complain(error);
        return BadUsage;
    }

    if (m_options.eventsJson)
        catchBrokenPipe();
    if (m_options.eventsJson)
        for (ClusterService *cluster : std::as_const(m_clusters))
            connect(cluster, &ClusterService::electionEvent, this, &JoinCommand::writeEvent);
    if (!m_options.listen.isEmpty()) {
        // Fed by the event stream, beside the election: it never waits on HTTP.
        m_metrics = new ElectionMetrics(nullptr, this);
        for (ClusterService *cluster : std::as_const(m_clusters))
            m_metrics->follow(cluster);
        if (m_exec) {
            m_metrics->followExec(m_clusters.first()->leaseName());
            connect(m_exec, &ExecSupervisor::event, m_metrics, &ElectionMetrics::record);
        }
        m_server = new StatusServer(m_metrics, this);
        const quint16 port = m_server->listen(listenAddress, listenPort, &error);
        if (port == 0) {
            complain(error);
            return RuntimeFailure;
        }
        std::fprintf(stderr, "baton join: serving /metrics, /livez, /readyz and /leader on http://%s:%u\n",
                     qPrintable(listenAddress.protocol() == QAbstractSocket::IPv6Protocol
                                        ? QStringLiteral("[%1]").arg(listenAddress.toString())
                                        : listenAddress.toString()),
                     unsigned(port));
    }

    // Signals are caught before the election starts, so that even the first
    // acquisition is released cleanly when a stop comes at once.
    m_signals = new SignalWatcher(this);
    connect(m_signals, &SignalWatcher::terminationRequested, this, [this] { stopWith(Success); });
    connect(m_application.get(), &Application::stopped, this, [this] { Q_EMIT finished(m_exitCode); });

    if (!m_application->init(&error)) {
        complain(error);
        return BadUsage;
    }
    for (ClusterService *cluster : std::as_const(m_clusters))
        std::fprintf(stderr, "baton join: %s takes part in \"%s\" as %s\n  %s\n",
                     qPrintable(cluster->name()), qPrintable(cluster->leaseName()),
                     qPrintable(cluster->instanceId()),
                     qPrintable(cluster->timings().explain().replace(QLatin1Char('\n'),
                                                                     QStringLiteral("\n  "))));
    if (m_exec)
        std::fprintf(stderr, "baton join: runs /bin/sh -c '%s' while leading \"%s\" (grace %lld ms)\n",
                     qPrintable(m_options.exec), qPrintable(m_clusters.first()->leaseName()),
                     m_exec->graceMs());
    return -1;
}

void JoinCommand::stopWith(int exitCode)
{
    if (m_stopping)
        return;
    m_stopping = true;
    m_exitCode = exitCode;
    // F5: every cluster service runs its deregistered callbacks (the
    // command's stop among them), waits for them, then releases.
    m_application->stop();
}

void JoinCommand::writeEvent(const QJsonObject &event)
{
    if (m_eventsClosed)
        return;
    const QByteArray line = QJsonDocument(event).toJson(QJsonDocument::Compact) + '\n';
    const bool written = std::fwrite(line.constData(), 1, size_t(line.size()), stdout)
                    == size_t(line.size())
            && std::fflush(stdout) == 0; // readers act on each line as it comes
    if (written)
        return;
    // The reader of the stream is gone (a closed pipe, a full disk): a
    // participant nobody follows stops as on SIGTERM, so its lease is
    // released rather than left to expire (docs/events.md).
    m_eventsClosed = true;
    complain(QStringLiteral("cannot write events to stdout (%1): stopping")
                     .arg(QString::fromLocal8Bit(std::strerror(errno))));
    QMetaObject::invokeMethod(this, [this] { stopWith(RuntimeFailure); }, Qt::QueuedConnection);
}

} // namespace baton
