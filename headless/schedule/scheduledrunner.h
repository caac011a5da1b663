#pragma once

#include <batoninternal/runledger.h>
#include <batoninternal/tickplanner.h>
#include <batoninternal/tickschedule.h>

#include <baton/remover.h>

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <optional>

namespace baton {

class ClusterService;
class ExecSupervisor;
class Store;

/*!
 * `baton join --schedule SPEC --exec CMD`: runs the command on the leader
 * once per tick of the schedule.
 *
 * Before a tick runs, its run record is created in the store (RunLedger:
 * a conditional create carrying the fencing token), so that of the
 * instances that reach a tick one at most runs it, whatever their clocks
 * say. The command runs under the exec guard (ExecSupervisor, one per run),
 * with BATON_TICK beside BATON_FENCING_TOKEN; a leadership that ends
 * stops it as --exec does, and its record says "interrupted".
 *
 * When this instance becomes the leader it reads the records: a run left
 * "running" by an earlier leadership is marked interrupted, and run again
 * under onInterrupted Rerun; the latest tick nobody started runs once if
 * it is within the catch-up window. A tick that comes while a run is still
 * going is skipped (recorded) or queued (once), by policy.
 *
 * A schedule is a matter of the wall clock by definition: the wall clock
 * says when a tick is due; leadership and its deadlines stay on the boot
 * clock (the election and the guard).
 *
 * The decisions are TickPlanner's; this class carries them out with a
 * timer, the ledger and the command.
 */
class ScheduledRunner : public QObject
{
    Q_OBJECT
public:
    using OnInterrupted = TickPlanner::OnInterrupted;
    using Overlap = TickPlanner::Overlap;

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

    ScheduledRunner(ClusterService *cluster, Store *store, Options options, QObject *parent = nullptr);
    ~ScheduledRunner() override;

    /*! Registers with whenLeader(); false with \a errorString when the grace does not fit. */
    bool attach(QString *errorString);
    qint64 graceMs() const { return m_graceMs; }

Q_SIGNALS:
    /*! run-started, run-finished and run-skipped records of the event stream, and the command's own. */
    void event(const QJsonObject &record);

private:
    void onLeading();
    void onNotLeading();
    void armTimer();
    void carryOut(const QList<TickPlanner::Action> &actions);
    void answerClaim(bool ok, const RunRecord &record, const QString &error);
    void startRun(const RunRecord &record);
    void onRunStopped(int exitCode, int signal, bool byLeadershipEnd);
    void emitEvent(const QString &name, const QJsonObject &fields);

    QPointer<ClusterService> m_cluster;
    RunLedger m_ledger;
    Options m_options;
    TickPlanner m_planner;
    qint64 m_graceMs = -1;
    Remover m_registration;
    QTimer m_timer;
    /*! The command of the run going on here. */
    ExecSupervisor *m_exec = nullptr;
};

} // namespace baton
