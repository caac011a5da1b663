#include "storeleaseprotocol.h"

#include "storesupport.h"

#include <batoninternal/storelease.h>

#include <baton/clusterservice.h>

#include <batoninternal/leasecodec.h>
#include "logging.h"
#include "storeclusterservice.h"
#include <batoninternal/registrykey.h>
#include "versionfloor.h"

#include <baton/store.h>

#include <QJsonDocument>
#include <QMetaObject>

#include <algorithm>

namespace baton {

StoreLeaseBackend::StoreLeaseBackend(Store *store, const QString &leaseName, int historyLength,
                                     QObject *parent)
    : LeaseBackend(parent)
    , m_store(store)
    , m_key(registryLeaseKey(leaseName))
    , m_historyKey(leasehistory::registryKey(leaseName))
    , m_historyLength(historyLength)
{
}

QString StoreLeaseBackend::describe() const
{
    return QStringLiteral("%1 in %2 (%3)")
            .arg(m_key, m_store ? m_store->name() : QStringLiteral("a stopped store"),
                 m_store ? m_store->type() : QString());
}

bool StoreLeaseBackend::toState(const StoreEntry &entry, LeaseState *state,
                                QString *errorString) const
{
    LeaseRecord record;
    if (!leasecodec::decode(entry.document, &record, errorString)) {
        // R1: a record this client cannot read is an error, never a free lease.
        *errorString = QStringLiteral("%1: unreadable lease record: %2").arg(describe(), *errorString);
        return false;
    }
    state->exists = true;
    state->record = record;
    state->version = entry.version;
    return true;
}

LeaseReply StoreLeaseBackend::toReply(const StoreResult &result, bool isWrite) const
{
    using Status = StoreResult::Status;
    LeaseState state;
    QString error;
    switch (result.status) {
    case Status::Ok:
        if (!toState(result.entry, &state, &error))
            return LeaseReply::error(error);
        return LeaseReply::ok(state);
    case Status::NotFound:
        // For a read, a free lease; under a conditional write, a lost race
        // like any other, with the lease now gone.
        return isWrite ? LeaseReply::conflict(LeaseState {}) : LeaseReply::ok(LeaseState {});
    case Status::Conflict:
        if (!result.entryKnown)
            return LeaseReply::conflict();
        if (!toState(result.entry, &state, &error))
            return LeaseReply::error(error);
        return LeaseReply::conflict(state);
    case Status::Unavailable:
    case Status::BadReply:
        break;
    }
    // A store names itself first in its errors: the key goes after that
    // name, which said once is enough.
    const QString store = m_store ? storesupport::describeService(*m_store, m_store->type()) : QString();
    if (!store.isEmpty() && result.errorString.startsWith(store + QLatin1Char(':')))
        return LeaseReply::error(QStringLiteral("%1, key \"%2\"%3")
                                         .arg(store, m_key, result.errorString.mid(store.size())));
    return LeaseReply::error(QStringLiteral("%1: %2").arg(describe(), result.errorString));
}

Store::Callback StoreLeaseBackend::guarded(Callback done, bool isWrite)
{
    // The store outlives this backend's requests only by contract of its own:
    // an answer that comes after the backend is gone goes nowhere.
    return [self = QPointer<StoreLeaseBackend>(this), done = std::move(done),
            isWrite](const StoreResult &result) {
        if (!self)
            return;
        self->noteAbsence(result);
        done(self->toReply(result, isWrite));
    };
}

void StoreLeaseBackend::noteAbsence(const StoreResult &result)
{
    using Status = StoreResult::Status;
    if (result.status == Status::NotFound) {
        bool numeric = false;
        const qint64 removedAt = result.entry.version.toLongLong(&numeric);
        m_absentSince = numeric ? removedAt : 0;
    } else if (result.status == Status::Ok || result.status == Status::Conflict) {
        m_absentSince.reset();
    }
}

void StoreLeaseBackend::read(Callback done)
{
    if (!m_store)
        return;
    m_store->get(m_key, guarded(std::move(done), false));
}

void StoreLeaseBackend::warnOnce(const QString &message)
{
    if (m_warnedHistory)
        return;
    m_warnedHistory = true;
    qCWarning(lcStore).noquote() << message;
}

void StoreLeaseBackend::readHistory(const std::optional<HistoryEntry> &change, WithHistory write)
{
    // O2: only a change of holder reads and writes the history; a renewal or
    // a release writes the lease record alone, as before there was one.
    if (!change || m_historyLength <= 0) {
        write(std::nullopt);
        return;
    }
    m_store->get(m_historyKey, [self = QPointer<StoreLeaseBackend>(this),
                                write = std::move(write)](const StoreResult &stored) {
        if (self)
            write(self->storedChanges(stored));
    });
}

std::optional<StoreLeaseBackend::StoredHistory>
StoreLeaseBackend::storedChanges(const StoreResult &stored)
{
    using Status = StoreResult::Status;
    StoredHistory history;
    if (stored.ok())
        history.version = stored.entry.version;
    else if (stored.status == Status::NotFound)
        history.version = QString();
    QList<HistoryEntry> &changes = history.changes;
    if (stored.status == Status::Unavailable) {
        // The acquisition goes on without its history rather than wait for it.
        warnOnce(QStringLiteral("%1: lease history \"%2\" not read, so a change goes unrecorded: %3")
                         .arg(describe(), m_historyKey, stored.errorString));
        return std::nullopt;
    }
    if (stored.status == Status::BadReply) {
        // R7: a reply not understood (a garbled answer, or a corrupt file)
        // says nothing of what is stored: the write leaves basedOn unset and
        // goes in among what it finds then, replacing only what the store
        // still cannot read itself.
        warnOnce(QStringLiteral("%1: lease history \"%2\" not read; this change goes in over what "
                                "is stored when it is written: %3")
                     .arg(describe(), m_historyKey, stored.errorString));
        return history;
    }
    QString error;
    if (stored.ok() && !leasehistory::decode(stored.entry.document, &changes, &error))
        changes.clear();
    if (!error.isEmpty()) {
        // Never an error of the election: the history starts again from this change.
        warnOnce(QStringLiteral("%1: lease history \"%2\" ignored and started again: %3")
                         .arg(describe(), m_historyKey, error));
    }
    return history;
}

StoreSideWrite StoreLeaseBackend::historyWrite(const StoredHistory &stored, HistoryEntry change,
                                               qint64 transitions) const
{
    // The change names the term it began as the record written has it: the
    // create path may have raised the Elector's count (F7).
    change.transitions = transitions;
    StoreSideWrite side { m_historyKey,
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

void StoreLeaseBackend::create(const LeaseRecord &record, const std::optional<HistoryEntry> &change,
                               Callback done)
{
    if (!m_store)
        return;
    readHistory(change, [this, record, change, done = std::move(done)](
                                const std::optional<StoredHistory> &history) mutable {
        if (!m_store)
            return;
        const auto *floor = dynamic_cast<const VersionFloor *>(m_store.data());
        if (!m_absentSince && !floor) {
            // F7: the record went away unseen (a watch told of it), so the
            // version of its removal is unknown. Lost, as a race: the Elector
            // reads again, and the create after that read starts above it.
            QMetaObject::invokeMethod(
                    this, [done = std::move(done)] { done(LeaseReply::conflict()); },
                    Qt::QueuedConnection);
            return;
        }
        // F7: every write of a key raises its version by one and its
        // transitions by one at most, so the version of its removal exceeds every
        // token the removed record handed out: the next term starts there.
        LeaseRecord created = record;
        if (m_absentSince)
            created.transitions = std::max(created.transitions, *m_absentSince);
        // Stores whose versions only grow (etcd's revisions, the memory store's
        // counter, the file store's version files) know a floor above every
        // version the key ever had, read or not.
        if (floor) {
            const qint64 above = floor->versionFloor(m_key);
            if (above > 0)
                created.transitions = std::max(created.transitions, above + 1);
        }
        if (history)
            m_store->createWith(m_key, leasecodec::encode(created),
                                historyWrite(*history, *change, created.transitions),
                                guarded(std::move(done), true));
        else
            m_store->create(m_key, leasecodec::encode(created), guarded(std::move(done), true));
    });
}

void StoreLeaseBackend::update(const LeaseRecord &record, const QString &version,
                               const std::optional<HistoryEntry> &change, Callback done)
{
    if (!m_store)
        return;
    readHistory(change, [this, record, version, change, done = std::move(done)](
                                const std::optional<StoredHistory> &history) mutable {
        if (!m_store)
            return;
        if (history)
            m_store->updateWith(m_key, leasecodec::encode(record), version,
                                historyWrite(*history, *change, record.transitions),
                                guarded(std::move(done), true));
        else
            m_store->update(m_key, leasecodec::encode(record), version,
                            guarded(std::move(done), true));
    });
}

bool StoreLeaseBackend::startWatching()
{
    if (!m_store)
        return false;
    if (m_watch)
        return true;
    m_watch = m_store->watch(m_key, this);
    if (!m_watch)
        return false;
    connect(m_watch, &StoreWatch::entryChanged, this, [this](const StoreEntry &entry) {
        if (entry.key != m_key)
            return; // the prefix also matches longer lease names
        m_absentSince.reset();
        LeaseState state;
        QString error;
        if (toState(entry, &state, &error))
            Q_EMIT changed(state);
        else
            qCWarning(lcStore).noquote() << error;
    });
    connect(m_watch, &StoreWatch::entryRemoved, this, [this](const QString &key) {
        if (key != m_key)
            return;
        m_absentSince.reset(); // removed, but at which version is for a read to say
        Q_EMIT changed(LeaseState {});
    });
    connect(m_watch, &StoreWatch::resynchronise, this, [this] {
        read([this](const LeaseReply &reply) {
            if (reply.outcome == LeaseReply::Outcome::Ok)
                Q_EMIT changed(reply.state);
        });
    });
    return true;
}

namespace {

/*! StoreClusterService on a store someone else opened. */
class StoreElection final : public ClusterService
{
public:
    StoreElection(Store *store, const QString &name, const QJsonObject &parameters)
        : ClusterService(name, parameters, nullptr)
        , m_store(store)
    {
    }

protected:
    std::unique_ptr<LeaseBackend> createLeaseBackend(QString *errorString) override
    {
        int historyLength = 0;
        if (!readHistoryLength(*this, &historyLength, errorString))
            return nullptr;
        if (!m_store) {
            *errorString = QStringLiteral("service \"%1\": its store is closed").arg(name());
            return nullptr;
        }
        return std::make_unique<StoreLeaseBackend>(m_store, leaseName(), historyLength);
    }

private:
    QPointer<Store> m_store;
};

} // namespace

ClusterService *createStoreElection(Store *store, const QString &name, const QJsonObject &parameters)
{
    return new StoreElection(store, name, parameters);
}

} // namespace baton
