#pragma once

#include <QByteArray>
#include <QLoggingCategory>

#include <chrono>

// The categories of the executable's own components, beside the library's
// (docs/reference/logging.md lists them all).
Q_DECLARE_LOGGING_CATEGORY(lcExec)
// baton.http, as the library's HTTP client: the --listen server.
Q_DECLARE_LOGGING_CATEGORY(lcServeHttp)
// baton.events: the event stream on stdout (a reader that does not keep up).
Q_DECLARE_LOGGING_CATEGORY(lcEvents)

namespace baton::headlesslogging {

/*!
 * The commands' message handler: one line a message on stderr, with a UTC
 * time stamp (or, on the journal, its priority prefix; or as
 * QT_MESSAGE_PATTERN says), written at once until queueStderr().
 */
void install();

/*!
 * From now on stderr is written by a bounded queue of its own (OutputQueue):
 * a stalled journal or a full disk drops log lines, counted and marked by
 * one line when the log catches up, and never holds up the caller (R6).
 */
void queueStderr();

/*! \a line as it is (it ends with a newline), in order with the messages. */
void print(const QByteArray &line);

/*! The log lines dropped so far (0 before queueStderr()). */
quint64 droppedLines();

/*! Waits at most \a bound for the log queue to be written out (true when it was). */
bool drain(std::chrono::milliseconds bound);

} // namespace baton::headlesslogging
