#pragma once

#include <baton/leadercallback.h>

#include <QObject>
#include <QString>

#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace baton {

/*!
 * The whenLeader() registrations of one cluster service (W1-W6, C3).
 * Knows nothing about leases: it is told whether the instance leads and
 * brings every registration to that state, one callback at a time per
 * registration. Futures are awaited; exceptions and failed futures are
 * logged with the registration and the lease name and change nothing else.
 */
class Registrations : public QObject
{
    Q_OBJECT
public:
    explicit Registrations(QString leaseName, QObject *parent = nullptr);
    ~Registrations() override;

    /*!
     * Asked just before an `fn` starts: false stops it from starting (the
     * F4 deadline passed since leadership was announced).
     */
    void setLeadingCheck(std::function<bool()> stillLeading);
    /*! The lease name that logged failures carry. */
    void setLeaseName(const QString &leaseName) { m_leaseName = leaseName; }

    /*!
     * Adds a registration; with \a context, the callbacks run in the
     * context's thread and the registration goes when the context does, by
     * the rule of remove(): a deregisteredFn still owed then runs in this
     * object's thread.
     * Returns its id. When the instance leads, `fn` starts on the next turn
     * of the event loop (W1). Call it in the registrations' thread.
     */
    quint64 add(LeaderCallback fn, LeaderCallback deregisteredFn, QObject *context = nullptr);
    /*!
     * Removes a registration (W5): runs its deregisteredFn when fn had run,
     * after a pending fn. Harmless twice. From another thread, it is queued
     * to the registrations' thread.
     */
    void remove(quint64 id);
    void setLeading(bool leading);
    bool isLeading() const { return m_leading; }
    /*! No callback is running or waiting to run. */
    bool isIdle() const;
    int count() const;

Q_SIGNALS:
    /*!
     * Emitted whenever the last running or queued callback finishes. When
     * every callback was synchronous this happens before setLeading() or
     * remove() returns, so check isIdle() before waiting for it.
     */
    void idle();

private:
    struct Entry;
    /*! Keeps re-entrant calls from emitting idle() before the outermost one ends. */
    class Batch;

    void scheduleReconcile(quint64 id);
    void reconcile(quint64 id);
    void runCallback(quint64 id, bool isFn);
    void settle(quint64 id, bool isFn, const std::optional<QString> &thrown, const QFuture<void> &future);
    void awaitFuture(quint64 id, bool isFn, const QFuture<void> &future);
    void callbackFinished(quint64 id, bool isFn, const std::optional<QString> &failure, bool ran = true);
    void contextDestroyed(quint64 id);
    void maybeEmitIdle();
    QString describe(quint64 id, bool isFn) const;

    QString m_leaseName;
    std::function<bool()> m_stillLeading;
    bool m_leading = false;
    // Counts leadership periods, so that a period that began while the fn
    // of the previous one was still pending gets its own fn (W2).
    quint64 m_period = 0;
    quint64 m_nextId = 1;
    // Ordered by id, so callbacks start in registration order.
    std::map<quint64, std::shared_ptr<Entry>> m_entries;
    int m_running = 0;
    int m_queued = 0;
    int m_batchDepth = 0;
    bool m_owesIdle = false;
};

} // namespace baton
