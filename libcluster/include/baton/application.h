#pragma once

#include <baton/baton_export.h>

#include <QList>
#include <QObject>
#include <QString>

#include <memory>

namespace baton {

class ClusterService;
class Service;
class Store;
class ApplicationPrivate;
struct ElectionOptions;

/*!
 * An application built from a JSON configuration (C2):
 *
 * \code
 * {"services": {"Registry": {"type": "Webda/FileStore", "folder": "/var/lib/app"},
 *               "cluster": {"type": "Webda/StoreClusterService", "leaseName": "cron"}}}
 * \endcode
 *
 * The Application owns its services. While it exists it is the process's
 * current application: useCluster() and baton::whenLeader() look there.
 *
 * Once started, it stops cleanly on SIGTERM and SIGINT (see
 * setStopOnSignals()), so a complete program is:
 *
 * \code
 * int main(int argc, char *argv[])
 * {
 *     QCoreApplication qtApp(argc, argv);
 *     baton::Application app;
 *     QString error;
 *     if (!app.loadConfigFile(QStringLiteral("app.json"), &error) || !app.init(&error)) {
 *         qCritical("%s", qPrintable(error));
 *         return 2;
 *     }
 *     return qtApp.exec(); // 0 after a clean stop on SIGTERM or SIGINT
 * }
 * \endcode
 */
class BATON_EXPORT Application : public QObject
{
    Q_OBJECT
public:
    /*! An empty application; it becomes the current() one. */
    explicit Application(QObject *parent = nullptr);
    ~Application() override;

    /*! The application constructed most recently and still alive, or nullptr. */
    static Application *current();

    /*!
     * Reads a configuration file and creates its services, without starting
     * them. On error nothing is created and \a errorString names the file,
     * the line and column (malformed JSON) or the service and parameter:
     * one line a mistake, every service's, each with the position of the
     * parameter it is about.
     */
    bool loadConfigFile(const QString &path, QString *errorString);
    /*! As loadConfigFile(), from memory; \a sourceName is used in messages. */
    bool loadConfig(const QByteArray &json, const QString &sourceName, QString *errorString);

    /*!
     * Adds the cluster service \a name that runs the election \a options
     * describes, as if the configuration listed it last: the election built
     * in code, beside or instead of a configuration file (call
     * loadConfig() or loadConfigFile() first, if at all). Its values are
     * checked by init(), with the rules and messages of a file's service.
     * Returns the service, owned by the application, or nullptr with \a
     * errorString set when the application is already initialised or has a
     * service of that name.
     *
     * \code
     * baton::ElectionOptions election;
     * election.leaseName = QStringLiteral("cron");
     * if (!app.addCluster(QStringLiteral("cluster"), election, &error) || !app.init(&error))
     *     qCritical("%s", qPrintable(error));
     * \endcode
     */
    ClusterService *addCluster(const QString &name, const ElectionOptions &options,
                               QString *errorString);

    /*!
     * Initialises the services in configuration order. Stops at the first
     * service that refuses (the next ones would create folders and open
     * connections for a configuration that is refused), stops those
     * already started, and returns false.
     * Registrations made with baton::whenLeader() before this call start
     * when the first cluster service starts (W7).
     */
    bool init(QString *errorString);

    /*!
     * \a errorString, a refusal by the service \a serviceName (one line a
     * mistake), with the file, line and column of each refused parameter
     * in front of its line, as init() reports them; for refusals of a
     * validation made before init().
     */
    QString locateError(const QString &serviceName, const QString &errorString) const;
    /*! Whether init() succeeded and stop() has not been called since. */
    bool isInitialised() const;

    /*!
     * Stops the services in reverse order, each after the previous one has
     * finished stopping; cluster services next to each other in the
     * configuration stop together, as none depends on another. Emits
     * stopped() once at the end.
     */
    void stop();

    /*!
     * Whether this application stops cleanly on SIGTERM and SIGINT; true
     * unless turned off. When on, init() catches each of the two signals
     * that still has its default action (a signal the program handles or
     * ignores itself is left alone), for the first started application of
     * the process only. The first such signal calls stop(): the leader work
     * is told to stop, and then the lease is released, so that another
     * instance takes over at once instead of when the lease expires. Once
     * stopped, the application ends the event loop with
     * QCoreApplication::exit(0). A second signal during that stop ends the
     * process at once with 128 + the signal's number (143 for SIGTERM, 130
     * for SIGINT), leaving the lease to expire. Destroying the application
     * puts the default actions back.
     *
     * Turn it off, before or after init(), to handle these signals yourself
     * (call stop() from your handler and wait for stopped()) or to keep
     * their default action, which ends the process with no release.
     */
    void setStopOnSignals(bool enabled);
    /*! Whether setStopOnSignals() is on (the default). */
    bool stopOnSignals() const;

    /*! The service configured as \a name, or nullptr. */
    Service *service(const QString &name) const;
    /*! Every service, in configuration order. */
    QList<Service *> services() const;

    /*! The first cluster service in configuration order, or nullptr (C1). */
    ClusterService *firstCluster() const;

    /*!
     * The Registry: the store service named `Registry`; when none is
     * configured, a `Webda/FileStore` in dataFolder() created on first use.
     */
    Store *registry();

    /*!
     * Where local state lives: `BATON_DATA_DIR` when set, else the
     * application's writable data location.
     */
    QString dataFolder() const;

Q_SIGNALS:
    /*!
     * Every service has started (emitted at the end of a successful init()).
     * Elections begin here, so that a cluster service listed before its
     * store never campaigns on a store that has not started yet.
     */
    void started();
    /*! Every service has stopped (emitted once, at the end of stop()). */
    void stopped();

private:
    friend class ApplicationPrivate;
    std::unique_ptr<ApplicationPrivate> d;
};

} // namespace baton
