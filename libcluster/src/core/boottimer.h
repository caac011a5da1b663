#pragma once

#include <QObject>

class QSocketNotifier;
class QTimer;

namespace baton {

/*!
 * A single-shot timer that counts time the way the decisions do: on
 * CLOCK_BOOTTIME, which keeps running while the host is suspended (F4).
 * QTimer counts CLOCK_MONOTONIC, which stands still during a suspend, so a
 * deadline armed on it fires late by the time the host slept; this one
 * fires when the interval has passed on the decisions' clock.
 *
 * On Linux it is a timerfd on CLOCK_BOOTTIME watched by a QSocketNotifier
 * in the owner's event loop. Where timerfd is unavailable (another
 * system, or timerfd_create refused) it falls back to a precise QTimer,
 * which is as good as that system's timers get; usesBootClock() tells
 * which one runs.
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
     * the event loop). Starting an active timer re-arms it: only the last
     * interval counts.
     */
    void start(qint64 ms);
    /*! Cancels a pending timeout(); harmless when not active. */
    void stop();
    bool isActive() const { return m_active; }
    /*! After the first start(): whether the interval runs on CLOCK_BOOTTIME. */
    bool usesBootClock() const { return m_fd >= 0; }

Q_SIGNALS:
    void timeout();

private:
    void prepare();
    void onReadable();
    void fire();

    Kind m_kind;
    int m_fd = -1;
    QSocketNotifier *m_notifier = nullptr;
    QTimer *m_fallback = nullptr;
    bool m_active = false;
};

} // namespace baton
