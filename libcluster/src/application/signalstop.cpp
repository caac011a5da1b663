#include "signalstop.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <QSocketNotifier>
#include <unistd.h>

namespace baton {

namespace {

// Read end, write end. Process-wide because a signal handler is.
int s_pipe[2] = { -1, -1 };
std::atomic<int> s_received { 0 };
SignalStop *s_installed = nullptr;

void onSignal(int signalNumber)
{
    // Exit status for a second, impatient signal: what a shell reports for
    // a process killed by that signal. The lease then expires.
    if (s_received.fetch_add(1) > 0)
        _exit(128 + signalNumber);
    const int savedErrno = errno;
    const char byte = char(signalNumber);
    [[maybe_unused]] const auto written = ::write(s_pipe[1], &byte, 1);
    errno = savedErrno;
}

bool isDefaultAction(int signalNumber)
{
    struct sigaction current
    {
    };
    return sigaction(signalNumber, nullptr, &current) == 0 && !(current.sa_flags & SA_SIGINFO)
        && current.sa_handler == SIG_DFL;
}

bool isOwnAction(int signalNumber)
{
    struct sigaction current
    {
    };
    return sigaction(signalNumber, nullptr, &current) == 0 && !(current.sa_flags & SA_SIGINFO)
        && current.sa_handler == onSignal;
}

} // namespace

SignalStop *SignalStop::install(QObject *parent)
{
    if (s_installed)
        return nullptr;
    QList<int> caught;
    for (int signalNumber : { SIGTERM, SIGINT })
        if (isDefaultAction(signalNumber))
            caught.append(signalNumber);
    if (caught.isEmpty())
        return nullptr;
    // Non-blocking: a handler must never wait on a full pipe.
    if (::pipe2(s_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return nullptr;
    return new SignalStop(caught, parent);
}

SignalStop::SignalStop(const QList<int> &caught, QObject *parent)
    : QObject(parent)
    , m_caught(caught)
{
    s_installed = this;
    s_received = 0;
    m_notifier = new QSocketNotifier(s_pipe[0], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, [this] {
        char byte = 0;
        if (::read(s_pipe[0], &byte, 1) == 1)
            Q_EMIT received(int(byte));
    });
    struct sigaction action
    {
    };
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int signalNumber : std::as_const(m_caught))
        sigaction(signalNumber, &action, nullptr);
}

SignalStop::~SignalStop()
{
    // A handler the program installed since then stays.
    for (int signalNumber : std::as_const(m_caught))
        if (isOwnAction(signalNumber))
            signal(signalNumber, SIG_DFL);
    delete m_notifier;
    m_notifier = nullptr;
    ::close(s_pipe[0]);
    ::close(s_pipe[1]);
    s_pipe[0] = s_pipe[1] = -1;
    s_installed = nullptr;
}

} // namespace baton
