#include <baton/service.h>

#include "servicehost.h"

#include <QPointer>
#include <QTimer>

namespace baton {

class ServicePrivate
{
public:
    QString name;
    QString type;
    QJsonObject parameters;
    Application *application = nullptr;
    /*! Gone with the application: application() then answers nullptr. */
    QPointer<ServiceHost> host;
    bool stopFinished = false;
};

Service::Service(const QString &name, const QJsonObject &parameters, Application *application)
    : d(std::make_unique<ServicePrivate>())
{
    d->name = name;
    d->parameters = parameters;
    d->application = application;
    d->host = ServiceHost::find(application);
    setObjectName(name);
}

Service::~Service() = default;

QString Service::name() const
{
    return d->name;
}

QString Service::type() const
{
    return d->type;
}

QJsonObject Service::parameters() const
{
    return d->parameters;
}

Application *Service::application() const
{
    return d->host ? d->application : nullptr;
}

ServiceHost *ServiceHost::of(const Service &service)
{
    return service.d->host;
}

void Service::setType(const QString &type)
{
    d->type = type;
}

void Service::stop()
{
    finishStop();
}

void Service::finishStop()
{
    if (d->stopFinished)
        return;
    d->stopFinished = true;
    // Queued, so that stopped() never fires inside stop() (STYLE: no result
    // signalled synchronously from the call that starts the work).
    QTimer::singleShot(0, this, [this] { Q_EMIT stopped(); });
}

} // namespace baton
