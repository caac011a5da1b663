#include "storeleaseprotocol.h"

#include "clusterservice_p.h"
#include "leaseprotocolsource.h"
#include "listslice.h"
#include "storeleasewatch.h"
#include "storesupport.h"

#include <batoninternal/storelease.h>

#include <baton/clusterservice.h>

#include <batoninternal/leasecodec.h>
#include "logging.h"
#include "storeclusterservice.h"
#include <batoninternal/registrykey.h>
#include "versionfloor.h"

#include <baton/store.h>

#include <QElapsedTimer>
#include <QMetaObject>
#include <QTimer>

#include <algorithm>

namespace baton {

StoreLeaseProtocol::StoreLeaseProtocol(Store *store, int historyLength, QObject *parent)
    : LeaseProtocol(parent)
    , m_store(store)
    , m_historyLength(historyLength)
{
}

StoreLeaseProtocol::~StoreLeaseProtocol() = default;

QString StoreLeaseProtocol::describe() const
{
    return registryLeasePrefix + QLatin1Char('*');
}

QString StoreLeaseProtocol::describeLease(const QString &name) const
{
    return QStringLiteral("%1 in %2 (%3)")
            .arg(registryLeaseKey(name), m_store ? m_store->name() : QStringLiteral("a stopped store"),
                 m_store ? m_store->type() : QString());
}

SourcedLease StoreLeaseProtocol::fromEntry(const StoreEntry &entry)
{
    SourcedLease lease;
    lease.name = entry.key.mid(registryLeasePrefix.size());
    lease.version = entry.version;
    // R1: shown as unreadable, never guessed at.
    lease.valid = leasecodec::decode(entry.document, &lease.record, &lease.error);
    if (!lease.valid)
        lease.record = LeaseRecord {};
    return lease;
}

bool StoreLeaseProtocol::toState(const QString &name, const StoreEntry &entry, LeaseState *state,
                                 QString *errorString) const
{
    LeaseRecord record;
    if (!leasecodec::decode(entry.document, &record, errorString)) {
        // R1: a record this client cannot read is an error, never a free lease.
        *errorString = QStringLiteral("%1: unreadable lease record: %2").arg(describeLease(name), *errorString);
        return false;
    }
    state->exists = true;
    state->record = record;
    state->version = entry.version;
    return true;
}

LeaseReply StoreLeaseProtocol::toReply(const QString &name, const StoreResult &result,
                                       bool isWrite) const
{
    using Status = StoreResult::Status;
    LeaseState state;
    QString error;
    switch (result.status) {
    case Status::Ok:
        if (!toState(name, result.entry, &state, &error))
            return LeaseReply::error(error);
        return LeaseReply::ok(state);
    case Status::NotFound:
        // For a read, a free lease; under a conditional write, a lost race
        // like any other, with the lease now gone.
        return isWrite ? LeaseReply::conflict(LeaseState {}) : LeaseReply::ok(LeaseState {});
    case Status::Conflict:
        if (!result.entryKnown)
            return LeaseReply::conflict();
        if (!toState(name, result.entry, &state, &error))
            return LeaseReply::error(error);
        return LeaseReply::conflict(state);
    case Status::Unavailable:
    case Status::BadReply:
    case Status::CredentialsRefused:
        break;
    }
    const LeaseReply::ErrorKind why = result.status == Status::CredentialsRefused
            ? LeaseReply::ErrorKind::CredentialsRefused
            : LeaseReply::ErrorKind::Other;
    // A store names itself first in its errors: the key goes after that
    // name, which said once is enough.
    const QString store = m_store ? storesupport::describeService(*m_store, m_store->type()) : QString();
    if (!store.isEmpty() && result.errorString.startsWith(store + QLatin1Char(':')))
        return LeaseReply::error(QStringLiteral("%1, key \"%2\"%3")
                                         .arg(store, registryLeaseKey(name),
                                              result.errorString.mid(store.size())),
                                 why);
    return LeaseReply::error(QStringLiteral("%1: %2").arg(describeLease(name), result.errorString), why);
}

Store::Callback StoreLeaseProtocol::guarded(const QString &name, Callback done, bool isWrite)
{
    // The store outlives this protocol's requests only by contract of its
    // own: an answer that comes after the protocol is gone goes nowhere.
    return [self = QPointer<StoreLeaseProtocol>(this), name, done = std::move(done),
            isWrite](const StoreResult &result) {
        if (!self)
            return;
        self->noteAbsence(name, result);
        done(self->toReply(name, result, isWrite));
    };
}

LeaseReply StoreLeaseProtocol::answerWrite(const QString &name, const LeaseRecord &record,
                                           const StoreResult &result)
{
    noteAbsence(name, result);
    if (result.ok())
        return LeaseReply::ok(LeaseState { true, record, result.entry.version });
    return toReply(name, result, true);
}

void StoreLeaseProtocol::noteAbsence(const QString &name, const StoreResult &result)
{
    using Status = StoreResult::Status;
    if (result.status == Status::NotFound) {
        bool numeric = false;
        const qint64 removedAt = result.entry.version.toLongLong(&numeric);
        m_absentSince.insert(name, numeric ? removedAt : 0);
    } else if (result.status == Status::Ok || result.status == Status::Conflict) {
        forgetAbsence(name);
    }
}

void StoreLeaseProtocol::forgetAbsence(const QString &name)
{
    if (m_absentSince.remove(name) && m_absentSince.isEmpty())
        m_absentSince.clear();
}

void StoreLeaseProtocol::get(const QString &name, Callback done)
{
    if (!m_store)
        return;
    m_store->get(registryLeaseKey(name), guarded(name, std::move(done), false));
}

void StoreLeaseProtocol::create(const QString &name, const LeaseRecord &record,
                                const std::optional<HistoryEntry> &change, Callback done)
{
    if (!m_store)
        return;
    readHistory(name, change, [this, name, record, change, done = std::move(done)](
                                      const std::optional<StoredHistory> &history) mutable {
        if (!m_store)
            return;
        const QString key = registryLeaseKey(name);
        const auto *floor = dynamic_cast<const VersionFloor *>(m_store.data());
        const auto absent = m_absentSince.constFind(name);
        const bool absenceKnown = absent != m_absentSince.constEnd();
        if (!absenceKnown && !floor) {
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
        if (absenceKnown)
            created.transitions = std::max(created.transitions, *absent);
        // Stores whose versions only grow (etcd's revisions, the memory store's
        // counter, the file store's version files) know a floor above every
        // version the key ever had, read or not.
        if (floor) {
            const qint64 above = floor->versionFloor(key);
            if (above > 0)
                created.transitions = std::max(created.transitions, above + 1);
        }
        if (history)
            m_store->createWith(key, leasecodec::encode(created),
                                historyWrite(name, *history, *change, created.transitions),
                                guarded(name, std::move(done), true));
        else
            m_store->create(key, leasecodec::encode(created), guarded(name, std::move(done), true));
    });
}

void StoreLeaseProtocol::update(const QString &name, const LeaseRecord &record,
                                const QString &version, const std::optional<HistoryEntry> &change,
                                Callback done)
{
    if (!m_store)
        return;
    readHistory(name, change, [this, name, record, version, change, done = std::move(done)](
                                      const std::optional<StoredHistory> &history) mutable {
        if (!m_store)
            return;
        const QString key = registryLeaseKey(name);
        if (history)
            m_store->updateWith(key, leasecodec::encode(record), version,
                                historyWrite(name, *history, *change, record.transitions),
                                guarded(name, std::move(done), true));
        else
            m_store->update(key, leasecodec::encode(record), version,
                            guarded(name, std::move(done), true));
    });
}

LeaseWatch *StoreLeaseProtocol::watch(const QString &name, QObject *parent)
{
    if (!m_store)
        return nullptr;
    StoreWatch *followed = m_store->watch(name.isEmpty() ? registryLeasePrefix : registryLeaseKey(name),
                                          nullptr);
    if (!followed)
        return nullptr;
    return new StoreLeaseWatch(this, followed, name, parent);
}

void StoreLeaseProtocol::list(ListCallback done)
{
    listMerged({}, std::move(done));
}

void StoreLeaseProtocol::listMerged(std::function<Touched()> touched, ListCallback done)
{
    if (!m_store)
        return;
    QPointer<StoreLeaseProtocol> self(this);
    m_store->list(registryLeasePrefix, [self, touched = std::move(touched),
                                        done = std::move(done)](const StoreResult &leases) {
        if (!self || !self->m_store)
            return;
        if (!leases.ok()) {
            qCWarning(lcStore).noquote() << QStringLiteral("observer: cannot list %1: %2")
                                                    .arg(self->describe(), leases.errorString);
            done({}, leases.errorString);
            return;
        }
        // The histories after the leases: one written in between is newer
        // than its lease, which the observer takes as it comes (it knows a
        // change by its transitions, whichever way it heard of it).
        self->m_store->list(leasehistory::registryPrefix,
                            [self, leases, touched, done](const StoreResult &histories) {
            if (self)
                self->finishList(leases.entries, histories, touched, done);
        });
    });
}

struct StoreLeaseProtocol::ListDecoding
{
    QList<StoreEntry> entries;
    /*! The stored history documents listed, taken into `stored` before the leases are decoded. */
    QList<StoreEntry> histories;
    qsizetype nextHistory = 0;
    /*! Each lease's stored history document; unset when the histories could not be listed. */
    std::optional<QHash<QString, QJsonObject>> stored;
    std::function<Touched()> touched;
    ListCallback done;
    QList<SourcedLease> leases;
    qsizetype next = 0;
};

namespace {

void attachHistory(SourcedLease &lease, const QHash<QString, QJsonObject> &stored)
{
    QList<HistoryEntry> changes;
    const auto document = stored.constFind(lease.name);
    if (document != stored.constEnd() && !leasehistory::decode(*document, &changes, &lease.historyError))
        changes.clear();
    lease.history = changes;
}

} // namespace

void StoreLeaseProtocol::finishList(const QList<StoreEntry> &entries, const StoreResult &histories,
                                    std::function<Touched()> touched, ListCallback done)
{
    auto job = std::make_shared<ListDecoding>();
    job->entries = entries;
    job->touched = std::move(touched);
    job->done = std::move(done);
    if (histories.ok()) {
        job->histories = histories.entries;
        job->stored.emplace().reserve(histories.entries.size());
    } else {
        // The leases are worth showing without their past.
        qCWarning(lcStore).noquote() << QStringLiteral("observer: cannot list %1*: %2")
                                                .arg(leasehistory::registryPrefix, histories.errorString);
    }
    // On a turn of its own: this one already listed the histories.
    QTimer::singleShot(0, this, [this, job] { decodeSome(job); });
}

void StoreLeaseProtocol::decodeSome(const std::shared_ptr<ListDecoding> &job)
{
    // A few milliseconds a turn, so that a window showing the list never
    // freezes while it is read; the result is the same however it is cut.
    QElapsedTimer turn;
    turn.start();
    const qsizetype firstStep = job->nextHistory + job->next;
    const auto inTurn = [&] { return turn.elapsed() < kListSliceMs || job->nextHistory + job->next == firstStep; };
    while (job->nextHistory < job->histories.size() && inTurn()) {
        const StoreEntry &entry = job->histories.at(job->nextHistory++);
        if (entry.key.startsWith(leasehistory::registryPrefix))
            job->stored->insert(entry.key.mid(leasehistory::registryPrefix.size()), entry.document);
    }
    while (job->nextHistory >= job->histories.size() && job->next < job->entries.size() && inTurn()) {
        const StoreEntry &entry = job->entries.at(job->next++);
        if (!entry.key.startsWith(registryLeasePrefix))
            continue;
        SourcedLease lease = fromEntry(entry);
        if (job->stored)
            attachHistory(lease, *job->stored);
        job->leases.append(std::move(lease));
    }
    if (job->nextHistory < job->histories.size() || job->next < job->entries.size()) {
        QTimer::singleShot(0, this, [this, job] { decodeSome(job); });
        return;
    }

    // What a watch said during the lists is newer than the lists; the
    // history of a lease is the list's all the same.
    // Touched is a few leases, the list may be thousands: each lease looks
    // itself up in it, in place, and what is left of it was created since.
    Touched touched = job->touched ? job->touched() : Touched {};
    QList<SourcedLease> &leases = job->leases;
    if (!touched.isEmpty()) {
        const auto newerOrGone = [&touched](SourcedLease &lease) {
            const auto latest = touched.constFind(lease.name);
            if (latest == touched.constEnd())
                return false;
            const bool removed = !latest->has_value();
            if (!removed) {
                SourcedLease newer = **latest;
                newer.history = std::move(lease.history);
                newer.historyError = std::move(lease.historyError);
                lease = std::move(newer);
            }
            touched.erase(latest);
            return removed;
        };
        leases.erase(std::remove_if(leases.begin(), leases.end(), newerOrGone), leases.end());
        for (auto it = touched.cbegin(); it != touched.cend(); ++it) {
            if (!it->has_value())
                continue;
            SourcedLease created = **it;
            if (job->stored)
                attachHistory(created, *job->stored);
            leases.append(std::move(created));
        }
    }
    job->done(leases, QString());
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
        ClusterServicePrivate::setLeaseProtocolFactory(
                this, [this](QString *errorString) -> std::unique_ptr<LeaseProtocol> {
                    int historyLength = 0;
                    if (!readHistoryLength(*this, &historyLength, errorString))
                        return nullptr;
                    if (!m_store) {
                        *errorString = QStringLiteral("service \"%1\": its store is closed").arg(this->name());
                        return nullptr;
                    }
                    return openLeaseProtocol(m_store, historyLength);
                });
    }

private:
    QPointer<Store> m_store;
};

} // namespace

std::unique_ptr<LeaseProtocol> openLeaseProtocol(Store *store, int historyLength)
{
    // Asked once per election or observer, never per request.
    if (auto *source = dynamic_cast<LeaseProtocolSource *>(store))
        return source->openLeaseProtocol(historyLength);
    return std::make_unique<StoreLeaseProtocol>(store, historyLength);
}

ClusterService *createStoreElection(Store *store, const QString &name, const QJsonObject &parameters)
{
    return new StoreElection(store, name, parameters);
}

} // namespace baton
