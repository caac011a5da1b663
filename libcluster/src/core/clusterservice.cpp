#include "clusterservice_p.h"

#include <baton/clock.h>
#include "leaseprotocol.h"
#include "localleaseprotocol.h"
#include "logging.h"
#include "registrations.h"

#include "servicehost.h"

#include <QThread>

#include <algorithm>
#include <mutex>

namespace baton {

ClusterService::ClusterService(const QString &name, const QJsonObject &parameters,
                               Application *application)
    : Service(name, parameters, application)
    , d(std::make_unique<ClusterServicePrivate>(this))
{
}

ClusterService::~ClusterService() = default;

Remover ClusterService::addRegistration(LeaderCallback fn, LeaderCallback deregisteredFn,
                                        QObject *context)
{
    QPointer<Registrations> registrations = d->registrations;
    if (QThread::currentThread() == registrations->thread()) {
        const quint64 id = registrations->add(std::move(fn), std::move(deregisteredFn), context);
        return Remover([registrations, id] {
            if (registrations)
                registrations->remove(id);
        });
    }
    // W1 allows any code, so any thread: the registration is made in the
    // service's thread, and a removal that comes first cancels it.
    struct CrossThread
    {
        std::mutex mutex;
        quint64 id = 0;
        bool removed = false;
    };
    auto shared = std::make_shared<CrossThread>();
    QPointer<QObject> guardedContext = context;
    const bool hadContext = context != nullptr;
    QMetaObject::invokeMethod(
            registrations,
            [registrations, shared, fn = std::move(fn), dereg = std::move(deregisteredFn),
             guardedContext, hadContext] {
                std::lock_guard lock(shared->mutex);
                if (shared->removed || (hadContext && !guardedContext))
                    return;
                shared->id = registrations->add(fn, dereg, guardedContext);
            },
            Qt::QueuedConnection);
    return Remover([registrations, shared] {
        std::lock_guard lock(shared->mutex);
        shared->removed = true;
        if (shared->id != 0 && registrations)
            registrations->remove(shared->id);
    });
}

bool ClusterService::isLeader() const
{
    return d->isLeaderNow();
}

QString ClusterService::incarnation() const
{
    return d->params.incarnation;
}

int ClusterService::identityConflicts() const
{
    return d->identityConflicts;
}

QString ClusterService::instanceId() const
{
    return d->params.identity;
}

QString ClusterService::leaseName() const
{
    return d->leaseName;
}

qint64 ClusterService::fencingToken() const
{
    return d->elector ? d->elector->fencingToken() : -1;
}


qint64 ClusterService::leaseTransitions() const
{
    if (!d->elector || !d->elector->observed().exists)
        return 0;
    return d->elector->observed().record.transitions;
}

qint64 ClusterService::remainingLeadershipMs() const
{
    if (!d->isLeaderNow())
        return 0;
    if (d->unbounded)
        return -1; // nobody else could take it
    return std::max<qint64>(0, d->elector->validUntilMono() - d->clock->monotonicMs());
}

void ClusterService::handOver(const QString &to)
{
    d->requestHandover(to, d->params.identity);
}

QString ClusterService::currentHolder() const
{
    // The record as last read: a first sighting of another's lease is no
    // leader-changed event, but its holder is known all the same.
    if (d->elector && d->elector->observed().exists)
        return d->elector->observed().record.holder;
    return d->holder;
}

ElectionTimings ClusterService::timings() const
{
    return ElectionTimings::forParameters(d->params.leaseDurationMs, d->params.renewIntervalMs);
}

bool ClusterService::init(QString *errorString)
{
    if (d->started) {
        *errorString = QStringLiteral("service \"%1\" is already started").arg(name());
        return false;
    }
    if (!d->readParameters(errorString))
        return false;
    QString protocolError;
    std::unique_ptr<LeaseProtocol> protocol =
            d->makeProtocol ? d->makeProtocol(&protocolError) : nullptr;
    if (!protocol) {
        *errorString = protocolError.isEmpty()
                ? QStringLiteral("service \"%1\": no lease backend").arg(name())
                : protocolError;
        return false;
    }
    d->registrations->setObjectName(d->leaseName);
    d->registrations->setLeaseName(d->leaseName);
    d->unbounded = qobject_cast<LocalLeaseProtocol *>(protocol.get()) != nullptr;
    d->params.boundedByLease = !d->unbounded;
    d->protocol = std::move(protocol);
    qCInfo(lcElection).noquote() << QStringLiteral("%1: %2 joins the election for \"%3\" on %4")
                                            .arg(name(), d->params.identity, d->leaseName,
                                                 d->protocol->describeLease(d->leaseName));
    ServiceHost *host = ServiceHost::of(*this);
    if (host && !host->isStarted())
        connect(host, &ServiceHost::started, d.get(), &ClusterServicePrivate::startElection,
                Qt::SingleShotConnection);
    else
        d->startElection();
    return true;
}

bool ClusterService::validate(QString *errorString)
{
    return d->readParameters(errorString);
}

void ClusterService::stop()
{
    d->beginStop();
}

void ClusterService::setClock(const Clock *clock)
{
    d->clock = clock ? clock : &Clock::system();
}

} // namespace baton
