#pragma once

#include <QJsonValue>
#include <QObject>
#include <QString>

#include <chrono>
#include <memory>

class QJsonObject;

namespace baton {

class OutputQueue;

/*!
 * `baton join --events json`: the records, one JSON line each, on stdout
 * through an OutputQueue, so a reader that does not keep up loses records
 * (counted, then marked by an `events-dropped` record) rather than holding
 * up the elections that write them (R6). A reader gone for good is
 * failed(), once.
 */
class EventStreamWriter : public QObject
{
    Q_OBJECT
public:
    /*!
     * Writes to \a fd (stdout). The `events-dropped` records carry \a lease
     * and \a instance: the lease the command follows.
     */
    EventStreamWriter(int fd, QString lease, QString instance, QObject *parent = nullptr);
    ~EventStreamWriter() override;

    /*! Queues \a event; nothing once the stream has failed. */
    void write(const QJsonObject &event);
    /*! Records dropped so far. */
    quint64 dropped() const;
    /*! Waits, at most \a bound, for what is queued to be written. */
    bool drain(std::chrono::milliseconds bound);

Q_SIGNALS:
    /*! stdout cannot be written (its reader is gone, a full disk): \a error is the errno. Once. */
    void failed(int error);

private:
    QByteArray gapMarker(quint64 count) const;

    QString m_lease;
    QString m_instance;
    std::unique_ptr<OutputQueue> m_queue;
    bool m_failed = false;
    /*! The times of the last record dropped: its gap's marker takes them. */
    QJsonValue m_lastDroppedTs;
    QJsonValue m_lastDroppedMono;
};

} // namespace baton
