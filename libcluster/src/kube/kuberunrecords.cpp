#include "kuberunrecords.h"

#include "kubeapiclient.h"

#include <baton/store.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>
#include <QUrlQuery>

namespace baton {

namespace {

const QString managedByLabel = QStringLiteral("app.kubernetes.io/managed-by");
constexpr qsizetype maxLabelValue = 63;
constexpr qsizetype maxObjectName = 253;

const QString roleHint = QStringLiteral("the participant's Role needs list, create, update and delete "
                                        "on configmaps for scheduled runs");

QString dnsSafe(const QString &tick)
{
    // 2026-12-01T03:00:00Z -> 20261201t030000z: only what a name may hold.
    QString safe;
    for (const QChar c : tick.toLower())
        if ((c >= QLatin1Char('a') && c <= QLatin1Char('z')) || (c >= QLatin1Char('0') && c <= QLatin1Char('9')))
            safe += c;
    return safe;
}

} // namespace

KubeRunRecords::KubeRunRecords(KubeApiClient *api, const QString &namespaceName, const QString &lease)
    : m_api(api)
    , m_namespace(namespaceName)
    , m_lease(lease)
{
}

QString KubeRunRecords::objectName(const QString &lease, const QString &tick)
{
    return QStringLiteral("baton-run-%1-%2").arg(lease, dnsSafe(tick));
}

bool KubeRunRecords::canKeep(const QString &lease, QString *errorString)
{
    // The longest tick name (a cron tick of year 9999) takes 16 characters.
    const qsizetype nameLength = objectName(lease, QStringLiteral("9999-12-31T23:59:59Z")).size();
    if (lease.size() > maxLabelValue || nameLength > maxObjectName) {
        *errorString = QStringLiteral("scheduled runs on Kubernetes are ConfigMaps labelled with the lease's "
                                      "name, and a label value holds at most %1 characters: the lease name "
                                      "\"%2\" has %3; choose a shorter one")
                               .arg(maxLabelValue)
                               .arg(lease)
                               .arg(lease.size());
        return false;
    }
    return true;
}

QUrl KubeRunRecords::url(const QString &name) const
{
    QUrl url = m_api->configMapsUrl(m_namespace);
    if (!name.isEmpty())
        url.setPath(url.path() + QLatin1Char('/') + name);
    return url;
}

QJsonObject KubeRunRecords::configMap(const RunRecord &record, const QString &version) const
{
    QJsonObject metadata {{QStringLiteral("name"), objectName(m_lease, record.tick)},
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

void KubeRunRecords::settle(const KubeApiClient &api, const HttpResult &result, RunRecord record,
                            const QString &what, const RunLedger::Done &done)
{
    if (result.ok()) {
        record.version = result.json.value(QStringLiteral("metadata")).toObject()
                                 .value(QStringLiteral("resourceVersion")).toString();
        done(true, record, QString());
    } else if (result.error.httpStatus == 409 || result.error.httpStatus == 404) {
        done(false, record, QString()); // another instance got there first
    } else {
        done(false, record, api.explain(result, what, roleHint));
    }
}

void KubeRunRecords::create(const RunRecord &record, RunLedger::Done done)
{
    if (!m_api)
        return;
    const QString what = QStringLiteral("creating the ConfigMap \"%1\" in \"%2\"")
                                 .arg(objectName(m_lease, record.tick), m_namespace);
    // The answers capture the client, not this: a reader's client outlives its ledger.
    m_api->send("POST", url({}), configMap(record, {}), [api = m_api, record, what, done](const HttpResult &result) {
        if (api)
            settle(*api, result, record, what, done);
    });
}

void KubeRunRecords::update(const RunRecord &earlier, const RunRecord &record, RunLedger::Done done)
{
    if (!m_api)
        return;
    const QString name = objectName(m_lease, record.tick);
    const QString what = QStringLiteral("updating the ConfigMap \"%1\" in \"%2\"").arg(name, m_namespace);
    m_api->send("PUT", url(name), configMap(record, earlier.version),
                [api = m_api, record, what, done](const HttpResult &result) {
                    if (api)
                        settle(*api, result, record, what, done);
                });
}

void KubeRunRecords::list(RunLedger::Listed done)
{
    if (!m_api)
        return;
    QString unusable;
    if (!canKeep(m_lease, &unusable)) {
        // No label can name it, so no run of it was ever kept: nothing to list.
        QTimer::singleShot(0, m_api, [done] { done(true, {}, QString()); });
        return;
    }
    QUrl collection = url({});
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("labelSelector"),
                       QStringLiteral("%1=%2,%3=baton").arg(leaseLabel, m_lease, managedByLabel));
    collection.setQuery(query);
    const QString what = QStringLiteral("listing the run ConfigMaps of \"%1\" in \"%2\"").arg(m_lease, m_namespace);
    m_api->send("GET", collection, {}, [api = m_api, what, done](const HttpResult &result) {
        if (!result.ok()) {
            done(false, {}, api ? api->explain(result, what, roleHint) : what);
            return;
        }
        QList<RunRecord> records;
        for (const QJsonValue &item : result.json.value(QStringLiteral("items")).toArray()) {
            const QJsonObject object = item.toObject();
            StoreEntry entry;
            entry.document = QJsonDocument::fromJson(object.value(QStringLiteral("data")).toObject()
                                                             .value(QStringLiteral("record")).toString().toUtf8())
                                     .object();
            entry.version = object.value(QStringLiteral("metadata")).toObject()
                                    .value(QStringLiteral("resourceVersion")).toString();
            // One that is not a record (edited by hand) is left out, as in a store.
            if (auto record = RunRecord::fromEntry(entry))
                records.append(*record);
        }
        done(true, records, QString());
    });
}

void KubeRunRecords::remove(const RunRecord &record)
{
    if (!m_api)
        return;
    const QJsonObject options {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
                               {QStringLiteral("kind"), QStringLiteral("DeleteOptions")},
                               {QStringLiteral("preconditions"),
                                QJsonObject {{QStringLiteral("resourceVersion"), record.version}}}};
    m_api->send("DELETE", url(objectName(m_lease, record.tick)), options, [](const HttpResult &) {});
}

RunLedger *openKubernetesRunLedger(KubeApiClient *api, std::unique_ptr<QObject> owner, const QString &namespaceName,
                                   const QString &lease, QObject *parent)
{
    auto records = std::make_unique<KubeRunRecords>(api, namespaceName, lease);
    records->keep(std::move(owner));
    return new RunLedger(std::move(records), lease, parent);
}

} // namespace baton
