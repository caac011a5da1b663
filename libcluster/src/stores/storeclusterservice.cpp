#include "storeclusterservice.h"

#include "clusterservice_p.h"
#include "parameters.h"
#include "storeleasebackend.h"

#include <baton/application.h>
#include <baton/store.h>

namespace baton {

QStringList StoreClusterService::parameterNames()
{
    return clusterParameterNames() << QStringLiteral("store");
}

std::unique_ptr<LeaseBackend> StoreClusterService::createLeaseBackend(QString *errorString)
{
    const QJsonValue storeName = parameters().value(QStringLiteral("store"));
    Store *store = nullptr;
    if (!storeName.isUndefined()) {
        Service *named = (storeName.isString() && application())
                ? application()->service(storeName.toString())
                : nullptr;
        store = qobject_cast<Store *>(named);
        if (!store) {
            ParameterReader reader(ParameterReader::describeService(name(), type()), parameters());
            reader.refuse(QStringLiteral("store"), storeName,
                          QStringLiteral("it must name a store service of the configuration"));
            *errorString = reader.errorString();
            return nullptr;
        }
    } else if (application()) {
        store = application()->registry();
    }
    if (!store) {
        *errorString = QStringLiteral("service \"%1\": no Registry store: configure a store named "
                                      "\"Registry\" or set \"store\"")
                               .arg(name());
        return nullptr;
    }
    return std::make_unique<StoreLeaseBackend>(store, leaseName());
}

} // namespace baton
