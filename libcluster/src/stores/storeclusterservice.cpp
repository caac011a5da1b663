#include "storeclusterservice.h"

#include "jsonutil.h"
#include "storeleasebackend.h"

#include <baton/application.h>
#include <baton/store.h>

namespace baton {

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
            *errorString = QStringLiteral("service \"%1\": parameter \"store\" = %2 must name a "
                                          "store service of the configuration")
                                   .arg(name(), jsonutil::describe(storeName));
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
