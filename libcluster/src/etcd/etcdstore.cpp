#include "etcdstore.h"

#include "etcdclient.h"
#include "etcdcodec.h"
#include "etcdleaseprotocol.h"
#include "etcdrangebatcher.h"
#include "etcdreplies.h"
#include "etcdsettings.h"
#include "etcdtxn.h"
#include "etcdupdatebatcher.h"
#include "etcdwatch.h"
#include "etcdwatchhub.h"
#include "logging.h"
#include "sidewrite.h"
#include "storesupport.h"

#include <QJsonArray>

#include <algorithm>

namespace baton {

using namespace storesupport;
using Status = StoreResult::Status;
using Failure = EtcdClient::Failure;

namespace {

const QString kTypeName = QStringLiteral("Webda/EtcdStore");

/*! A version as etcd compares it, or nullopt when it cannot be a mod_revision. */
std::optional<qint64> parseVersion(const QString &version)
{
    bool ok = false;
    const qint64 value = version.toLongLong(&ok);
    if (!ok || value <= 0 || QString::number(value) != version)
        return std::nullopt;
    return value;
}

} // namespace

EtcdStore::EtcdStore(const QString &name, const QJsonObject &parameters, Application *application)
    : Store(name, parameters, application)
    , m_mirrors([this](const QString &prefix, QObject *parent) {
        return watchOn(m_listingHub, prefix, parent, false);
    })
{
}

EtcdStore::~EtcdStore() = default;

QString EtcdStore::describe() const
{
    return describeService(*this, kTypeName);
}

QStringList EtcdStore::parameterNames()
{
    return EtcdSettings::parameterNames();
}

int EtcdStore::authentications() const
{
    return m_client ? m_client->authentications() : 0;
}

qint64 EtcdStore::versionFloor(const QString &) const
{
    return m_client ? m_client->knownRevision() : 0;
}

std::unique_ptr<LeaseProtocol> EtcdStore::openLeaseProtocol(int historyLength)
{
    return std::make_unique<EtcdLeaseProtocol>(this, historyLength);
}

void EtcdStore::followListing(const QString &prefix)
{
    m_mirrors.follow(prefix);
}

void EtcdStore::unfollowListing(const QString &prefix)
{
    m_mirrors.unfollow(prefix);
}

bool EtcdStore::init(QString *errorString)
{
    EtcdSettings settings;
    if (!EtcdSettings::read(describeForParameters(*this, kTypeName), parameters(), &settings,
                            errorString))
        return false;
    auto *client = new EtcdClient(describe(), this);
    if (!client->setUp(settings, errorString)) {
        delete client;
        return false;
    }
    // The watches' stream goes with the old client: it spoke to the old
    // endpoints. What it knew still bounds the versions of a removed key (F7).
    if (m_client)
        client->noteRevision(m_client->knownRevision());
    m_mirrors.restart();
    delete m_client;
    m_client = client;
    m_prefix = settings.prefix.toUtf8();
    m_timeoutMs = settings.timeoutMs;
    m_batcher = new EtcdUpdateBatcher(m_client, m_prefix, m_timeoutMs);
    m_reads = new EtcdRangeBatcher(m_client, m_timeoutMs);
    return true;
}

bool EtcdStore::refuseUninitialised(const Callback &done)
{
    if (m_client)
        return false;
    deliver(done, failure(Status::Unavailable,
                          QStringLiteral("%1 is not initialised (init() not called or refused)")
                                  .arg(describe())));
    return true;
}

StoreResult EtcdStore::badReply(const QString &operation, const QString &key,
                                const QString &why) const
{
    return etcdreplies::badReply(describe(), operation, key, why);
}

StoreResult EtcdStore::notApplied(const QString &operation, const QString &key,
                                  const QString &version, const QJsonObject &range) const
{
    return etcdreplies::notApplied(describe(), m_prefix, operation, key, version, range);
}

void EtcdStore::deliver(const Callback &done, StoreResult result)
{
    if (m_client)
        result.errorString = m_client->redact(result.errorString);
    deliverLater(this, done, std::move(result));
}

void EtcdStore::reportCurrent(const QString &operation, const QString &key, const QString &version,
                              Callback done)
{
    // A version etcd could never have issued: the write cannot apply, and
    // what is there now says whether that is a Conflict or a NotFound.
    get(key, [this, operation, key, version, done = std::move(done)](const StoreResult &current) {
        if (current.ok()) {
            done(conflict(current.entry, QStringLiteral("%1: %2 \"%3\": it has version %4, not %5")
                                                 .arg(describe(), operation, key,
                                                      current.entry.version, version)));
            return;
        }
        done(current);
    });
}

void EtcdStore::get(const QString &key, Callback done)
{
    if (refuseUninitialised(done))
        return;
    m_reads->read(QJsonObject { { QStringLiteral("key"), etcdcodec::encodeBytes(fullKey(key)) } },
                   [this, key, done = std::move(done)](const QJsonObject &json,
                                                       const Failure &failed) {
        if (failed) {
            deliver(done, *failed);
            return;
        }
        std::optional<StoreEntry> entry;
        QString why;
        if (!etcdtxn::foundEntry(json, m_prefix, &entry, &why))
            deliver(done, badReply(QStringLiteral("get"), key, why));
        else if (!entry)
            deliver(done, failure(Status::NotFound,
                                  QStringLiteral("%1: no key \"%2\"").arg(describe(), key)));
        else
            deliver(done, success(*entry));
    });
}

void EtcdStore::create(const QString &key, const QJsonObject &document, Callback done)
{
    createKeys(key, document, std::nullopt, std::move(done));
}

void EtcdStore::createWith(const QString &key, const QJsonObject &document,
                           const StoreSideWrite &side, Callback done)
{
    createKeys(key, document, side, std::move(done));
}

void EtcdStore::createKeys(const QString &key, const QJsonObject &document,
                           const std::optional<StoreSideWrite> &side, Callback done)
{
    if (refuseUninitialised(done))
        return;
    // One transaction: the put (and the side put) when the key is absent,
    // else a read of it, so that a lost race costs no second request.
    const QByteArray full = fullKey(key);
    const QString operation = QStringLiteral("create");
    QJsonArray puts { etcdtxn::putOp(full, document) };
    if (side)
        puts.append(etcdtxn::sideOp(fullKey(side->key), *side));
    const QJsonObject body = etcdtxn::txn(etcdtxn::absent(full), puts, etcdtxn::rangeOp(full));
    m_client->call(QStringLiteral("/v3/kv/txn"), body,
                   [this, operation, key, document, side, done = std::move(done)](
                           const QJsonObject &json, const Failure &failed) {
        if (failed) {
            deliver(done, *failed);
            return;
        }
        bool succeeded = false;
        qint64 revision = 0;
        QString why;
        if (!etcdtxn::outcome(json, &succeeded, &revision, &why)) {
            deliver(done, badReply(operation, key, why));
            return;
        }
        if (succeeded) {
            const StoreEntry written { key, document, QString::number(revision) };
            m_mirrors.written(written);
            finishSide(json, side, success(written), done);
            return;
        }
        std::optional<StoreEntry> current;
        if (!etcdtxn::foundEntry(etcdtxn::response(json, 0, QStringLiteral("response_range")),
                                 m_prefix, &current, &why))
            deliver(done, badReply(operation, key, why));
        else if (!current)
            deliver(done, badReply(operation, key,
                                   QStringLiteral("a failed create carries no current value")));
        else
            deliver(done, conflict(*current, QStringLiteral("%1: key \"%2\" already exists")
                                                     .arg(describe(), key)));
    });
}

void EtcdStore::finishSide(const QJsonObject &answer, const std::optional<StoreSideWrite> &side,
                           const StoreResult &result, const Callback &done)
{
    // The side document is the second operation of the write's txn. Not
    // written there: another writer came since it was read, and it is built
    // again over what that writer left, before the write's answer goes out.
    if (!side || etcdtxn::sideApplied(answer, 1)) {
        deliver(done, result);
        return;
    }
    sidewrite::write(this, *side, [this, result, done] { deliver(done, result); });
}

void EtcdStore::update(const QString &key, const QJsonObject &document, const QString &version,
                       Callback done)
{
    if (refuseUninitialised(done))
        return;
    const std::optional<qint64> revision = parseVersion(version);
    if (!revision) {
        reportCurrent(QStringLiteral("update"), key, version, std::move(done));
        return;
    }
    m_batcher->enqueue(EtcdUpdateQueue::Update {
            key, document, *revision,
            [this, done = std::move(done)](const StoreResult &result) {
                if (result.ok())
                    m_mirrors.written(result.entry);
                deliverLater(this, done, result);
            },
            QDeadlineTimer(m_timeoutMs) });
    m_batcher->sendSoon();
}

void EtcdStore::updateWith(const QString &key, const QJsonObject &document,
                           const QString &version, const StoreSideWrite &side, Callback done)
{
    if (refuseUninitialised(done))
        return;
    const std::optional<qint64> revision = parseVersion(version);
    if (!revision) {
        reportCurrent(QStringLiteral("update"), key, version, std::move(done));
        return;
    }
    // An acquisition, rare: a txn of its own rather than one of the renewals'
    // batches, whose reads tell one update's failure from another's.
    const QByteArray full = fullKey(key);
    const QJsonObject body = etcdtxn::txn(
            etcdtxn::modifiedAt(full, *revision),
            QJsonArray { etcdtxn::putOp(full, document),
                         etcdtxn::sideOp(fullKey(side.key), side) },
            etcdtxn::rangeOp(full));
    m_client->call(QStringLiteral("/v3/kv/txn"), body,
                   [this, key, document, version, side, done = std::move(done)](
                           const QJsonObject &json, const Failure &failed) {
        const QString operation = QStringLiteral("update");
        bool succeeded = false;
        qint64 written = 0;
        QString why;
        if (failed)
            deliver(done, *failed);
        else if (!etcdtxn::outcome(json, &succeeded, &written, &why))
            deliver(done, badReply(operation, key, why));
        else if (succeeded)
            finishSide(json, std::optional(side),
                       success(StoreEntry { key, document, QString::number(written) }), done);
        else
            deliver(done, notApplied(operation, key, version,
                                     etcdtxn::response(json, 0, QStringLiteral("response_range"))));
    });
}

StoreResult EtcdStore::removed(const QString &key, const QJsonObject &deleteResponse) const
{
    qint64 deleted = 0;
    if (!etcdcodec::revision(deleteResponse.value(QLatin1String("deleted")), &deleted, 0))
        return badReply(QStringLiteral("remove"), key, QStringLiteral("\"deleted\" is not a count"));
    if (deleted == 0)
        return failure(Status::NotFound,
                       QStringLiteral("%1: no key \"%2\" to remove").arg(describe(), key));
    const QJsonValue previous = deleteResponse.value(QLatin1String("prev_kvs")).toArray().at(0);
    StoreResult result;
    result.entry.key = key;
    QString why;
    // Removed all the same when etcd did not say what it held, or said
    // something unreadable: an unconditional remove clears a bad value.
    if (!previous.isUndefined() && etcdcodec::decodeKv(previous, m_prefix, &result.entry, &why))
        result = success(result.entry);
    return result;
}

void EtcdStore::remove(const QString &key, const QString &version, Callback done)
{
    if (refuseUninitialised(done))
        return;
    const QByteArray full = fullKey(key);
    const QJsonObject deleteRange { { QStringLiteral("key"), etcdcodec::encodeBytes(full) },
                                    { QStringLiteral("prev_kv"), true } };
    if (version.isEmpty()) {
        m_client->call(QStringLiteral("/v3/kv/deleterange"), deleteRange,
                       [this, key, done = std::move(done)](const QJsonObject &json,
                                                           const Failure &failed) {
            deliver(done, failed ? *failed : removed(key, json));
        });
        return;
    }
    const std::optional<qint64> revision = parseVersion(version);
    if (!revision) {
        reportCurrent(QStringLiteral("remove"), key, version, std::move(done));
        return;
    }
    const QJsonObject body = etcdtxn::txn(
            etcdtxn::modifiedAt(full, *revision),
            QJsonObject { { QStringLiteral("request_delete_range"), deleteRange } },
            etcdtxn::rangeOp(full));
    m_client->call(QStringLiteral("/v3/kv/txn"), body,
                   [this, key, version, done = std::move(done)](const QJsonObject &json,
                                                                const Failure &failed) {
        const QString operation = QStringLiteral("remove");
        bool succeeded = false;
        if (failed)
            deliver(done, *failed);
        else if (!etcdcodec::optionalBool(json.value(QLatin1String("succeeded")), &succeeded))
            deliver(done, badReply(operation, key, QStringLiteral("\"succeeded\" is not a boolean")));
        else if (succeeded)
            deliver(done, removed(key, etcdtxn::response(json, 0,
                                                         QStringLiteral("response_delete_range"))));
        else
            deliver(done, notApplied(operation, key, version,
                                     etcdtxn::response(json, 0, QStringLiteral("response_range"))));
    });
}

void EtcdStore::list(const QString &prefix, Callback done)
{
    if (refuseUninitialised(done))
        return;
    QPointer<EtcdListMirror> mirror = m_mirrors.mirrorFor(prefix);
    if (mirror && mirror->serves()) {
        StoreResult listed;
        listed.entries = mirror->entries();
        deliver(done, std::move(listed));
        return;
    }
    if (mirror)
        mirror->rangeSent();
    const QByteArray full = fullKey(prefix);
    const QJsonObject body {
        { QStringLiteral("key"), etcdcodec::encodeBytes(etcdcodec::prefixRangeStart(full)) },
        { QStringLiteral("range_end"), etcdcodec::encodeBytes(etcdcodec::prefixRangeEnd(full)) },
    };
    m_client->call(QStringLiteral("/v3/kv/range"), body,
                   [this, prefix, mirror, done = std::move(done)](const QJsonObject &json,
                                                                  const Failure &failed) {
        StoreResult result;
        QStringList errors;
        QString why;
        qint64 revision = 0;
        const bool read = !failed && etcdtxn::entries(json, m_prefix, &result.entries, &errors, &why);
        if (mirror) {
            const bool whole = read && errors.isEmpty()
                    && etcdcodec::revision(json.value(QLatin1String("header")).toObject().value(QLatin1String("revision")),
                                           &revision, 0);
            mirror->rangeAnswered(whole ? std::optional(result.entries) : std::nullopt, revision);
        }
        if (failed) {
            deliver(done, *failed);
            return;
        }
        if (!read) {
            deliver(done, badReply(QStringLiteral("list"), prefix, why));
            return;
        }
        // The readable entries are still listed, as FileStore does: one bad
        // value must not hide every other lease, nor be silently absent.
        if (!errors.isEmpty()) {
            result.status = Status::BadReply;
            result.errorString = badReply(QStringLiteral("list"), prefix,
                                          errors.join(QStringLiteral("; ")))
                                         .errorString;
        }
        deliver(done, result);
    });
}

StoreWatch *EtcdStore::watch(const QString &prefix, QObject *parent)
{
    // Every watch shares the one stream, whatever its prefix: each stream
    // holds a connection of the few Qt opens per host (EtcdWatchHub).
    return watchOn(m_hub, prefix, parent, true);
}

EtcdWatch *EtcdStore::watchOn(QPointer<EtcdWatchHub> &hub, const QString &prefix, QObject *parent,
                              bool holdRequests)
{
    if (!m_client)
        return nullptr;
    if (!hub || hub->retiring())
        hub = new EtcdWatchHub(m_client, m_prefix, prefix, m_client, holdRequests);
    return new EtcdWatch(hub, prefix, m_client->knownRevision(), parent);
}

} // namespace baton
