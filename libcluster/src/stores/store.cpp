#include <baton/store.h>

#include "logging.h"


namespace baton {

namespace {

// A side document is written whole over whatever is there; another writer's
// version in between only costs a read and another try, a few times at most.
constexpr int kSideWriteTries = 3;

/*!
 * Writes \a side over whatever \a store holds at its key, with the
 * conditional writes every store has, then calls \a finished. A failure is
 * logged: the write it goes with has already succeeded.
 */
void writeSide(Store *store, const StoreSideWrite &side, int triesLeft,
               std::function<void()> finished)
{
    store->get(side.key, [store, side, triesLeft, finished = std::move(finished)](
                                 const StoreResult &current) mutable {
        auto written = [store, side, triesLeft, finished](const StoreResult &result) mutable {
            if (result.status == StoreResult::Status::Conflict && triesLeft > 1) {
                writeSide(store, side, triesLeft - 1, std::move(finished));
                return;
            }
            if (!result.ok())
                qCWarning(lcStore).noquote() << QStringLiteral("%1: \"%2\" not written: %3")
                                                        .arg(store->name(), side.key,
                                                             result.errorString);
            finished();
        };
        if (current.ok())
            store->update(side.key, side.document, current.entry.version, std::move(written));
        else if (current.status == StoreResult::Status::NotFound)
            store->create(side.key, side.document, std::move(written));
        else
            written(current);
    });
}

/*! The answer to a conditional write that, when it won, writes \a side before \a done hears of it. */
Store::Callback thenWriteSide(Store *store, const StoreSideWrite &side, Store::Callback done)
{
    return [store, side, done = std::move(done)](const StoreResult &result) {
        if (!result.ok()) {
            done(result);
            return;
        }
        writeSide(store, side, kSideWriteTries, [done, result] { done(result); });
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
