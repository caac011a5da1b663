// The smallest complete use of the installed library: join an election on a
// file Registry and leave as soon as this instance leads.

#include <baton/application.h>
#include <baton/cluster.h>
#include <baton/leaseobserver.h>

#include <QCoreApplication>
#include <QFileInfo>
#include <QTimer>
#include <QUrl>

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
    const QString folder = QFileInfo(QString::fromLocal8Bit(argv[1])).absoluteFilePath();
    baton::whenLeader([&app, &qtApp, folder] {
        std::printf("consumer leads with token %lld\n",
                    static_cast<long long>(baton::useCluster().fencingToken()));
        // The lease just taken, seen from outside through the public
        // observer (O2), as `baton status --store` sees it.
        baton::LeaseSourceOptions where;
        where.kind = baton::LeaseSourceOptions::Kind::StoreUrl;
        where.storeUrl = QUrl::fromLocalFile(folder).toString();
        QString openError;
        baton::LeaseObserver *observer = baton::LeaseObserver::open(where, &qtApp, &openError);
        if (!observer) {
            std::fprintf(stderr, "%s\n", qPrintable(openError));
            std::exit(2);
        }
        QObject::connect(observer, &baton::LeaseObserver::ready, &app, [observer, &app] {
            const auto lease = observer->lease(QStringLiteral("consumer"));
            std::printf("consumer observes its lease held by %s\n",
                        lease ? qPrintable(lease->record.holder) : "nobody");
            app.stop();
        });
        observer->start();
    });
    QObject::connect(&app, &baton::Application::stopped, &qtApp, &QCoreApplication::quit);
    QTimer::singleShot(30000, &qtApp, [] { std::exit(3); }); // never leading is a failure
    return qtApp.exec();
}
