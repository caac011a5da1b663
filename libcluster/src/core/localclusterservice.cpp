#include "localclusterservice.h"

#include "clusterservice_p.h"
#include "leasebackend.h"

namespace baton {

QStringList LocalClusterService::parameterNames()
{
    return clusterParameterNames();
}

std::unique_ptr<LeaseBackend> LocalClusterService::createLeaseBackend(QString *errorString)
{
    Q_UNUSED(errorString);
    return nullptr; // no backend and no error: the only instance, always leading
}

} // namespace baton
