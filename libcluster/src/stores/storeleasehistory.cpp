// The stored history of a Registry lease (O2): what StoreLeaseProtocol
// reads and writes beside the record when a write changes the holder.
#include "storeleaseprotocol.h"

#include "logging.h"

#include <batoninternal/registrykey.h>

#include <baton/store.h>

namespace baton {

void StoreLeaseProtocol::warnOnce(const QString &message)
{
    if (m_warnedHistory)
        return;
    m_warnedHistory = true;
    qCWarning(lcStore).noquote() << message;
}

void StoreLeaseProtocol::readHistory(const QString &name, const std::optional<HistoryEntry> &change,
                                     WithHistory write)
{
    // O2: only a change of holder reads and writes the history; a renewal or
    // a release writes the lease record alone, as before there was one.
    if (!change || m_historyLength <= 0) {
        write(std::nullopt);
        return;
    }
    m_store->get(leasehistory::registryKey(name),
                 [self = QPointer<StoreLeaseProtocol>(this), name,
                  write = std::move(write)](const StoreResult &stored) {
                     if (self)
                         write(self->storedChanges(name, stored));
                 });
}

std::optional<StoreLeaseProtocol::StoredHistory>
StoreLeaseProtocol::storedChanges(const QString &name, const StoreResult &stored)
{
    using Status = StoreResult::Status;
    const QString historyKey = leasehistory::registryKey(name);
    StoredHistory history;
    if (stored.ok())
        history.version = stored.entry.version;
    else if (stored.status == Status::NotFound)
        history.version = QString();
    QList<HistoryEntry> &changes = history.changes;
    if (stored.status == Status::Unavailable || stored.status == Status::CredentialsRefused) {
        // The acquisition goes on without its history rather than wait for it.
        warnOnce(QStringLiteral("%1: lease history \"%2\" not read, so a change goes unrecorded: %3")
                         .arg(describeLease(name), historyKey, stored.errorString));
        return std::nullopt;
    }
    if (stored.status == Status::BadReply) {
        // R7: a reply not understood (a garbled answer, or a corrupt file)
        // says nothing of what is stored: the write leaves basedOn unset and
        // goes in among what it finds then, replacing only what the store
        // still cannot read itself.
        warnOnce(QStringLiteral("%1: lease history \"%2\" not read; this change goes in over what "
                                "is stored when it is written: %3")
                     .arg(describeLease(name), historyKey, stored.errorString));
        return history;
    }
    QString error;
    if (stored.ok() && !leasehistory::decode(stored.entry.document, &changes, &error))
        changes.clear();
    if (!error.isEmpty()) {
        // Never an error of the election: the history starts again from this change.
        warnOnce(QStringLiteral("%1: lease history \"%2\" ignored and started again: %3")
                         .arg(describeLease(name), historyKey, error));
    }
    return history;
}

StoreSideWrite StoreLeaseProtocol::historyWrite(const QString &name, const StoredHistory &stored,
                                                HistoryEntry change, qint64 transitions) const
{
    // The change names the term it began as the record written has it: the
    // create path may have raised the Elector's count (F7).
    change.transitions = transitions;
    StoreSideWrite side { leasehistory::registryKey(name),
                          leasehistory::encodeWithin(
                                  leasehistory::appended(stored.changes, change, m_historyLength)),
                          stored.version, {} };
    // R7: a successor wrote the history since it was read (this write comes
    // late: a freeze between the record's write and this one). Its changes
    // stay; this one goes in its place among them, or not at all.
    side.rebase = [change, length = m_historyLength](const std::optional<StoreEntry> &current)
            -> std::optional<QJsonObject> {
        QList<HistoryEntry> changes;
        QString error;
        if (current && !leasehistory::decode(current->document, &changes, &error))
            return std::nullopt; // unreadable now: the next acquisition starts it again
        const std::optional<QList<HistoryEntry>> merged =
                leasehistory::inserted(changes, change, length);
        if (!merged)
            return std::nullopt;
        return leasehistory::encodeWithin(*merged);
    };
    return side;
}

} // namespace baton
