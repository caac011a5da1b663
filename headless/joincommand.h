#pragma once

#include <QObject>
#include <QString>

#include <memory>

class QTextStream;

namespace baton {

class Application;
class SignalWatcher;

/*!
 * `baton join`: takes part in every election of a configuration until
 * SIGTERM or SIGINT, then stops cleanly (SPEC F5) and exits 0.
 */
class JoinCommand : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        QString configPath;
        bool eventsJson = false;
    };

    enum ExitCode { Success = 0, RuntimeFailure = 1, BadUsage = 2 };

    explicit JoinCommand(Options options, QObject *parent = nullptr);
    ~JoinCommand() override;

    /*!
     * Loads and starts. Returns an exit code when the command is already
     * over (bad configuration, --explain), or -1 while it runs: finished()
     * comes later.
     */
    int start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    void writeEvent(const class QJsonObject &event);

    Options m_options;
    std::unique_ptr<Application> m_application;
    SignalWatcher *m_signals = nullptr;
};

} // namespace baton
