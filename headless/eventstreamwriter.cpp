#include "eventstreamwriter.h"

#include "headlesslogging.h"
#include "outputqueue.h"

#include <baton/clock.h>
#include <batoninternal/eventrecord.h>

#include <QJsonDocument>
#include <QJsonObject>

#include <csignal>

namespace baton {

namespace {

void onBrokenPipe(int)
{
}

/*!
 * A write to a stdout whose reader is gone then fails with EPIPE instead of
 * killing baton before it can release its lease. A handler rather than
 * SIG_IGN: exec() resets a handled signal, so the --exec command still
 * starts with SIGPIPE's default.
 */
void catchBrokenPipe()
{
    struct sigaction action {};
    action.sa_handler = &onBrokenPipe;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGPIPE, &action, nullptr);
}

} // namespace

EventStreamWriter::EventStreamWriter(int fd, QString lease, QString instance, QObject *parent)
    : QObject(parent)
    , m_lease(std::move(lease))
    , m_instance(std::move(instance))
{
    catchBrokenPipe();
    OutputQueue::Options options;
    options.fd = fd;
    options.maxBytes = OutputQueue::configuredBytes();
    options.stopOnError = true;
    // Called on this thread, by push() and drain().
    options.gapMarker = [this](quint64 count) { return gapMarker(count); };
    options.failed = [this](int error) {
        QMetaObject::invokeMethod(
                this,
                [this, error] {
                    if (m_failed)
                        return;
                    m_failed = true;
                    Q_EMIT failed(error);
                },
                Qt::QueuedConnection);
    };
    m_queue = std::make_unique<OutputQueue>(std::move(options));
}

EventStreamWriter::~EventStreamWriter() = default;

void EventStreamWriter::write(const QJsonObject &event)
{
    if (m_failed)
        return;
    const QByteArray line = QJsonDocument(event).toJson(QJsonDocument::Compact) + '\n';
    const OutputQueue::Result result = m_queue->push(line);
    if (result == OutputQueue::Result::DroppedFirst || result == OutputQueue::Result::Dropped) {
        m_lastDroppedTs = event.value(QStringLiteral("ts"));
        m_lastDroppedMono = event.value(QStringLiteral("mono"));
    }
    if (result == OutputQueue::Result::DroppedFirst)
        qCWarning(lcEvents, "the reader of the event stream (stdout) does not keep up: records are "
                            "dropped until it does, then an events-dropped record says how many");
}

quint64 EventStreamWriter::dropped() const
{
    return m_queue->dropped();
}

bool EventStreamWriter::drain(std::chrono::milliseconds bound)
{
    return m_queue->drain(bound);
}

QByteArray EventStreamWriter::gapMarker(quint64 count) const
{
    // The lease the command follows names it, but the records lost may be of
    // any lease of this process. Its times are those of the last record
    // lost: stamped now, it could come after a record stamped before it and
    // queued behind it.
    QJsonObject record = eventrecord::make(Clock::system(), m_lease, m_instance,
                                           QStringLiteral("events-dropped"));
    record.insert(QStringLiteral("ts"), m_lastDroppedTs);
    record.insert(QStringLiteral("mono"), m_lastDroppedMono);
    record.insert(QStringLiteral("count"), double(count));
    return QJsonDocument(record).toJson(QJsonDocument::Compact) + '\n';
}

} // namespace baton
