#include "outputqueue.h"

#include <baton/clock.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

namespace baton {

struct OutputQueue::State
{
    struct Item
    {
        QByteArray bytes;
        /*! A gap's marker: the lines it stands for (0: an ordinary line). */
        quint64 gap = 0;
    };

    /*!
     * A duplicate the thread owns: the caller may close its descriptor while
     * lines are still queued, and the number, reused, must not receive them.
     */
    int fd = -1;
    bool ownsFd = false;
    qsizetype maxBytes = 0;
    bool stopOnError = false;
    std::function<QByteArray(quint64)> gapMarker;
    std::function<void(int)> failed;

    std::mutex mutex;
    std::condition_variable queued; // an item, or closing
    std::condition_variable written;
    std::deque<Item> items;
    qsizetype queuedBytes = 0;
    /*! A gap is open: lines are dropped until the reader catches up. */
    bool dropping = false;
    quint64 gap = 0;
    std::atomic<quint64> dropped {0};
    bool closing = false;
    bool broken = false;

    /*! Under the mutex: closes the open gap with its marker once half the bound is free. */
    void markGapIfCaughtUp()
    {
        if (!dropping || queuedBytes > maxBytes / 2)
            return;
        Item marker {gapMarker ? gapMarker(gap) : QByteArray(), gap};
        dropping = false;
        gap = 0;
        if (marker.bytes.isEmpty())
            return;
        queuedBytes += marker.bytes.size();
        items.push_back(std::move(marker));
        queued.notify_one();
    }
};

namespace {

/*! 0, or the errno of the write that failed. Blocks as long as the reader does not read. */
int writeAll(int fd, const QByteArray &bytes)
{
    const char *data = bytes.constData();
    qsizetype left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, data, size_t(left));
        if (n >= 0) {
            data += n;
            left -= n;
            continue;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            // Someone sharing the file description made it non-blocking
            // (the --exec command, a terminal program): wait as a
            // blocking write would.
            pollfd ready {fd, POLLOUT, 0};
            ::poll(&ready, 1, -1);
            continue;
        }
        return errno;
    }
    return 0;
}

} // namespace

OutputQueue::OutputQueue(Options options)
    : m_state(std::make_shared<State>())
{
    m_state->fd = options.fd >= 0 ? ::fcntl(options.fd, F_DUPFD_CLOEXEC, 3) : -1;
    m_state->ownsFd = m_state->fd >= 0;
    if (!m_state->ownsFd)
        m_state->fd = options.fd; // out of descriptors: write to the caller's
    m_state->maxBytes = std::max(options.maxBytes, minimumBytes);
    m_state->stopOnError = options.stopOnError;
    m_state->gapMarker = std::move(options.gapMarker);
    m_state->failed = std::move(options.failed);
    // The thread takes no signal: SIGTERM and SIGINT reach the event loop's
    // thread, and a broken pipe is only ever EPIPE.
    sigset_t all;
    sigset_t previous;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &previous);
    std::thread(&OutputQueue::run, m_state).detach();
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

OutputQueue::~OutputQueue()
{
    const std::lock_guard<std::mutex> lock(m_state->mutex);
    m_state->closing = true;
    m_state->failed = nullptr;
    m_state->queued.notify_one();
}

OutputQueue::Result OutputQueue::push(QByteArray line)
{
    State &state = *m_state;
    const std::lock_guard<std::mutex> lock(state.mutex);
    if (state.broken)
        return Result::Closed;
    state.markGapIfCaughtUp();
    if (state.dropping) {
        ++state.gap;
        ++state.dropped;
        return Result::Dropped;
    }
    if (state.queuedBytes + line.size() > state.maxBytes) {
        state.dropping = true;
        state.gap = 1;
        ++state.dropped;
        return Result::DroppedFirst;
    }
    state.queuedBytes += line.size();
    state.items.push_back({std::move(line), 0});
    state.queued.notify_one();
    return Result::Queued;
}

bool OutputQueue::drain(std::chrono::milliseconds bound)
{
    State &state = *m_state;
    // The boot clock bounds the wait (a suspension counts); each wait is
    // short so that a resume finds the bound passed at once.
    const Clock &clock = Clock::system();
    const qint64 deadline = clock.monotonicMs() + bound.count();
    std::unique_lock<std::mutex> lock(state.mutex);
    for (;;) {
        if (state.broken)
            return false;
        state.markGapIfCaughtUp();
        if (state.items.empty() && !state.dropping)
            return true;
        const qint64 left = deadline - clock.monotonicMs();
        if (left <= 0)
            return false;
        state.written.wait_for(lock, std::chrono::milliseconds(std::min<qint64>(left, 100)));
    }
}

quint64 OutputQueue::dropped() const
{
    return m_state->dropped.load();
}

qsizetype OutputQueue::configuredBytes()
{
    bool ok = false;
    const qlonglong bytes = qEnvironmentVariable("BATON_OUTPUT_QUEUE_BYTES").toLongLong(&ok);
    return ok && bytes >= minimumBytes ? qsizetype(bytes) : 256 * 1024;
}

void OutputQueue::run(std::shared_ptr<State> shared)
{
    State &state = *shared;
    std::unique_lock<std::mutex> lock(state.mutex);
    for (;;) {
        state.queued.wait(lock, [&state] { return !state.items.empty() || state.closing; });
        if (state.items.empty()) {
            // Closing, and all written.
            if (state.ownsFd)
                ::close(state.fd);
            return;
        }
        // Copied, not referenced: the pushing thread may append meanwhile.
        const State::Item item = state.items.front();
        lock.unlock();
        const int error = writeAll(state.fd, item.bytes);
        lock.lock();
        state.items.pop_front();
        state.queuedBytes -= item.bytes.size();
        if (error != 0 && state.stopOnError) {
            state.broken = true;
            state.items.clear();
            state.queuedBytes = 0;
            if (state.failed)
                state.failed(error);
            state.written.notify_all();
            if (state.ownsFd)
                ::close(state.fd);
            return;
        }
        if (error != 0) {
            // Lost as a dropped line is: the next marker counts it.
            if (item.gap == 0)
                ++state.dropped;
            state.gap += item.gap == 0 ? 1 : item.gap;
            state.dropping = true;
        }
        state.written.notify_all();
    }
}

} // namespace baton
