#pragma once

#include "leaseprotocol.h"

namespace baton {

/*!
 * The lease of a single-instance application (W8): kept in this process,
 * where nobody else can take it, so every request of its only candidate
 * is granted. The election runs on it as on any other backend.
 */
class LocalLeaseBackend final : public LeaseBackend
{
    Q_OBJECT
public:
    explicit LocalLeaseBackend(const QString &leaseName, QObject *parent = nullptr);

    QString describe() const override;
    void read(Callback done) override;
    void create(const LeaseRecord &record, const std::optional<HistoryEntry> &change,
                Callback done) override;
    void update(const LeaseRecord &record, const QString &version,
                const std::optional<HistoryEntry> &change, Callback done) override;
    /*! Nothing but its own candidate writes it: there is nothing else to follow. */
    bool startWatching() override;

private:
    void answer(Callback done, LeaseReply reply);
    LeaseReply write(const LeaseRecord &record);

    QString m_leaseName;
    LeaseState m_state;
    qint64 m_writes = 0;
};

} // namespace baton
