#pragma once

#include <baton/remover.h>

#include <QElapsedTimer>
#include <QFuture>
#include <QJsonObject>
#include <QObject>
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
 * Runs one command while a cluster service leads (SPEC O3, `baton join
 * --exec`), through whenLeader() like any other leader work:
 *
 * - `fn` starts the command (`/bin/sh -c COMMAND`) in a process group of its
 *   own, with stdin from /dev/null, stdout and stderr on this process's
 *   stderr (stdout is the event stream), and PR_SET_PDEATHSIG so that it
 *   dies with this process when this process is killed.
 * - `deregisteredFn` sends SIGTERM (then SIGCONT, for a stopped group) to the
 *   group, SIGKILL after the grace period, and returns a future that
 *   finishes when the command has exited. The library awaits it before it
 *   releases the lease (F5) and before a new `fn` runs (W3), so two
 *   copies never run at once, in this process or across the cluster.
 *
 * The grace period must fit in the safety margin
 * `(leaseDuration - renewInterval) / 2`: a leader that stops at its F4
 * deadline then kills the command before any other instance may take the
 * lease. attach() refuses a larger one.
 *
 * A command that exits by itself while leading is restarted with an
 * exponential back-off (OnExit::Restart) or makes the process step down
 * (OnExit::StepDown: stepDownRequested(), the caller stops cleanly).
 * Whatever the main process leaves behind in its group is killed when it
 * exits.
 */
class ExecSupervisor : public QObject
{
    Q_OBJECT
public:
    enum class OnExit { Restart, StepDown };

    struct Options
    {
        QString command;
        /*! Between SIGTERM and SIGKILL; negative: half the safety margin. */
        qint64 graceMs = -1;
        OnExit onExit = OnExit::Restart;
        qint64 restartDelayMs = 500;
        qint64 restartDelayMaxMs = 30000;
    };

    ExecSupervisor(ClusterService *cluster, Options options, QObject *parent = nullptr);
    ~ExecSupervisor() override;

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
    /*! The command's pid while it runs, else 0. */
    qint64 pid() const;
    bool isRunning() const;

Q_SIGNALS:
    /*! `exec-started` and `exec-stopped` records of the event stream (SPEC O5). */
    void event(const QJsonObject &record);
    void started(qint64 pid);
    /*! \a signal is 0 when it exited with \a exitCode. */
    void stopped(qint64 pid, int exitCode, int signal);
    /*! OnExit::StepDown: the command exited by itself while leading. */
    void stepDownRequested();

private:
    void onLeading();
    QFuture<void> onNotLeading();
    void startCommand();
    void onFinished(int exitCode, bool crashed);
    void killGroup(int signalNumber);
    void emitEvent(const QString &name, QJsonObject fields);

    QPointer<ClusterService> m_cluster;
    Options m_options;
    qint64 m_graceMs = 0;
    Remover m_registration;
    bool m_leading = false;
    QProcess *m_process = nullptr;
    qint64 m_pid = 0;
    bool m_terminating = false;
    bool m_killed = false;
    qint64 m_restartDelayMs = 0;
    QElapsedTimer m_running;
    QTimer m_restartTimer;
    QTimer m_graceTimer;
    std::shared_ptr<QPromise<void>> m_exited;
};

} // namespace baton
