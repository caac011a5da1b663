#pragma once

#include <batoninternal/tickschedule.h>

#include <baton/leaderschedule.h>

#include <QJsonObject>
#include <QObject>
#include <QPointer>

namespace baton {

class ClusterService;
class ExecSupervisor;

/*!
 * `baton join --schedule SPEC --exec CMD`: runs the command on the leader
 * once per tick of the schedule.
 *
 * The ticks, their run records and the failover and overlap policies are
 * LeaderSchedule's (the library's, as a Qt program uses it): of the
 * instances that reach a tick one at most runs it, whatever their clocks
 * say. This class adds the command: it runs under the exec guard
 * (ExecSupervisor, one per run), with BATON_TICK beside
 * BATON_FENCING_TOKEN; a leadership that ends stops it as --exec does, and
 * its record says "interrupted". Its exit status is the run's outcome.
 *
 * A schedule is a matter of the wall clock by definition: the wall clock
 * says when a tick is due; leadership and its deadlines stay on the boot
 * clock (the election and the guard).
 */
class ScheduledRunner : public QObject
{
    Q_OBJECT
public:
    using OnInterrupted = LeaderSchedule::OnInterrupted;
    using Overlap = LeaderSchedule::Overlap;

    struct Options
    {
        TickSchedule schedule;
        QString command;
        /*! As --grace; negative: half the safety margin. */
        qint64 graceMs = -1;
        OnInterrupted onInterrupted = OnInterrupted::Skip;
        /*! How late a tick nobody started may still run once; 0: never. */
        qint64 catchUpMs = 0;
        Overlap overlap = Overlap::Skip;
    };

    /*! The run records go where \a cluster keeps its lease. */
    ScheduledRunner(ClusterService *cluster, Options options, QObject *parent = nullptr);
    ~ScheduledRunner() override;

    /*! Starts the schedule; false with \a errorString when the grace does not fit or the records have nowhere to go. */
    bool attach(QString *errorString);
    qint64 graceMs() const { return m_graceMs; }

Q_SIGNALS:
    /*! run-started, run-finished and run-skipped records of the event stream, and the command's own. */
    void event(const QJsonObject &record);

private:
    void startRun(const RunId &run);
    void onRunStopped(int exitCode, int signal, bool byLeadershipEnd);
    void onInterrupted(const RunId &run);
    void disposeExec();
    void emitEvent(const QString &name, const QJsonObject &fields);

    QPointer<ClusterService> m_cluster;
    Options m_options;
    qint64 m_graceMs = -1;
    LeaderSchedule m_schedule;
    /*! The run going on here (invalid once settled), and its command. */
    RunId m_run;
    ExecSupervisor *m_exec = nullptr;
};

} // namespace baton
