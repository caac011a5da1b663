#pragma once

#include "leaseprotocol.h"

#include <QHash>
#include <QPointer>

#include <optional>

#include <memory>

namespace baton {

class Store;
struct StoreEntry;
struct StoreResult;
struct StoreSideWrite;

/*!
 * The leases of a Registry (B2, O2): the entry `cluster:<name>` holds a
 * lease, `history:<name>` the holder changes its acquisitions stored,
 * through the Store interface only, so every store backs the election and
 * the observer unchanged.
 *
 * A watch of one lease follows its key; a watch of all follows the
 * `cluster:` prefix, started before its list, and what it reported while
 * the list was on its way wins over that list, which may be older. Each
 * list also reads the `history:*` entries and hands each lease its own; a
 * list of them that fails leaves the leases without one, with a warning.
 */
class StoreLeaseProtocol final : public LeaseProtocol
{
    Q_OBJECT
public:
    /*!
     * \a historyLength: how many holder changes `history:<name>` keeps
     * (O2); 0 keeps none and writes exactly the lease record.
     */
    explicit StoreLeaseProtocol(Store *store, int historyLength = leasehistory::defaultLength,
                                QObject *parent = nullptr);
    ~StoreLeaseProtocol() override;

    QString describe() const override;
    QString describeLease(const QString &name) const override;
    void get(const QString &name, Callback done) override;
    void create(const QString &name, const LeaseRecord &record,
                const std::optional<HistoryEntry> &change, Callback done) override;
    void update(const QString &name, const LeaseRecord &record, const QString &version,
                const std::optional<HistoryEntry> &change, Callback done) override;
    void list(ListCallback done) override;
    LeaseWatch *watch(const QString &name, QObject *parent) override;

    /*! What the watches reported during a list: the latest value, or nullopt when removed. */
    using Touched = QHash<QString, std::optional<SourcedLease>>;
    /*! list(), with what \a touched returns at its end put over what it read. */
    void listMerged(std::function<Touched()> touched, ListCallback done);
    /*! A watch saw \a name change: whatever was known of its absence is stale. */
    void noteWatched(const QString &name) { forgetAbsence(name); }

    /*!
     * What a conditional write of \a record to \a name answered, as the
     * election takes it, for a protocol that sends the write itself
     * (EtcdLeaseProtocol). Written, it is \a record as it went, not
     * decoded again from the document it became.
     */
    LeaseReply answerWrite(const QString &name, const LeaseRecord &record, const StoreResult &result);

    /*! An entry as a list or watch reports it; an unreadable document is an error entry (R1). */
    static SourcedLease fromEntry(const StoreEntry &entry);

private:
    /*! The stored changes to append to, and the version they were read at. */
    struct StoredHistory
    {
        QList<HistoryEntry> changes;
        /*! Empty when there was none; unset when it could not be read (R7). */
        std::optional<QString> version;
    };
    using WithHistory = std::function<void(const std::optional<StoredHistory> &)>;
    /*!
     * Reads the stored history of \a name when \a change is to be recorded
     * and calls \a write with it; at once with none when there is nothing to record.
     */
    void readHistory(const QString &name, const std::optional<HistoryEntry> &change,
                     WithHistory write);
    /*! The history \a stored (the get of the history) holds; none when it could not be read. */
    std::optional<StoredHistory> storedChanges(const QString &name, const StoreResult &stored);
    /*!
     * The write of the history: \a stored with \a change, which began the
     * term \a transitions, on the version it was read at (R7).
     */
    StoreSideWrite historyWrite(const QString &name, const StoredHistory &stored,
                                HistoryEntry change, qint64 transitions) const;
    void warnOnce(const QString &message);
    std::function<void(const StoreResult &)> guarded(const QString &name, Callback done,
                                                     bool isWrite);
    /*! \a name was seen: m_absentSince no longer holds it. */
    void forgetAbsence(const QString &name);
    /*! Keeps what \a result says about the absence of \a name (m_absentSince). */
    void noteAbsence(const QString &name, const StoreResult &result);
    LeaseReply toReply(const QString &name, const StoreResult &result, bool isWrite) const;
    bool toState(const QString &name, const StoreEntry &entry, LeaseState *state,
                 QString *errorString) const;
    struct ListDecoding;
    /*!
     * Decodes the leases and their histories the lists read, a few
     * milliseconds of them per event-loop turn (a list of 20,000 leases
     * with their histories takes most of a second), then puts what
     * \a touched returns over them and calls \a done once.
     */
    void finishList(const QList<StoreEntry> &entries, const StoreResult &histories,
                    std::function<Touched()> touched, ListCallback done);
    void decodeSome(const std::shared_ptr<ListDecoding> &job);

    QPointer<Store> m_store;
    int m_historyLength;
    /*! A bad or unreadable stored history is told once, not at every acquisition. */
    bool m_warnedHistory = false;
    /*!
     * The leases known to be absent, from the last answer of the store:
     * the version of the removal (0 when the store keeps none), the floor
     * of the next term's transitions (F7). Not there when the record was
     * seen since, or removed unseen (a watch's removal). Mostly empty: an
     * election's lease is absent only until it is first written, and an
     * empty hash gives back its storage (over a kilobyte, per election).
     */
    QHash<QString, qint64> m_absentSince;
};

} // namespace baton
