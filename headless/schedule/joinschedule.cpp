// `baton join --schedule`: the part of JoinCommand that sets up the
// ScheduledRunner, kept beside it rather than in joincommand.cpp.

#include "joincommand.h"

#include "electionmetrics.h"
#include "scheduledrunner.h"

#include <baton/clusterservice.h>

namespace baton {

bool JoinCommand::attachSchedule(QString *errorString)
{
    ClusterService *cluster = m_clusters.first();
    ScheduledRunner::Options options;
    QString problem;
    const auto schedule = TickSchedule::parse(m_options.schedule, &problem);
    if (!schedule) {
        *errorString = QStringLiteral("--schedule %1").arg(problem);
        return false;
    }
    options.schedule = *schedule;
    options.command = m_options.exec;
    options.graceMs = m_options.graceMs;
    options.onInterrupted = m_options.rerunInterrupted ? ScheduledRunner::OnInterrupted::Rerun
                                                       : ScheduledRunner::OnInterrupted::Skip;
    options.catchUpMs = m_options.catchUpMs;
    options.overlap = m_options.queueOverlap ? ScheduledRunner::Overlap::Queue : ScheduledRunner::Overlap::Skip;
    m_schedule = new ScheduledRunner(cluster, options);
    // The run records live where the lease lives.
    if (!m_schedule->attach(errorString))
        return false;
    if (m_options.eventsJson)
        connect(m_schedule, &ScheduledRunner::event, this, &JoinCommand::writeEvent);
    return true;
}

void JoinCommand::followScheduleMetrics()
{
    const QString lease = m_clusters.first()->leaseName();
    const TickSchedule schedule = *TickSchedule::parse(m_options.schedule, nullptr);
    // Cron ticks need not be evenly spaced: the gap after the next tick stands for all.
    const QDateTime next = schedule.nextAfter(QDateTime::currentDateTimeUtc());
    const QDateTime after = schedule.nextAfter(next);
    m_metrics->followSchedule(lease, next.isValid() && after.isValid() ? double(next.secsTo(after)) : 0);
    connect(m_schedule, &ScheduledRunner::event, m_metrics, &ElectionMetrics::record);
}

} // namespace baton
