#include "clusterservice_p.h"

#include <baton/clock.h>
#include <batoninternal/eventrecord.h>
#include "leaseprotocol.h"
#include "logging.h"
#include "registrations.h"

namespace baton {

ClusterServicePrivate::ClusterServicePrivate(ClusterService *qq)
    : q(qq)
    , clock(&Clock::system())
    , registrations(new Registrations(QString(), this))
{
    // Straight to the loop, with no function between: every renewal starts
    // here, and each frame on its way counts (tst_etcdrenewalpath).
    connect(&wakeTimer, &BootTimer::timeout, this, &ClusterServicePrivate::runActions);
    registrations->setLeadingCheck([this] { return isLeaderNow(); });
}

ClusterServicePrivate::~ClusterServicePrivate()
{
    // The watch reads through the protocol: it goes first, also one a stop left.
    qDeleteAll(findChildren<LeaseWatch *>(Qt::FindDirectChildrenOnly));
}

void ClusterServicePrivate::startElection()
{
    if (stopping || started)
        return; // stopped before the application finished starting
    params.renewTogether = protocol->sharesWrites();
    elector = std::make_unique<Elector>(params, *clock);
    started = true;
    if (startWatching())
        qCDebug(lcElection).noquote()
                << QStringLiteral("%1: follows %2 by watch").arg(leaseName, protocol->describeLease(leaseName));
    else
        qCInfo(lcElection).noquote() << QStringLiteral("%1: %2 cannot be watched; polling every %3 ms")
                                                .arg(leaseName, protocol->describeLease(leaseName))
                                                .arg(params.renewIntervalMs);
    startSteering();
    execute(elector->start());
}

void ClusterServicePrivate::startSteering()
{
    if (!makeSteering)
        return;
    QString error;
    steering = makeSteering(this, &error);
    if (!steering) {
        // Steering is an addition: the election runs without it.
        qCWarning(lcElection).noquote()
                << QStringLiteral("%1: no preference or drain for this election: %2").arg(leaseName, error);
        emitEvent(QStringLiteral("steering-failed"), {{QStringLiteral("error"), error}});
        return;
    }
    steering->setParent(this);
    steering->start();
}

bool ClusterServicePrivate::startWatching()
{
    // A watch of this one lease: an event on another election's lease of
    // the same place never reaches this one.
    watch = protocol->watch(leaseName, this);
    if (!watch)
        return false;
    connect(watch, &LeaseWatch::changed, this,
            [this](const SourcedLease &lease) { onWatched(lease); });
    connect(watch, &LeaseWatch::removed, this, [this] { onWatched(LeaseState {}); });
    connect(watch, &LeaseWatch::listed, this, [this](const QList<SourcedLease> &leases) {
        for (const SourcedLease &lease : leases)
            if (lease.name == leaseName) {
                onWatched(lease);
                return;
            }
        onWatched(LeaseState {});
    });
    connect(watch, &LeaseWatch::resynchronise, this, [this] {
        protocol->get(leaseName, [this](const LeaseReply &reply) {
            if (reply.outcome == LeaseReply::Outcome::Ok && watch)
                onWatched(reply.state);
        });
    });
    return true;
}

void ClusterServicePrivate::onWatched(const SourcedLease &lease)
{
    if (!lease.valid) {
        // R1: an unreadable record is never taken for a free lease.
        qCWarning(lcElection).noquote()
                << QStringLiteral("%1: %2").arg(protocol->describeLease(leaseName), lease.error);
        return;
    }
    onWatched(lease.state());
}

void ClusterServicePrivate::onWatched(const LeaseState &state)
{
    if (elector && !stopFinished)
        execute(elector->onWatch(state));
}

bool ClusterServicePrivate::isLeaderNow() const
{
    return elector && elector->isLeader();
}

void ClusterServicePrivate::execute(ElectorActions actions)
{
    // A slot or a callback reached from one action may re-enter the
    // service (stop() from a slot of leadershipChanged): the actions that
    // causes come after the rest of this list, so that the events and
    // signals are told in the order things happened ("attempt: acquired"
    // before the "stopped-leading" of the stop it led to).
    for (ElectorAction &a : actions)
        pendingActions.push_back(std::move(a));
    runActions();
}

bool ClusterServicePrivate::wakeIsDue() const
{
    if (!elector || stopFinished)
        return false;
    const auto next = elector->nextWakeMono();
    return next && *next <= clock->monotonicMs();
}

void ClusterServicePrivate::runActions()
{
    // The Elector acts on its deadlines when they are due, whoever runs the
    // loop: the wake timer only makes sure it runs then.
    if (wakeIsDue()) {
        for (ElectorAction &a : elector->onTimer())
            pendingActions.push_back(std::move(a));
    }
    if (executing)
        return;
    executing = true;
    bool leaderRenewed = false;
    while (!pendingActions.empty()) {
        const ElectorAction a = std::move(pendingActions.front());
        pendingActions.pop_front();
        // The requests go from here, not through a function of their own:
        // every renewal passes this way, and each frame on it counts
        // (tst_etcdrenewalpath).
        if (const auto *update = std::get_if<action::Update>(&a)) {
            protocol->update(leaseName, update->record, update->version, update->change,
                             replyTo(update->request));
            leaderRenewed = leaderRenewed || (params.renewTogether && elector->isLeader());
        } else if (const auto *read = std::get_if<action::Read>(&a))
            protocol->get(leaseName, replyTo(read->request));
        else if (const auto *create = std::get_if<action::Create>(&a))
            protocol->create(leaseName, create->record, create->change, replyTo(create->request));
        else
            perform(a);
    }
    executing = false;
    // In this turn still, so that what the steering writes goes with the
    // renewal (etcd's txn); after the loop, so that nothing it does enters
    // the actions above.
    if (leaderRenewed && steering)
        steering->renewing();
    announceHolder();
    armTimer();
}

void ClusterServicePrivate::perform(const ElectorAction &a)
{
    if (const auto *became = std::get_if<action::BecameLeader>(&a)) {
        qCInfo(lcElection).noquote() << QStringLiteral("%1: %2 is now the leader, token %3")
                                                .arg(leaseName, params.identity)
                                                .arg(became->token);
        emitEvent(QStringLiteral("started-leading"),
                  {{QStringLiteral("token"), double(became->token)},
                   {QStringLiteral("validUntilMono"), double(became->validUntilMono)}});
        announceLeadership(elector->isLeader());
        // A slot of leadershipChanged may have stopped the service already.
        if (elector->isLeader())
            registrations->setLeading(true);
    } else if (const auto *stoppedLeading = std::get_if<action::StoppedLeading>(&a)) {
        const QString reason = wireName(stoppedLeading->reason);
        const QString message = QStringLiteral("%1: %2 stopped leading: %3")
                                        .arg(leaseName, params.identity, reason);
        // Asked for: a stop or a handover is no trouble.
        if (stoppedLeading->reason == StopReason::Stopping || stoppedLeading->reason == StopReason::HandedOver)
            qCInfo(lcElection).noquote() << message;
        else
            qCWarning(lcElection).noquote() << message;
        emitEvent(QStringLiteral("stopped-leading"),
                  {{QStringLiteral("reason"), reason},
                   {QStringLiteral("validUntilMono"), double(stoppedLeading->validUntilMono)}});
        announceLeadership(false);
        registrations->setLeading(false);
        // A stop asked for while this step-down was on its way waited
        // for the registrations to hear of it (F5): they have now.
        releaseWhenIdle();
        if (stoppedLeading->reason == StopReason::HandedOver) {
            // As a release (F5): the lease goes once the work has ended.
            connect(registrations, &Registrations::idle, this,
                    &ClusterServicePrivate::handOverWhenIdle, Qt::UniqueConnection);
            handOverWhenIdle();
        }
    } else if (const auto *changed = std::get_if<action::LeaderChanged>(&a)) {
        holder = changed->to;
        holderChangeWhy = changed->why;
        const QString why = holderChangeName(changed->why);
        auto who = [](const QString &id) { return id.isEmpty() ? QStringLiteral("(none)") : id; };
        qCInfo(lcElection).noquote() << QStringLiteral("%1: leader %2 -> %3 (%4)")
                                                .arg(leaseName, who(changed->from),
                                                     who(changed->to), why);
        emitEvent(QStringLiteral("leader-changed"), {{QStringLiteral("from"), changed->from},
                                                     {QStringLiteral("to"), changed->to},
                                                     {QStringLiteral("why"), why}});
    } else if (const auto *attempt = std::get_if<action::AttemptFinished>(&a)) {
        QJsonObject fields {{QStringLiteral("outcome"), wireName(attempt->outcome)},
                            {QStringLiteral("latencyMs"), double(attempt->latencyMs)}};
        if (attempt->errorKind == LeaseReply::ErrorKind::CredentialsRefused)
            fields.insert(QStringLiteral("errorKind"), QStringLiteral("credentials-refused"));
        if (!attempt->errorString.isEmpty()) {
            fields.insert(QStringLiteral("error"), attempt->errorString);
            if (const auto told = failedAttempts.failed(attempt->errorString, clock->monotonicMs()))
                qCWarning(lcElection).noquote() << QStringLiteral("%1: %2").arg(leaseName, *told);
            else
                qCDebug(lcElection).noquote()
                        << QStringLiteral("%1: attempt failed: %2").arg(leaseName, attempt->errorString);
        } else {
            if (const auto told = failedAttempts.answered(clock->monotonicMs()))
                qCInfo(lcElection).noquote() << QStringLiteral("%1: %2").arg(leaseName, *told);
            qCDebug(lcElection).noquote() << QStringLiteral("%1: attempt %2 in %3 ms")
                                                     .arg(leaseName, wireName(attempt->outcome))
                                                     .arg(attempt->latencyMs);
        }
        emitEvent(QStringLiteral("attempt"), fields);
    } else if (const auto *conflict = std::get_if<action::IdentityConflict>(&a)) {
        ++identityConflicts;
        const QString theirs = conflict->theirIncarnation.isEmpty()
                ? QStringLiteral("(none recorded)")
                : conflict->theirIncarnation;
        qCWarning(lcElection).noquote()
                << QStringLiteral("%1: another process holds the lease under this instance's id "
                                  "\"%2\" (its incarnation %3, ours %4): two processes are "
                                  "configured with one instanceId. This one waits for that "
                                  "lease to expire or be released; give each process its own "
                                  "instanceId.")
                           .arg(leaseName, params.identity, theirs, params.incarnation);
        emitEvent(QStringLiteral("identity-conflict"),
                  {{QStringLiteral("theirIncarnation"), conflict->theirIncarnation},
                   {QStringLiteral("incarnation"), params.incarnation}});
        Q_EMIT q->identityConflict(conflict->theirIncarnation);
    } else if (performSteering(a)) {
        // told by performSteering()
    } else if (const auto *released = std::get_if<action::ReleaseFinished>(&a)) {
        if (released->released)
            qCInfo(lcElection).noquote()
                    << QStringLiteral("%1: %2 released the lease").arg(leaseName, params.identity);
        else
            qCInfo(lcElection).noquote() << QStringLiteral("%1: lease not released: %2")
                                                    .arg(leaseName, released->detail);
        emitEvent(QStringLiteral("released"), {{QStringLiteral("released"), released->released}});
        finishStop();
    }
}

void ClusterServicePrivate::announceHolder()
{
    // A first sighting of another's lease is no leader-changed event, but a
    // binding on the holder property must see it all the same.
    // A change of leader is told even when the id stays: a process that
    // restarted under a fixed instanceId begins a term of its own.
    const QString now = q->currentHolder();
    const std::optional<HolderChange> changed = std::exchange(holderChangeWhy, std::nullopt);
    if (now == announcedHolder && !changed)
        return;
    const QString previous = std::exchange(announcedHolder, now);
    Q_EMIT q->holderChanged(now, previous, changed.value_or(HolderChange::Seen));
}

std::function<void(const LeaseReply &)> ClusterServicePrivate::replyTo(quint64 request)
{
    return [this, request](const LeaseReply &reply) {
        // A stopped instance takes no part any more: whatever the reply
        // says, nothing may follow from it (F5).
        if (elector && !stopFinished) {
            elector->setFollowedByWatch(watch && watch->isWatching());
            execute(elector->onReply(request, reply));
        }
    };
}

void ClusterServicePrivate::armTimer()
{
    if (!elector || stopFinished) {
        wakeTimer.stop();
        return;
    }
    const auto next = elector->nextWakeMono();
    if (!next) {
        wakeTimer.stop();
        return;
    }
    wakeTimer.start(*next - clock->monotonicMs());
}

void ClusterServicePrivate::beginStop()
{
    if (stopping)
        return;
    stopping = true;
    if (!started) {
        finishStop();
        return;
    }
    const bool wasLeading = elector->isLeader();
    const qint64 deadline = elector->validUntilMono();
    execute(elector->stop());
    // F5: the lease goes only after the deregistered callbacks are done,
    // also those of an earlier step-down (or of the one stop() itself
    // reported, the deadline having passed before any timer said so): the
    // stop ends when they do.
    connect(registrations, &Registrations::idle, this, &ClusterServicePrivate::releaseWhenIdle,
            Qt::UniqueConnection);
    // But a stop always ends, whatever a callback's future does. A leader
    // waits never past its F4 deadline: past it, others may already hold
    // the lease, and work still running would be running twice. A follower
    // has nothing to release past that deadline either, but the callbacks
    // of its last term may still be in the grace the application gave
    // them (an --exec command being stopped, its grace capped below the
    // safety margin): it waits until that term's lease has expired for the
    // others, the deadline plus the safety margin. After that nothing is
    // left that the wait could protect, and a hung callback only kept the
    // process from exiting.
    const qint64 waitUntil = wasLeading
            ? deadline
            : deadline + q->timings().safetyMargin;
    connect(&stopDeadlineTimer, &BootTimer::timeout, this, [this, wasLeading] {
        if (stopFinished)
            return;
        qCWarning(lcElection).noquote()
                << (wasLeading ? QStringLiteral("%1: deregistered callbacks still running at the "
                                                "step-down deadline; the lease is left to expire")
                               : QStringLiteral("%1: deregistered callbacks still running when the "
                                                "lease of the last term expired; the stop ends "
                                                "without them"))
                           .arg(leaseName);
        if (wasLeading) {
            finishStop();
            return;
        }
        // A follower may have a write on its way that acquires the lease
        // (a re-acquisition after its step-down): the release waits for its
        // answer and gives back what it won. Ending the stop here instead
        // would leave such a lease held by nobody until it expires.
        releaseAsked = true;
        disconnect(registrations, &Registrations::idle, this, &ClusterServicePrivate::releaseWhenIdle);
        execute(elector->release());
    });
    if (!releaseAsked) // the release is bounded by the Elector's own timeouts
        stopDeadlineTimer.start(waitUntil - clock->monotonicMs());
    releaseWhenIdle();
}

void ClusterServicePrivate::releaseWhenIdle()
{
    if (!stopping || releaseAsked || stopFinished || !elector)
        return;
    // F5: idle is not enough while the registrations still believe this
    // instance leads: the step-down has not reached them yet (stop() from
    // inside fn or a slot), and their deregistered callbacks must run, and
    // end, before the release.
    if (registrations->isLeading() || !registrations->isIdle())
        return;
    releaseAsked = true;
    disconnect(registrations, &Registrations::idle, this, &ClusterServicePrivate::releaseWhenIdle);
    stopDeadlineTimer.stop();
    execute(elector->release());
}

void ClusterServicePrivate::finishStop()
{
    if (stopFinished)
        return;
    stopFinished = true;
    wakeTimer.stop();
    stopDeadlineTimer.stop();
    if (watch) {
        // A stopped instance follows nothing and reports nothing.
        watch->disconnect(this);
        watch->deleteLater();
        watch = nullptr;
    }
    if (steering) {
        // After the release, so that it never holds the lease back: the
        // candidate record says the instance left (its drain kept).
        steering->stop([this] { q->finishStop(); });
        return;
    }
    q->finishStop();
}

void ClusterServicePrivate::announceLeadership(bool leading)
{
    // Called with the elector's state as it is when the signal goes out, not
    // the one an older action described: a slot or a callback may have
    // stopped the service meanwhile (fn calling stop()), and the last signal
    // must tell the truth.
    if (leading == announcedLeading)
        return;
    announcedLeading = leading;
    Q_EMIT q->leadershipChanged(leading);
}

void ClusterServicePrivate::emitEvent(const QString &event, QJsonObject fields)
{
    QJsonObject record = eventrecord::make(*clock, leaseName, params.identity, event);
    for (auto it = fields.constBegin(); it != fields.constEnd(); ++it)
        record.insert(it.key(), it.value());
    Q_EMIT q->electionEvent(record);
}

} // namespace baton
