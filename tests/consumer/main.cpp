// The smallest complete use of the installed library: join an election on a
// file Registry and leave as soon as this instance leads.

#include <baton/application.h>
#include <baton/cluster.h>

#include <QCoreApplication>
#include <QTimer>

#include <cstdio>

int main(int argc, char *argv[])
{
    QCoreApplication qtApp(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: consumer REGISTRY_FOLDER\n");
        return 2;
    }
    baton::Application app;
    QString error;
    const QByteArray config = QStringLiteral(R"({"services": {
        "Registry": {"type": "Webda/FileStore", "folder": "%1"},
        "cluster": {"type": "Webda/StoreClusterService", "leaseName": "consumer"}}})")
                                      .arg(QString::fromLocal8Bit(argv[1]))
                                      .toUtf8();
    if (!app.loadConfig(config, QStringLiteral("consumer"), &error) || !app.init(&error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 2;
    }
    baton::whenLeader([&app] {
        std::printf("consumer leads with token %lld\n",
                    static_cast<long long>(baton::useCluster().fencingToken()));
        app.stop();
    });
    QObject::connect(&app, &baton::Application::stopped, &qtApp, &QCoreApplication::quit);
    QTimer::singleShot(30000, &qtApp, [] { std::exit(3); }); // never leading is a failure
    return qtApp.exec();
}
