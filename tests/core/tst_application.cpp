// The application model (C2), the refusal of bad configuration (P1)
// and the defaults a configuration may leave out (P2, W8).

#include <baton/application.h>
#include <baton/cluster.h>
#include <baton/clusterservice.h>
#include <baton/servicefactory.h>
#include <baton/service.h>
#include <baton/store.h>

#include "storecluster.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <limits>

using namespace baton;

namespace {

QStringList g_initOrder;
QStringList g_stopOrder;

/*! A type of the program's own, as a Qt developer would add one. */
class RecordingService : public Service
{
public:
    using Service::Service;
    bool init(QString *errorString) override
    {
        if (parameters().value(QStringLiteral("refuse")).toBool()) {
            *errorString = QStringLiteral("service \"%1\": refused on purpose").arg(name());
            return false;
        }
        g_initOrder.append(name());
        return true;
    }
    void stop() override
    {
        g_stopOrder.append(name());
        finishStop();
    }
};

QByteArray configWith(const QString &servicesJson)
{
    return QStringLiteral("{\"services\": {%1}}").arg(servicesJson).toUtf8();
}

} // namespace

class TestApplication : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void servicesStartInConfigurationOrder();
    void typesAreKnownByFullAndShortName();
    void badConfigurationIsRefused_data();
    void badConfigurationIsRefused();
    void malformedJsonNamesLineAndColumn();
    void refusedServiceStopsThoseAlreadyStarted();
    void missingFileIsNamed();
    void defaultInstanceIdIsUniquePerProcess();
    void stopGoesInReverseOrderAndSignalsOnce();
    void adjacentClustersStopTogether();
    void theElectionsOfOneProcessRewriteTheirCandidateRecordsApart();
    void timingsExplainTheParameters();
};

void TestApplication::initTestCase()
{
    ServiceFactory::registerType<RecordingService>(QStringLiteral("Test/Recording"));
}

void TestApplication::init()
{
    g_initOrder.clear();
    g_stopOrder.clear();
}

void TestApplication::servicesStartInConfigurationOrder()
{
    // C2: in the order of the file, not in the sorted order of QJsonObject.
    Application app;
    QString error;
    QVERIFY2(app.loadConfig(configWith(QStringLiteral(R"("zeta": {"type": "Test/Recording"},
            "alpha": {"type": "Recording", "nested": {"a": [1, {"b": "}"}]}},
            "mid": {"type": "Test/Recording"})")),
                            QStringLiteral("order.json"), &error),
             qPrintable(error));
    QVERIFY2(app.init(&error), qPrintable(error));
    QCOMPARE(g_initOrder, (QStringList {QStringLiteral("zeta"), QStringLiteral("alpha"),
                                        QStringLiteral("mid")}));
    QCOMPARE(app.services().size(), 3);
    QCOMPARE(app.service(QStringLiteral("alpha"))->type(), QStringLiteral("Test/Recording"));
}

void TestApplication::typesAreKnownByFullAndShortName()
{
    // C2: `Webda/StoreClusterService` and `StoreClusterService` are one type.
    QCOMPARE(ServiceFactory::resolve(QStringLiteral("StoreClusterService")),
             QStringLiteral("Webda/StoreClusterService"));
    QCOMPARE(ServiceFactory::resolve(QStringLiteral("Webda/FileStore")),
             QStringLiteral("Webda/FileStore"));
    QCOMPARE(ServiceFactory::resolve(QStringLiteral("MemoryStore")),
             QStringLiteral("Webda/MemoryStore"));
    QCOMPARE(ServiceFactory::resolve(QStringLiteral("Other/MemoryStore")), QString());
    QCOMPARE(ServiceFactory::resolve(QStringLiteral("NoSuchStore")), QString());
}

void TestApplication::badConfigurationIsRefused_data()
{
    QTest::addColumn<QString>("services");
    // Every part of the message the user needs to find and fix the mistake.
    QTest::addColumn<QStringList>("mustMention");

    const QString store = QStringLiteral(R"("Registry": {"type": "MemoryStore"}, )");
    QTest::newRow("an unknown service type")
            << QStringLiteral(R"("cron": {"type": "Webda/NoSuchService"})")
            << QStringList {QStringLiteral("cron"), QStringLiteral("Webda/NoSuchService"),
                            QStringLiteral("unknown type")};
    QTest::newRow("a service without a type")
            << QStringLiteral(R"("cron": {"leaseName": "x"})")
            << QStringList {QStringLiteral("cron"), QStringLiteral("\"type\"")};
    QTest::newRow("a service that is not an object")
            << QStringLiteral(R"("cron": 5)") << QStringList {QStringLiteral("cron"), QStringLiteral("5")};
    QTest::newRow("renewInterval equal to leaseDuration")
            << store + QStringLiteral(R"("cluster": {"type": "StoreClusterService", "leaseDuration": 5000, "renewInterval": 5000})")
            << QStringList {QStringLiteral("cluster"), QStringLiteral("renewInterval"),
                            QStringLiteral("5000"), QStringLiteral("lower than")};
    QTest::newRow("renewInterval above the default leaseDuration")
            << store + QStringLiteral(R"("cluster": {"type": "StoreClusterService", "renewInterval": 20000})")
            << QStringList {QStringLiteral("cluster"), QStringLiteral("renewInterval"),
                            QStringLiteral("20000"), QStringLiteral("15000")};
    QTest::newRow("a negative leaseDuration")
            << store + QStringLiteral(R"("cluster": {"type": "StoreClusterService", "leaseDuration": -15000})")
            << QStringList {QStringLiteral("cluster"), QStringLiteral("leaseDuration"),
                            QStringLiteral("-15000"), QStringLiteral("from 1ms")};
    QTest::newRow("a zero renewInterval")
            << store + QStringLiteral(R"("cluster": {"type": "StoreClusterService", "renewInterval": 0})")
            << QStringList {QStringLiteral("cluster"), QStringLiteral("renewInterval"),
                            QStringLiteral("0"), QStringLiteral("from 1ms")};
    QTest::newRow("a duration written in words")
            << store + QStringLiteral(R"("cluster": {"type": "StoreClusterService", "leaseDuration": "fifteen"})")
            << QStringList {QStringLiteral("cluster"), QStringLiteral("leaseDuration"),
                            QStringLiteral("\"fifteen\"")};
    QTest::newRow("a fractional duration")
            << store + QStringLiteral(R"("cluster": {"type": "StoreClusterService", "leaseDuration": 1500.5})")
            << QStringList {QStringLiteral("leaseDuration"), QStringLiteral("1500.5")};
    QTest::newRow("an empty leaseName")
            << store + QStringLiteral(R"("cluster": {"type": "StoreClusterService", "leaseName": ""})")
            << QStringList {QStringLiteral("cluster"), QStringLiteral("leaseName"),
                            QStringLiteral("non-empty")};
    QTest::newRow("a refused cluster after one that started")
            << store + QStringLiteral(R"("first": {"type": "StoreClusterService", "leaseName": "one"},
                "second": {"type": "StoreClusterService", "leaseName": "two", "leaseDuration": -1})")
            << QStringList {QStringLiteral("second"), QStringLiteral("leaseDuration"), QStringLiteral("-1")};
    QTest::newRow("a store parameter naming no store")
            << store + QStringLiteral(R"("cluster": {"type": "StoreClusterService", "store": "Nope"})")
            << QStringList {QStringLiteral("cluster"), QStringLiteral("store"), QStringLiteral("Nope")};
}

void TestApplication::badConfigurationIsRefused()
{
    // P1: one clear error naming the service, the parameter, the value and
    // the rule; nothing starts.
    QFETCH(QString, services);
    QFETCH(QStringList, mustMention);
    Application app;
    QString error;
    const bool loaded = app.loadConfig(configWith(services), QStringLiteral("bad.json"), &error);
    std::vector<std::unique_ptr<QSignalSpy>> electionEvents;
    for (Service *service : app.services())
        if (auto *cluster = qobject_cast<ClusterService *>(service))
            electionEvents.push_back(std::make_unique<QSignalSpy>(cluster, &ClusterService::electionEvent));
    bool started = false;
    if (loaded) {
        // The error is returned, never logged as well (it would show twice):
        // any warning fails the row.
        QTest::failOnWarning(QRegularExpression(QStringLiteral(".")));
        started = app.init(&error);
    }
    QVERIFY(!started);
    QVERIFY2(error.startsWith(QStringLiteral("bad.json")), qPrintable(error));
    for (const QString &part : mustMention)
        QVERIFY2(error.contains(part), qPrintable(QStringLiteral("\"%1\" not in: %2").arg(part, error)));

    // Nothing elects. The window: a cluster started now on a MemoryStore
    // makes its first attempt (F1: the first attempt runs at start); a
    // cluster of the refused application that had started would have made
    // its own by then, on the same kind of store.
    auto store = test::makeStore();
    test::StoreCluster control(store.get(), QStringLiteral("control"));
    QSignalSpy controlEvents(&control, &ClusterService::electionEvent);
    QVERIFY(control.init(&error));
    QTRY_VERIFY(std::any_of(controlEvents.cbegin(), controlEvents.cend(), [](const QList<QVariant> &args) {
        return args.at(0).toJsonObject().value(QStringLiteral("event")).toString() == QLatin1String("attempt");
    }));
    for (const auto &spy : electionEvents) {
        if (!spy->isEmpty())
            QFAIL(qPrintable(QStringLiteral("a cluster of the refused application reported %1")
                                     .arg(QString::fromUtf8(QJsonDocument(spy->first().at(0).toJsonObject())
                                                                    .toJson(QJsonDocument::Compact)))));
    }
    QVERIFY(!app.firstCluster() || !app.firstCluster()->isLeader());
    QSignalSpy controlStopped(&control, &Service::stopped);
    control.stop();
    QTRY_COMPARE(controlStopped.count(), 1);
}

void TestApplication::malformedJsonNamesLineAndColumn()
{
    // P1: malformed JSON, with the line and column of the mistake.
    Application app;
    QString error;
    const QByteArray text = "{\n  \"services\": {\n    \"cluster\": {\"type\": \"StoreClusterService\",}\n  }\n}\n";
    QVERIFY(!app.loadConfig(text, QStringLiteral("broken.json"), &error));
    QVERIFY2(error.startsWith(QStringLiteral("broken.json:3:")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("malformed JSON")), qPrintable(error));
    QVERIFY(app.services().isEmpty());
}

void TestApplication::refusedServiceStopsThoseAlreadyStarted()
{
    Application app;
    QString error;
    QVERIFY(app.loadConfig(configWith(QStringLiteral(R"("first": {"type": "Test/Recording"},
            "second": {"type": "Test/Recording", "refuse": true},
            "third": {"type": "Test/Recording"})")),
                           QStringLiteral("refuse.json"), &error));
    QVERIFY(!app.init(&error));
    QVERIFY2(error.contains(QStringLiteral("refuse.json:2:")), qPrintable(error));
    QCOMPARE(g_initOrder, QStringList {QStringLiteral("first")});
    QCOMPARE(g_stopOrder, QStringList {QStringLiteral("first")});
}

void TestApplication::missingFileIsNamed()
{
    Application app;
    QString error;
    QVERIFY(!app.loadConfigFile(QStringLiteral("/nonexistent/baton.json"), &error));
    QVERIFY2(error.contains(QStringLiteral("/nonexistent/baton.json")), qPrintable(error));
}

void TestApplication::defaultInstanceIdIsUniquePerProcess()
{
    // P2: <host>-<pid>-<random>; the random part tells apart two processes
    // with the same host name and pid (containers).
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    QStringList ids;
    for (int i = 0; i < 2; ++i) {
        Application app;
        QString error;
        QVERIFY2(app.loadConfig(configWith(QStringLiteral(R"("Registry": {"type": "Webda/FileStore", "folder": "%1"},
                "cluster": {"type": "Webda/StoreClusterService"})")
                                                   .arg(folder.path())),
                                QStringLiteral("ids.json"), &error),
                 qPrintable(error));
        QVERIFY2(app.init(&error), qPrintable(error));
        ids.append(app.firstCluster()->instanceId());
        QCOMPARE(app.firstCluster()->getInstanceId(), ids.last()); // C1
        QCOMPARE(app.firstCluster()->leaseName(), QStringLiteral("leader"));
        QSignalSpy stopped(&app, &Application::stopped);
        app.stop();
        QVERIFY(stopped.wait());
    }
    const QRegularExpression shape(QStringLiteral("^.+-%1-[0-9a-f]{8}$").arg(QCoreApplication::applicationPid()));
    QVERIFY2(shape.match(ids.at(0)).hasMatch(), qPrintable(ids.at(0)));
    QVERIFY2(shape.match(ids.at(1)).hasMatch(), qPrintable(ids.at(1)));
    QVERIFY(ids.at(0) != ids.at(1));
}

void TestApplication::stopGoesInReverseOrderAndSignalsOnce()
{
    Application app;
    QString error;
    QVERIFY(app.loadConfig(configWith(QStringLiteral(R"("a": {"type": "Test/Recording"},
            "b": {"type": "Test/Recording"})")),
                           QStringLiteral("stop.json"), &error));
    QVERIFY(app.init(&error));
    QSignalSpy stopped(&app, &Application::stopped);
    app.stop();
    QCOMPARE(stopped.count(), 0); // never from inside stop()
    QVERIFY(stopped.wait());
    app.stop();
    QCOMPARE(g_stopOrder, (QStringList {QStringLiteral("b"), QStringLiteral("a")}));
    QTRY_COMPARE(stopped.count(), 1);
}

void TestApplication::theElectionsOfOneProcessRewriteTheirCandidateRecordsApart()
{
    // Elections started together rewrote their candidate records together
    // every leaseDuration, a burst of writes and listings that delayed the
    // renewals due then; their second heartbeats now come at random
    // instants of the first interval. Before, the twenty second writes came
    // within a few milliseconds of each other; now they spread over about
    // the whole interval (3 s), and only a stall of the event loop of
    // seconds could bring them within 300 ms.
    constexpr int elections = 20;
    constexpr qint64 leaseMs = 3000;
    QString services = QStringLiteral(R"("Registry": {"type": "Webda/MemoryStore"})");
    for (int i = 0; i < elections; ++i)
        services += QStringLiteral(R"(, "c%1": {"type": "Webda/StoreClusterService", "leaseName": "l%1",
                "leaseDuration": %2, "renewInterval": 1000})")
                            .arg(i)
                            .arg(leaseMs);
    Application app;
    QString error;
    QVERIFY2(app.loadConfig(configWith(services), QStringLiteral("beats.json"), &error), qPrintable(error));
    QVERIFY(app.registry());
    StoreWatch *watch = app.registry()->watch(QStringLiteral("candidate:"), this);
    QVERIFY(watch);
    QElapsedTimer clock;
    clock.start();
    QHash<QString, QList<qint64>> writes;
    connect(watch, &StoreWatch::entryChanged, this,
            [&](const StoreEntry &entry) { writes[entry.key].append(clock.elapsed()); });
    QVERIFY2(app.init(&error), qPrintable(error));
    auto everyOneTwice = [&] {
        return writes.size() == elections
                && std::all_of(writes.cbegin(), writes.cend(), [](const QList<qint64> &w) { return w.size() >= 2; });
    };
    QTRY_VERIFY_WITH_TIMEOUT(everyOneTwice(), 30000);
    qint64 earliest = std::numeric_limits<qint64>::max();
    qint64 latest = 0;
    for (const QList<qint64> &w : std::as_const(writes)) {
        earliest = std::min(earliest, w.at(1));
        latest = std::max(latest, w.at(1));
    }
    QVERIFY2(latest - earliest >= 300,
             qPrintable(QStringLiteral("second heartbeats from %1 to %2 ms").arg(earliest).arg(latest)));
    QSignalSpy stopped(&app, &Application::stopped);
    app.stop();
    QVERIFY(stopped.wait());
}

void TestApplication::adjacentClustersStopTogether()
{
    // A thousand elections of one process must not release their leases
    // one after another: adjacent clusters all step down before any of
    // them has finished stopping. The services around them keep the
    // reverse order: the one configured after them stops first, the store
    // and the one before them after the last cluster.
    Application app;
    QString error;
    QVERIFY2(app.loadConfig(configWith(QStringLiteral(R"("before": {"type": "Test/Recording"},
            "Registry": {"type": "Webda/MemoryStore"},
            "c1": {"type": "Webda/StoreClusterService", "leaseName": "one"},
            "c2": {"type": "Webda/StoreClusterService", "leaseName": "two"},
            "c3": {"type": "Webda/StoreClusterService", "leaseName": "three"},
            "after": {"type": "Test/Recording"})")),
                            QStringLiteral("together.json"), &error),
             qPrintable(error));
    QVERIFY2(app.init(&error), qPrintable(error));
    const QStringList clusters {QStringLiteral("c1"), QStringLiteral("c2"), QStringLiteral("c3")};
    for (const QString &name : clusters) {
        auto *cluster = qobject_cast<ClusterService *>(app.service(name));
        QVERIFY(cluster);
        QTRY_VERIFY(cluster->isLeader());
    }
    QStringList seen;
    for (Service *service : app.services()) {
        const QString name = service->name();
        connect(service, &Service::stopped, this, [&seen, name] { seen << QStringLiteral("stopped ") + name; });
        if (auto *cluster = qobject_cast<ClusterService *>(service))
            connect(cluster, &ClusterService::leadershipChanged, this, [&seen, name](bool leading) {
                if (!leading)
                    seen << QStringLiteral("stepped down ") + name;
            });
    }
    QSignalSpy stopped(&app, &Application::stopped);
    app.stop();
    QVERIFY(stopped.wait());
    auto at = [&seen](const QString &line) { return int(seen.indexOf(line)); };
    int firstClusterStopped = int(seen.size());
    int lastClusterStopped = -1;
    for (const QString &name : clusters) {
        QVERIFY2(at(QStringLiteral("stepped down ") + name) >= 0, qPrintable(seen.join(QLatin1String(", "))));
        QVERIFY2(at(QStringLiteral("stopped ") + name) >= 0, qPrintable(seen.join(QLatin1String(", "))));
        firstClusterStopped = std::min(firstClusterStopped, at(QStringLiteral("stopped ") + name));
        lastClusterStopped = std::max(lastClusterStopped, at(QStringLiteral("stopped ") + name));
    }
    for (const QString &name : clusters)
        QVERIFY2(at(QStringLiteral("stepped down ") + name) < firstClusterStopped,
                 qPrintable(seen.join(QLatin1String(", "))));
    QVERIFY2(at(QStringLiteral("stopped after")) < at(QStringLiteral("stepped down c3")),
             qPrintable(seen.join(QLatin1String(", "))));
    QVERIFY2(at(QStringLiteral("stopped Registry")) > lastClusterStopped, qPrintable(seen.join(QLatin1String(", "))));
    QVERIFY2(at(QStringLiteral("stopped before")) > at(QStringLiteral("stopped Registry")),
             qPrintable(seen.join(QLatin1String(", "))));
}

void TestApplication::timingsExplainTheParameters()
{
    // O6: what 15 s / 5 s guarantee.
    const ElectionTimings t = ElectionTimings::forParameters(15000, 5000);
    QCOMPARE(t.worstCrashFailover, 20000);
    QCOMPARE(t.stepDownDeadline, 10000);
    QCOMPARE(t.safetyMargin, 5000);
    QVERIFY(qFuzzyCompare(t.toleratedClockDrift, 1.0 / 3.0));
    QVERIFY(t.explain().contains(QStringLiteral("10000 ms")));
}

QTEST_GUILESS_MAIN(TestApplication)
#include "tst_application.moc"
