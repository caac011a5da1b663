// The smallest complete use of the installed library: join an election
// built in code, on the default file Registry of the data folder
// (BATON_DATA_DIR), and leave as soon as this instance leads.

#include <baton/application.h>
#include <baton/cluster.h>
#include <baton/electionoptions.h>
#include <baton/leaderschedule.h>
#include <baton/leaseobserver.h>
#include <baton/store.h>

#include <QCoreApplication>
#include <QFileInfo>
#include <QTimer>
#include <QUrl>

#include <cstdio>
#include <memory>

int main(int argc, char *argv[])
{
    QCoreApplication qtApp(argc, argv);
    if (argc != 1) {
        std::fprintf(stderr, "usage: BATON_DATA_DIR=FOLDER consumer\n");
        return 2;
    }
    using namespace std::chrono_literals;
    baton::Application app;
    baton::ElectionOptions election;
    election.leaseName = QStringLiteral("consumer");
    election.leaseDuration = 10s;
    election.renewInterval = 2s;
    QString error;
    baton::ClusterService *cluster = app.addCluster(QStringLiteral("cluster"), election, &error);
    if (!cluster || !app.init(&error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 2;
    }
    // Scheduled work, its run records beside the lease: a bad schedule is
    // refused with the field at fault, a good one starts.
    baton::LeaderSchedule nightly(*cluster);
    if (nightly.setSchedule(QStringLiteral("0 25 * * *")) || nightly.error() != baton::LeaderSchedule::Error::BadSchedule
        || !nightly.setSchedule(QStringLiteral("0 3 * * * Europe/Paris")) || !nightly.start()) {
        std::fprintf(stderr, "LeaderSchedule: %s\n", qPrintable(nightly.errorString()));
        return 5;
    }
    // Where the default Registry keeps its documents: what `baton status
    // --store` would be pointed at.
    const QString folder = QFileInfo(app.registry()->parameters().value(QStringLiteral("folder")).toString())
                                   .absoluteFilePath();
    // Who holds the lease, and why it changed, typed.
    auto toldHolder = std::make_shared<QString>();
    QObject::connect(cluster, &baton::ClusterService::holderChanged, &qtApp,
                     [toldHolder](const QString &holder, const QString &previous, baton::HolderChange why) {
                         std::printf("consumer sees the holder change from \"%s\" to \"%s\" (%s)\n",
                                     qPrintable(previous), qPrintable(holder),
                                     qPrintable(baton::holderChangeName(why)));
                         *toldHolder = holder;
                     });
    baton::whenLeader([&app, &qtApp, folder, cluster, toldHolder] {
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
        QObject::connect(observer, &baton::LeaseObserver::ready, &app, [observer, &app, cluster, toldHolder] {
            if (*toldHolder != cluster->instanceId())
                std::exit(6); // holderChanged must have told this instance's acquisition
            const auto lease = observer->lease(QStringLiteral("consumer"));
            std::printf("consumer observes its lease held by %s\n",
                        lease ? qPrintable(lease->record.holder) : "nobody");
            if (!lease || lease->record.holder != cluster->instanceId())
                std::exit(4); // the observer must see what the election wrote
            app.stop();
        });
        observer->start();
    });
    QObject::connect(&app, &baton::Application::stopped, &qtApp, &QCoreApplication::quit);
    QTimer::singleShot(30000, &qtApp, [] { std::exit(3); }); // never leading is a failure
    return qtApp.exec();
}
