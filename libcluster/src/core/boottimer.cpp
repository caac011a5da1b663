#include "boottimer.h"

#include <QPointer>
#include <QSocketNotifier>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <vector>

#if defined(Q_OS_LINUX)
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#define BATON_HAVE_TIMERFD 1
#endif

namespace baton {

/*!
 * The one timerfd that the BootTimers of a thread share, armed for the
 * earliest of their deadlines: one descriptor for the event loop to poll
 * however many timers there are, and starting or stopping one costs a
 * look-up in the deadlines, not a descriptor. It lives while a timer of
 * its thread uses it, and is used from that thread only: it is that
 * thread's, and nothing in it is locked.
 */
class BootTimerQueue : public QObject
{
public:
    /*! This thread's queue, made when needed; null where no timerfd can be had. */
    static BootTimerQueue *acquire();
    /*! One timer of this thread fewer: the queue goes with the last. */
    void release();

    void schedule(BootTimer *timer, qint64 deadlineNs);
    void cancel(BootTimer *timer);

private:
    explicit BootTimerQueue(int fd);
    ~BootTimerQueue() override;

    void arm();
    void onReadable();

    int m_fd;
    QSocketNotifier m_notifier;
    std::multimap<qint64, BootTimer *> m_deadlines;
    /*! The deadline the descriptor is armed for; -1: disarmed. */
    qint64 m_armedNs = -1;
    int m_users = 0;
    /*!
     * Firings on the stack. A slot may run a nested event loop (a modal
     * dialog in a user's callback) in which the queue fires again, and the
     * last timer may go in either frame: only the outermost, once all have
     * returned from their slots, may let the queue go.
     */
    int m_firingDepth = 0;
};

namespace {

#ifdef BATON_HAVE_TIMERFD
thread_local BootTimerQueue *t_queue = nullptr;

// See arm() and schedule().
constexpr qint64 minimumArmingNs = 1'000;
constexpr qint64 stalledArmingNs = 100'000'000;

qint64 bootNowNs()
{
    timespec now {};
    clock_gettime(CLOCK_BOOTTIME, &now);
    return qint64(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}
#endif

} // namespace

BootTimerQueue *BootTimerQueue::acquire()
{
#ifdef BATON_HAVE_TIMERFD
    if (!t_queue) {
        const int fd = timerfd_create(CLOCK_BOOTTIME, TFD_NONBLOCK | TFD_CLOEXEC);
        if (fd < 0)
            return nullptr;
        t_queue = new BootTimerQueue(fd);
    }
    ++t_queue->m_users;
    return t_queue;
#else
    return nullptr;
#endif
}

void BootTimerQueue::release()
{
    Q_ASSERT(QThread::currentThread() == thread());
    if (--m_users > 0)
        return;
#ifdef BATON_HAVE_TIMERFD
    if (t_queue == this)
        t_queue = nullptr; // a timer started from now on gets a new queue
#endif
    if (m_firingDepth == 0)
        delete this;
    // Otherwise the outermost firing lets it go when it returns.
}

BootTimerQueue::BootTimerQueue(int fd)
    : m_fd(fd)
    , m_notifier(qintptr(fd), QSocketNotifier::Read)
{
    connect(&m_notifier, &QSocketNotifier::activated, this, &BootTimerQueue::onReadable);
}

BootTimerQueue::~BootTimerQueue()
{
#ifdef BATON_HAVE_TIMERFD
    m_notifier.setEnabled(false); // before the descriptor it watches goes
    ::close(m_fd);
#endif
}

void BootTimerQueue::schedule(BootTimer *timer, qint64 deadlineNs)
{
    Q_ASSERT(QThread::currentThread() == thread());
    cancel(timer);
    timer->m_deadlineNs = deadlineNs;
    timer->m_queued = true;
    m_deadlines.emplace(deadlineNs, timer);
    // A later deadline waits behind the armed one; only an earlier re-arms,
    // or an armed one already past that has not woken us: the descriptor
    // may have been disarmed under us (a clock that scales relative times
    // rounds a tiny one to zero), and nothing else would re-arm it.
#ifdef BATON_HAVE_TIMERFD
    if (m_armedNs < 0 || deadlineNs < m_armedNs || m_armedNs < bootNowNs() - stalledArmingNs)
        arm();
#endif
}

void BootTimerQueue::cancel(BootTimer *timer)
{
    Q_ASSERT(QThread::currentThread() == thread());
    if (!timer->m_queued)
        return;
    timer->m_queued = false;
    auto [it, end] = m_deadlines.equal_range(timer->m_deadlineNs);
    for (; it != end; ++it) {
        if (it->second == timer) {
            m_deadlines.erase(it);
            break;
        }
    }
    // The descriptor stays armed: waking for nothing once is cheaper than
    // a system call at every stop.
}

void BootTimerQueue::arm()
{
#ifdef BATON_HAVE_TIMERFD
    itimerspec spec {};
    if (m_deadlines.empty()) {
        m_armedNs = -1;
    } else {
        // Relative, as a timer of its own was: libfaketime scales relative
        // timers (the clock-drift tests). An all-zero it_value would
        // disarm: a deadline already past is a moment away.
        m_armedNs = m_deadlines.begin()->first;
        // Never less than a microsecond: libfaketime divides a relative
        // time by its rate, and a nanosecond at a rate above 1 becomes 0,
        // which disarms the descriptor and would stop every timer of the
        // thread (seen in tst_clockdrift, the follower at 1.2 times the
        // host's rate).
        const qint64 left = std::max<qint64>(minimumArmingNs, m_armedNs - bootNowNs());
        spec.it_value.tv_sec = time_t(left / 1'000'000'000);
        spec.it_value.tv_nsec = long(left % 1'000'000'000);
    }
    // Setting a timerfd also clears the expirations of its earlier arming.
    timerfd_settime(m_fd, 0, &spec, nullptr);
#endif
}

void BootTimerQueue::onReadable()
{
#ifdef BATON_HAVE_TIMERFD
    std::uint64_t expirations = 0;
    // EAGAIN: re-armed since the notifier saw it; the clock decides below.
    (void)::read(m_fd, &expirations, sizeof expirations);
    const qint64 now = bootNowNs();
    // Taken out before any fires: a slot may start, stop or delete any timer.
    std::vector<std::pair<QPointer<BootTimer>, quint64>> due;
    while (!m_deadlines.empty() && m_deadlines.begin()->first <= now) {
        BootTimer *timer = m_deadlines.begin()->second;
        m_deadlines.erase(m_deadlines.begin());
        timer->m_queued = false;
        due.emplace_back(timer, timer->m_arming);
    }
    arm();
    ++m_firingDepth;
    for (const auto &[timer, arming] : due)
        if (timer && timer->m_arming == arming)
            timer->fire();
    // An inner firing touches nothing once its slots have run: the
    // outermost one, below it on the stack, still reads this queue.
    if (--m_firingDepth > 0 || m_users > 0)
        return;
    // Its last timer went in a slot: deleted later, not under its own
    // notifier's signal, and that notifier silent until then.
    m_notifier.setEnabled(false);
    deleteLater();
#endif
}

BootTimer::BootTimer(QObject *parent)
    : BootTimer(Kind::BootClock, parent)
{
}

BootTimer::BootTimer(Kind kind, QObject *parent)
    : QObject(parent)
    , m_kind(kind)
{
}

void BootTimer::prepare()
{
    if (m_queue || m_fallback)
        return;
    // At the first start(), not before: a process with a thousand
    // elections holds the queue only for timers that run.
    if (m_kind == Kind::BootClock)
        m_queue = BootTimerQueue::acquire();
    if (m_queue)
        return;
    // No timerfd (another system, or none left to this process): the
    // interval is counted on CLOCK_MONOTONIC, which misses a suspend; the
    // decisions themselves still read CLOCK_BOOTTIME and catch up at the
    // next event.
    m_fallback = new QTimer(this);
    m_fallback->setSingleShot(true);
    m_fallback->setTimerType(Qt::PreciseTimer);
    connect(m_fallback, &QTimer::timeout, this, &BootTimer::fire);
}

BootTimer::~BootTimer()
{
    // A timer that never ran holds nothing of any thread.
    Q_ASSERT((!m_queue && !m_fallback) || inItsThread());
    if (m_queue) {
        m_queue->cancel(this);
        m_queue->release();
    }
}

bool BootTimer::inItsThread() const
{
    const QThread *current = QThread::currentThread();
    return current == thread() && (!m_queue || current == m_queue->thread());
}

void BootTimer::start(qint64 ms)
{
    Q_ASSERT(inItsThread());
    prepare();
    m_active = true;
    ++m_arming;
    if (m_fallback) {
        m_fallback->start(int(qBound<qint64>(0, ms, qint64(INT_MAX))));
        return;
    }
#ifdef BATON_HAVE_TIMERFD
    const qint64 clamped = std::clamp<qint64>(ms, 0, qint64(INT64_MAX / 1'000'000 / 2));
    qint64 deadlineNs = bootNowNs() + clamped * 1'000'000;
    // On the next whole millisecond, never before: the decisions count in
    // milliseconds, and timers armed for the same one (the renewals of a
    // slot, started a few microseconds apart) then fire in one turn, and
    // their writes share one request.
    if (clamped > 0)
        deadlineNs += (1'000'000 - deadlineNs % 1'000'000) % 1'000'000;
    m_queue->schedule(this, deadlineNs);
#endif
}

void BootTimer::stop()
{
    Q_ASSERT(inItsThread());
    m_active = false;
    ++m_arming;
    if (m_fallback)
        m_fallback->stop();
    else if (m_queue)
        m_queue->cancel(this);
}

void BootTimer::fire()
{
    if (!m_active)
        return;
    m_active = false;
    Q_EMIT timeout();
}

} // namespace baton
