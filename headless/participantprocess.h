#pragma once

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QProcess>
#include <QStringList>

namespace baton {

/*!
 * A `baton join --events json` child process, with its event stream read
 * line by line. The demo uses it, and so do the end-to-end tests: what they
 * check is what an operator's tooling would see.
 */
class ParticipantProcess : public QObject
{
    Q_OBJECT
public:
    ParticipantProcess(QString label, QString program, QStringList arguments,
                       QObject *parent = nullptr);
    ~ParticipantProcess() override;

    void start();
    /*! Sends \a signalNumber (SIGTERM, SIGKILL, SIGSTOP...) to the process. */
    void sendSignal(int signalNumber);
    bool isRunning() const;
    qint64 pid() const;

    QString label() const { return m_label; }
    /*! The instance id, from the first event. */
    QString instanceId() const { return m_instanceId; }
    bool isLeading() const { return m_leading; }
    QList<QJsonObject> events() const { return m_events; }
    QByteArray standardError() const { return m_stderr; }
    /*! Everything it wrote on standard output, event lines and any other. */
    QByteArray standardOutput() const { return m_stdout; }
    int exitCode() const;
    QProcess::ExitStatus exitStatus() const;

Q_SIGNALS:
    void event(const QJsonObject &event);
    void leadingChanged(bool leading);
    void finished();

private:
    void readEvents();

    QString m_label;
    QProcess m_process;
    QString m_instanceId;
    bool m_leading = false;
    QList<QJsonObject> m_events;
    QByteArray m_pending;
    QByteArray m_stderr;
    QByteArray m_stdout;
};

} // namespace baton
