#include <baton/store.h>

#include "logging.h"
#include "sidewrite.h"


namespace baton {

namespace sidewrite {

std::optional<QJsonObject> documentOver(const StoreSideWrite &side,
                                        const std::optional<StoreEntry> &current)
{
    // R7: a side write whose read was not understood may be late over a
    // successor's document as much as over any other: it is built again.
    const QString now = current ? current->version : QString();
    if (side.basedOn && now == *side.basedOn)
        return side.document;
    // Another writer came between the read this document was built from and
    // this write: what it wrote stays unless the rebase keeps it.
    if (!side.rebase)
        return std::nullopt;
    return side.rebase(current);
}

namespace {

// Another writer's version in between only costs a read and another try, a
// few times at most.
constexpr int kSideWriteTries = 3;

void writeTry(Store *store, const StoreSideWrite &side, int triesLeft,
              std::function<void()> finished)
{
    store->get(side.key, [store, side, triesLeft, finished = std::move(finished)](
                                 const StoreResult &current) mutable {
        auto written = [store, side, triesLeft, finished](const StoreResult &result) mutable {
            if (result.status == StoreResult::Status::Conflict && triesLeft > 1) {
                writeTry(store, side, triesLeft - 1, std::move(finished));
                return;
            }
            if (!result.ok())
                qCWarning(lcStore).noquote() << QStringLiteral("%1: \"%2\" not written: %3")
                                                        .arg(store->name(), side.key,
                                                             result.errorString);
            finished();
        };
        if (!current.ok() && current.status != StoreResult::Status::NotFound) {
            written(current);
            return;
        }
        const std::optional<StoreEntry> now =
                current.ok() ? std::optional(current.entry) : std::nullopt;
        const std::optional<QJsonObject> document = documentOver(side, now);
        if (!document) {
            finished();
            return;
        }
        if (now)
            store->update(side.key, *document, now->version, std::move(written));
        else
            store->create(side.key, *document, std::move(written));
    });
}

} // namespace

void write(Store *store, const StoreSideWrite &side, std::function<void()> finished)
{
    writeTry(store, side, kSideWriteTries, std::move(finished));
}

} // namespace sidewrite

namespace {

/*! The answer to a conditional write that, when it won, writes \a side before \a done hears of it. */
Store::Callback thenWriteSide(Store *store, const StoreSideWrite &side, Store::Callback done)
{
    return [store, side, done = std::move(done)](const StoreResult &result) {
        if (!result.ok()) {
            done(result);
            return;
        }
        sidewrite::write(store, side, [done, result] { done(result); });
    };
}

} // namespace

void Store::createWith(const QString &key, const QJsonObject &document, const StoreSideWrite &side,
                       Callback done)
{
    create(key, document, thenWriteSide(this, side, std::move(done)));
}

void Store::updateWith(const QString &key, const QJsonObject &document, const QString &version,
                       const StoreSideWrite &side, Callback done)
{
    update(key, document, version, thenWriteSide(this, side, std::move(done)));
}

} // namespace baton
