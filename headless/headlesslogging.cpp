#include "headlesslogging.h"

#include "journalstream.h"
#include "outputqueue.h"

#include <QDateTime>

#include <atomic>
#include <cstdio>

#include <unistd.h>

Q_LOGGING_CATEGORY(lcExec, "baton.exec", QtInfoMsg)
Q_LOGGING_CATEGORY(lcServeHttp, "baton.http", QtInfoMsg)
Q_LOGGING_CATEGORY(lcEvents, "baton.events", QtInfoMsg)

namespace baton::headlesslogging {

namespace {

// Never deleted: Qt and static destructors may log until the very end, and
// its thread may be blocked in write() for good.
std::atomic<OutputQueue *> s_queue {nullptr};
bool s_stamped = false;

QByteArray format(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    QString line = qFormatLogMessage(type, context, message);
    // Qt's %{time} is local time without a zone: ISO 8601 UTC, as `baton status` prints times.
    if (s_stamped)
        line.prepend(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs) + QLatin1Char(' '));
    return line.toLocal8Bit() + '\n';
}

void writeNow(const QByteArray &line)
{
    std::fwrite(line.constData(), 1, size_t(line.size()), stderr);
}

void handle(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    const QByteArray line = format(type, context, message);
    // A fatal message ends the process right after: written at once.
    if (type == QtFatalMsg)
        writeNow(line);
    else
        print(line);
}

} // namespace

void install()
{
    if (qEnvironmentVariableIsEmpty("QT_MESSAGE_PATTERN")) {
        const bool journal = journalstream::stderrIsJournal();
        // The journal stamps each line itself and reads <N> as its priority.
        qSetMessagePattern(journal ? journalstream::messagePattern(true)
                                   : QStringLiteral("%{if-category}%{category} %{endif}%{type}: %{message}"));
        s_stamped = !journal;
    }
    qInstallMessageHandler(&handle);
}

void queueStderr()
{
    if (s_queue.load())
        return;
    OutputQueue::Options options;
    options.fd = STDERR_FILENO;
    options.maxBytes = OutputQueue::configuredBytes();
    options.gapMarker = [](quint64 count) {
        // Formatted here, not logged: the queue's lock is held.
        const QMessageLogContext context(nullptr, 0, nullptr, "baton.log");
        return format(QtWarningMsg, context,
                      QStringLiteral("%1 log lines were dropped here: the log (stderr) did not take "
                                     "them as fast as they came")
                              .arg(count));
    };
    s_queue.store(new OutputQueue(std::move(options)));
}

void print(const QByteArray &line)
{
    if (OutputQueue *queue = s_queue.load())
        queue->push(line);
    else
        writeNow(line);
}

quint64 droppedLines()
{
    const OutputQueue *queue = s_queue.load();
    return queue ? queue->dropped() : 0;
}

bool drain(std::chrono::milliseconds bound)
{
    OutputQueue *queue = s_queue.load();
    return queue ? queue->drain(bound) : true;
}

} // namespace baton::headlesslogging
