#pragma once

#include "leasebackend.h"

#include <QPointer>

namespace baton {

class Store;
class StoreWatch;

/*!
 * A lease kept in a Registry entry `cluster:<leaseName>` (SPEC B2), through
 * the Store interface only, so every store backs the election unchanged.
 */
class StoreLeaseBackend final : public LeaseBackend
{
    Q_OBJECT
public:
    StoreLeaseBackend(Store *store, const QString &leaseName, QObject *parent = nullptr);

    QString describe() const override;
    void read(Callback done) override;
    void create(const LeaseRecord &record, Callback done) override;
    void update(const LeaseRecord &record, const QString &version, Callback done) override;
    bool startWatching() override;

private:
    std::function<void(const struct StoreResult &)> guarded(Callback done, bool isWrite) const;
    LeaseReply toReply(const struct StoreResult &result, bool isWrite) const;
    bool toState(const struct StoreEntry &entry, LeaseState *state, QString *errorString) const;

    QPointer<Store> m_store;
    QString m_key;
    StoreWatch *m_watch = nullptr;
};

} // namespace baton
