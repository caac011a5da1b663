#include <batoninternal/isotime.h>
#include <batoninternal/leasehistory.h>

#include "jsonutil.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <limits>

namespace baton::leasehistory {

const QString registryPrefix = QStringLiteral("history:");
const QString kubernetesAnnotation = QStringLiteral("baton.dev/leader-history");

namespace {

constexpr int documentVersion = 1;

const QString versionKey = QStringLiteral("v");
const QString changesKey = QStringLiteral("changes");
const QString fromKey = QStringLiteral("from");
const QString toKey = QStringLiteral("to");
const QString whyKey = QStringLiteral("why");
const QString atKey = QStringLiteral("at");
const QString gapKey = QStringLiteral("gapMs");
const QString transitionsKey = QStringLiteral("transitions");
const QString requestedByKey = QStringLiteral("requestedBy");

bool decodeChange(const QJsonValue &value, int index, HistoryEntry *change, QString *errorString)
{
    const auto fail = [&](const QString &field, const QString &what) {
        *errorString = QStringLiteral("change %1: field \"%2\" %3").arg(index).arg(field, what);
        return false;
    };
    if (!value.isObject()) {
        *errorString = QStringLiteral("change %1 must be an object, not %2").arg(index).arg(jsonutil::describe(value));
        return false;
    }
    const QJsonObject o = value.toObject();
    for (const QString &key : {fromKey, toKey, whyKey, atKey}) {
        if (!o.value(key).isString())
            return fail(key, QStringLiteral("must be a string"));
    }
    HistoryEntry decoded;
    decoded.from = o.value(fromKey).toString();
    decoded.to = o.value(toKey).toString();
    decoded.why = o.value(whyKey).toString();
    decoded.at = isotime::parse(o.value(atKey).toString());
    if (!decoded.at.isValid())
        return fail(atKey, QStringLiteral("must be an ISO 8601 time"));
    const QJsonValue gap = o.value(gapKey);
    if (!jsonutil::isInteger(gap) || gap.toDouble() < -1)
        return fail(gapKey, QStringLiteral("must be an integer of at least -1"));
    decoded.gapMs = qint64(gap.toDouble());
    const QJsonValue transitions = o.value(transitionsKey);
    if (!jsonutil::isInteger(transitions) || transitions.toDouble() < 0)
        return fail(transitionsKey, QStringLiteral("must be an integer of at least 0"));
    decoded.transitions = qint64(transitions.toDouble());
    const QJsonValue requestedBy = o.value(requestedByKey);
    if (!requestedBy.isUndefined() && !requestedBy.isString())
        return fail(requestedByKey, QStringLiteral("must be a string"));
    decoded.requestedBy = requestedBy.toString();
    *change = decoded;
    return true;
}

QJsonObject encodeChange(const HistoryEntry &change)
{
    QJsonObject encoded {
            {fromKey, change.from},
            {toKey, change.to},
            {whyKey, change.why},
            {atKey, isotime::format(change.at)},
            {gapKey, double(change.gapMs)},
            {transitionsKey, double(change.transitions)},
    };
    // Absent unless there is one: histories read as before.
    if (!change.requestedBy.isEmpty())
        encoded.insert(requestedByKey, change.requestedBy);
    return encoded;
}

qsizetype compactSize(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact).size();
}

/*!
 * At least the size of \a document written compact, without writing it: a
 * string is at most six bytes a character escaped (\uXXXX), a number at
 * most 24. A field too many makes the bound useless (the caller then writes
 * the document out); a field of the wrong name or type may make it too low,
 * but such a document is refused by decoding anyway.
 */
qsizetype sizeBound(const QJsonObject &document)
{
    constexpr qsizetype unbounded = std::numeric_limits<qsizetype>::max();
    constexpr qsizetype numberBytes = 24;
    // Keys, quotes, colons, commas and braces of a change, its two numbers.
    constexpr qsizetype changeOverhead = 64 + 2 * numberBytes;
    const QJsonValue list = document.value(changesKey);
    if (document.size() > 2 || !list.isArray())
        return unbounded;
    const QJsonArray array = list.toArray();
    qsizetype bound = 32 + numberBytes; // {"changes":[],"v":N}
    for (const QJsonValue &value : array) {
        const QJsonObject change = value.toObject();
        if (!value.isObject() || change.size() > 6)
            return unbounded;
        bound += changeOverhead;
        for (const QString &key : {fromKey, toKey, whyKey, atKey})
            bound += 6 * change.value(key).toString().size();
    }
    return bound;
}

} // namespace

QString registryKey(const QString &leaseName)
{
    return registryPrefix + leaseName;
}

QJsonObject encode(const QList<HistoryEntry> &changes)
{
    QJsonArray array;
    for (const HistoryEntry &change : changes)
        array.append(encodeChange(change));
    return QJsonObject {{versionKey, documentVersion}, {changesKey, array}};
}

QJsonObject encodeWithin(const QList<HistoryEntry> &changes)
{
    QJsonObject document = encode(changes);
    qsizetype size = compactSize(document);
    if (size <= maxDocumentBytes)
        return document;
    // A change costs its own text and the comma before the next one.
    qsizetype dropped = 0;
    while (size > maxDocumentBytes && changes.size() - dropped > 1)
        size -= compactSize(encodeChange(changes.at(dropped++))) + 1;
    return encode(changes.mid(dropped));
}

bool decode(const QJsonObject &document, QList<HistoryEntry> *changes, QString *errorString)
{
    // Writing the document out to measure it is most of the cost of reading
    // 5,000 histories (benchmarks.md): only one that could be too large is.
    if (sizeBound(document) > maxDocumentBytes) {
        const qsizetype size = compactSize(document);
        if (size > maxDocumentBytes) {
            *errorString =
                    QStringLiteral("%1 bytes, more than the %2 a history may have").arg(size).arg(maxDocumentBytes);
            return false;
        }
    }
    const QJsonValue version = document.value(versionKey);
    if (!jsonutil::isInteger(version) || version.toInt() != documentVersion) {
        *errorString = QStringLiteral("field \"v\" must be %1, not %2").arg(documentVersion).arg(jsonutil::describe(version));
        return false;
    }
    const QJsonValue list = document.value(changesKey);
    if (!list.isArray()) {
        *errorString = QStringLiteral("field \"changes\" must be an array");
        return false;
    }
    QList<HistoryEntry> decoded;
    const QJsonArray array = list.toArray();
    decoded.reserve(array.size());
    for (int i = 0; i < array.size(); ++i) {
        HistoryEntry change;
        if (!decodeChange(array.at(i), i, &change, errorString))
            return false;
        decoded.append(change);
    }
    *changes = decoded;
    return true;
}

bool decodeText(const QString &text, QList<HistoryEntry> *changes, QString *errorString)
{
    if (text.size() > maxDocumentBytes) {
        *errorString = QStringLiteral("%1 characters, more than the %2 a history may have").arg(text.size()).arg(maxDocumentBytes);
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(text.toUtf8(), &parseError);
    if (!document.isObject()) {
        *errorString = parseError.error != QJsonParseError::NoError
                ? QStringLiteral("not JSON at offset %1: %2").arg(parseError.offset).arg(parseError.errorString())
                : QStringLiteral("not a JSON object");
        return false;
    }
    return decode(document.object(), changes, errorString);
}

qint64 crashGapMs(qint64 sinceSeenMs, const QDateTime &lastRenewal, const QDateTime &takeover)
{
    const qint64 seen = std::max<qint64>(0, sinceSeenMs);
    if (!lastRenewal.isValid() || !takeover.isValid())
        return seen;
    return std::max(seen, lastRenewal.msecsTo(takeover));
}

QList<HistoryEntry> appended(QList<HistoryEntry> changes, const HistoryEntry &change, int length)
{
    changes.append(change);
    const qsizetype keep = std::max(length, 1);
    if (changes.size() > keep)
        changes.remove(0, changes.size() - keep);
    return changes;
}

std::optional<QList<HistoryEntry>> inserted(QList<HistoryEntry> changes,
                                            const HistoryEntry &change, int length)
{
    const auto sameTerm = [&change](const HistoryEntry &stored) {
        return stored.transitions == change.transitions;
    };
    if (std::any_of(changes.cbegin(), changes.cend(), sameTerm))
        return std::nullopt;
    const auto later = std::find_if(changes.cbegin(), changes.cend(),
                                    [&change](const HistoryEntry &stored) {
                                        return stored.transitions > change.transitions;
                                    });
    const qsizetype at = later - changes.cbegin();
    changes.insert(at, change);
    const qsizetype drop = changes.size() - std::max(length, 1);
    if (drop > at)
        return std::nullopt;
    if (drop > 0)
        changes.remove(0, drop);
    return changes;
}

} // namespace baton::leasehistory
