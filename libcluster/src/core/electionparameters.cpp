#include "clusterservice_p.h"

#include "parameters.h"

#include <batoninternal/durationtext.h>
#include <batoninternal/labelselector.h>
#include <baton/electionoptions.h>

#include <QCoreApplication>
#include <QRandomGenerator>
#include <QSysInfo>

namespace baton {

namespace {

// The least time an attempt may have for the store's answer: a round trip
// to etcd or the Kubernetes API, TLS included, on a loaded host.
constexpr qint64 kMinAttemptWindowMs = 100;

QString defaultInstanceId()
{
    // P2: host name and pid repeat across containers; the random part does not.
    QString host = qEnvironmentVariable("HOSTNAME");
    if (host.isEmpty())
        host = QSysInfo::machineHostName();
    const quint32 random = QRandomGenerator::system()->generate();
    return QStringLiteral("%1-%2-%3")
            .arg(host)
            .arg(QCoreApplication::applicationPid())
            .arg(random, 8, 16, QLatin1Char('0'));
}

QString drawIncarnation()
{
    // R5: drawn at each start, never configured, so that two processes
    // given one instanceId are still told apart by the record.
    const quint64 random = QRandomGenerator::system()->generate64();
    return QStringLiteral("%1").arg(random, 16, 16, QLatin1Char('0'));
}

} // namespace

ElectionTimings ElectionTimings::forParameters(qint64 leaseDuration, qint64 renewInterval)
{
    ElectionTimings t;
    t.leaseDuration = leaseDuration;
    t.renewInterval = renewInterval;
    t.worstCrashFailover = leaseDuration + renewInterval;
    t.cleanHandover = renewInterval;
    t.stepDownDeadline = (leaseDuration + renewInterval) / 2;
    t.safetyMargin = leaseDuration - t.stepDownDeadline;
    // A follower waits leaseDuration on its clock, the leader stops after
    // stepDownDeadline on its own: safe while the leader's clock runs no
    // slower than stepDownDeadline / leaseDuration of the follower's.
    t.toleratedClockDrift = leaseDuration > 0
            ? 1.0 - double(t.stepDownDeadline) / double(leaseDuration)
            : 0.0;
    return t;
}

QString ElectionTimings::explain() const
{
    return QStringLiteral(
                   "lease %1 ms, renewal every %2 ms\n"
                   "  crash failover: within %3 ms of the leader's last renewal (about %1 ms "
                   "where the follower saw that renewal)\n"
                   "  clean handover: milliseconds where the store can watch, else within %4 ms\n"
                   "  the leader stops leading %5 ms after the start of its last successful "
                   "attempt\n"
                   "  safety margin: %6 ms between that deadline and the earliest takeover\n"
                   "  tolerated clock-rate difference between hosts: %7 %")
            .arg(leaseDuration)
            .arg(renewInterval)
            .arg(worstCrashFailover)
            .arg(cleanHandover)
            .arg(stepDownDeadline)
            .arg(safetyMargin)
            .arg(toleratedClockDrift * 100.0, 0, 'f', 1);
}

QStringList clusterParameterNames()
{
    return {QStringLiteral("leaseDuration"), QStringLiteral("renewInterval"),
            QStringLiteral("leaseName"), QStringLiteral("instanceId")};
}

QStringList steeringParameterNames()
{
    return {QStringLiteral("priority"), QStringLiteral("preferAfter"), QStringLiteral("standby"),
            QStringLiteral("labels")};
}

bool ClusterServicePrivate::readParameters(QString *errorString)
{
    ParameterReader reader(ParameterReader::describeService(q->name(), q->type()),
                           q->parameters());
    // One set of defaults for the file and for code (ElectionOptions).
    const ElectionOptions defaults;
    const qint64 leaseDurationMs = reader.duration(QStringLiteral("leaseDuration"),
                                                   defaults.leaseDuration.count());
    const qint64 renewIntervalMs = reader.duration(QStringLiteral("renewInterval"),
                                                   defaults.renewInterval.count());
    if (reader.ok() && renewIntervalMs >= leaseDurationMs)
        reader.refuse(QStringLiteral("renewInterval"),
                      reader.has(QStringLiteral("renewInterval"))
                              ? reader.value(QStringLiteral("renewInterval"))
                              : QJsonValue(double(renewIntervalMs)),
                      QStringLiteral("it must be lower than \"leaseDuration\" (%1 ms)")
                              .arg(leaseDurationMs));
    else if (reader.ok() && leaseDurationMs - renewIntervalMs < kMinAttemptWindowMs)
        // F3: each attempt has leaseDuration - renewInterval for the store's
        // answer; below the floor even a store on this host rarely answers
        // in time, and every attempt would fail "no answer within".
        reader.refuse(QStringLiteral("leaseDuration"),
                      reader.has(QStringLiteral("leaseDuration"))
                              ? reader.value(QStringLiteral("leaseDuration"))
                              : QJsonValue(double(leaseDurationMs)),
                      QStringLiteral("it leaves each attempt %1 (leaseDuration less renewInterval "
                                     "%2) to get the store's answer: it must be at least %3 more "
                                     "than renewInterval")
                              .arg(durationtext::format(leaseDurationMs - renewIntervalMs),
                                   durationtext::format(renewIntervalMs),
                                   durationtext::format(kMinAttemptWindowMs)));
    // Preference and drain: taken by the elections that have other candidates.
    const int priorityRead = int(reader.integer(QStringLiteral("priority"), defaults.priority, -1000, 1000));
    const qint64 preferAfter = reader.duration(QStringLiteral("preferAfter"), defaults.preferAfter.count(), 0);
    const bool standbyAtStart = reader.boolean(QStringLiteral("standby"), defaults.standby);
    CandidateLabels labelsRead;
    const QJsonObject labelsWritten = reader.block(QStringLiteral("labels"), QStringLiteral("{\"zone\": \"b\"}"));
    for (auto it = labelsWritten.constBegin(); it != labelsWritten.constEnd(); ++it) {
        const QString where = QStringLiteral("labels.") + it.key();
        QString why = it.value().isString() ? candidatelabels::checkKey(it.key())
                                            : QStringLiteral("a label's value is a string");
        if (why.isEmpty())
            why = candidatelabels::checkValue(it.value().toString());
        if (!why.isEmpty())
            reader.refuse(where, it.value(), why);
        else
            labelsRead.insert(it.key(), it.value().toString());
    }
    const QString name = reader.string(QStringLiteral("leaseName"), defaults.leaseName);
    const QString id = reader.string(QStringLiteral("instanceId"));
    if (!reader.ok()) {
        *errorString = reader.errorString();
        return false;
    }
    priority = priorityRead;
    preferAfterMs = preferAfter;
    standby = standbyAtStart;
    labels = labelsRead;
    params.leaseDurationMs = leaseDurationMs;
    params.renewIntervalMs = renewIntervalMs;
    leaseName = name;
    // An identity drawn by an earlier validate() is kept: the one printed
    // before the start is the one that joins.
    if (!id.isEmpty())
        params.identity = id;
    else if (params.identity.isEmpty())
        params.identity = defaultInstanceId();
    if (params.incarnation.isEmpty())
        params.incarnation = drawIncarnation();
    return true;
}

} // namespace baton
