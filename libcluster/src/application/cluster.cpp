#include "application_p.h"

#include <baton/application.h>
#include <baton/cluster.h>

namespace baton {

ClusterService &useCluster()
{
    Application *application = Application::current();
    if (!application)
        return processLocalCluster();
    if (ClusterService *cluster = application->firstCluster())
        return *cluster;
    return ApplicationPrivate::get(application)->localCluster();
}

ClusterService *useCluster(const QString &serviceName)
{
    Application *application = Application::current();
    return application ? qobject_cast<ClusterService *>(application->service(serviceName)) : nullptr;
}

Remover detail::whenLeaderOnDefaultCluster(LeaderCallback fn, LeaderCallback deregisteredFn,
                                           QObject *context)
{
    Application *application = Application::current();
    ApplicationPrivate *app = application ? ApplicationPrivate::get(application) : nullptr;
    // W7: until its cluster service has started, a registration waits for it.
    if (app && !app->initialised && !app->pendingAttached)
        return app->addPending(std::move(fn), std::move(deregisteredFn), context);
    return useCluster().addRegistration(std::move(fn), std::move(deregisteredFn), context);
}

} // namespace baton
