#pragma once

#include <QDir>
#include <QList>
#include <QObject>
#include <QTemporaryDir>

#include <functional>
#include <memory>

namespace baton {

class ConnectionRepository;
class DashboardSession;
class LeaseScript;
class MainWindow;
class Store;
class SecretStore;
namespace test {
class ManualClock;
}

/*!
 * `baton-screenshots DIR`: a scripted election of a few leases on an
 * in-process MemoryStore, under a manual clock (five minutes in well under a
 * second, the same pictures every run): renewals with jitter, a crash
 * failover (expired), a clean handover, a take-over, a lease left without a
 * leader, one ageing and one expired; billing-cron also has three changes
 * its holders stored before the dashboard connected (O2). Then the
 * dashboard is rendered into
 * DIR, at the 1280 pixels wide it must fit: dashboard.png, detail.png
 * (timeline and renew timings), fleet.png (every lease's timeline, one
 * holder highlighted), runs.png (billing-cron's scheduled runs: one
 * interrupted by the crash, a missed tick, a skipped one),
 * candidates.png (billing-cron's candidates: the leader, one live, two
 * standing by, the crashed one gone) and connections.png. sceneRendered() shows each scene
 * to whoever checks it (the tests read its strings); finished() carries the
 * exit code.
 */
class ScreenshotDemo : public QObject
{
    Q_OBJECT
public:
    explicit ScreenshotDemo(const QString &directory, QObject *parent = nullptr);
    ~ScreenshotDemo() override;

    void start();

Q_SIGNALS:
    /*! \a widget is shown as scene \a name (the file's base name), about to be saved. */
    void sceneRendered(const QString &name, QWidget *widget);
    void finished(int exitCode);

private:
    struct Write
    {
        qint64 atMs;
        QString lease;
        QString holder;
    };
    void buildScript();
    /*! billing-cron's changes stored before the dashboard connected. */
    void writeStoredHistory();
    /*! billing-cron's scheduled runs: one interrupted by its crash, a tick missed, one skipped. */
    void writeRuns();
    /*! billing-cron's candidate records at the end of the script. */
    void writeCandidates();
    void next();
    void waitUntilSeen(const Write &write);
    void render();
    bool save(QWidget *widget, const QString &name);
    /*! runs.png: billing-cron's Runs tab beside its timeline, once its runs are read; then \a then. */
    void saveRuns(std::function<void(bool ok)> then);
    /*! candidates.png: billing-cron's Candidates tab beside its timeline, once read; then \a then. */
    void saveCandidates(std::function<void(bool ok)> then);

    QDir m_directory;
    std::unique_ptr<test::ManualClock> m_clock;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<LeaseScript> m_script;
    std::unique_ptr<DashboardSession> m_session;
    std::unique_ptr<MainWindow> m_window;
    QList<Write> m_writes;
    int m_next = 0;
    qint64 m_startMono = 0;
    qint64 m_endMs = 0;
    QTemporaryDir m_settingsDir;
};

} // namespace baton
