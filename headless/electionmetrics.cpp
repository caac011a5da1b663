#include "electionmetrics.h"

#include "clock.h"

#include <baton/clusterservice.h>

#include <QJsonObject>

namespace baton {

namespace {

const QStringList outcomes {QStringLiteral("acquired"), QStringLiteral("renewed"), QStringLiteral("held"),
                            QStringLiteral("conflict"), QStringLiteral("error")};

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
    lease.instance = cluster->instanceId();
    lease.leaseDurationMs = cluster->timings().leaseDuration;
    connect(cluster, &ClusterService::electionEvent, this, &ElectionMetrics::record);
}

void ElectionMetrics::record(const QJsonObject &event)
{
    Lease &lease = leaseFor(event.value(QStringLiteral("lease")).toString());
    const QString name = event.value(QStringLiteral("event")).toString();
    const qint64 mono = qint64(event.value(QStringLiteral("mono")).toDouble());
    if (name == QLatin1String("started-leading")) {
        lease.leading = true;
    } else if (name == QLatin1String("stopped-leading")) {
        lease.leading = false;
    } else if (name == QLatin1String("leader-changed")) {
        ++lease.transitions;
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
        if (outcome == QLatin1String("acquired") || outcome == QLatin1String("renewed"))
            lease.lastRenewalMono = mono;
        if (outcome == QLatin1String("error")) {
            if (lease.failingSinceMono < 0)
                lease.failingSinceMono = mono - latencyMs; // the failing attempt began then
        } else {
            lease.failingSinceMono = -1; // the store answered
        }
    } else if (name == QLatin1String("exec-started")) {
        lease.execRunning = true;
        ++lease.execStarts;
    } else if (name == QLatin1String("exec-stopped")) {
        lease.execRunning = false;
    }
}

QByteArray ElectionMetrics::render() const
{
    const qint64 now = m_clock->monotonicMs();
    QString out;
    auto family = [&out](const char *name, const char *type, const char *help) {
        out += QStringLiteral("# HELP %1 %2\n# TYPE %1 %3\n")
                       .arg(QLatin1String(name), QLatin1String(help), QLatin1String(type));
    };
    auto sample = [&out](const QString &name, const QString &labels, const QString &value) {
        out += name + QLatin1Char('{') + labels + QStringLiteral("} ") + value + QLatin1Char('\n');
    };
    auto leaseLabel = [](const QString &name) { return QStringLiteral("lease=") + labelValue(name); };

    family("baton_is_leader", "gauge", "Whether this instance leads the lease now (F4 deadline checked).");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it) {
        const bool leads = it->cluster ? it->cluster->isLeader() : it->leading;
        sample(QStringLiteral("baton_is_leader"),
               leaseLabel(it.key()) + QStringLiteral(",instance=") + labelValue(it->instance),
               leads ? QStringLiteral("1") : QStringLiteral("0"));
    }
    family("baton_leader_transitions_total", "counter", "Holder changes this instance has seen.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        sample(QStringLiteral("baton_leader_transitions_total"), leaseLabel(it.key()),
               QString::number(it->transitions));
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
    family("baton_last_attempt_latency_seconds", "gauge", "Latency of the last attempt.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        if (it->lastLatencyMs >= 0)
            sample(QStringLiteral("baton_last_attempt_latency_seconds"), leaseLabel(it.key()),
                   number(double(it->lastLatencyMs) / 1000.0));
    family("baton_seconds_since_last_renewal", "gauge",
           "Since this instance last acquired or renewed the lease (absent before it first did).");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        if (it->lastRenewalMono >= 0)
            sample(QStringLiteral("baton_seconds_since_last_renewal"), leaseLabel(it.key()),
                   number(double(now - it->lastRenewalMono) / 1000.0));
    family("baton_lease_duration_seconds", "gauge", "The configured leaseDuration.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        if (it->leaseDurationMs > 0)
            sample(QStringLiteral("baton_lease_duration_seconds"), leaseLabel(it.key()),
                   number(double(it->leaseDurationMs) / 1000.0));
    family("baton_exec_running", "gauge", "Whether the --exec command runs now.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        if (it->execStarts > 0)
            sample(QStringLiteral("baton_exec_running"), leaseLabel(it.key()),
                   it->execRunning ? QStringLiteral("1") : QStringLiteral("0"));
    family("baton_exec_starts_total", "counter", "Times the --exec command was started.");
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it)
        if (it->execStarts > 0)
            sample(QStringLiteral("baton_exec_starts_total"), leaseLabel(it.key()),
                   QString::number(it->execStarts));
    return out.toUtf8();
}

ElectionMetrics::Health ElectionMetrics::health() const
{
    const qint64 now = m_clock->monotonicMs();
    Health health;
    for (auto it = m_leases.constBegin(); it != m_leases.constEnd(); ++it) {
        if (it->leading && it->cluster && !it->cluster->isLeader())
            health.reasons.append(QStringLiteral("lease %1: leading by its events, but past its step-down "
                                                 "deadline (F4)")
                                          .arg(it.key()));
        if (it->failingSinceMono >= 0 && it->leaseDurationMs > 0
            && now - it->failingSinceMono > it->leaseDurationMs)
            health.reasons.append(QStringLiteral("lease %1: every attempt failed for %2 ms, longer than the "
                                                 "lease (%3 ms): the store is unreachable")
                                          .arg(it.key())
                                          .arg(now - it->failingSinceMono)
                                          .arg(it->leaseDurationMs));
    }
    health.healthy = health.reasons.isEmpty();
    return health;
}

} // namespace baton
