#pragma once

#include <baton/clusterservice.h>

namespace baton {

/*!
 * `Webda/LocalClusterService`: a single-instance application (W8).
 * It always leads, so `fn` runs as soon as the election has begun; it needs
 * no store: its lease lives in the process (LocalLeaseProtocol).
 */
class LocalClusterService final : public ClusterService
{
    Q_OBJECT
public:
    LocalClusterService(const QString &name, const QJsonObject &parameters, Application *application);
    /*! The parameters this type takes; the configuration refuses others (P1). */
    static QStringList parameterNames();
};

} // namespace baton
