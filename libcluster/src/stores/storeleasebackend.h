#pragma once

#include "leasebackend.h"

#include <QPointer>

#include <optional>

namespace baton {

class Store;
class StoreWatch;

/*!
 * A lease kept in a Registry entry `cluster:<leaseName>` (B2), through
 * the Store interface only, so every store backs the election unchanged.
 */
class StoreLeaseBackend final : public LeaseBackend
{
    Q_OBJECT
public:
    StoreLeaseBackend(Store *store, const QString &leaseName, QObject *parent = nullptr);

    QString describe() const override;
    void read(Callback done) override;
    void create(const LeaseRecord &record, const std::optional<HistoryEntry> &change,
                Callback done) override;
    void update(const LeaseRecord &record, const QString &version,
                const std::optional<HistoryEntry> &change, Callback done) override;
    bool startWatching() override;

private:
    std::function<void(const struct StoreResult &)> guarded(Callback done, bool isWrite);
    /*! Keeps what \a result says about the key's absence (m_absentSince). */
    void noteAbsence(const struct StoreResult &result);
    LeaseReply toReply(const struct StoreResult &result, bool isWrite) const;
    bool toState(const struct StoreEntry &entry, LeaseState *state, QString *errorString) const;

    QPointer<Store> m_store;
    QString m_key;
    StoreWatch *m_watch = nullptr;
    /*!
     * Set while the key is known to be absent, from the last answer of the
     * store: the version of its removal (0 when the store keeps none), the
     * floor of the next term's transitions (F7). Unset when the record was
     * seen since, or removed unseen (a watch's removal).
     */
    std::optional<qint64> m_absentSince;
};

} // namespace baton
