#include "localclusterservice.h"

#include "clusterservice_p.h"
#include "localleaseprotocol.h"

namespace baton {

QStringList LocalClusterService::parameterNames()
{
    return clusterParameterNames();
}

std::unique_ptr<LeaseBackend> LocalClusterService::createLeaseBackend(QString *errorString)
{
    Q_UNUSED(errorString);
    return std::make_unique<LocalLeaseBackend>(leaseName());
}

} // namespace baton
