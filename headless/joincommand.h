#pragma once

#include "electionconfig.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace baton {

class Application;
class ClusterService;
class ElectionMetrics;
class ExecSupervisor;
class EventStreamWriter;
class SignalWatcher;
class StatusServer;
class SystemdNotifier;

/*!
 * `baton join`: takes part in every election of a configuration (or those
 * named with --lease) until SIGTERM or SIGINT, then stops cleanly (F5)
 * and exits 0. With --exec, runs a command while it leads the first of
 * those elections (ExecSupervisor); with --listen, serves /metrics and the
 * health pages /livez, /readyz and /leader (StatusServer). With --once the
 * command runs one time and its exit status becomes baton's; with --try, an
 * instance that does not lead in time gives up. An election whose store
 * keeps refusing its credentials ends it (CredentialsRefused). Under systemd it reports
 * readiness, status and watchdog pings (SystemdNotifier).
 */
class JoinCommand : public QObject
{
    Q_OBJECT
public:
    enum class OnExit { Restart, StepDown };

    struct Options
    {
        QString configPath;
        /*! Only these lease names; empty: every cluster service of the configuration. */
        QStringList leases;
        bool eventsJson = false;
        /*! Run through `/bin/sh -c` while leading; empty: no command. */
        QString exec;
        /*! SIGTERM to SIGKILL; negative: half the safety margin. */
        qint64 graceMs = -1;
        OnExit onExit = OnExit::Restart;
        /*! host:port for /metrics and the health pages; empty: none. */
        QString listen;
        /*! Print what the timings guarantee and exit without joining. */
        bool explain = false;
        /*! Run the command once while leading, then release and exit with its status. */
        bool once = false;
        /*! Give up (NotLeading) unless leading the first lease within this; 0: at the first attempt; negative: wait. */
        qint64 tryMs = -1;
        /*! --schedule: run --exec once per tick of this schedule; empty: while leading. */
        QString schedule;
        /*! --on-interrupted rerun: a run an ended leadership interrupted runs again. */
        bool rerunInterrupted = false;
        /*! --catch-up: how late a tick nobody started may still run once. */
        qint64 catchUpMs = 0;
        /*! --overlap queue: a tick that comes during a run waits for it. */
        bool queueOverlap = false;
        electionconfig::Steering steering;
    };

    enum ExitCode {
        Success = 0,
        RuntimeFailure = 1,
        BadUsage = 2,
        /*! --on-exit step-down: the command exited while leading; the lease was released. */
        CommandExited = 3,
        /*! --try: this instance did not lead within the time given (another did, or the store did not answer). */
        NotLeading = 4,
        /*! --once: leadership ended before the command finished; the command was stopped. */
        LeadershipLost = 5,
        /*!
         * An election's store or API server refused the credentials of
         * RefusedCredentials::limit attempts in a row (sysexits' EX_NOPERM).
         */
        CredentialsRefused = 77,
    };

    explicit JoinCommand(Options options, QObject *parent = nullptr);
    ~JoinCommand() override;

    /*!
     * Loads and starts. Returns an exit code when the command is already
     * over (bad configuration, --explain), or -1 while it runs: finished()
     * comes later.
     */
    int start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    bool load(QString *errorString);
    bool selectLeases(QString *errorString);
    void writeEvent(const class QJsonObject &event);
    void eventsFailed(int error);
    void stopWith(int exitCode);
    void watchFirstAttempt(ClusterService *cluster);
    void giveUpOnCredentials(ClusterService *cluster, const QString &lastError);
    void onceCommandEnded();
    /*! --schedule (joinschedule.cpp): the runner of the first lease, or false with \a errorString. */
    bool attachSchedule(QString *errorString);
    /*! --schedule with --listen: its runs in /metrics (joinschedule.cpp). */
    void followScheduleMetrics();

    Options m_options;
    std::unique_ptr<Application> m_application;
    QList<ClusterService *> m_clusters;
    ExecSupervisor *m_exec = nullptr;
    class ScheduledRunner *m_schedule = nullptr;
    ElectionMetrics *m_metrics = nullptr;
    StatusServer *m_server = nullptr;
    SignalWatcher *m_signals = nullptr;
    SystemdNotifier *m_systemd = nullptr;
    int m_exitCode = Success;
    bool m_stopping = false;
    /*! --once: the command's exit status (128 + signal when a signal ended it), -1 until it ended. */
    int m_commandStatus = -1;
    /*! --once: the boot clock's milliseconds when the command started, just after the acquisition. */
    qint64 m_commandStartedMono = 0;
    /*! --events json: stdout, written beside the event loop. */
    std::unique_ptr<EventStreamWriter> m_events;
};

} // namespace baton
