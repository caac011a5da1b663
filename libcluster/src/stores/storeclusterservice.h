#pragma once

#include <baton/clusterservice.h>

namespace baton {

class LeaseProtocol;

/*!
 * `Webda/StoreClusterService` (B2): the lease is the Registry entry
 * `cluster:<leaseName>`. Parameter `store` names the store service to use
 * instead of the Registry; `historyLength` (0 to 1000, default 20) how many
 * holder changes the entry `history:<leaseName>` keeps (O2), 0 for none.
 */
class StoreClusterService final : public ClusterService
{
    Q_OBJECT
public:
    StoreClusterService(const QString &name, const QJsonObject &parameters, Application *application);
    /*! The parameters this type takes; the configuration refuses others (P1). */
    static QStringList parameterNames();

private:
    std::unique_ptr<LeaseProtocol> createLeaseProtocol(QString *errorString);
};

/*!
 * The `historyLength` parameter of \a service, a Registry election; false,
 * with the refusal (P1) in \a errorString, when it is not a whole number from
 * 0 to 1000.
 */
bool readHistoryLength(const ClusterService &service, int *length, QString *errorString);

} // namespace baton
