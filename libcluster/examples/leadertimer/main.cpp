// The shortest way to run periodic work on the leader only: a LeaderTimer in
// place of a QTimer, on an election built in code, with no configuration
// file. Run three copies and only the leader prints; kill it and another
// one starts printing. SIGTERM or Ctrl-C stops it cleanly: the lease is
// released and another one starts printing at once.
//
//   leadertimer-example
//
// The lease lives in the default Registry, a file store in the data folder
// (BATON_DATA_DIR, else the application's data location): the copies of one
// host elect one leader. For several hosts, configure a shared store (see
// the poller example and docs/reference/configuration.md).

#include <baton/application.h>
#include <baton/cluster.h>
#include <baton/electionoptions.h>
#include <baton/leadertimer.h>

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>

int main(int argc, char *argv[])
{
    QCoreApplication qtApp(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("ticks"), QStringLiteral("Stop after N ticks."),
                      QStringLiteral("N")});
    parser.process(qtApp);
    const int stopAfter = parser.value(QStringLiteral("ticks")).toInt();

    // What a configuration file's cluster service would say, in code.
    using namespace std::chrono_literals;
    baton::ElectionOptions election;
    election.leaseName = QStringLiteral("ticker");
    election.leaseDuration = 3s; // a crashed leader is replaced within about 3 s
    election.renewInterval = 1s;

    baton::Application app;
    QString error;
    if (!app.addCluster(QStringLiteral("cluster"), election, &error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 2;
    }

    // Made before the cluster service starts: the timer waits for it
    // (W7), then ticks whenever this instance leads.
    baton::LeaderTimer timer;
    int ticks = 0;
    QObject::connect(&timer, &baton::LeaderTimer::timeout, &app, [&] {
        ++ticks;
        std::printf("tick %d on leader %s\n", ticks,
                    qPrintable(baton::useCluster().instanceId()));
        std::fflush(stdout);
        if (ticks == stopAfter)
            app.stop();
    });
    timer.start(200);

    // The options are checked here, as a file's would be.
    if (!app.init(&error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 2;
    }
    QObject::connect(&app, &baton::Application::stopped, &qtApp, &QCoreApplication::quit);
    return qtApp.exec();
}
