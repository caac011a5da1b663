#include "boottimer.h"

#include <QSocketNotifier>
#include <QTimer>

#include <algorithm>
#include <climits>
#include <cstdint>

#if defined(Q_OS_LINUX)
#include <sys/timerfd.h>
#include <unistd.h>
#define BATON_HAVE_TIMERFD 1
#endif

namespace baton {

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
    if (m_notifier || m_fallback)
        return;
    // Made at the first start(), not before: a process with a thousand
    // elections arms the stop timers of only those that stop.
#ifdef BATON_HAVE_TIMERFD
    if (m_kind == Kind::BootClock)
        m_fd = timerfd_create(CLOCK_BOOTTIME, TFD_NONBLOCK | TFD_CLOEXEC);
    if (m_fd >= 0) {
        m_notifier = new QSocketNotifier(qintptr(m_fd), QSocketNotifier::Read, this);
        connect(m_notifier, &QSocketNotifier::activated, this, &BootTimer::onReadable);
        return;
    }
#endif
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
#ifdef BATON_HAVE_TIMERFD
    if (m_fd >= 0) {
        delete m_notifier; // before the descriptor it watches goes
        ::close(m_fd);
    }
#endif
}

void BootTimer::start(qint64 ms)
{
    prepare();
    m_active = true;
    if (m_fallback) {
        m_fallback->start(int(qBound<qint64>(0, ms, qint64(INT_MAX))));
        return;
    }
#ifdef BATON_HAVE_TIMERFD
    // An all-zero it_value disarms a timerfd: "now" is one nanosecond.
    const qint64 clamped = std::max<qint64>(ms, 0);
    itimerspec spec {};
    spec.it_value.tv_sec = time_t(clamped / 1000);
    spec.it_value.tv_nsec = long(clamped % 1000) * 1'000'000L;
    if (clamped == 0)
        spec.it_value.tv_nsec = 1;
    // Setting a timerfd also clears the expirations of its earlier arming,
    // so a re-armed timer never fires for the interval it replaced.
    timerfd_settime(m_fd, 0, &spec, nullptr);
#endif
}

void BootTimer::stop()
{
    m_active = false;
    if (!m_notifier && !m_fallback)
        return; // never started
    if (m_fallback) {
        m_fallback->stop();
        return;
    }
#ifdef BATON_HAVE_TIMERFD
    const itimerspec disarm {};
    timerfd_settime(m_fd, 0, &disarm, nullptr);
#endif
}

void BootTimer::onReadable()
{
#ifdef BATON_HAVE_TIMERFD
    std::uint64_t expirations = 0;
    // EAGAIN: the notifier saw an expiration that a later start() or
    // stop() has cleared since; nothing is due.
    if (::read(m_fd, &expirations, sizeof expirations) != ssize_t(sizeof expirations))
        return;
#endif
    fire();
}

void BootTimer::fire()
{
    if (!m_active)
        return;
    m_active = false;
    Q_EMIT timeout();
}

} // namespace baton
