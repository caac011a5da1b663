#pragma once

#include "leaseprotocol.h"

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
    /*!
     * \a historyLength: how many holder changes `history:<leaseName>` keeps
     * (O2); 0 keeps none and writes exactly the lease record.
     */
    StoreLeaseBackend(Store *store, const QString &leaseName,
                      int historyLength = leasehistory::defaultLength, QObject *parent = nullptr);

    QString describe() const override;
    void read(Callback done) override;
    void create(const LeaseRecord &record, const std::optional<HistoryEntry> &change,
                Callback done) override;
    void update(const LeaseRecord &record, const QString &version,
                const std::optional<HistoryEntry> &change, Callback done) override;
    bool startWatching() override;

private:
    /*! The stored changes to append to, and the version they were read at. */
    struct StoredHistory
    {
        QList<HistoryEntry> changes;
        /*! Empty when there was none; unset when it could not be read (R7). */
        std::optional<QString> version;
    };
    /*! The stored history to append to, or none when nothing is to be recorded. */
    using WithHistory = std::function<void(const std::optional<StoredHistory> &)>;
    /*!
     * Reads the stored history when \a change is to be recorded and calls
     * \a write with it; at once with none when there is nothing to record.
     */
    void readHistory(const std::optional<HistoryEntry> &change, WithHistory write);
    /*! The history \a stored (the get of the history) holds; none when it could not be read. */
    std::optional<StoredHistory> storedChanges(const struct StoreResult &stored);
    /*!
     * The write of the history: \a stored with \a change, which began the
     * term \a transitions, on the version it was read at (R7).
     */
    struct StoreSideWrite historyWrite(const StoredHistory &stored, HistoryEntry change,
                                       qint64 transitions) const;
    void warnOnce(const QString &message);
    std::function<void(const struct StoreResult &)> guarded(Callback done, bool isWrite);
    /*! Keeps what \a result says about the key's absence (m_absentSince). */
    void noteAbsence(const struct StoreResult &result);
    LeaseReply toReply(const struct StoreResult &result, bool isWrite) const;
    bool toState(const struct StoreEntry &entry, LeaseState *state, QString *errorString) const;

    QPointer<Store> m_store;
    QString m_key;
    QString m_historyKey;
    int m_historyLength;
    /*! A bad or unreadable stored history is told once per backend, not at every acquisition. */
    bool m_warnedHistory = false;
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
