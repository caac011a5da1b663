#include "localclusterservice.h"

#include "clusterservice_p.h"
#include "localleaseprotocol.h"

namespace baton {

LocalClusterService::LocalClusterService(const QString &name, const QJsonObject &parameters,
                                         Application *application)
    : ClusterService(name, parameters, application)
{
    // The leases of this process: nobody else can take them (W8).
    ClusterServicePrivate::setLeaseProtocolFactory(
            this, [](QString *) { return std::make_unique<LocalLeaseProtocol>(); });
}

QStringList LocalClusterService::parameterNames()
{
    return clusterParameterNames();
}

} // namespace baton
