#include "etcdcodec.h"

#include "jsonutil.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace baton::etcdcodec {

QString encodeBytes(const QByteArray &bytes)
{
    return QString::fromLatin1(bytes.toBase64());
}

QByteArray prefixRangeStart(const QByteArray &prefix)
{
    // An empty key with range_end "\0" would be one key; "\0" to "\0" is all.
    return prefix.isEmpty() ? QByteArray(1, '\0') : prefix;
}

QByteArray prefixRangeEnd(const QByteArray &prefix)
{
    QByteArray end = prefix;
    while (!end.isEmpty()) {
        const auto last = static_cast<unsigned char>(end.back());
        if (last < 0xff) {
            end.back() = static_cast<char>(last + 1);
            return end;
        }
        end.chop(1);
    }
    // "\0" as range_end means: to the end of the key space.
    return QByteArray(1, '\0');
}

bool revision(const QJsonValue &value, qint64 *result, qint64 absent)
{
    if (value.isUndefined() || value.isNull()) {
        *result = absent;
        return absent >= 0;
    }
    if (value.isString()) {
        bool ok = false;
        const qint64 parsed = value.toString().toLongLong(&ok);
        if (!ok || parsed < 0)
            return false;
        *result = parsed;
        return true;
    }
    if (jsonutil::isInteger(value) && value.toDouble() >= 0) {
        *result = static_cast<qint64>(value.toDouble());
        return true;
    }
    return false;
}

bool optionalBool(const QJsonValue &value, bool *result)
{
    if (value.isUndefined() || value.isNull()) {
        *result = false;
        return true;
    }
    if (!value.isBool())
        return false;
    *result = value.toBool();
    return true;
}

namespace {

bool decodeBase64(const QJsonValue &value, QByteArray *bytes)
{
    if (value.isUndefined()) {
        bytes->clear();
        return true;
    }
    if (!value.isString())
        return false;
    const auto decoded = QByteArray::fromBase64Encoding(value.toString().toLatin1(),
                                                        QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return false;
    *bytes = decoded.decoded;
    return true;
}

} // namespace

bool decodeKey(const QJsonValue &kv, const QByteArray &keyPrefix, QString *key,
               QString *errorString)
{
    if (!kv.isObject()) {
        *errorString = QStringLiteral("a kv record is %1, not an object").arg(jsonutil::describe(kv));
        return false;
    }
    QByteArray bytes;
    const QJsonValue keyValue = kv.toObject().value(QLatin1String("key"));
    if (keyValue.isUndefined() || !decodeBase64(keyValue, &bytes) || bytes.isEmpty()) {
        *errorString = QStringLiteral("a kv record has no base64 \"key\" (it has %1)")
                               .arg(jsonutil::describe(keyValue));
        return false;
    }
    if (!bytes.startsWith(keyPrefix)) {
        *errorString = QStringLiteral("key \"%1\" is not under the prefix \"%2\"")
                               .arg(QString::fromUtf8(bytes), QString::fromUtf8(keyPrefix));
        return false;
    }
    *key = QString::fromUtf8(bytes.mid(keyPrefix.size()));
    return true;
}

bool decodeKv(const QJsonValue &kv, const QByteArray &keyPrefix, StoreEntry *entry,
              QString *errorString)
{
    QString key;
    if (!decodeKey(kv, keyPrefix, &key, errorString))
        return false;
    const QJsonObject record = kv.toObject();
    qint64 modRevision = 0;
    if (!revision(record.value(QLatin1String("mod_revision")), &modRevision) || modRevision <= 0) {
        *errorString = QStringLiteral("key \"%1\" has no valid \"mod_revision\" (it has %2)")
                               .arg(key, jsonutil::describe(record.value(QLatin1String("mod_revision"))));
        return false;
    }
    QByteArray value;
    if (!decodeBase64(record.value(QLatin1String("value")), &value)) {
        *errorString = QStringLiteral("key \"%1\" has a \"value\" that is not base64").arg(key);
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(value, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        *errorString = QStringLiteral("the value of key \"%1\" is not a JSON object%2")
                               .arg(key, parseError.error != QJsonParseError::NoError
                                                 ? QStringLiteral(" (%1 at offset %2)")
                                                           .arg(parseError.errorString())
                                                           .arg(parseError.offset)
                                                 : QString());
        return false;
    }
    *entry = StoreEntry { key, document.object(), QString::number(modRevision) };
    return true;
}

bool kvsOf(const QJsonObject &rangeResponse, QJsonArray *kvs, QString *errorString)
{
    const QJsonValue value = rangeResponse.value(QLatin1String("kvs"));
    if (value.isUndefined() || value.isNull()) {
        *kvs = {};
        return true;
    }
    if (!value.isArray()) {
        *errorString = QStringLiteral("\"kvs\" is %1, not a list").arg(jsonutil::describe(value));
        return false;
    }
    *kvs = value.toArray();
    return true;
}

} // namespace baton::etcdcodec
