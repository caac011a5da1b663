#include "registrations.h"

#include "logging.h"

#include <QFutureWatcher>
#include <QPromise>
#include <QThread>

#include <exception>
#include <vector>

namespace baton {

namespace {

/*! What calling a callback gave: its future, or what it threw. */
struct CallOutcome
{
    QFuture<void> future;
    std::optional<QString> thrown;
};

/*! A callback to run in a context's thread, and where its outcome goes back. */
struct PendingCall
{
    LeaderCallback callback;
    QPromise<CallOutcome> promise;
};

CallOutcome invokeCallback(const LeaderCallback &callback)
{
    try {
        return {callback(), std::nullopt};
    } catch (const std::exception &e) {
        return {{}, QStringLiteral("threw: %1").arg(QString::fromLocal8Bit(e.what()))};
    } catch (...) {
        return {{}, QStringLiteral("threw an exception that is not a std::exception")};
    }
}

/*! Why a finished future counts as a failure, if it does (W4). */
std::optional<QString> failureOf(QFuture<void> future)
{
    try {
        // Does not block: the future has finished. Qt 6 rethrows the
        // exception stored in it here.
        future.waitForFinished();
    } catch (const std::exception &e) {
        return QStringLiteral("returned a failed future: %1").arg(QString::fromLocal8Bit(e.what()));
    } catch (...) {
        return QStringLiteral("returned a future that failed with an exception that is not a std::exception");
    }
    if (future.isCanceled())
        return QStringLiteral("returned a canceled future");
    return std::nullopt;
}

/*!
 * Carries calls to a context object. Going through a connection, rather
 * than QMetaObject::invokeMethod on the context, lets Qt decide per call
 * whether to call directly or queue, and drops the call safely when the
 * context is destroyed in its own thread at the same moment (the connection
 * goes under Qt's lock, and the discarded call's promise ends canceled).
 */
class CallDispatch : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

Q_SIGNALS:
    void requested(const std::shared_ptr<baton::PendingCall> &call);
};

void runInContextThread(const std::shared_ptr<PendingCall> &call)
{
    // Canceled when the Registrations went away while the call was queued.
    if (call->promise.isCanceled())
        return;
    call->promise.addResult(invokeCallback(call->callback));
    call->promise.finish();
}

} // namespace

struct Registrations::Entry
{
    LeaderCallback fn;
    LeaderCallback deregisteredFn;
    // Set for a registration with a context; owned by the Registrations.
    CallDispatch *dispatch = nullptr;
    QMetaObject::Connection contextWatch;
    bool contextGone = false;
    bool removed = false;
    bool running = false;
    // fn has started and deregisteredFn has not run since.
    bool fnHasRun = false;
    quint64 fnPeriod = 0;
    // The last leadership period whose fn was started or refused.
    quint64 servedPeriod = 0;
    QFuture<CallOutcome> pendingCall;
};

class Registrations::Batch
{
public:
    explicit Batch(Registrations *registrations)
        : m_registrations(registrations)
    {
        ++m_registrations->m_batchDepth;
    }
    ~Batch()
    {
        --m_registrations->m_batchDepth;
        m_registrations->maybeEmitIdle();
    }
    Batch(const Batch &) = delete;
    Batch &operator=(const Batch &) = delete;

private:
    Registrations *m_registrations;
};

Registrations::Registrations(QString leaseName, QObject *parent)
    : QObject(parent)
    , m_leaseName(std::move(leaseName))
{
}

Registrations::~Registrations()
{
    // Watchers and dispatchers are children and go with this object, so no
    // continuation comes back here; calls already queued in a context's
    // thread see the cancellation and do not run.
    for (const auto &[id, entry] : m_entries) {
        entry->pendingCall.cancel();
        if (entry->contextWatch)
            disconnect(entry->contextWatch);
    }
}

void Registrations::setLeadingCheck(std::function<bool()> stillLeading)
{
    m_stillLeading = std::move(stillLeading);
}

quint64 Registrations::add(LeaderCallback fn, LeaderCallback deregisteredFn, QObject *context)
{
    const quint64 id = m_nextId++;
    auto entry = std::make_shared<Entry>();
    entry->fn = std::move(fn);
    entry->deregisteredFn = std::move(deregisteredFn);
    if (context) {
        entry->dispatch = new CallDispatch(this);
        connect(entry->dispatch, &CallDispatch::requested, context, &runInContextThread);
        entry->contextWatch = connect(context, &QObject::destroyed, this,
                                      [this, id] { contextDestroyed(id); });
    }
    m_entries.emplace(id, std::move(entry));
    qCDebug(lcRegistrations) << "added registration" << id << "on lease" << m_leaseName;
    // Queued rather than run here: add() is often called from code that is
    // not ready for the callback to run yet (W1 allows the next turn).
    if (m_leading)
        scheduleReconcile(id);
    return id;
}

void Registrations::remove(quint64 id)
{
    if (QThread::currentThread() != thread()) {
        QMetaObject::invokeMethod(this, [this, id] { remove(id); }, Qt::QueuedConnection);
        return;
    }
    const auto it = m_entries.find(id);
    if (it == m_entries.end() || it->second->removed)
        return;
    it->second->removed = true;
    qCDebug(lcRegistrations) << "removing registration" << id << "on lease" << m_leaseName;
    Batch batch(this);
    reconcile(id);
}

void Registrations::setLeading(bool leading)
{
    if (leading == m_leading)
        return;
    m_leading = leading;
    if (leading)
        ++m_period;
    Batch batch(this);
    // A callback may add or remove registrations, or change leadership
    // again: walk a snapshot of the ids and look each one up.
    std::vector<quint64> ids;
    ids.reserve(m_entries.size());
    for (const auto &[id, entry] : m_entries)
        ids.push_back(id);
    for (const quint64 id : ids)
        reconcile(id);
}

bool Registrations::isIdle() const
{
    return m_running == 0 && m_queued == 0;
}

int Registrations::count() const
{
    int active = 0;
    for (const auto &[id, entry] : m_entries) {
        if (!entry->removed)
            ++active;
    }
    return active;
}

void Registrations::scheduleReconcile(quint64 id)
{
    ++m_queued;
    m_owesIdle = true;
    QMetaObject::invokeMethod(this, [this, id] {
        --m_queued;
        Batch batch(this);
        reconcile(id);
    }, Qt::QueuedConnection);
}

// Brings one registration one step closer to the leadership state; called
// again when the step's callback finishes, so each registration runs one
// callback at a time (W3).
void Registrations::reconcile(quint64 id)
{
    const auto it = m_entries.find(id);
    if (it == m_entries.end())
        return;
    const std::shared_ptr<Entry> entry = it->second;
    if (entry->running)
        return;

    const bool periodOver = !m_leading || entry->fnPeriod != m_period;
    if (entry->fnHasRun && (entry->removed || periodOver)) {
        entry->fnHasRun = false;
        if (entry->deregisteredFn) {
            runCallback(id, false);
            return;
        }
    }

    if (entry->removed) {
        if (entry->contextWatch)
            disconnect(entry->contextWatch);
        delete entry->dispatch;
        m_entries.erase(id);
        return;
    }

    if (!m_leading || entry->servedPeriod == m_period)
        return;
    entry->servedPeriod = m_period;
    if (m_stillLeading && !m_stillLeading()) {
        qCInfo(lcRegistrations).noquote()
            << describe(id, true) << "not started: leadership may have expired (the step-down deadline passed)";
        return;
    }
    entry->fnHasRun = true;
    entry->fnPeriod = m_period;
    if (entry->fn)
        runCallback(id, true);
}

void Registrations::runCallback(quint64 id, bool isFn)
{
    const std::shared_ptr<Entry> entry = m_entries.at(id);
    const LeaderCallback callback = isFn ? entry->fn : entry->deregisteredFn;
    entry->running = true;
    ++m_running;
    m_owesIdle = true;
    qCDebug(lcRegistrations).noquote() << describe(id, isFn) << "starting";

    // W6 removes a registration with the W5 rule when its context goes, so
    // its deregisteredFn still runs then: here, since the context's thread
    // may be gone with it. It must not touch the context (whenLeader's
    // documentation in baton/cluster.h says so).
    if (!entry->dispatch || entry->contextGone) {
        const CallOutcome outcome = invokeCallback(callback);
        settle(id, isFn, outcome.thrown, outcome.future);
        return;
    }

    auto call = std::make_shared<PendingCall>();
    call->callback = callback;
    call->promise.start();
    const QFuture<CallOutcome> reply = call->promise.future();
    entry->pendingCall = reply;
    // Runs the callback now when the context lives in this thread, else
    // queues it there. Without a receiver (context gone) the last reference
    // to the call goes below and its promise ends canceled, with no result.
    Q_EMIT entry->dispatch->requested(call);
    call.reset();

    auto handleReply = [this, id, isFn](QFuture<CallOutcome> done) {
        if (done.resultCount() == 0) {
            qCDebug(lcRegistrations).noquote() << describe(id, isFn) << "not run: its context is gone";
            callbackFinished(id, isFn, std::nullopt, false);
            return;
        }
        const CallOutcome outcome = done.result();
        settle(id, isFn, outcome.thrown, outcome.future);
    };
    if (reply.isFinished()) {
        handleReply(reply);
        return;
    }
    auto *watcher = new QFutureWatcher<CallOutcome>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, handleReply] {
        watcher->deleteLater();
        Batch batch(this);
        handleReply(watcher->future());
    });
    watcher->setFuture(reply);
}

void Registrations::settle(quint64 id, bool isFn, const std::optional<QString> &thrown,
                           const QFuture<void> &future)
{
    if (thrown)
        callbackFinished(id, isFn, thrown);
    else if (future.isFinished())
        callbackFinished(id, isFn, failureOf(future));
    else
        awaitFuture(id, isFn, future);
}

void Registrations::awaitFuture(quint64 id, bool isFn, const QFuture<void> &future)
{
    // The watcher lives in this thread, so the next step runs here even when
    // the future finishes in a worker thread (C3).
    auto *watcher = new QFutureWatcher<void>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, isFn] {
        watcher->deleteLater();
        Batch batch(this);
        callbackFinished(id, isFn, failureOf(watcher->future()));
    });
    watcher->setFuture(future);
}

void Registrations::callbackFinished(quint64 id, bool isFn, const std::optional<QString> &failure, bool ran)
{
    // Running entries are never erased, so the entry is still here.
    const std::shared_ptr<Entry> entry = m_entries.at(id);
    entry->running = false;
    entry->pendingCall = {};
    --m_running;
    if (failure)
        qCWarning(lcRegistrations).noquote() << describe(id, isFn) << *failure;
    else
        qCDebug(lcRegistrations).noquote() << describe(id, isFn) << "finished";
    if (isFn && !ran)
        entry->fnHasRun = false;
    reconcile(id);
}

void Registrations::contextDestroyed(quint64 id)
{
    const auto it = m_entries.find(id);
    if (it == m_entries.end())
        return;
    it->second->contextGone = true;
    remove(id);
}

void Registrations::maybeEmitIdle()
{
    if (m_batchDepth > 0 || !m_owesIdle || !isIdle())
        return;
    m_owesIdle = false;
    Q_EMIT idle();
}

QString Registrations::describe(quint64 id, bool isFn) const
{
    return QStringLiteral("%1 of registration %2 on lease \"%3\"")
        .arg(isFn ? QStringLiteral("fn") : QStringLiteral("deregisteredFn"))
        .arg(id)
        .arg(m_leaseName);
}

} // namespace baton

#include "registrations.moc"
