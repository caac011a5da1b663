#include "etcdtxn.h"

#include "etcdcodec.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace baton::etcdtxn {

QJsonObject absent(const QByteArray &key)
{
    return QJsonObject { { QStringLiteral("key"), etcdcodec::encodeBytes(key) },
                         { QStringLiteral("target"), QStringLiteral("CREATE") },
                         { QStringLiteral("create_revision"), QStringLiteral("0") } };
}

QJsonObject modifiedAt(const QByteArray &key, qint64 revision)
{
    return QJsonObject { { QStringLiteral("key"), etcdcodec::encodeBytes(key) },
                         { QStringLiteral("target"), QStringLiteral("MOD") },
                         { QStringLiteral("mod_revision"), QString::number(revision) } };
}

QJsonObject putOp(const QByteArray &key, const QJsonObject &document)
{
    return putValueOp(key, QJsonDocument(document).toJson(QJsonDocument::Compact));
}

QJsonObject putValueOp(const QByteArray &key, const QByteArray &value)
{
    return QJsonObject { { QStringLiteral("request_put"),
                           QJsonObject { { QStringLiteral("key"), etcdcodec::encodeBytes(key) },
                                         { QStringLiteral("value"),
                                           etcdcodec::encodeBytes(value) } } } };
}

QJsonObject rangeOp(const QByteArray &key)
{
    return QJsonObject { { QStringLiteral("request_range"),
                           QJsonObject { { QStringLiteral("key"), etcdcodec::encodeBytes(key) } } } };
}

QJsonObject txn(const QJsonObject &compare, const QJsonObject &success, const QJsonObject &failure)
{
    return txn(compare, QJsonArray { success }, failure);
}

QJsonObject txn(const QJsonObject &compare, const QJsonArray &success, const QJsonObject &failure)
{
    return QJsonObject { { QStringLiteral("compare"), QJsonArray { compare } },
                         { QStringLiteral("success"), success },
                         { QStringLiteral("failure"), QJsonArray { failure } } };
}

void GuardedPuts::add(const QByteArray &key, qint64 revision, const QByteArray &value)
{
    const QByteArray base64Key = key.toBase64();
    auto separate = [](QByteArray &list) { list.append(list.isEmpty() ? '[' : ','); };
    separate(m_compares);
    m_compares.append("{\"key\":\"").append(base64Key).append("\",\"target\":\"MOD\",\"mod_revision\":\"")
            .append(QByteArray::number(revision)).append("\"}");
    separate(m_puts);
    m_puts.append("{\"request_put\":{\"key\":\"").append(base64Key).append("\",\"value\":\"")
            .append(value.toBase64()).append("\"}}");
    separate(m_reads);
    m_reads.append("{\"request_range\":{\"key\":\"").append(base64Key).append("\"}}");
}

QByteArray GuardedPuts::take()
{
    if (isEmpty())
        return QByteArrayLiteral("{\"compare\":[],\"success\":[],\"failure\":[]}");
    QByteArray body;
    body.reserve(m_compares.size() + m_puts.size() + m_reads.size() + 48);
    body.append("{\"compare\":").append(m_compares).append("],\"success\":").append(m_puts)
            .append("],\"failure\":").append(m_reads).append("]}");
    m_compares.clear();
    m_puts.clear();
    m_reads.clear();
    return body;
}

QJsonObject sideOp(const QByteArray &key, const StoreSideWrite &side)
{
    // R7: built from a reply that could not be read, it has nothing to
    // compare with; a read in its place leaves it unapplied, built again.
    if (!side.basedOn)
        return rangeOp(key);
    // A version this store never issued compares with nothing it has: the
    // write is then built again over what is there.
    const QJsonObject compare =
            side.basedOn->isEmpty() ? absent(key) : modifiedAt(key, side.basedOn->toLongLong());
    return QJsonObject { { QStringLiteral("request_txn"),
                           txn(compare, putOp(key, side.document), rangeOp(key)) } };
}

bool sideApplied(const QJsonObject &answer, qsizetype index)
{
    const QJsonValue reply = answer.value(QLatin1String("responses")).toArray().at(index);
    if (!reply.toObject().contains(QLatin1String("response_txn")))
        return reply.toObject().contains(QLatin1String("response_put"));
    bool succeeded = false;
    return etcdcodec::optionalBool(reply.toObject()
                                           .value(QLatin1String("response_txn"))
                                           .toObject()
                                           .value(QLatin1String("succeeded")),
                                   &succeeded)
            && succeeded;
}

bool outcome(const QJsonObject &answer, bool *succeeded, qint64 *revision, QString *why)
{
    if (!etcdcodec::optionalBool(answer.value(QLatin1String("succeeded")), succeeded)) {
        *why = QStringLiteral("\"succeeded\" is not a boolean");
        return false;
    }
    if (*succeeded
        && (!etcdcodec::revision(answer.value(QLatin1String("header")).toObject().value(
                                         QLatin1String("revision")),
                                 revision)
            || *revision <= 0)) {
        *why = QStringLiteral("no header.revision");
        return false;
    }
    return true;
}

QJsonObject response(const QJsonObject &answer, qsizetype index, const QString &kind)
{
    return answer.value(QLatin1String("responses")).toArray().at(index).toObject().value(kind)
            .toObject();
}

bool foundEntry(const QJsonObject &rangeResponse, const QByteArray &keyPrefix,
                std::optional<StoreEntry> *entry, QString *why)
{
    QJsonArray kvs;
    if (!etcdcodec::kvsOf(rangeResponse, &kvs, why))
        return false;
    entry->reset();
    if (kvs.isEmpty())
        return true;
    StoreEntry found;
    if (!etcdcodec::decodeKv(kvs.first(), keyPrefix, &found, why))
        return false;
    *entry = found;
    return true;
}

bool entries(const QJsonObject &rangeResponse, const QByteArray &keyPrefix,
             QList<StoreEntry> *entries, QStringList *unreadable, QString *why)
{
    QJsonArray kvs;
    if (!etcdcodec::kvsOf(rangeResponse, &kvs, why))
        return false;
    for (const QJsonValue &kv : std::as_const(kvs)) {
        StoreEntry entry;
        QString error;
        if (etcdcodec::decodeKv(kv, keyPrefix, &entry, &error))
            entries->append(entry);
        else
            unreadable->append(error);
    }
    std::sort(entries->begin(), entries->end(),
              [](const StoreEntry &a, const StoreEntry &b) { return a.key < b.key; });
    return true;
}

} // namespace baton::etcdtxn
