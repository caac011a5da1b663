#pragma once

#include "runrecordbackend.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

namespace baton {

class KubeApiClient;
struct HttpResult;

/*!
 * The run records of one Lease as core/v1 ConfigMaps beside it, one per
 * run: `baton-run-<lease>-<tick>` (the tick in lower-case letters and
 * digits only), labelled `baton.dev/lease: <lease>` and
 * `app.kubernetes.io/managed-by: baton`, the record's JSON in
 * `data.record`. A claim is a create (409 AlreadyExists: another has the
 * tick), an update and a removal carry the resourceVersion read (409
 * Conflict: it moved), so every write is conditional on the API server and
 * none reads, changes and writes back.
 *
 * Not annotations on the Lease: every renewal rewrites the Lease, so the
 * runs would contend with the election, and annotations hold 256 KiB in all.
 */
class KubeRunRecords final : public RunRecordBackend
{
public:
    /*! Over \a api, which must outlive this or be guarded by its owner. */
    KubeRunRecords(KubeApiClient *api, const QString &namespaceName, const QString &lease);

    /*! The ConfigMap of \a tick of \a lease. */
    static QString objectName(const QString &lease, const QString &tick);
    /*!
     * Whether \a lease can be kept so: its name goes into a label value,
     * which holds at most 63 characters; false with why in \a errorString.
     */
    static bool canKeep(const QString &lease, QString *errorString);
    static inline const QString leaseLabel = QStringLiteral("baton.dev/lease");
    /*! Keeps \a owner (what owns the API client) as long as this. */
    void keep(std::unique_ptr<QObject> owner) { m_owner = std::move(owner); }

    void create(const RunRecord &record, RunLedger::Done done) override;
    void update(const RunRecord &earlier, const RunRecord &record, RunLedger::Done done) override;
    void list(RunLedger::Listed done) override;
    void remove(const RunRecord &record) override;

private:
    QJsonObject configMap(const RunRecord &record, const QString &version) const;
    QUrl url(const QString &name) const;
    /*! \a done with \a result: a 409 or 404 is "another got there first". */
    static void settle(const KubeApiClient &api, const HttpResult &result, RunRecord record, const QString &what,
                       const RunLedger::Done &done);

    std::unique_ptr<QObject> m_owner;
    QPointer<KubeApiClient> m_api;
    QString m_namespace;
    QString m_lease;
};

/*!
 * A ledger of \a lease's runs kept as ConfigMaps in \a namespaceName,
 * through \a api; \a owner (the client's owner, if the ledger alone keeps
 * it) lives as long as the ledger.
 */
RunLedger *openKubernetesRunLedger(KubeApiClient *api, std::unique_ptr<QObject> owner, const QString &namespaceName,
                                   const QString &lease, QObject *parent);

} // namespace baton
