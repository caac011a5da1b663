#include "joincommand.h"

#include "electionconfig.h"
#include "electionmetrics.h"
#include "electionscope.h"
#include "execsupervisor.h"
#include "scheduledrunner.h"
#include "headlesslogging.h"
#include "journalstream.h"
#include "eventstreamwriter.h"
#include "refusedcredentials.h"
#include "signalwatcher.h"
#include "statusserver.h"
#include "systemdnotifier.h"

#include <baton/application.h>
#include <baton/clock.h>
#include <baton/clusterservice.h>
#include <batoninternal/eventrecord.h>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

#include <unistd.h>

namespace baton {

namespace {

/*!
 * As fprintf(stderr, ...), through the log's queue: in order with the
 * messages, and never held up by a log that does not keep up.
 */
Q_ATTRIBUTE_FORMAT_PRINTF(1, 2) void logf(const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    const QString line = QString::vasprintf(format, arguments);
    va_end(arguments);
    headlesslogging::print(line.toLocal8Bit());
}

void complain(const QString &text)
{
    // One line a mistake, each a line of its own in the journal.
    for (const QString &line : text.split(QLatin1Char('\n')))
        logf("%sbaton join: %s\n", journalstream::errorPrefix(), qPrintable(line));
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
    delete m_schedule;
    m_schedule = nullptr;
}

bool JoinCommand::load(QString *errorString)
{
    m_clusters.clear();
    m_application.reset(); // one current Application at a time
    m_application = std::make_unique<Application>();
    return electionconfig::load(*m_application, m_options.configPath, &m_clusters, errorString);
}

bool JoinCommand::selectLeases(QString *errorString)
{
    const bool steered = m_options.steering.isSet();
    if (m_options.leases.isEmpty() && !steered)
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
    for (ClusterService *cluster : std::as_const(m_clusters)) {
        if (!m_options.leases.isEmpty() && !m_options.leases.contains(cluster->leaseName())) {
            services.remove(cluster->name());
            continue;
        }
        if (steered && !electionconfig::steer(services, cluster, m_options.steering, errorString))
            return false;
    }
    config.insert(QStringLiteral("services"), services);
    m_clusters.clear();
    m_application.reset();
    m_application = std::make_unique<Application>();
    if (!m_application->loadConfig(QJsonDocument(config).toJson(), m_options.configPath, errorString))
        return false;
    for (Service *service : m_application->services())
        if (auto *cluster = qobject_cast<ClusterService *>(service)) {
            if (!cluster->validate(errorString)) {
                *errorString = m_application->locateError(cluster->name(), *errorString);
                return false;
            }
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

    if (!m_options.schedule.isEmpty() && !attachSchedule(&error)) {
        complain(QStringLiteral("lease \"%1\": %2").arg(m_clusters.first()->leaseName(), error));
        return BadUsage;
    }
    if (!m_options.exec.isEmpty() && m_options.schedule.isEmpty()) {
        ExecSupervisor::Options exec;
        exec.command = m_options.exec;
        exec.graceMs = m_options.graceMs;
        // --once: the command's own exit ends the leadership, as with
        // step-down, but baton then exits with the command's status, and
        // that exit is the run's end, not a command that gave up.
        if (m_options.once)
            exec.onExit = ExecSupervisor::OnExit::Once;
        else if (m_options.onExit == OnExit::StepDown)
            exec.onExit = ExecSupervisor::OnExit::StepDown;
        m_exec = new ExecSupervisor(m_clusters.first(), exec);
        if (!m_exec->attach(&error)) {
            complain(QStringLiteral("lease \"%1\": %2").arg(m_clusters.first()->leaseName(), error));
            return BadUsage;
        }
        if (m_options.once) {
            connect(m_exec, &ExecSupervisor::started, this,
                    [this] { m_commandStartedMono = Clock::system().monotonicMs(); });
            connect(m_exec, &ExecSupervisor::stopped, this,
                    [this](qint64, int exitCode, int signal, ExecSupervisor::StopReason reason) {
                        m_commandStatus = signal != 0 ? 128 + signal : exitCode; // as a shell reports it
                        // Stopped while baton is not stopping: the leadership
                        // ended under the command; it is not run again.
                        if (!m_stopping && reason == ExecSupervisor::StopReason::Stopped)
                            QMetaObject::invokeMethod(this, [this] { stopWith(LeadershipLost); },
                                                      Qt::QueuedConnection);
                    });
            connect(m_exec, &ExecSupervisor::stepDownRequested, this, &JoinCommand::onceCommandEnded,
                    Qt::QueuedConnection);
        } else {
            connect(m_exec, &ExecSupervisor::stepDownRequested, this, [this] { stopWith(CommandExited); });
        }
        if (m_options.eventsJson)
            connect(m_exec, &ExecSupervisor::event, this, &JoinCommand::writeEvent);
    }

    if (m_options.explain) {
        for (ClusterService *cluster : std::as_const(m_clusters)) {
            std::printf("%s (lease \"%s\"): %s\n", qPrintable(cluster->name()),
                        qPrintable(cluster->leaseName()), qPrintable(cluster->timings().explain()));
            std::printf("  scope: %s\n", qPrintable(electionScope(*m_application, *cluster).text));
            if (m_exec && cluster == m_clusters.first())
                std::printf("  --exec: SIGTERM when it stops leading, SIGKILL %lld ms later "
                            "(grace in effect; at most %lld ms, the safety margin less a "
                            "quarter kept for the kill and clock drift); the exec guard does "
                            "the same by its own clock should baton be frozen or killed\n",
                            m_exec->graceMs(), ExecSupervisor::maxGrace(cluster->timings()));
            if (cluster == m_clusters.first() && m_options.once)
                std::printf("  --once: the command runs one time; the lease is held at least %lld ms "
                            "(leaseDuration) from when it was taken, then released\n",
                            cluster->timings().leaseDuration);
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

    headlesslogging::queueStderr();
    if (m_options.eventsJson) {
        m_events = std::make_unique<EventStreamWriter>(STDOUT_FILENO, m_clusters.first()->leaseName(),
                                                 m_clusters.first()->instanceId());
        // The reader of the stream is gone (a closed pipe, a full disk): a
        // participant nobody follows stops as on SIGTERM, so its lease is
        // released rather than left to expire (docs/reference/events.md).
        connect(m_events.get(), &EventStreamWriter::failed, this, &JoinCommand::eventsFailed);
        for (ClusterService *cluster : std::as_const(m_clusters))
            connect(cluster, &ClusterService::electionEvent, this, &JoinCommand::writeEvent);
    }
    if (!m_options.listen.isEmpty()) {
        // Fed by the event stream, beside the election: it never waits on HTTP.
        m_metrics = new ElectionMetrics(nullptr, this);
        m_metrics->countDrops([this] { return m_events ? m_events->dropped() : 0; },
                              &headlesslogging::droppedLines);
        for (ClusterService *cluster : std::as_const(m_clusters))
            m_metrics->follow(cluster);
        if (m_schedule)
            followScheduleMetrics();
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
        logf("baton join: serving /metrics, /livez, /readyz and /leader on http://%s:%u\n",
                     qPrintable(listenAddress.protocol() == QAbstractSocket::IPv6Protocol
                                        ? QStringLiteral("[%1]").arg(listenAddress.toString())
                                        : listenAddress.toString()),
                     unsigned(port));
    }

    // Signals are caught before the election starts, so that even the first
    // acquisition is released cleanly when a stop comes at once.
    m_signals = new SignalWatcher(this);
    connect(m_signals, &SignalWatcher::terminationRequested, this, [this] {
        // A job that already ended keeps its status, even when the stop
        // comes while the lease is still held after it.
        stopWith(m_commandStatus >= 0 ? m_commandStatus : Success);
    });
    connect(m_application.get(), &Application::stopped, this, [this] {
        // The last records (the release) for a reader that keeps up; one
        // that does not read holds the exit up no longer than this.
        if (m_events)
            m_events->drain(std::chrono::seconds(1));
        Q_EMIT finished(m_exitCode);
    });

    m_systemd = new SystemdNotifier(this);
    for (ClusterService *cluster : std::as_const(m_clusters))
        m_systemd->follow(cluster);

    auto *refused = new RefusedCredentials(this);
    for (ClusterService *cluster : std::as_const(m_clusters))
        refused->follow(cluster);
    connect(refused, &RefusedCredentials::givingUp, this, &JoinCommand::giveUpOnCredentials);

    // Watched before init(): the first attempt starts with it (F1).
    if (m_options.tryMs == 0) {
        watchFirstAttempt(m_clusters.first());
    } else if (m_options.tryMs > 0) {
        ClusterService *first = m_clusters.first();
        auto *deadline = new QTimer(this);
        deadline->setSingleShot(true);
        connect(first, &ClusterService::leadershipChanged, deadline, [deadline](bool leading) {
            if (leading)
                deadline->deleteLater(); // it led in time: --try is done with
        });
        connect(deadline, &QTimer::timeout, this, [this, first] {
            complain(QStringLiteral("lease \"%1\": not the leader within --try %2 ms (holder: %3): giving up")
                             .arg(first->leaseName())
                             .arg(m_options.tryMs)
                             .arg(first->currentHolder().isEmpty() ? QStringLiteral("unknown")
                                                                   : first->currentHolder()));
            stopWith(NotLeading);
        });
        deadline->start(int(std::min<qint64>(m_options.tryMs, std::numeric_limits<int>::max())));
    }

    if (!m_application->init(&error)) {
        complain(error);
        return BadUsage;
    }
    m_systemd->ready();
    for (ClusterService *cluster : std::as_const(m_clusters))
        logf("baton join: %s takes part in \"%s\" as %s\n  %s\n",
                     qPrintable(cluster->name()), qPrintable(cluster->leaseName()),
                     qPrintable(cluster->instanceId()),
                     qPrintable(cluster->timings().explain().replace(QLatin1Char('\n'),
                                                                     QStringLiteral("\n  "))));
    for (ClusterService *cluster : std::as_const(m_clusters))
        std::fprintf(stderr, "baton join: %s: scope: %s\n", qPrintable(cluster->name()),
                     qPrintable(electionScope(*m_application, *cluster).text));
    if (m_schedule)
        logf("baton join: runs /bin/sh -c '%s' on schedule \"%s\" while leading \"%s\"\n",
             qPrintable(m_options.exec), qPrintable(m_options.schedule),
             qPrintable(m_clusters.first()->leaseName()));
    if (m_exec)
        logf("baton join: runs /bin/sh -c '%s' while leading \"%s\" (grace %lld ms)\n",
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
    if (m_systemd)
        m_systemd->stopping();
    // F5: every cluster service runs its deregistered callbacks (the
    // command's stop among them), waits for them, then releases.
    m_application->stop();
}

void JoinCommand::watchFirstAttempt(ClusterService *cluster)
{
    // --try 0: the first attempt decides. Anything but "acquired" (the lease
    // is held, another instance won the race, the store did not answer)
    // means this instance does not lead now. An attempt given up because
    // the lease was seen released meanwhile decides nothing: the lease is
    // free, and the attempt that follows at once takes it or loses it.
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = connect(cluster, &ClusterService::electionEvent, this, [this, cluster, connection](const QJsonObject &event) {
        if (event.value(QStringLiteral("event")).toString() != QLatin1String("attempt"))
            return;
        const QString outcome = event.value(QStringLiteral("outcome")).toString();
        if (outcome == QLatin1String("abandoned"))
            return;
        disconnect(*connection);
        if (outcome == QLatin1String("acquired"))
            return;
        complain(QStringLiteral("lease \"%1\": not free now (attempt: %2%3), --try 0: giving up")
                         .arg(cluster->leaseName(), outcome,
                              cluster->currentHolder().isEmpty()
                                      ? QString()
                                      : QStringLiteral(", holder %1").arg(cluster->currentHolder())));
        // Not from inside the election's own signal: the stop deregisters.
        QMetaObject::invokeMethod(this, [this] { stopWith(NotLeading); }, Qt::QueuedConnection);
    });
}

void JoinCommand::giveUpOnCredentials(ClusterService *cluster, const QString &lastError)
{
    // Only join gives up: a program on the library keeps campaigning. The
    // same credentials will be refused again; exiting with a status of its
    // own lets a service manager tell this from a crash.
    complain(QStringLiteral("lease \"%1\": credentials refused %2 times in a row, giving up "
                            "(exit status %3): %4")
                     .arg(cluster->leaseName())
                     .arg(RefusedCredentials::limit)
                     .arg(int(CredentialsRefused))
                     .arg(lastError));
    // Not from inside the election's own signal: the stop deregisters.
    QMetaObject::invokeMethod(this, [this] { stopWith(CredentialsRefused); }, Qt::QueuedConnection);
}

void JoinCommand::onceCommandEnded()
{
    // One run only: no later leadership of this process starts it again.
    m_exec->detach();
    // The lease stays held until a lease duration has passed since it was
    // taken, so that instances started by the same timer tick, a little
    // later, find it held (--try 0) instead of free and run the job again.
    // On the decisions' clock, from the command's start (after the
    // acquisition); one millisecond more for the truncation of both ends.
    const qint64 holdMs = m_clusters.first()->timings().leaseDuration
            - (Clock::system().monotonicMs() - m_commandStartedMono) + 1;
    const int status = m_commandStatus;
    if (holdMs <= 0) {
        stopWith(status);
        return;
    }
    logf("baton join: --once: the command ended (status %d); holding \"%s\" %lld ms more, "
                         "then releasing it\n",
                 status, qPrintable(m_clusters.first()->leaseName()), holdMs);
    // Precise: from two seconds on, Qt's default is a coarse timer, which
    // may fire up to 5 % early and release the lease before it is due.
    QTimer::singleShot(std::chrono::milliseconds(holdMs), Qt::PreciseTimer, this,
                       [this, status] { stopWith(status); });
}

void JoinCommand::writeEvent(const QJsonObject &event)
{
    if (m_events)
        m_events->write(event);
}

void JoinCommand::eventsFailed(int error)
{
    complain(QStringLiteral("cannot write events to stdout (%1): stopping")
                     .arg(QString::fromLocal8Bit(std::strerror(error))));
    stopWith(RuntimeFailure);
}

} // namespace baton
