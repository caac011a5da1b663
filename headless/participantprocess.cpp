#include "participantprocess.h"

#include <QJsonDocument>

#include <csignal>

namespace baton {

ParticipantProcess::ParticipantProcess(QString label, QString program, QStringList arguments,
                                       QObject *parent)
    : QObject(parent)
    , m_label(std::move(label))
{
    m_process.setProgram(program);
    m_process.setArguments(arguments);
    connect(&m_process, &QProcess::readyReadStandardOutput, this, &ParticipantProcess::readEvents);
    connect(&m_process, &QProcess::readyReadStandardError, this,
            [this] { m_stderr += m_process.readAllStandardError(); });
    connect(&m_process, &QProcess::finished, this, [this] {
        readEvents();
        m_stderr += m_process.readAllStandardError();
        if (m_leading) {
            // Killed while leading: it says nothing more, and leads no more.
            m_leading = false;
            Q_EMIT leadingChanged(false);
        }
        Q_EMIT finished();
    });
}

ParticipantProcess::~ParticipantProcess()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
}

void ParticipantProcess::start()
{
    m_process.start();
}

void ParticipantProcess::sendSignal(int signalNumber)
{
    if (m_process.state() != QProcess::NotRunning)
        ::kill(pid_t(m_process.processId()), signalNumber);
}

bool ParticipantProcess::isRunning() const
{
    return m_process.state() != QProcess::NotRunning;
}

qint64 ParticipantProcess::pid() const
{
    return m_process.processId();
}

int ParticipantProcess::exitCode() const
{
    return m_process.exitCode();
}

QProcess::ExitStatus ParticipantProcess::exitStatus() const
{
    return m_process.exitStatus();
}

void ParticipantProcess::readEvents()
{
    const QByteArray read = m_process.readAllStandardOutput();
    m_stdout += read;
    m_pending += read;
    qsizetype newline;
    while ((newline = m_pending.indexOf('\n')) >= 0) {
        const QByteArray line = m_pending.left(newline);
        m_pending.remove(0, newline + 1);
        const QJsonDocument document = QJsonDocument::fromJson(line);
        if (!document.isObject())
            continue;
        const QJsonObject record = document.object();
        if (m_instanceId.isEmpty())
            m_instanceId = record.value(QStringLiteral("instance")).toString();
        m_events.append(record);
        Q_EMIT event(record);
        const QString name = record.value(QStringLiteral("event")).toString();
        if (name == QLatin1String("started-leading") && !m_leading) {
            m_leading = true;
            Q_EMIT leadingChanged(true);
        } else if (name == QLatin1String("stopped-leading") && m_leading) {
            m_leading = false;
            Q_EMIT leadingChanged(false);
        }
    }
}

} // namespace baton
