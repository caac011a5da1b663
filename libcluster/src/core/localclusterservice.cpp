#include "localclusterservice.h"

#include "leasebackend.h"

namespace baton {

std::unique_ptr<LeaseBackend> LocalClusterService::createLeaseBackend(QString *errorString)
{
    Q_UNUSED(errorString);
    return nullptr; // no backend and no error: the only instance, always leading
}

} // namespace baton
