// The etcd side of R1: the watch stream cut by JsonStreamSplitter, then
// each message (or a plain range/txn reply) read by etcdcodec.
//
// Input: the first byte picks a read size, the rest is the stream. The
// splitter must cut the same objects whatever the reads look like (a proxy
// may re-chunk), and fail the same way; each refused kv or kvs says why.

#include "fuzzsupport.h"

#include "etcdcodec.h"
#include "jsonstreamsplitter.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace {

// Small, so that the oversized-message refusal is reached too.
constexpr qsizetype kMaxObject = 2048;
const QByteArray kPrefix = QByteArrayLiteral("/baton/");

void checkKv(const QJsonValue &kv)
{
    baton::StoreEntry entry;
    QString error;
    if (!baton::etcdcodec::decodeKv(kv, kPrefix, &entry, &error))
        FUZZ_CHECK(!error.isEmpty(), QString());
    QString key;
    error.clear();
    if (!baton::etcdcodec::decodeKey(kv, kPrefix, &key, &error))
        FUZZ_CHECK(!error.isEmpty(), QString());
}

void checkReply(const QJsonObject &reply)
{
    qint64 revision = 0;
    if (baton::etcdcodec::revision(reply.value(QStringLiteral("header")).toObject().value(QStringLiteral("revision")),
                                   &revision))
        FUZZ_CHECK(revision >= 0, QString::number(revision));
    bool succeeded = false;
    baton::etcdcodec::optionalBool(reply.value(QStringLiteral("succeeded")), &succeeded);

    QJsonArray kvs;
    QString error;
    if (!baton::etcdcodec::kvsOf(reply, &kvs, &error))
        FUZZ_CHECK(!error.isEmpty(), QString());
    for (const QJsonValue &kv : kvs)
        checkKv(kv);
    // A watch message: {"result": {"events": [{"type": ..., "kv": {...}}]}}
    const QJsonValue events = reply.value(QStringLiteral("result")).toObject().value(QStringLiteral("events"));
    for (const QJsonValue &event : events.toArray())
        checkKv(event.toObject().value(QStringLiteral("kv")));
    // A txn answer: {"responses": [{"response_range": {"kvs": [...]}}]}
    for (const QJsonValue &response : reply.value(QStringLiteral("responses")).toArray()) {
        QJsonArray inner;
        QString innerError;
        if (!baton::etcdcodec::kvsOf(response.toObject().value(QStringLiteral("response_range")).toObject(),
                                     &inner, &innerError))
            FUZZ_CHECK(!innerError.isEmpty(), QString());
        for (const QJsonValue &kv : inner)
            checkKv(kv);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size == 0)
        return 0;
    const qsizetype chunk = 1 + data[0] % 16;
    const QByteArray stream = baton::fuzz::bytes(data + 1, size - 1);

    baton::JsonStreamSplitter whole(kMaxObject);
    QList<QByteArray> wholeObjects;
    const bool wholeOk = whole.feed(stream, &wholeObjects);

    baton::JsonStreamSplitter pieces(kMaxObject);
    QList<QByteArray> pieceObjects;
    bool piecesOk = true;
    for (qsizetype at = 0; at < stream.size() && piecesOk; at += chunk)
        piecesOk = pieces.feed(stream.mid(at, chunk), &pieceObjects);

    FUZZ_CHECK(wholeOk == piecesOk, whole.errorString() + QStringLiteral(" / ") + pieces.errorString());
    FUZZ_CHECK(wholeObjects == pieceObjects, QString::number(wholeObjects.size()));
    FUZZ_CHECK(wholeOk || !whole.errorString().isEmpty(), QString());
    // Stopped means stopped: a failed splitter takes nothing more.
    if (!wholeOk) {
        QList<QByteArray> after;
        FUZZ_CHECK(!whole.feed(QByteArrayLiteral("{}"), &after) && after.isEmpty(), QString());
    }
    for (const QByteArray &object : wholeObjects) {
        FUZZ_CHECK(object.size() <= kMaxObject, QString::number(object.size()));
        FUZZ_CHECK(object.startsWith('{'), QString::fromLatin1(object.left(16)));
        const QJsonDocument document = QJsonDocument::fromJson(object);
        if (document.isObject())
            checkReply(document.object());
    }
    // The same decoding on the whole input as a single reply (range, txn).
    const QJsonDocument single = QJsonDocument::fromJson(stream);
    if (single.isObject())
        checkReply(single.object());
    return 0;
}
