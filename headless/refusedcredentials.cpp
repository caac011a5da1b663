#include "refusedcredentials.h"

#include <baton/clusterservice.h>

#include <QJsonObject>

namespace baton {

RefusedCredentials::RefusedCredentials(QObject *parent)
    : QObject(parent)
{
}

void RefusedCredentials::follow(ClusterService *cluster)
{
    connect(cluster, &ClusterService::electionEvent, this,
            [this, cluster](const QJsonObject &event) { onEvent(cluster, event); });
}

void RefusedCredentials::onEvent(ClusterService *cluster, const QJsonObject &event)
{
    if (m_gaveUp || event.value(QLatin1String("event")).toString() != QLatin1String("attempt"))
        return;
    // The typed reason, never the text: "authentication failed" is also
    // what an etcd that went away in the middle of authenticating says.
    if (event.value(QLatin1String("errorKind")).toString() != QLatin1String("credentials-refused")) {
        m_inARow.remove(cluster);
        return;
    }
    if (++m_inARow[cluster] < limit)
        return;
    m_gaveUp = true;
    Q_EMIT givingUp(cluster, event.value(QLatin1String("error")).toString());
}

} // namespace baton
