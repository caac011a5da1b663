#pragma once

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QTemporaryDir>
#include <QTimer>

namespace baton {

class ParticipantProcess;

/*!
 * `baton demo`: three real `baton join` processes on a file Registry in a
 * temporary folder. It shows who leads, kills the leader (SIGKILL) to show a
 * crash failover, stops the next one cleanly (SIGTERM) to show a handover,
 * then prints the history and the lease as `baton status` shows it. Exit 0
 * when every step was seen.
 */
class DemoCommand : public QObject
{
    Q_OBJECT
public:
    explicit DemoCommand(QString batonProgram, QObject *parent = nullptr);
    ~DemoCommand() override;

    /*! Returns an exit code when the demo cannot start, or -1: finished() comes later. */
    int start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    enum class Stage { WaitingForLeader, LeaderRunning, AfterCrash, AfterHandover, Stopping };

    void onLeadingChanged(ParticipantProcess *participant, bool leading);
    void advance();
    void printTable(const QString &note = {});
    void printHistory();
    void showStatus();
    void fail(const QString &why);
    /*! SIGINT or SIGTERM: the participants are killed, the folder goes with the command. */
    void interrupt(int signalNumber);
    ParticipantProcess *leader() const;
    qint64 monotonicNow() const;

    QString m_program;
    QTemporaryDir m_folder;
    QList<ParticipantProcess *> m_participants;
    Stage m_stage = Stage::WaitingForLeader;
    QTimer m_stepTimer;
    QTimer m_giveUp;
    qint64 m_startMono = 0;
    qint64 m_faultMono = 0;
    ParticipantProcess *m_faulted = nullptr;
    qint64 m_crashFailoverMs = -1;
    qint64 m_handoverMs = -1;
    static constexpr qint64 leaseDurationMs = 3000;
    static constexpr qint64 renewIntervalMs = 1000;
};

} // namespace baton
