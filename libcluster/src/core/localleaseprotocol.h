#pragma once

#include "leaseprotocol.h"

#include <QHash>

namespace baton {

/*!
 * The leases of a single-instance application (W8): kept in this process,
 * where nobody else can take them, so every request of their only
 * candidate is granted. The election runs on it as on any other protocol.
 */
class LocalLeaseProtocol final : public LeaseProtocol
{
    Q_OBJECT
public:
    explicit LocalLeaseProtocol(QObject *parent = nullptr);

    QString describe() const override;
    QString describeLease(const QString &name) const override;
    void get(const QString &name, Callback done) override;
    void create(const QString &name, const LeaseRecord &record,
                const std::optional<HistoryEntry> &change, Callback done) override;
    void update(const QString &name, const LeaseRecord &record, const QString &version,
                const std::optional<HistoryEntry> &change, Callback done) override;
    void list(ListCallback done) override;
    /*! Nothing but its own candidate writes a lease: a watch that never speaks. */
    LeaseWatch *watch(const QString &name, QObject *parent) override;

private:
    void answer(Callback done, LeaseReply reply);
    LeaseState &stateOf(const QString &name);
    LeaseReply write(LeaseState &state, const LeaseRecord &record);

    QHash<QString, LeaseState> m_leases;
    qint64 m_writes = 0;
};

} // namespace baton
