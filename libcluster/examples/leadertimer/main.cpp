// The shortest way to run periodic work on the leader only: a LeaderTimer in
// place of a QTimer. Run three copies with the same configuration and only
// the leader prints; kill it and another one starts printing. SIGTERM or
// Ctrl-C stops it cleanly: the lease is released and another one starts
// printing at once.
//
//   leadertimer-example --config leadertimer.json

#include <baton/application.h>
#include <baton/cluster.h>
#include <baton/leadertimer.h>

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>

int main(int argc, char *argv[])
{
    QCoreApplication qtApp(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("config"), QStringLiteral("Configuration file."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("ticks"), QStringLiteral("Stop after N ticks."),
                      QStringLiteral("N")});
    parser.process(qtApp);
    const int stopAfter = parser.value(QStringLiteral("ticks")).toInt();

    baton::Application app;
    QString error;
    if (!app.loadConfigFile(parser.value(QStringLiteral("config")), &error)) {
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

    if (!app.init(&error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 2;
    }
    QObject::connect(&app, &baton::Application::stopped, &qtApp, &QCoreApplication::quit);
    return qtApp.exec();
}
