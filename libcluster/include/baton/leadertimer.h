#pragma once

#include <baton/baton_export.h>

#include <QObject>

#include <memory>

namespace baton {

class ClusterService;
class LeaderTimerPrivate;

/*!
 * A timer that ticks on the leader only: the QTimer of leader work.
 *
 * \code
 * auto *timer = new baton::LeaderTimer(this);
 * connect(timer, &baton::LeaderTimer::timeout, this, &Poller::poll);
 * timer->start(1000);
 * \endcode
 *
 * It ticks while two things hold: the program started it (start(), undone
 * by stop()), and this instance leads its cluster service. It starts ticking
 * when the instance becomes the leader and stops when it stops leading
 * (W2), through a whenLeader() registration bound to the timer (W6):
 * destroying the timer removes it.
 *
 * Before every tick it asks ClusterService::isLeader(), which compares the
 * step-down deadline with the monotonic clock at that moment (F4). A
 * leader that was frozen (SIGSTOP, a debugger, a suspended VM) and resumes
 * past its deadline therefore emits no timeout(), even when the timer fires
 * before the election has noticed that it no longer leads.
 *
 * Use it in the thread of its cluster service.
 */
class BATON_EXPORT LeaderTimer : public QObject
{
    Q_OBJECT
    /*! The time between two ticks, in milliseconds. */
    Q_PROPERTY(int interval READ interval WRITE setInterval)
    /*! Whether the program started the timer. */
    Q_PROPERTY(bool active READ isActive)
    /*! Whether the timer ticks now: started, and this instance leads. */
    Q_PROPERTY(bool ticking READ isTicking NOTIFY tickingChanged)
public:
    /*!
     * A timer bound to useCluster(), the first cluster service of the
     * application. Made while the application starts, before that service
     * exists, it waits for it (W7); with no cluster service configured
     * the instance always leads (W8) and the timer ticks once started.
     */
    explicit LeaderTimer(QObject *parent = nullptr);
    /*! A timer bound to \a cluster, which must outlive it. */
    explicit LeaderTimer(ClusterService &cluster, QObject *parent = nullptr);
    /*! Stops the timer and removes its leadership registration. */
    ~LeaderTimer() override;

    /*! Sets the time between two ticks to \a msec milliseconds (default 0, as QTimer). */
    void setInterval(int msec);
    /*! The time between two ticks, in milliseconds. */
    int interval() const;

    /*! Whether the program started the timer: true from start() to stop(), leading or not. */
    bool isActive() const;
    /*! Whether the timer ticks now: it is active and this instance leads. */
    bool isTicking() const;

public Q_SLOTS:
    /*! Starts the timer; it ticks whenever this instance leads. */
    void start();
    /*! Sets the interval to \a msec milliseconds and starts the timer. */
    void start(int msec);
    /*! Stops the timer; it no longer ticks, even while this instance leads. */
    void stop();

Q_SIGNALS:
    /*! One tick, emitted only while this instance leads (checked at the tick, F4). */
    void timeout();
    /*! Emitted when the timer starts (\a ticking true) or stops ticking. */
    void tickingChanged(bool ticking);

private:
    std::unique_ptr<LeaderTimerPrivate> d;
};

} // namespace baton
