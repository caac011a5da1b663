// How a LeaseObserver reads its LeaseProtocol: the watch of every lease,
// the lists, and the polls where there is no watch or a list failed.
#include "leaseobserver_p.h"

#include "leaseprotocol.h"

#include <QDeadlineTimer>
#include <QPointer>

#include <algorithm>

namespace baton {

void LeaseObserver::start()
{
    d->start();
}

void LeaseObserver::stop()
{
    d->stop();
}

void LeaseObserverPrivate::start()
{
    if (m_running)
        return;
    m_running = true;
    // The watch starts first, so that no change falls between the list and it.
    m_watch = m_protocol->watch(QString(), q);
    if (m_watch) {
        QObject::connect(m_watch, &LeaseWatch::listed, q,
                         [this](const QList<SourcedLease> &leases) { onListed(leases); });
        QObject::connect(m_watch, &LeaseWatch::listFailed, q,
                         [this](const QString &message) { onListFailed(message); });
        QObject::connect(m_watch, &LeaseWatch::changed, q, [this](const SourcedLease &lease) {
            if (!m_running)
                return;
            noteWatched(lease.name);
            const int recorded = apply(lease);
            if (!m_listed.isEmpty()) {
                // A list is being applied: its merges take these along.
                m_listedRecorded += recorded;
                return;
            }
            insertRecorded();
            if (recorded > 0)
                Q_EMIT q->historyRead();
        });
        QObject::connect(m_watch, &LeaseWatch::removed, q, [this](const QString &name) {
            if (!m_running)
                return;
            noteWatched(name);
            remove(name);
        });
        QObject::connect(m_watch, &LeaseWatch::resynchronise, q, [this] { list(); });
    }
    list();
}

void LeaseObserverPrivate::stop()
{
    m_running = false;
    m_listing = false;
    m_pollTimer.stop();
    m_expiryTimer.stop();
    m_sliceTimer.stop();
    ++m_listGeneration;
    m_listed.clear();
    m_listedNames.clear();
    m_watchedWhileListing.clear();
    if (m_watch) {
        // Nothing is emitted after stop(); deleted later, as stop() may come from its signal.
        m_watch->disconnect(q);
        m_watch->deleteLater();
        m_watch = nullptr;
    }
}

void LeaseObserverPrivate::list()
{
    if (!m_running || m_listing)
        return;
    m_listing = true;
    if (m_watch) {
        m_watch->list();
        return;
    }
    m_protocol->list([this, observer = QPointer<LeaseObserver>(q)](const QList<SourcedLease> &leases,
                                                                    const QString &error) {
        if (!observer)
            return;
        if (error.isEmpty())
            onListed(leases);
        else
            onListFailed(error);
    });
}

void LeaseObserverPrivate::onListed(const QList<SourcedLease> &leases)
{
    if (!m_running || !m_listing || !m_listed.isEmpty())
        return;
    ++m_listGeneration;
    m_listed = leases;
    m_listedNext = 0;
    m_listedRecorded = 0;
    m_listedNames.clear();
    // Grown once here rather than rehashed on the way: a rehash of
    // thousands of leases is one slice's work on its own.
    m_leases.reserve(leases.size());
    m_deadlineOf.reserve(leases.size());
    m_historyTransitions.reserve(leases.size());
    m_listedNames.reserve(leases.size());
    m_watchedWhileListing.clear();
    // On a turn of its own: this one read the list.
    m_sliceTimer.start(0);
}

void LeaseObserverPrivate::noteWatched(const QString &name)
{
    if (m_listedNext < m_listed.size())
        m_watchedWhileListing.insert(name);
}

void LeaseObserverPrivate::applySlice()
{
    if (!m_running || !m_listing)
        return;
    const QDeadlineTimer turnEnds(sliceBudgetMs, Qt::PreciseTimer);
    // A merge step is a turn's work on its own: the largest moves every
    // stored change the list has brought so far.
    if (m_recordedRuns.mergeStep(m_listedNext >= m_listed.size(), turnEnds)) {
        m_sliceTimer.start(0);
        return;
    }
    const qsizetype first = m_listedNext;
    const qsizetype end = std::min(m_listed.size(), first + listSlice);
    int recorded = 0;
    // A slot of what this emits may stop the observer (and start it again):
    // that ends this list, and whatever comes next is another one's.
    const quint64 generation = m_listGeneration;
    while (m_listGeneration == generation && m_listedNext < end
           && (m_listedNext == first || !turnEnds.hasExpired())) {
        // Taken out of the list: each lease and its stored history are freed
        // in the slice that applies them, not all together after the last.
        // The index moves first: after a slot started another list, it is
        // that list's, and nothing here may touch it.
        const SourcedLease lease = std::exchange(m_listed[m_listedNext++], {});
        m_listedNames.insert(lease.name);
        if (m_watchedWhileListing.contains(lease.name)) {
            // The watch told a newer record (or its removal) since the list
            // was read: only the list's stored history is still news.
            if (lease.history && m_leases.contains(lease.name))
                recorded += mergeRecorded(lease.name, *lease.history);
            continue;
        }
        recorded += apply(lease);
    }
    if (m_listGeneration != generation)
        return;
    m_listedRecorded += recorded;
    // A slice's stored changes wait as a run, merged with the others a
    // step a turn (above): merged into the whole history per slice, every
    // row already there moved once a slice.
    const QList<LeaseFailover> added = queueRecorded();
    if (!m_ready && !added.isEmpty()) {
        Q_EMIT q->storedHistoryAdded(added);
        if (m_listGeneration != generation)
            return;
    }
    if (m_listedNext < m_listed.size() || m_recordedRuns.runCount() > 1) {
        m_sliceTimer.start(0);
        return;
    }
    // One run left: into the history (the first list's becomes it).
    insertRecorded();
    if (m_listGeneration != generation)
        return;

    const QSet<QString> watched = std::exchange(m_watchedWhileListing, {});
    const QSet<QString> listed = std::exchange(m_listedNames, {});
    m_listed.clear();
    m_listedNext = 0;
    m_listing = false;
    QStringList gone;
    for (auto it = m_leases.cbegin(); it != m_leases.cend(); ++it)
        if (!listed.contains(it.key()) && !watched.contains(it.key()))
            gone.append(it.key());
    for (const QString &name : std::as_const(gone)) {
        remove(name);
        if (m_listGeneration != generation)
            return; // a slot of leaseRemoved() stopped the observer
    }
    // The first list's stored changes are in history() before ready().
    if (m_listedRecorded > 0 && m_ready)
        Q_EMIT q->historyRead();
    if (m_listGeneration != generation)
        return;
    afterList(true);
}

void LeaseObserverPrivate::onListFailed(const QString &message)
{
    if (!m_running || !m_listing)
        return;
    m_listing = false;
    Q_EMIT q->storeError(message);
    afterList(false);
}

void LeaseObserverPrivate::afterList(bool ok)
{
    if (!m_ready) {
        m_ready = true;
        Q_EMIT q->ready();
    }
    // Without a watch, or after a failure, the list is how news comes.
    if (m_running && (!m_watch || !m_watch->isWatching() || !ok))
        m_pollTimer.start(m_pollIntervalMs);
}

} // namespace baton
