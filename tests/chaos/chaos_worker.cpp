// The command that `baton join --exec` runs in the chaos test: it appends
// "start|tick|stop <instance> <pid> <mono_ns> <token>" lines to one shared
// log, a tick every 20 ms, so that two copies running at once would show as
// interleaved lines and overlapping CLOCK_BOOTTIME ranges (the clock of the
// events' `mono`, docs/reference/events.md).
//
// Each line is one write(2) on an O_APPEND descriptor: the file's order is
// the order of the writes. SIGTERM writes "stop" and exits from the handler
// itself: a copy that was frozen and is resumed with SIGTERM pending (what
// baton's supervisor does after a freeze) runs no further tick. A SIGTERM
// ignored on entry (`trap '' TERM; exec chaos_worker LOG`) stays ignored, as
// a shell's own commands keep it: such a copy ends only by SIGKILL, so its
// last line is a tick and a late kill shows in the log.

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <fcntl.h>
#include <unistd.h>

namespace {

int logFd = -1;
char identity[256]; // "<instance> <pid>"
char token[64];

long long monoNs()
{
    timespec ts {};
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// Async-signal-safe: snprintf is not formally, so the number is formatted by hand.
void writeLine(const char *kind)
{
    char digits[32];
    int n = 0;
    long long value = monoNs();
    do {
        digits[n++] = char('0' + value % 10);
        value /= 10;
    } while (value > 0);
    char line[400];
    size_t length = 0;
    auto append = [&](const char *text, size_t size) {
        if (length + size < sizeof line) {
            memcpy(line + length, text, size);
            length += size;
        }
    };
    append(kind, strlen(kind));
    append(" ", 1);
    append(identity, strlen(identity));
    append(" ", 1);
    while (n > 0) {
        const char digit = digits[--n];
        append(&digit, 1);
    }
    append(" ", 1);
    append(token, strlen(token));
    append("\n", 1);
    while (::write(logFd, line, length) < 0 && errno == EINTR) {
    }
}

void onTerm(int)
{
    writeLine("stop");
    _exit(0);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: chaos_worker LOG (run by baton join --exec)\n");
        return 2;
    }
    logFd = ::open(argv[1], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (logFd < 0) {
        perror(argv[1]);
        return 1;
    }
    const char *instance = getenv("BATON_INSTANCE");
    const char *fencingToken = getenv("BATON_FENCING_TOKEN");
    snprintf(identity, sizeof identity, "%s %d", instance ? instance : "-", int(getpid()));
    snprintf(token, sizeof token, "%s", fencingToken ? fencingToken : "-");

    struct sigaction inherited {};
    sigaction(SIGTERM, nullptr, &inherited);
    if (inherited.sa_handler != SIG_IGN) {
        struct sigaction action {};
        action.sa_handler = onTerm;
        sigemptyset(&action.sa_mask);
        sigaction(SIGTERM, &action, nullptr);
    }

    writeLine("start");
    const timespec tick {0, 20 * 1000 * 1000};
    for (;;) {
        nanosleep(&tick, nullptr);
        writeLine("tick");
    }
}
