#include "kubecandidaterecords.h"

#include "kubeapiclient.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>
#include <QUrlQuery>

namespace baton {

namespace {

const QString managedByLabel = QStringLiteral("app.kubernetes.io/managed-by");
constexpr qsizetype maxLabelValue = 63;
constexpr qsizetype maxObjectName = 253;

const QString roleHint = QStringLiteral("preference and drain keep one ConfigMap per candidate: the Role needs "
                                        "get, list, create and update on configmaps");

QString nameOf(const QJsonObject &object)
{
    return object.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("name")).toString();
}

QString versionOf(const QJsonObject &object)
{
    return object.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("resourceVersion")).toString();
}

/*! The record \a object holds, if it is the ConfigMap of that record's instance for \a lease. */
std::optional<CandidateRecord> recordOf(const QString &lease, const QJsonObject &object)
{
    const QJsonObject json = QJsonDocument::fromJson(object.value(QStringLiteral("data")).toObject()
                                                             .value(QStringLiteral("record")).toString().toUtf8())
                                     .object();
    std::optional<CandidateRecord> record = CandidateRecord::fromJson(json);
    // One copied by hand under another instance's name is nobody's announcement.
    if (!record || nameOf(object) != KubeCandidateRecords::objectName(lease, record->instance))
        return std::nullopt;
    record->version = versionOf(object);
    return record;
}

} // namespace

KubeCandidateRecords::KubeCandidateRecords(KubeApiClient *api, const QString &namespaceName, const QString &lease)
    : m_api(api)
    , m_namespace(namespaceName)
    , m_lease(lease)
{
}

QString KubeCandidateRecords::objectName(const QString &lease, const QString &instance)
{
    const QByteArray hash = QCryptographicHash::hash(instance.toUtf8(), QCryptographicHash::Sha256).toHex();
    return QStringLiteral("baton-candidate-%1-%2").arg(lease, QString::fromLatin1(hash.left(8)));
}

bool KubeCandidateRecords::canKeep(const QString &lease, QString *errorString)
{
    const qsizetype nameLength = objectName(lease, QString()).size();
    if (lease.size() > maxLabelValue || nameLength > maxObjectName) {
        *errorString = QStringLiteral("candidates on Kubernetes are ConfigMaps labelled with the lease's name, "
                                      "and a label value holds at most %1 characters: the lease name \"%2\" has "
                                      "%3; choose a shorter one")
                               .arg(maxLabelValue)
                               .arg(lease)
                               .arg(lease.size());
        return false;
    }
    return true;
}

QUrl KubeCandidateRecords::url(const QString &name) const
{
    QUrl url = m_api->configMapsUrl(m_namespace);
    if (!name.isEmpty())
        url.setPath(url.path() + QLatin1Char('/') + name);
    return url;
}

QJsonObject KubeCandidateRecords::configMap(const CandidateRecord &record, const QString &version) const
{
    QJsonObject metadata {{QStringLiteral("name"), objectName(m_lease, record.instance)},
                          {QStringLiteral("namespace"), m_namespace},
                          {QStringLiteral("labels"), QJsonObject {{leaseLabel, m_lease},
                                                                  {managedByLabel, QStringLiteral("baton")}}}};
    if (!version.isEmpty())
        metadata.insert(QStringLiteral("resourceVersion"), version);
    return {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
            {QStringLiteral("kind"), QStringLiteral("ConfigMap")},
            {QStringLiteral("metadata"), metadata},
            {QStringLiteral("data"),
             QJsonObject {{QStringLiteral("record"),
                           QString::fromUtf8(QJsonDocument(record.toJson()).toJson(QJsonDocument::Compact))}}}};
}

void KubeCandidateRecords::read(const QString &instance, CandidateBook::Read done)
{
    if (!m_api)
        return;
    const QString name = objectName(m_lease, instance);
    const QString what = QStringLiteral("reading the ConfigMap \"%1\" in \"%2\"").arg(name, m_namespace);
    // The answers capture the client, not this: a reader's client outlives its book.
    m_api->send("GET", url(name), {}, [api = m_api, lease = m_lease, ns = m_namespace, instance, what, done](const HttpResult &result) {
        if (result.error.httpStatus == 404) {
            done(true, std::nullopt, QString());
        } else if (!result.ok()) {
            done(false, std::nullopt, api ? api->explain(result, what, roleHint) : what);
        } else if (std::optional<CandidateRecord> record = recordOf(lease, result.json)) {
            if (record->instance == instance)
                done(true, record, QString());
            else // two ids whose names hash alike: never change the other's record
                done(false, std::nullopt,
                     QStringLiteral("the ConfigMap \"%1\" in \"%2\" holds the candidate record of \"%3\", not of "
                                    "\"%4\" (their ConfigMap names coincide): rename one of the two instances")
                             .arg(nameOf(result.json), ns,
                                  record->instance, instance));
        } else {
            // Not a record of this instance: replaceable at its version, as in a store.
            CandidateRecord replaceable;
            replaceable.instance = instance;
            replaceable.left = true;
            replaceable.version = versionOf(result.json);
            done(true, replaceable, QString());
        }
    });
}

void KubeCandidateRecords::write(const QByteArray &method, const CandidateRecord &record, const QString &version,
                                 CandidateBook::Done done)
{
    if (!m_api)
        return;
    const QString name = objectName(m_lease, record.instance);
    const QString what = QStringLiteral("%1 the ConfigMap \"%2\" in \"%3\"")
                                 .arg(method == "POST" ? QStringLiteral("creating") : QStringLiteral("updating"),
                                      name, m_namespace);
    m_api->send(method, url(method == "POST" ? QString() : name), configMap(record, version),
                [api = m_api, record = CandidateRecord(record), what, done](const HttpResult &result) mutable {
                    if (result.ok()) {
                        record.version = versionOf(result.json);
                        done(true, record, QString());
                    } else if (result.error.httpStatus == 409 || result.error.httpStatus == 404) {
                        done(false, record, QString()); // somebody else wrote it first
                    } else {
                        done(false, record, api ? api->explain(result, what, roleHint) : what);
                    }
                });
}

void KubeCandidateRecords::create(const CandidateRecord &record, CandidateBook::Done done)
{
    write("POST", record, QString(), std::move(done));
}

void KubeCandidateRecords::update(const CandidateRecord &earlier, const CandidateRecord &record,
                                  CandidateBook::Done done)
{
    write("PUT", record, earlier.version, std::move(done));
}

void KubeCandidateRecords::list(CandidateBook::Listed done)
{
    if (!m_api)
        return;
    QString unusable;
    if (!canKeep(m_lease, &unusable)) {
        // No label can name it, so no candidate of it was ever kept: nothing to list.
        QTimer::singleShot(0, m_api, [done] { done(true, {}, QString()); });
        return;
    }
    QUrl collection = url({});
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("labelSelector"),
                       QStringLiteral("%1=%2,%3=baton").arg(leaseLabel, m_lease, managedByLabel));
    collection.setQuery(query);
    const QString what = QStringLiteral("listing the candidate ConfigMaps of \"%1\" in \"%2\"").arg(m_lease, m_namespace);
    m_api->send("GET", collection, {}, [api = m_api, lease = m_lease, what, done](const HttpResult &result) {
        if (!result.ok()) {
            done(false, {}, api ? api->explain(result, what, roleHint) : what);
            return;
        }
        QList<CandidateRecord> records;
        for (const QJsonValue &item : result.json.value(QStringLiteral("items")).toArray())
            if (std::optional<CandidateRecord> record = recordOf(lease, item.toObject()))
                records.append(*record);
        done(true, records, QString());
    });
}

void KubeCandidateRecords::remove(const CandidateRecord &record)
{
    if (!m_api)
        return;
    const QJsonObject options {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
                               {QStringLiteral("kind"), QStringLiteral("DeleteOptions")},
                               {QStringLiteral("preconditions"),
                                QJsonObject {{QStringLiteral("resourceVersion"), record.version}}}};
    m_api->send("DELETE", url(objectName(m_lease, record.instance)), options, [](const HttpResult &) {});
}

CandidateBook *openKubernetesCandidateBook(KubeApiClient *api, std::unique_ptr<QObject> owner,
                                           const QString &namespaceName, const QString &lease, QObject *parent)
{
    auto records = std::make_unique<KubeCandidateRecords>(api, namespaceName, lease);
    records->keep(std::move(owner));
    return new CandidateBook(std::move(records), lease, parent);
}

} // namespace baton
