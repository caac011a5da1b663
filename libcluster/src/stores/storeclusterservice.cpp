#include "storeclusterservice.h"

#include "clusterservice_p.h"
#include "leaseprotocolsource.h"
#include "parameters.h"
#include "servicehost.h"
#include "storeleaseprotocol.h"

#include <baton/store.h>

namespace baton {

namespace {

// More changes than fit in leasehistory::maxDocumentBytes (some 400) are
// cut to that size when written: the bound only catches a typing error.
constexpr int kMaxHistoryLength = 1000;

} // namespace

QStringList StoreClusterService::parameterNames()
{
    return clusterParameterNames() << steeringParameterNames() << QStringLiteral("store") << QStringLiteral("historyLength");
}

bool readHistoryLength(const ClusterService &service, int *length, QString *errorString)
{
    ParameterReader reader(ParameterReader::describeService(service.name(), service.type()),
                           service.parameters());
    *length = int(reader.integer(QStringLiteral("historyLength"), leasehistory::defaultLength, 0,
                                 kMaxHistoryLength));
    if (!reader.ok())
        *errorString = reader.errorString();
    return reader.ok();
}

StoreClusterService::StoreClusterService(const QString &name, const QJsonObject &parameters,
                                         Application *application)
    : ClusterService(name, parameters, application)
{
    ClusterServicePrivate::setLeaseProtocolFactory(
            this, [this](QString *errorString) { return createLeaseProtocol(errorString); });
}

std::unique_ptr<LeaseProtocol> StoreClusterService::createLeaseProtocol(QString *errorString)
{
    int historyLength = 0;
    if (!readHistoryLength(*this, &historyLength, errorString))
        return nullptr;
    const QJsonValue storeName = parameters().value(QStringLiteral("store"));
    ServiceHost *host = ServiceHost::of(*this);
    Store *store = nullptr;
    if (!storeName.isUndefined()) {
        Service *named
                = (storeName.isString() && host) ? host->service(storeName.toString()) : nullptr;
        store = qobject_cast<Store *>(named);
        if (!store) {
            ParameterReader reader(ParameterReader::describeService(name(), type()), parameters());
            reader.refuse(QStringLiteral("store"), storeName,
                          QStringLiteral("it must name a store service of the configuration"));
            *errorString = reader.errorString();
            return nullptr;
        }
    } else if (host) {
        store = host->registry();
    }
    if (!store) {
        *errorString = QStringLiteral("service \"%1\": no Registry store: configure a store named "
                                      "\"Registry\" or set \"store\"")
                               .arg(name());
        return nullptr;
    }
    return openLeaseProtocol(store, historyLength);
}

} // namespace baton
