#pragma once

#include <QByteArray>
#include <QtGlobal>

#include <chrono>
#include <functional>
#include <memory>

namespace baton {

/*!
 * Lines for one file descriptor (stdout's event stream, stderr's log),
 * written in order by a thread of its own, so that a reader that does not
 * read, a stalled journal or a full disk never holds up the thread that
 * pushes them: the election's (R6). At most a bound of bytes waits; a line
 * that does not fit is dropped and counted. The lines dropped in a row are
 * one gap: from the first, every line is dropped until the reader has
 * caught up with half the bound, then the gap's marker (a line saying how
 * many were lost, made by the caller) takes its place, and lines are
 * queued again. Lines are written whole, never interleaved.
 *
 * The thread is never joined: it may be blocked in write() for good. It
 * owns what it uses, a duplicate of the descriptor too, so the queue can be
 * destroyed (and the process end, or the caller close its descriptor)
 * under it.
 */
class OutputQueue
{
public:
    /*! What became of a line pushed. */
    enum class Result {
        Queued,
        /*! Dropped, and the first of its gap: the caller may say so once. */
        DroppedFirst,
        Dropped,
        /*! The descriptor failed before (stopOnError): nothing is written any more. */
        Closed,
    };

    struct Options
    {
        int fd = -1;
        qsizetype maxBytes = 256 * 1024;
        /*! The line that marks a gap of \a count lines; called on the pushing thread. */
        std::function<QByteArray(quint64 count)> gapMarker;
        /*!
         * A write error ends the output (the event stream's reader is gone)
         * rather than dropping the line and going on (the log's disk is full).
         */
        bool stopOnError = false;
        /*!
         * Called once, on the writer's thread, with errno when a write fails
         * and stopOnError is set. Never called after the queue is destroyed.
         */
        std::function<void(int error)> failed;
    };

    explicit OutputQueue(Options options);
    /*! Waits for nothing (drain() does, within a bound). */
    ~OutputQueue();

    OutputQueue(const OutputQueue &) = delete;
    OutputQueue &operator=(const OutputQueue &) = delete;

    /*! Never blocks longer than a copy under a mutex. */
    Result push(QByteArray line);

    /*!
     * Waits until everything pushed is written (and an open gap is marked,
     * when its marker fits), at most \a bound. False when time ran out or
     * the descriptor failed.
     */
    bool drain(std::chrono::milliseconds bound);

    /*! Lines dropped so far (markers are not lines); any thread. */
    quint64 dropped() const;

    /*! The smallest bound allowed: a few lines. */
    static constexpr qsizetype minimumBytes = 4096;

    /*!
     * The bound of the commands' queues: BATON_OUTPUT_QUEUE_BYTES when it is
     * a number of at least minimumBytes, else 256 KiB.
     */
    static qsizetype configuredBytes();

private:
    struct State;
    static void run(std::shared_ptr<State> state);

    std::shared_ptr<State> m_state;
};

} // namespace baton
