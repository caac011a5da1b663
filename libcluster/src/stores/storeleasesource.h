#pragma once

#include "leasesource.h"

#include <QHash>
#include <QPointer>

#include <optional>

namespace baton {

class Store;
class StoreWatch;
struct StoreEntry;
struct StoreResult;

/*!
 * The `cluster:*` entries of a Store (B2, O2), named without the
 * prefix. The watch starts before the list, so that no change falls
 * between them; a change the watch reported while a list was outstanding
 * wins over the list, which may be older. Where the store cannot watch,
 * isWatching() is false and the observer polls.
 *
 * Each list also reads the `history:*` entries, the histories the holders
 * stored (O2), and hands each lease its own; a list of them that fails
 * leaves the leases without one, with a warning.
 */
class StoreLeaseSource final : public LeaseSource
{
    Q_OBJECT
public:
    explicit StoreLeaseSource(Store *store, QObject *parent = nullptr);
    ~StoreLeaseSource() override;

    QString describe() const override;
    void start() override;
    void stop() override;
    void list() override;
    bool isWatching() const override { return m_watch != nullptr; }

    /*! An entry as the observer keeps it; an unreadable document is an error entry (R1). */
    static SourcedLease fromEntry(const StoreEntry &entry);

private:
    void finishList(const QList<StoreEntry> &entries, const StoreResult &histories);

    QPointer<Store> m_store;
    StoreWatch *m_watch = nullptr;
    bool m_running = false;
    bool m_listing = false;
    /*! Watched while a list was outstanding: the latest value, or nullopt when removed. */
    QHash<QString, std::optional<SourcedLease>> m_touchedDuringList;
};

} // namespace baton
