// The cluster service's part of steering the leadership (H1): a handover
// asked for here or seen in the lease, told in events and logs.
#include "clusterservice_p.h"

#include "handoverrequest.h"
#include "leaseprotocol.h"
#include "logging.h"
#include "registrations.h"

namespace baton {

bool ClusterServicePrivate::performSteering(const ElectorAction &a)
{
    auto who = [](const QString &id) { return id == anySuccessor ? QStringLiteral("any instance") : id; };
    if (const auto *asked = std::get_if<action::HandoverRequested>(&a)) {
        qCInfo(lcElection).noquote()
                << QStringLiteral("%1: %2 hands the lease over to %3, asked by %4")
                           .arg(leaseName, params.identity, who(asked->to),
                                asked->by.isEmpty() ? QStringLiteral("(unknown)") : asked->by);
        emitEvent(QStringLiteral("handover-requested"),
                  {{QStringLiteral("to"), asked->to}, {QStringLiteral("by"), asked->by}});
        return true;
    }
    if (const auto *handed = std::get_if<action::HandedOver>(&a)) {
        if (handed->done)
            qCInfo(lcElection).noquote() << QStringLiteral("%1: %2 handed the lease over to %3")
                                                    .arg(leaseName, params.identity, who(handed->to));
        else
            qCWarning(lcElection).noquote()
                    << QStringLiteral("%1: handover to %2 not written: %3")
                               .arg(leaseName, who(handed->to), handed->detail);
        QJsonObject fields {{QStringLiteral("to"), handed->to},
                            {QStringLiteral("handedOver"), handed->done}};
        if (!handed->done)
            fields.insert(QStringLiteral("error"), handed->detail);
        emitEvent(QStringLiteral("handed-over"), fields);
        return true;
    }
    if (const auto *reserved = std::get_if<action::ReservedFor>(&a)) {
        qCInfo(lcElection).noquote()
                << QStringLiteral("%1: the lease is kept for %2; nobody else takes it for %3 ms")
                           .arg(leaseName, reserved->to)
                           .arg(reserved->forMs);
        emitEvent(QStringLiteral("reserved-for"), {{QStringLiteral("to"), reserved->to},
                                                   {QStringLiteral("forMs"), double(reserved->forMs)}});
        return true;
    }
    return false;
}

void ClusterServicePrivate::handOverWhenIdle()
{
    if (!elector || stopping || stopFinished || !elector->awaitingHandover())
        return;
    if (registrations->isLeading() || !registrations->isIdle())
        return;
    disconnect(registrations, &Registrations::idle, this, &ClusterServicePrivate::handOverWhenIdle);
    execute(elector->handOver());
}

void ClusterServicePrivate::requestHandover(const QString &to, const QString &requestedBy)
{
    if (!started || stopping || !elector)
        return;
    if (elector->isLeader()) {
        execute(elector->requestHandover(to, requestedBy));
        return;
    }
    handoverrequest::send(protocol.get(), leaseName, to, requestedBy,
                          [](bool ok, const QString &message) {
        if (ok)
            qCInfo(lcElection).noquote() << message;
        else
            qCWarning(lcElection).noquote() << QStringLiteral("handover not asked: ") + message;
    });
}

} // namespace baton
