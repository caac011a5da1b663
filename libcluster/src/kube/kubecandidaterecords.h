#pragma once

#include "candidaterecordbackend.h"

#include <QJsonObject>
#include <QPointer>
#include <QString>
#include <QUrl>

#include <memory>

namespace baton {

class KubeApiClient;
struct HttpResult;

/*!
 * The candidate records of one Lease as core/v1 ConfigMaps beside it, one
 * per candidate: `baton-candidate-<lease>-<8 hex of sha256(instance)>`
 * (an instance name need not be a DNS name), labelled
 * `baton.dev/candidate-for: <lease>` and `app.kubernetes.io/managed-by:
 * baton`, the record's JSON in `data.record`. Not `baton.dev/lease`: the
 * run records are selected by that label, and neither kind must list the
 * other. Every write is conditional on the API server, as in
 * KubeRunRecords: a create (409 AlreadyExists: the instance has one), an
 * update and a removal at the resourceVersion read (409 Conflict: it moved).
 */
class KubeCandidateRecords final : public CandidateRecordBackend
{
public:
    /*! Over \a api, which must outlive this or be guarded by its owner. */
    KubeCandidateRecords(KubeApiClient *api, const QString &namespaceName, const QString &lease);

    /*! The ConfigMap of \a instance's record for \a lease. */
    static QString objectName(const QString &lease, const QString &instance);
    /*!
     * Whether \a lease can have candidates so: its name goes into a label
     * value, which holds at most 63 characters; false with why in \a errorString.
     */
    static bool canKeep(const QString &lease, QString *errorString);
    static inline const QString leaseLabel = QStringLiteral("baton.dev/candidate-for");
    /*! Keeps \a owner (what owns the API client) as long as this. */
    void keep(std::unique_ptr<QObject> owner) { m_owner = std::move(owner); }

    void read(const QString &instance, CandidateBook::Read done) override;
    void create(const CandidateRecord &record, CandidateBook::Done done) override;
    void update(const CandidateRecord &earlier, const CandidateRecord &record, CandidateBook::Done done) override;
    void list(CandidateBook::Listed done) override;
    void remove(const CandidateRecord &record) override;

private:
    QJsonObject configMap(const CandidateRecord &record, const QString &version) const;
    QUrl url(const QString &name) const;
    void write(const QByteArray &method, const CandidateRecord &record, const QString &version,
               CandidateBook::Done done);

    std::unique_ptr<QObject> m_owner;
    QPointer<KubeApiClient> m_api;
    QString m_namespace;
    QString m_lease;
};

/*!
 * A book of \a lease's candidates kept as ConfigMaps in \a namespaceName,
 * through \a api; \a owner (the client's owner, if the book alone keeps
 * it) lives as long as the book.
 */
CandidateBook *openKubernetesCandidateBook(KubeApiClient *api, std::unique_ptr<QObject> owner,
                                           const QString &namespaceName, const QString &lease, QObject *parent);

} // namespace baton
