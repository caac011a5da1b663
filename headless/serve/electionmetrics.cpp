#include "electionmetrics.h"

#include <algorithm>

#include <baton/clock.h>

#include <baton/clusterservice.h>
#include <batoninternal/isotime.h>

#include <QDateTime>
#include <QJsonObject>

namespace baton {

namespace {

const QStringList outcomes {QStringLiteral("acquired"), QStringLiteral("renewed"), QStringLiteral("held"),
                            QStringLiteral("conflict"), QStringLiteral("error"), QStringLiteral("abandoned")};

// Label values are escaped as the exposition format asks: backslash,
// double quote and line feed.
QString labelValue(const QString &value)
{
    QString escaped = value;
    escaped.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    escaped.replace(QLatin1Char('"'), QStringLiteral("\\\""));
    escaped.replace(QLatin1Char('\n'), QStringLiteral("\\n"));
    return QLatin1Char('"') + escaped + QLatin1Char('"');
}

QString number(double value)
{
    return QString::number(value, 'g', 12);
}

} // namespace

ElectionMetrics::ElectionMetrics(const Clock *clock, QObject *parent)
    : QObject(parent)
    , m_clock(clock ? clock : &Clock::system())
{
}

ElectionMetrics::~ElectionMetrics() = default;

const QList<double> &ElectionMetrics::latencyBuckets()
{
    static const QList<double> buckets {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                        0.25,  0.5,    1.0,   2.5,  5.0,   10.0};
    return buckets;
}

ElectionMetrics::Lease &ElectionMetrics::leaseFor(const QString &name)
{
    auto it = m_leases.find(name);
    if (it == m_leases.end()) {
        Lease lease;
        for (const QString &outcome : outcomes)
            lease.attempts.insert(outcome, 0);
        lease.bucketCounts = QList<quint64>(latencyBuckets().size(), 0);
        it = m_leases.insert(name, lease);
    }
    return *it;
}

void ElectionMetrics::follow(ClusterService *cluster)
{
    Lease &lease = leaseFor(cluster->leaseName());
    lease.cluster = cluster;
    lease.identity = cluster->instanceId();
    lease.leaseDurationMs = cluster->timings().leaseDuration;
    lease.renewIntervalMs = cluster->timings().renewInterval;
    if (!cluster->type().endsWith(QLatin1String("/LocalClusterService"))) {
        // What it announces, from its first scrape on; its roster's events follow.
        const QJsonObject parameters = cluster->parameters();
        lease.liveCandidates = std::max(lease.liveCandidates, 1);
        lease.priority = parameters.value(QStringLiteral("priority")).toInt(lease.priority);
        lease.drained = lease.drained || parameters.value(QStringLiteral("standby")).toBool();
    }
    connect(cluster, &ClusterService::electionEvent, this, &ElectionMetrics::record);
}

void ElectionMetrics::followExec(const QString &lease)
{
    leaseFor(lease).execFollowed = true;
}

void ElectionMetrics::followSchedule(const QString &lease, double intervalSeconds)
{
    Lease &followed = leaseFor(lease);
    followed.scheduleIntervalSeconds = intervalSeconds;
    for (const char *outcome : {"succeeded", "failed", "interrupted", "skipped"})
        followed.runs[QLatin1String(outcome)] += 0;
}

void ElectionMetrics::record(const QJsonObject &event)
{
    Lease &lease = leaseFor(event.value(QStringLiteral("lease")).toString());
    if (lease.identity.isEmpty())
        lease.identity = event.value(QStringLiteral("instance")).toString();
    const QString name = event.value(QStringLiteral("event")).toString();
    const qint64 mono = qint64(event.value(QStringLiteral("mono")).toDouble());
    if (name == QLatin1String("started-leading")) {
        lease.leading = true;
        lease.lastToken = qint64(event.value(QStringLiteral("token")).toDouble());
    } else if (name == QLatin1String("stopped-leading")) {
        lease.leading = false;
    } else if (name == QLatin1String("leader-changed")) {
        lease.lastHolder = event.value(QStringLiteral("to")).toString();
    } else if (name == QLatin1String("attempt")) {
        const QString outcome = event.value(QStringLiteral("outcome")).toString();
        ++lease.attempts[outcome];
        const qint64 latencyMs = qint64(event.value(QStringLiteral("latencyMs")).toDouble());
        const double seconds = double(latencyMs) / 1000.0;
        for (qsizetype i = 0; i < latencyBuckets().size(); ++i)
            if (seconds <= latencyBuckets().at(i))
                ++lease.bucketCounts[i];
        lease.latencySumSeconds += seconds;
        ++lease.latencyCount;
        lease.lastLatencyMs = latencyMs;
        if (outcome == QLatin1String("acquired") || outcome == QLatin1String("renewed")) {
            // Display only (a timestamp, as Prometheus wants it): the wall clock of the record.
            const QDateTime ts = isotime::parse(event.value(QStringLiteral("ts")).toString());
            if (ts.isValid())
                lease.lastRenewalEpochSeconds = double(ts.toMSecsSinceEpoch()) / 1000.0;
        }
        // An abandoned request was never answered: the watch saw the release.
        if (outcome != QLatin1String("error") && outcome != QLatin1String("abandoned"))
            lease.lastAnswerMono = mono;
    } else if (name == QLatin1String("identity-conflict")) {
        ++lease.identityConflicts;
    } else if (name == QLatin1String("handover-requested")) {
        ++lease.handoverRequests;
    } else if (name == QLatin1String("handed-over")) {
        if (event.value(QStringLiteral("handedOver")).toBool())
            ++lease.handovers;
    } else if (name == QLatin1String("reserved-for")) {
        ++lease.reservationsSeen;
    } else if (name == QLatin1String("candidates")) {
        lease.liveCandidates = event.value(QStringLiteral("live")).toInt();
        lease.priority = event.value(QStringLiteral("priority")).toInt();
        lease.drained = event.value(QStringLiteral("drained")).toBool();
    } else if (name == QLatin1String("candidate-drained")) {
        lease.drained = event.value(QStringLiteral("drained")).toBool();
    } else if (name == QLatin1String("exec-started")) {
        lease.execRunning = true;
        ++lease.execStarts;
    } else if (name == QLatin1String("exec-stopped")) {
        lease.execRunning = false;
    } else if (name == QLatin1String("run-finished")) {
        // "failed: exit code 3" counts as failed: one series per kind, not per code.
        const QString outcome = event.value(QStringLiteral("outcome")).toString().section(QLatin1Char(':'), 0, 0);
        ++lease.runs[outcome];
        const QDateTime ts = isotime::parse(event.value(QStringLiteral("ts")).toString());
        if (outcome == QLatin1String("succeeded") && ts.isValid())
            lease.lastSuccessEpochSeconds = double(ts.toMSecsSinceEpoch()) / 1000.0;
    } else if (name == QLatin1String("run-skipped")) {
        ++lease.runs[QStringLiteral("skipped")];
    }
}

void ElectionMetrics::countDrops(std::function<quint64()> eventRecords, std::function<quint64()> logLines)
{
    m_eventRecordsDropped = std::move(eventRecords);
    m_logLinesDropped = std::move(logLines);
}

QStringList ElectionMetrics::leaseNames() const
{
    return m_leases.keys();
}

QByteArray ElectionMetrics::render() const
{
    QString out;
    auto family = [&out](const char *name, const char *type, const char *help) {
        out += QStringLiteral("# HELP %1 %2\n# TYPE %1 %3\n")
                       .arg(QLatin1String(name), QLatin1String(help), QLatin1String(type));
    };
    auto sample = [&out](const QString &name, const QString &labels, const QString &value) {
        out += name + QLatin1Char('{') + labels + QStringLiteral("} ") + value + QLatin1Char('\n');
    };
    auto leaseLabel = [](const QString &name) { return QStringLiteral("lease=") + labelValue(name); };
    auto flag = [](bool value) { return value ? QStringLiteral("1") : QStringLiteral("0"); };

    // The label is `identity`, not `instance`: Prometheus sets `instance`
    // to the scraped address and would rename ours `exported_instance`.
    family("baton_is_leader", "gauge", "Whether this instance leads the lease now (its step-down deadline checked).");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        sample(QStringLiteral("baton_is_leader"),
               leaseLabel(it.key()) + QStringLiteral(",identity=") + labelValue(it->identity),
               flag(isLeading(*it)));
    family("baton_leader_info", "gauge", "The holder of the lease as this instance last saw it (empty: none).");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        sample(QStringLiteral("baton_leader_info"),
               leaseLabel(it.key()) + QStringLiteral(",holder=")
                       + labelValue(it->cluster ? it->cluster->currentHolder() : it->lastHolder),
               QStringLiteral("1"));
    family("baton_leader_transitions_total", "counter",
           "Terms of the lease (its leaseTransitions) as last read from the store, as baton status shows them.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        sample(QStringLiteral("baton_leader_transitions_total"), leaseLabel(it.key()),
               QString::number(it->cluster ? it->cluster->leaseTransitions() : it->lastToken));
    family("baton_attempts_total", "counter", "Attempts to acquire or renew, by outcome.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        for (auto a = it->attempts.constBegin(); a != it->attempts.constEnd(); ++a)
            sample(QStringLiteral("baton_attempts_total"),
                   leaseLabel(it.key()) + QStringLiteral(",outcome=") + labelValue(a.key()),
                   QString::number(a.value()));
    family("baton_attempt_latency_seconds", "histogram", "Latency of the attempts against the store.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it) {
        for (qsizetype i = 0; i < latencyBuckets().size(); ++i)
            sample(QStringLiteral("baton_attempt_latency_seconds_bucket"),
                   leaseLabel(it.key()) + QStringLiteral(",le=") + labelValue(number(latencyBuckets().at(i))),
                   QString::number(it->bucketCounts.at(i)));
        sample(QStringLiteral("baton_attempt_latency_seconds_bucket"),
               leaseLabel(it.key()) + QStringLiteral(",le=\"+Inf\""), QString::number(it->latencyCount));
        sample(QStringLiteral("baton_attempt_latency_seconds_sum"), leaseLabel(it.key()),
               number(it->latencySumSeconds));
        sample(QStringLiteral("baton_attempt_latency_seconds_count"), leaseLabel(it.key()),
               QString::number(it->latencyCount));
    }
    family("baton_last_attempt_latency_seconds", "gauge", "Latency of the last attempt (NaN before the first).");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        sample(QStringLiteral("baton_last_attempt_latency_seconds"), leaseLabel(it.key()),
               it->lastLatencyMs >= 0 ? number(double(it->lastLatencyMs) / 1000.0) : QStringLiteral("NaN"));
    family("baton_last_renewal_timestamp_seconds", "gauge",
           "When this instance last acquired or renewed the lease, Unix time (0: never).");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        sample(QStringLiteral("baton_last_renewal_timestamp_seconds"), leaseLabel(it.key()),
               number(it->lastRenewalEpochSeconds));
    family("baton_lease_duration_seconds", "gauge", "The configured leaseDuration.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        if (it->leaseDurationMs > 0)
            sample(QStringLiteral("baton_lease_duration_seconds"), leaseLabel(it.key()),
                   number(double(it->leaseDurationMs) / 1000.0));
    family("baton_renew_interval_seconds", "gauge", "The configured renewInterval.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        if (it->renewIntervalMs > 0)
            sample(QStringLiteral("baton_renew_interval_seconds"), leaseLabel(it.key()),
                   number(double(it->renewIntervalMs) / 1000.0));
    family("baton_ready", "gauge", "Whether the store answered within the lease duration, as /readyz says.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        if (it->leaseDurationMs > 0)
            sample(QStringLiteral("baton_ready"), leaseLabel(it.key()),
                   flag(notReadyReason(it.key(), *it).isEmpty()));
    family("baton_identity_conflicts_total", "counter",
           "Times another process was seen holding the lease under this instance's id: two "
           "processes configured with one instanceId (this one waits for the other's lease to end).");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        sample(QStringLiteral("baton_identity_conflicts_total"), leaseLabel(it.key()),
               QString::number(it->identityConflicts));
    family("baton_handover_requests_total", "counter",
           "Times this instance, leading, was asked to hand the lease over to another instance.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        sample(QStringLiteral("baton_handover_requests_total"), leaseLabel(it.key()),
               QString::number(it->handoverRequests));
    family("baton_handovers_total", "counter",
           "Times this instance handed the lease over: left it free and kept for the instance named.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        sample(QStringLiteral("baton_handovers_total"), leaseLabel(it.key()), QString::number(it->handovers));
    family("baton_lease_reservations_seen_total", "counter",
           "Times this instance saw the lease free but kept for another instance, which nobody else may take.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        sample(QStringLiteral("baton_lease_reservations_seen_total"), leaseLabel(it.key()),
               QString::number(it->reservationsSeen));
    // Only the leases with candidates (not a local election), and only
    // when there is one: a family is never there without a sample.
    const bool steered = std::any_of(m_leases.cbegin(), m_leases.cend(),
                                     [](const Lease &lease) { return lease.liveCandidates >= 0; });
    if (steered) {
        family("baton_candidates", "gauge",
               "Live candidates for the lease as this instance last listed them, itself included.");
        for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
            if (it->liveCandidates >= 0)
                sample(QStringLiteral("baton_candidates"), leaseLabel(it.key()), QString::number(it->liveCandidates));
        family("baton_priority", "gauge", "This instance's priority for the lease: the lease moves to a higher one.");
        for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
            if (it->liveCandidates >= 0)
                sample(QStringLiteral("baton_priority"), leaseLabel(it.key()), QString::number(it->priority));
        family("baton_drained", "gauge",
               "Whether this instance is drained for the lease: it hands it over and takes none while another "
               "candidate can lead.");
        for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
            if (it->liveCandidates >= 0)
                sample(QStringLiteral("baton_drained"), leaseLabel(it.key()), flag(it->drained));
    }
    family("baton_exec_running", "gauge", "Whether the --exec command runs now.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        if (it->execFollowed || it->execStarts > 0)
            sample(QStringLiteral("baton_exec_running"), leaseLabel(it.key()), flag(it->execRunning));
    family("baton_exec_starts_total", "counter", "Times the --exec command was started.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        if (it->execFollowed || it->execStarts > 0)
            sample(QStringLiteral("baton_exec_starts_total"), leaseLabel(it.key()),
                   QString::number(it->execStarts));
    // Only a process with --schedule has these families, each with a sample of its lease.
    const bool scheduled = std::any_of(m_leases.cbegin(), m_leases.cend(),
                                       [](const Lease &lease) { return !lease.runs.isEmpty(); });
    if (scheduled) {
        family("baton_schedule_runs_total", "counter",
               "Runs of the --schedule command by outcome: succeeded, failed, interrupted (its leadership "
               "ended), skipped (the previous run was still going).");
        for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
            for (auto run = it->runs.constBegin(); run != it->runs.constEnd(); ++run)
                sample(QStringLiteral("baton_schedule_runs_total"),
                       leaseLabel(it.key()) + QStringLiteral(",outcome=") + labelValue(run.key()),
                       QString::number(run.value()));
        family("baton_schedule_interval_seconds", "gauge", "About the time between two ticks of the --schedule.");
        for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
            if (!it->runs.isEmpty())
                sample(QStringLiteral("baton_schedule_interval_seconds"), leaseLabel(it.key()),
                       number(it->scheduleIntervalSeconds));
        family("baton_schedule_last_success_timestamp_seconds", "gauge",
               "When the last successful run of the --schedule command ended here (Unix time; 0: none seen).");
        for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
            if (!it->runs.isEmpty())
                sample(QStringLiteral("baton_schedule_last_success_timestamp_seconds"), leaseLabel(it.key()),
                       number(it->lastSuccessEpochSeconds));
    }
    if (m_eventRecordsDropped) {
        family("baton_events_dropped_total", "counter",
               "Event records not written to stdout because its reader did not keep up.");
        out += QStringLiteral("baton_events_dropped_total %1\n").arg(m_eventRecordsDropped());
    }
    if (m_logLinesDropped) {
        family("baton_log_lines_dropped_total", "counter",
               "Log lines not written because stderr (the journal, a file) did not take them in time.");
        out += QStringLiteral("baton_log_lines_dropped_total %1\n").arg(m_logLinesDropped());
    }
    return out.toUtf8();
}

bool ElectionMetrics::isLeading(const Lease &lease)
{
    // The service compares its F4 deadline with the clock now; the events
    // alone only say what it last announced.
    return lease.cluster ? lease.cluster->isLeader() : lease.leading;
}

QString ElectionMetrics::notReadyReason(const QString &name, const Lease &lease) const
{
    if (lease.leaseDurationMs <= 0)
        return {}; // a lease only seen in events: nothing to judge by
    if (lease.lastAnswerMono < 0)
        return QStringLiteral("lease %1: the store has not answered yet").arg(name);
    const qint64 silentMs = m_clock->monotonicMs() - lease.lastAnswerMono;
    if (silentMs > lease.leaseDurationMs)
        return QStringLiteral("lease %1: the store last answered %2 ms ago, longer than the lease (%3 ms)")
                .arg(name)
                .arg(silentMs)
                .arg(lease.leaseDurationMs);
    return {};
}

ElectionMetrics::Readiness ElectionMetrics::readiness() const
{
    Readiness readiness;
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it) {
        const QString reason = notReadyReason(it.key(), *it);
        if (!reason.isEmpty())
            readiness.reasons.append(reason);
    }
    readiness.ready = readiness.reasons.isEmpty();
    return readiness;
}

ElectionMetrics::Leadership ElectionMetrics::leadership(const QString &name) const
{
    Leadership leadership;
    const auto it = m_leases.constFind(name);
    if (it == m_leases.constEnd())
        return leadership;
    if (!it->cluster) {
        leadership.holder = it->lastHolder;
        return leadership; // without the service there is no F4 deadline to check
    }
    // Read once: a deadline that passes between two calls must not give
    // "leading" with 0 ms left.
    const qint64 remainingMs = it->cluster->remainingLeadershipMs();
    leadership.leading = remainingMs != 0;
    leadership.holder = leadership.leading ? it->identity : it->cluster->currentHolder();
    if (leadership.leading) {
        leadership.fencingToken = it->cluster->fencingToken();
        // The only instance (no bound) answers with a whole lease: /leader's
        // readers take the number as time left, and none of it runs out.
        leadership.validForMs = remainingMs < 0 ? it->cluster->timings().leaseDuration : remainingMs;
    }
    return leadership;
}

} // namespace baton
