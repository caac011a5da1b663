// The seed example: a service that polls something every second, on the
// leader only. Run three copies with the same configuration and exactly one
// polls; kill it (kill -9) and another takes over within the lease; stop it
// (kill -TERM, Ctrl-C) and another takes over at once: the Application
// stops cleanly on these signals and exec() returns 0.
//
//   poller-example --config poller.json
//
// The poller is configured before the cluster service: its whenLeader()
// registration waits for the cluster to start (W7).

#include <baton/application.h>
#include <baton/cluster.h>
#include <baton/service.h>
#include <baton/servicefactory.h>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTimer>

#include <cstdio>

class Poller : public baton::Service
{
public:
    using Service::Service;

    bool init(QString *errorString) override
    {
        const int interval = parameters().value(QStringLiteral("interval")).toInt(1000);
        if (interval <= 0) {
            *errorString = QStringLiteral("service \"%1\": parameter \"interval\" must be a "
                                          "positive number of milliseconds")
                                   .arg(name());
            return false;
        }
        m_timer.setInterval(interval);
        connect(&m_timer, &QTimer::timeout, this, &Poller::poll);
        // Start polling when this instance becomes the leader, stop when it
        // stops leading. The remover would undo the registration.
        m_remover = baton::whenLeader(
                this, [this] { m_timer.start(); }, [this] { m_timer.stop(); });
        return true;
    }

    void stop() override
    {
        m_timer.stop();
        finishStop();
    }

    /*! For the example's test: stop the application after \a polls polls. */
    void setStopAfter(int polls) { m_stopAfter = polls; }

private:
    void poll()
    {
        // A leader frozen past its deadline sees false here before anything
        // else runs (F4): never poll on a lease that may have expired.
        if (!baton::useCluster().isLeader())
            return;
        ++m_polls;
        std::printf("poll %d as leader %s (fencing token %lld)\n", m_polls,
                    qPrintable(baton::useCluster().instanceId()),
                    static_cast<long long>(baton::useCluster().fencingToken()));
        std::fflush(stdout);
        if (m_polls == m_stopAfter)
            application()->stop();
    }

    QTimer m_timer;
    baton::Remover m_remover;
    int m_polls = 0;
    int m_stopAfter = -1;
};

int main(int argc, char *argv[])
{
    QCoreApplication qtApp(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("config"), QStringLiteral("Configuration file."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("polls"), QStringLiteral("Stop after N polls."),
                      QStringLiteral("N")});
    parser.process(qtApp);

    // Declared parameters: a typo such as "intervall" is refused at load.
    baton::ServiceFactory::registerType<Poller>(QStringLiteral("Example/Poller"),
                                                {QStringLiteral("interval")});

    baton::Application app;
    QString error;
    if (!app.loadConfigFile(parser.value(QStringLiteral("config")), &error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 2;
    }
    if (auto *poller = dynamic_cast<Poller *>(app.service(QStringLiteral("poller"))))
        poller->setStopAfter(parser.value(QStringLiteral("polls")).toInt());
    if (!app.init(&error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 2;
    }
    QObject::connect(&app, &baton::Application::stopped, &qtApp, &QCoreApplication::quit);
    return qtApp.exec();
}
