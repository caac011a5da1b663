// Preloaded, with Debian's libfaketime after it, into the `baton join`
// processes of tst_clockdrift (docs/testing.md, "Clock drift"). libfaketime
// 0.9.10 scales CLOCK_BOOTTIME readings, sleeps, poll timeouts and relative
// timers by its rate, which is what a host whose clock runs fast or slow
// looks like. Two things it does not do, and this library does:
//
// - An absolute timerfd deadline is translated as if it were on
//   CLOCK_REALTIME, whatever the timer's clock. The exec guard's
//   CLOCK_BOOTTIME deadline would then land decades away and the guard
//   would never fire. Here such a deadline becomes the time left on the
//   faked clock, a relative timer, which libfaketime scales.
// - A test that compares the `mono` of processes whose clocks run at
//   different rates must map each one back to the host's clock. Before
//   main() (when libfaketime has its start time), each process under the
//   `faketime` wrapper appends "<pid> <faked ns> <host ns>" of
//   CLOCK_BOOTTIME to the file named by BATON_CLOCKDRIFT_PAIRS; with the rate,
//   one such pair gives the whole mapping.
//
// Test-only: nothing of Baton links it.

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

namespace {

constexpr int trackedFds = 4096;
clockid_t timerClocks[trackedFds]; // the clock of each timerfd this process created
bool timerKnown[trackedFds];

long long nanoseconds(const timespec &ts)
{
    return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

timespec fromNanoseconds(long long ns)
{
    timespec ts {};
    ts.tv_sec = static_cast<time_t>(ns / 1000000000LL);
    ts.tv_nsec = static_cast<long>(ns % 1000000000LL);
    return ts;
}

long long hostBootNs()
{
    // The system call itself: libfaketime wraps only the library function.
    timespec ts {};
    ::syscall(SYS_clock_gettime, CLOCK_BOOTTIME, &ts);
    return nanoseconds(ts);
}

void writePair()
{
    const char *path = std::getenv("BATON_CLOCKDRIFT_PAIRS");
    // Only below the wrapper, which sets FAKETIME_SHARED for its child: the
    // wrapper itself runs on the host's clock.
    if (!path || !std::getenv("FAKETIME_SHARED"))
        return;
    // The faked reading between two of the host's; of a few tries, the
    // tightest, so that a preemption in between does not skew the pair.
    long long fakedNs = 0;
    long long hostNs = 0;
    long long narrowest = -1;
    for (int attempt = 0; attempt < 8; ++attempt) {
        const long long before = hostBootNs();
        timespec faked {};
        ::clock_gettime(CLOCK_BOOTTIME, &faked);
        const long long after = hostBootNs();
        if (narrowest < 0 || after - before < narrowest) {
            narrowest = after - before;
            fakedNs = nanoseconds(faked);
            hostNs = before + (after - before) / 2;
        }
    }
    char line[128];
    const int length = std::snprintf(line, sizeof line, "%d %lld %lld\n", int(::getpid()), fakedNs, hostNs);
    const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || length <= 0)
        return;
    while (::write(fd, line, size_t(length)) < 0 && errno == EINTR) {
    }
    ::close(fd);
}

using StartMain = int (*)(int (*)(int, char **, char **), int, char **, void (*)(), void (*)(), void (*)(),
                          void *);
using TimerfdCreate = int (*)(int, int);
using TimerfdSettime = int (*)(int, int, const itimerspec *, itimerspec *);

template<typename Function>
Function next(const char *name)
{
    return reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

} // namespace

extern "C" {

// Runs after every shared library's constructors, libfaketime's included,
// so the start time it fakes from is settled.
int __libc_start_main(int (*mainFunction)(int, char **, char **), int argc, char **argv, void (*init)(),
                      void (*fini)(), void (*rtldFini)(), void *stackEnd)
{
    writePair();
    return next<StartMain>("__libc_start_main")(mainFunction, argc, argv, init, fini, rtldFini, stackEnd);
}

int timerfd_create(int clockId, int flags)
{
    const int fd = next<TimerfdCreate>("timerfd_create")(clockId, flags);
    if (fd >= 0 && fd < trackedFds) {
        timerClocks[fd] = clockId;
        timerKnown[fd] = true;
    }
    return fd;
}

int timerfd_settime(int fd, int flags, const itimerspec *value, itimerspec *old)
{
    const auto settime = next<TimerfdSettime>("timerfd_settime");
    const bool absolute = (flags & TFD_TIMER_ABSTIME) != 0;
    const bool armed = value && (value->it_value.tv_sec != 0 || value->it_value.tv_nsec != 0);
    if (!absolute || !armed || fd < 0 || fd >= trackedFds || !timerKnown[fd]
        || (timerClocks[fd] != CLOCK_BOOTTIME && timerClocks[fd] != CLOCK_MONOTONIC))
        return settime(fd, flags, value, old);
    timespec now {};
    ::clock_gettime(timerClocks[fd], &now); // libfaketime's: the clock the deadline is on
    // A deadline already passed fires at once (zero would disarm the timer).
    const long long left = nanoseconds(value->it_value) - nanoseconds(now);
    itimerspec relative = *value;
    relative.it_value = fromNanoseconds(left > 0 ? left : 1);
    return settime(fd, flags & ~TFD_TIMER_ABSTIME, &relative, old);
}

} // extern "C"
