#pragma once

#include "restartbackoff.h"

#include <baton/remover.h>

#include <QElapsedTimer>
#include <QFuture>
#include <QJsonObject>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QString>
#include <QTimer>

#include <memory>

class QProcess;
template<typename T>
class QPromise;

namespace baton {

class ClusterService;
struct ElectionTimings;

/*!
 * Runs one command while a cluster service leads (O3, `baton join
 * --exec`), through whenLeader() like any other leader work:
 *
 * - `fn` starts the command (`/bin/sh -c COMMAND`) under the exec guard
 *   (`baton-exec-guard`, execguard.cpp), a small process of its own that is
 *   the command's parent and a child subreaper. The command runs in a
 *   process group of its own, with stdin from /dev/null and stdout and
 *   stderr on this process's stderr (stdout is the event stream).
 * - The guard is told the end of the authority, on CLOCK_BOOTTIME, at the
 *   start and after every successful renewal: the F4 deadline plus the
 *   grace period. It sends SIGTERM at the F4 deadline and SIGKILL at that
 *   end by its own clock, whether or not this process is scheduled (a
 *   SIGSTOP, a debugger); when this process dies, it kills at once. At the
 *   end it kills the group, then every descendant left, setsid() or not,
 *   and exits only when none is. It never starts the command with less
 *   than the grace left before that end ("refused": taken as an expiry).
 * - `deregisteredFn` asks the guard to stop the command (SIGTERM, SIGCONT
 *   for a stopped group, SIGKILL after the grace period), sends SIGKILL to
 *   the group itself once the grace is over, and returns a future that
 *   finishes when the guard has exited, so when nothing of the command is
 *   left. The library awaits it before it releases the lease (F5) and
 *   before a new `fn` runs (W3), so two copies never run at once, in this
 *   process or across the cluster.
 *
 * The grace period must fit in the safety margin
 * `(leaseDuration - renewInterval) / 2` with room to spare (maxGrace()): a
 * leader that stops at its F4 deadline then kills the command before any
 * other instance may take the lease. attach() refuses a larger one.
 *
 * This process is a child subreaper too (attach()): should the guard die
 * outright (the OOM killer, `kill -9`), what the command started lands here,
 * not on init, and is killed, group or setsid() alike, before the lease may
 * be released or the command started again (sweepStrays()).
 *
 * A command that exits by itself while leading is restarted with an
 * exponential back-off (OnExit::Restart) or makes the process step down
 * (OnExit::StepDown: stepDownRequested(), the caller stops cleanly).
 * Whatever the command leaves behind is killed when it exits.
 */
class ExecSupervisor : public QObject
{
    Q_OBJECT
public:
    /*!
     * Finish: the exit ends the run, nothing follows (--schedule: one run
     * per tick). Once: as StepDown, but the exit is the expected end of the
     * one run (--once), not a command that gave up: said at info, by the caller.
     */
    enum class OnExit { Restart, StepDown, Finish, Once };
    /*! Why the command's process ended: the `reason` of its `exec-stopped` record. */
    enum class StopReason {
        Exited,  ///< by itself, while leading ("exited")
        Stopped, ///< stopped for the end of the leadership, by this process or by the guard ("stopped")
    };
    Q_ENUM(StopReason)

    struct Options
    {
        QString command;
        /*! Between SIGTERM and SIGKILL; negative: half the safety margin. */
        qint64 graceMs = -1;
        OnExit onExit = OnExit::Restart;
        qint64 restartDelayMs = 500;
        qint64 restartDelayMaxMs = 30000;
        /*! The guard's executable; empty: `baton-exec-guard` beside the modules (modulePath()). */
        QString guardProgram {};
        /*! Set in the command's environment beside BATON_FENCING_TOKEN (--schedule: BATON_TICK). */
        QList<QPair<QString, QString>> environment {};
    };

    ExecSupervisor(ClusterService *cluster, Options options, QObject *parent = nullptr);
    ~ExecSupervisor() override;

    /*!
     * The longest grace period \a timings allow: the safety margin less a
     * quarter of it, kept for the kill itself and for clock drift.
     */
    static qint64 maxGrace(const ElectionTimings &timings);
    /*! The grace period for \a requestedMs under \a timings, or -1 with \a errorString set. */
    static qint64 effectiveGrace(qint64 requestedMs, const ElectionTimings &timings,
                                 QString *errorString);

    /*!
     * Checks the grace period against the cluster's timings (its parameters
     * must have been validated) and registers with whenLeader(). Returns
     * false with \a errorString when the grace period does not fit.
     */
    bool attach(QString *errorString);
    /*! Removes the registration: a running command is stopped as on a step-down. */
    void detach();

    qint64 graceMs() const { return m_graceMs; }
    /*! The command's pid (its group's id) once the guard started it, else 0. */
    qint64 pid() const;
    /*! Whether the guard runs: from the start until nothing of the command is left. */
    bool isRunning() const;

Q_SIGNALS:
    /*! `exec-started` and `exec-stopped` records of the event stream (O5). */
    void event(const QJsonObject &record);
    void started(qint64 pid);
    /*!
     * \a signal is 0 when it exited with \a exitCode. Callers decide on
     * \a reason, not on the text of the exec-stopped record.
     */
    void stopped(qint64 pid, int exitCode, int signal, baton::ExecSupervisor::StopReason reason);
    /*! OnExit::StepDown or Once: the command exited by itself while leading. */
    void stepDownRequested();

private:
    void onLeading();
    QFuture<void> onNotLeading();
    void startCommand();
    void onGuardOutput();
    void onFinished(int exitCode, bool crashed);
    void sweepStrays();
    void afterCommandGone();
    /*! The end of the authority on CLOCK_BOOTTIME, as the guard is told it. */
    qint64 deadlineMs() const;
    void sendDeadline();
    void tellGuard(const QByteArray &line);
    void killGroup(int signalNumber);
    void emitEvent(const QString &name, QJsonObject fields);

    QPointer<ClusterService> m_cluster;
    Options m_options;
    qint64 m_graceMs = 0;
    Remover m_registration;
    bool m_leading = false;
    QProcess *m_process = nullptr;
    qint64 m_pid = 0;
    /*! How the command's own process ended, as the guard reported it. */
    bool m_commandEnded = false;
    int m_commandExitCode = 0;
    int m_commandSignal = 0;
    /*! The guard stopped the command at the deadline before this process did. */
    bool m_expired = false;
    bool m_terminating = false;
    bool m_killed = false;
    /*! How the guard itself ended, kept for afterCommandGone(). */
    int m_guardExitCode = 0;
    bool m_guardCrashed = false;
    /*! The guard has ended and what it left behind is being killed. */
    bool m_sweeping = false;
    QElapsedTimer m_sweepStarted;
    QTimer m_sweepTimer;
    /*!
     * What the guard gave up on ("stuck N"), by pid and start time: named
     * once, not killed forever.
     */
    QList<QPair<qint64, quint64>> m_abandoned;
    RestartBackoff m_backoff;
    QElapsedTimer m_running;
    /*! How long the command ran, from "pid" to the guard's exit; -1 when it never started. */
    qint64 m_ranMs = -1;
    QTimer m_restartTimer;
    QTimer m_graceTimer;
    std::shared_ptr<QPromise<void>> m_exited;
};

} // namespace baton
