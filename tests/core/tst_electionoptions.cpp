// An election built in code (ElectionOptions, Application::addCluster):
// read, refused (P1) and defaulted as the same service of a configuration
// file, and elected like it (C1, W8).

#include <baton/application.h>
#include <baton/cluster.h>
#include <baton/clusterservice.h>
#include <baton/electionoptions.h>
#include <batoninternal/leasehistory.h>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

using namespace baton;
using namespace std::chrono_literals;

Q_DECLARE_METATYPE(baton::ElectionOptions)

namespace {

const QByteArray registryOnly = R"({"services": {"Registry": {"type": "Webda/MemoryStore"}}})";

/*! The options with the backend and one value set, for the rows. */
ElectionOptions options(const std::function<void(ElectionOptions &)> &set)
{
    ElectionOptions o;
    set(o);
    return o;
}

/*! The refusal of \a app's init(), which returns it and logs nothing. */
QString initError(Application &app)
{
    QString error;
    if (app.init(&error))
        return QStringLiteral("(it started)");
    return error;
}

} // namespace

class TestElectionOptions : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void anElectionInCodeIsRefusedInTheWordsOfItsConfigurationFile_data();
    void anElectionInCodeIsRefusedInTheWordsOfItsConfigurationFile();
    void anElectionInCodeTakesTheDefaultsOfTheFile();
    void anElectionInCodeLeadsBesideAConfigurationFile();
    void aLocalElectionInCodeAlwaysLeadsWithNoBound();
    void aKubernetesElectionInCodeIsTheEntryAFileWouldHold();
    void aLocalElectionRefusesPreferenceAndDrain();
    void anElectionIsAddedNeitherTwiceNorAfterTheStart();
    void aFileLoadedAfterAnElectionInCodeIsRefusedSayingWhichComesFirst();
};

void TestElectionOptions::anElectionInCodeIsRefusedInTheWordsOfItsConfigurationFile_data()
{
    QTest::addColumn<ElectionOptions>("code");
    QTest::addColumn<QString>("file"); // the same election's entry in a file

    const QString store = QStringLiteral(R"("type": "Webda/StoreClusterService")");
    const QString kube = QStringLiteral(R"("type": "Webda/KubernetesClusterService")");
    QTest::newRow("renewInterval equal to leaseDuration") << options([](ElectionOptions &o) {
        o.leaseDuration = 5s;
        o.renewInterval = 5s;
    }) << store + QStringLiteral(R"(, "leaseDuration": 5000, "renewInterval": 5000)");
    QTest::newRow("renewInterval above the default leaseDuration")
        << options([](ElectionOptions &o) { o.renewInterval = 20s; })
        << store + QStringLiteral(R"(, "renewInterval": 20000)");
    QTest::newRow("a negative leaseDuration")
        << options([](ElectionOptions &o) { o.leaseDuration = -15s; })
        << store + QStringLiteral(R"(, "leaseDuration": -15000)");
    QTest::newRow("a zero renewInterval")
        << options([](ElectionOptions &o) { o.renewInterval = 0ms; })
        << store + QStringLiteral(R"(, "renewInterval": 0)");
    QTest::newRow("an empty leaseName") << options([](ElectionOptions &o) { o.leaseName.clear(); })
                                        << store + QStringLiteral(R"(, "leaseName": "")");
    QTest::newRow("a history too long")
        << options([](ElectionOptions &o) { o.historyLength = 1001; })
        << store + QStringLiteral(R"(, "historyLength": 1001)");
    QTest::newRow("H2: a priority above 1000")
        << options([](ElectionOptions &o) { o.priority = 1001; })
        << store + QStringLiteral(R"(, "priority": 1001)");
    QTest::newRow("H2: a negative preferAfter")
        << options([](ElectionOptions &o) { o.preferAfter = -1s; })
        << store + QStringLiteral(R"(, "preferAfter": -1000)");
    QTest::newRow("a store naming no store")
        << options([](ElectionOptions &o) { o.store = QStringLiteral("Nope"); })
        << store + QStringLiteral(R"(, "store": "Nope")");
    QTest::newRow("a Kubernetes lease name that is no DNS subdomain")
        << options([](ElectionOptions &o) {
               o.backend = ElectionOptions::Backend::Kubernetes;
               o.leaseName = QStringLiteral("Cron_Jobs");
           })
        << kube + QStringLiteral(R"(, "leaseName": "Cron_Jobs")");
    QTest::newRow("a zero Kubernetes timeout") << options([](ElectionOptions &o) {
        o.backend = ElectionOptions::Backend::Kubernetes;
        o.kubernetes.timeout = 0ms;
    }) << kube + QStringLiteral(R"(, "timeout": 0)");
}

void TestElectionOptions::anElectionInCodeIsRefusedInTheWordsOfItsConfigurationFile()
{
    // P1: one reader for both, so one message; the file's adds where.
    QFETCH(ElectionOptions, code);
    QFETCH(QString, file);

    Application fromFile;
    QString error;
    const QByteArray config
        = QStringLiteral(
              R"({"services": {"Registry": {"type": "Webda/MemoryStore"}, "cluster": {%1}}})")
              .arg(file)
              .toUtf8();
    QVERIFY2(fromFile.loadConfig(config, QStringLiteral("bad.json"), &error), qPrintable(error));
    const QString fileError = initError(fromFile);
    const QRegularExpression where(QStringLiteral("^bad\\.json:\\d+:\\d+: "));
    QVERIFY2(where.match(fileError).hasMatch(), qPrintable(fileError));

    Application inCode;
    QVERIFY2(inCode.loadConfig(registryOnly, QStringLiteral("registry.json"), &error),
             qPrintable(error));
    QVERIFY2(inCode.addCluster(QStringLiteral("cluster"), code, &error), qPrintable(error));
    const QString codeError = initError(inCode);
    QCOMPARE(codeError, QString(fileError).remove(where));
    QVERIFY(!inCode.firstCluster()->isLeader());
}

void TestElectionOptions::anElectionInCodeTakesTheDefaultsOfTheFile()
{
    // P1, P2: what a file leaves out, code leaves at the same value.
    Application fromFile;
    Application inCode;
    QString error;
    QVERIFY(fromFile.loadConfig(R"({"services": {"cluster": {"type": "StoreClusterService"}}})",
                                QStringLiteral("defaults.json"), &error));
    QVERIFY2(inCode.addCluster(QStringLiteral("cluster"), ElectionOptions(), &error),
             qPrintable(error));
    ClusterService *file = fromFile.firstCluster();
    ClusterService *code = inCode.firstCluster();
    QVERIFY(file->validate(&error));
    QVERIFY(code->validate(&error));
    QCOMPARE(code->type(), file->type());
    QCOMPARE(code->leaseName(), file->leaseName());
    QCOMPARE(code->timings().leaseDuration, file->timings().leaseDuration);
    QCOMPARE(code->timings().renewInterval, file->timings().renewInterval);
    QCOMPARE(ElectionOptions().historyLength, leasehistory::defaultLength);
    QVERIFY2(code->instanceId().contains(QString::number(QCoreApplication::applicationPid())),
             qPrintable(code->instanceId()));
}

void TestElectionOptions::anElectionInCodeLeadsBesideAConfigurationFile()
{
    // C1: the election added in code is the application's cluster, with
    // the identity and lease it was given, and it leads.
    Application app;
    QString error;
    QVERIFY(app.loadConfig(registryOnly, QStringLiteral("registry.json"), &error));
    ElectionOptions election;
    election.leaseName = QStringLiteral("coded");
    election.instanceId = QStringLiteral("writer-1");
    ClusterService *cluster = app.addCluster(QStringLiteral("cluster"), election, &error);
    QVERIFY2(cluster, qPrintable(error));
    bool led = false;
    whenLeader([&led] { led = true; });
    QVERIFY2(app.init(&error), qPrintable(error));
    QCOMPARE(&useCluster(), cluster);
    QCOMPARE(cluster->type(), QStringLiteral("Webda/StoreClusterService"));
    QCOMPARE(cluster->leaseName(), QStringLiteral("coded"));
    QCOMPARE(cluster->getInstanceId(), QStringLiteral("writer-1"));
    QTRY_VERIFY(led);
    QCOMPARE(cluster->currentHolder(), QStringLiteral("writer-1"));
    QSignalSpy stopped(&app, &Application::stopped);
    app.stop();
    QVERIFY(stopped.wait());
}

void TestElectionOptions::aLocalElectionInCodeAlwaysLeadsWithNoBound()
{
    // W8: the single instance, asked for in so many words.
    Application app;
    QString error;
    ElectionOptions election;
    election.backend = ElectionOptions::Backend::Local;
    ClusterService *cluster = app.addCluster(QStringLiteral("alone"), election, &error);
    QVERIFY2(cluster, qPrintable(error));
    QCOMPARE(cluster->type(), QStringLiteral("Webda/LocalClusterService"));
    QVERIFY2(app.init(&error), qPrintable(error));
    QTRY_VERIFY(cluster->isLeader());
    QCOMPARE(cluster->remainingLeadershipMs(), -1);
    QSignalSpy stopped(&app, &Application::stopped);
    app.stop();
    QVERIFY(stopped.wait());
}

void TestElectionOptions::aKubernetesElectionInCodeIsTheEntryAFileWouldHold()
{
    // B4: the client parameters reach the service as a file names them;
    // so do preference and drain (H2, H3).
    Application app;
    QString error;
    ElectionOptions election;
    election.backend = ElectionOptions::Backend::Kubernetes;
    election.leaseName = QStringLiteral("cron");
    election.historyLength = 5;
    election.kubernetes.config = QStringLiteral("/etc/app/kubeconfig");
    election.kubernetes.context = QStringLiteral("prod");
    election.kubernetes.namespaceName = QStringLiteral("jobs");
    election.kubernetes.timeout = 2500ms;
    election.priority = -7;
    election.preferAfter = 5s;
    election.standby = true;
    ClusterService *cluster = app.addCluster(QStringLiteral("cluster"), election, &error);
    QVERIFY2(cluster, qPrintable(error));
    const QJsonObject expected = QJsonDocument::fromJson(R"({
        "type": "Webda/KubernetesClusterService", "leaseName": "cron",
        "leaseDuration": 15000, "renewInterval": 5000, "historyLength": 5,
        "config": "/etc/app/kubeconfig", "context": "prod", "namespace": "jobs",
        "timeout": 2500, "priority": -7, "preferAfter": 5000, "standby": true})")
                                     .object();
    QCOMPARE(cluster->parameters(), expected);
}

void TestElectionOptions::aLocalElectionRefusesPreferenceAndDrain()
{
    // H2, H3: a local election has no other candidate to prefer or to drain to.
    Application app;
    QString error;
    ElectionOptions election;
    election.backend = ElectionOptions::Backend::Local;
    election.priority = 5;
    QVERIFY(!app.addCluster(QStringLiteral("cluster"), election, &error));
    QVERIFY2(error.contains(QStringLiteral("\"priority\"")), qPrintable(error));
    election.priority = 0;
    election.standby = true;
    QVERIFY(!app.addCluster(QStringLiteral("cluster"), election, &error));
    QVERIFY2(error.contains(QStringLiteral("\"standby\"")), qPrintable(error));
}

void TestElectionOptions::anElectionIsAddedNeitherTwiceNorAfterTheStart()
{
    // C2: one service per name; services are all there before init().
    Application app;
    QString error;
    QVERIFY(app.loadConfig(registryOnly, QStringLiteral("registry.json"), &error));
    QVERIFY(app.addCluster(QStringLiteral("cluster"), ElectionOptions(), &error));
    QVERIFY(!app.addCluster(QStringLiteral("cluster"), ElectionOptions(), &error));
    QVERIFY2(error.contains(QStringLiteral("\"cluster\" is defined twice")), qPrintable(error));
    QCOMPARE(app.services().size(), 2);
    QVERIFY2(app.init(&error), qPrintable(error));
    QVERIFY(!app.addCluster(QStringLiteral("late"), ElectionOptions(), &error));
    QVERIFY2(error.contains(QStringLiteral("before init()")), qPrintable(error));
    QCOMPARE(app.services().size(), 2);
    QSignalSpy stopped(&app, &Application::stopped);
    app.stop();
    QVERIFY(stopped.wait());
}

void TestElectionOptions::aFileLoadedAfterAnElectionInCodeIsRefusedSayingWhichComesFirst()
{
    // C2: the file's services start in its order, before those added in
    // code; a file loaded after them is refused with the order to follow,
    // and a second file or a file after the start with what went wrong.
    Application app;
    QString error;
    QVERIFY(app.addCluster(QStringLiteral("cluster"), ElectionOptions(), &error));
    QVERIFY(!app.loadConfig(registryOnly, QStringLiteral("registry.json"), &error));
    QCOMPARE(error, QStringLiteral("registry.json: services were already added in code "
                                   "(Application::addCluster): load the configuration first, "
                                   "then add them"));
    QCOMPARE(app.services().size(), 1);

    Application loaded;
    QVERIFY(loaded.loadConfig(registryOnly, QStringLiteral("registry.json"), &error));
    QVERIFY(!loaded.loadConfig(registryOnly, QStringLiteral("other.json"), &error));
    QCOMPARE(error, QStringLiteral("other.json: a configuration is already loaded, from "
                                   "registry.json: an application reads one"));
    QVERIFY2(loaded.init(&error), qPrintable(error));
    QVERIFY(!loaded.loadConfig(registryOnly, QStringLiteral("late.json"), &error));
    QCOMPARE(error, QStringLiteral("late.json: the application has already started: load its "
                                   "configuration before init()"));
    QSignalSpy stopped(&loaded, &Application::stopped);
    loaded.stop();
    QVERIFY(stopped.wait());
}

QTEST_GUILESS_MAIN(TestElectionOptions)
#include "tst_electionoptions.moc"
