// Where an observer finds the candidate records of a lease it sees: in its
// store, or in ConfigMaps beside a Kubernetes Lease.

#include <batoninternal/observercandidatebook.h>

#include "kubeapiclient.h"
#include "kubecandidaterecords.h"
#include "kubernetesleaseprotocol.h"
#include "leaseobserver_p.h"

#include <batoninternal/candidatebook.h>

#include <baton/leaseobserver.h>
#include <baton/store.h>

namespace baton {

CandidateBook *openCandidateBook(LeaseObserver *observer, const QString &lease, QObject *parent,
                                 QString *errorString)
{
    if (Store *store = observer->store())
        return new CandidateBook(store, lease, parent);
    auto *kubernetes = qobject_cast<KubernetesLeaseProtocol *>(LeaseObserverPrivate::protocolOf(observer));
    if (!kubernetes) {
        *errorString = QStringLiteral("candidate records are kept in a store (etcd or files) or beside "
                                      "Kubernetes Leases; this source has neither");
        return nullptr;
    }
    KubeApiClient *api = kubernetes->api();
    QString namespaceName = api->config().namespaceName;
    QString name = lease;
    // Across all namespaces a lease is named namespace/name.
    if (kubernetes->allNamespaces() && lease.contains(QLatin1Char('/'))) {
        namespaceName = lease.section(QLatin1Char('/'), 0, 0);
        name = lease.section(QLatin1Char('/'), 1);
    }
    // A lease too long to be a label value simply has no candidates to list.
    return openKubernetesCandidateBook(api, nullptr, namespaceName, name, parent);
}

} // namespace baton
