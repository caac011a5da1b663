#pragma once

#include <QObject>

class QTimer;

namespace baton {

class BootTimerQueue;

/*!
 * A single-shot timer that counts time the way the decisions do: on
 * CLOCK_BOOTTIME, which keeps running while the host is suspended (F4).
 * QTimer counts CLOCK_MONOTONIC, which stands still during a suspend, so a
 * deadline armed on it fires late by the time the host slept; this one
 * fires when the interval has passed on the decisions' clock.
 *
 * On Linux the timers of one thread share one timerfd on CLOCK_BOOTTIME,
 * armed for the earliest of their deadlines and watched by one
 * QSocketNotifier in that thread's event loop: a process in a thousand
 * elections would otherwise have the event loop poll a thousand
 * descriptors at every turn, for every event of any election. A timer
 * stays in the thread where it was first started, and is started, stopped
 * and destroyed in that thread only (asserted). Where timerfd is
 * unavailable (another system, or timerfd_create refused) it falls back to
 * a precise QTimer, which is as good as that system's timers get;
 * usesBootClock() tells which one runs.
 */
class BootTimer : public QObject
{
    Q_OBJECT
public:
    enum class Kind { BootClock, FallbackQTimer };

    explicit BootTimer(QObject *parent = nullptr);
    /*! A timer of \a kind; BootClock falls back where it cannot be had. */
    explicit BootTimer(Kind kind, QObject *parent = nullptr);
    ~BootTimer() override;

    /*!
     * Fires timeout() once, \a ms from now (0 or less: at the next turn of
     * the event loop); on the boot clock at the first whole millisecond
     * not before then, so that timers armed for the same millisecond fire
     * in one turn (the QTimer fallback is as precise as that system's).
     * Starting an active timer re-arms it: only the last interval counts.
     */
    void start(qint64 ms);
    /*! Cancels a pending timeout(); harmless when not active. */
    void stop();
    bool isActive() const { return m_active; }
    /*! After the first start(): whether the interval runs on CLOCK_BOOTTIME. */
    bool usesBootClock() const { return m_queue != nullptr; }

Q_SIGNALS:
    void timeout();

private:
    friend class BootTimerQueue;

    void prepare();
    void fire();
    /*! Called from the thread of this timer and of the queue it holds. */
    bool inItsThread() const;

    Kind m_kind;
    BootTimerQueue *m_queue = nullptr;
    QTimer *m_fallback = nullptr;
    /*! CLOCK_BOOTTIME nanoseconds when due, while queued. */
    qint64 m_deadlineNs = 0;
    /*! Counts start() and stop(): an expiry taken for an earlier arming does not fire. */
    quint64 m_arming = 0;
    bool m_queued = false;
    bool m_active = false;
};

} // namespace baton
