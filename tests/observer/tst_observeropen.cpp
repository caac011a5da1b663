// LeaseObserver::open(): the one way `baton status` and the dashboard reach
// a lease source (O2), through the public headers only. Looking never
// writes (a file Registry is opened read-only), and every bad description
// is refused with one message naming what was wrong (R1), never a secret (R2).

#include <baton/leaseobserver.h>
#include <baton/store.h>

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace baton;

Q_DECLARE_METATYPE(LeaseSourceOptions)

namespace {

LeaseSourceOptions storeUrl(const QString &url)
{
    LeaseSourceOptions options;
    options.kind = LeaseSourceOptions::Kind::StoreUrl;
    options.storeUrl = url;
    return options;
}

} // namespace

class TestObserverOpen : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void refusals_data();
    void refusals();
    void aFileUrlIsReadWithoutWriting();
    void aStoreServiceGivesItsStoreToJoinThrough();
    void aMissingFolderIsNamedAndNotCreated();
    void onlyAConfigurationWithoutARegistryIsTheDefaultRegistry();
};

void TestObserverOpen::refusals_data()
{
    QTest::addColumn<LeaseSourceOptions>("options");
    QTest::addColumn<int>("error");
    QTest::addColumn<QString>("message");
    const int badInput = int(LeaseObserver::OpenError::BadInput);

    QTest::newRow("a URL of no known scheme is refused")
            << storeUrl(QStringLiteral("ftp://host")) << badInput
            << QStringLiteral("--store: \"ftp://host\" is not a store URL");
    QTest::newRow("credentials in a URL are refused without echoing them")
            << storeUrl(QStringLiteral("http://user:s3cret@host:2379")) << badInput
            << QStringLiteral("--store: credentials do not go in a URL");
    LeaseSourceOptions tlsOnFile = storeUrl(QStringLiteral("file:///tmp"));
    tlsOnFile.caFile = QStringLiteral("/etc/ca.pem");
    QTest::newRow("etcd's connection flags are refused for a file store")
            << tlsOnFile << badInput << QStringLiteral("are for an etcd store");
    LeaseSourceOptions unknownType;
    unknownType.kind = LeaseSourceOptions::Kind::StoreService;
    unknownType.storeService = {{QStringLiteral("type"), QStringLiteral("Webda/NoSuchStore")}};
    QTest::newRow("a store type nobody knows is refused by name")
            << unknownType << badInput << QStringLiteral("Webda/NoSuchStore is not a store type");
    LeaseSourceOptions missingConfig;
    missingConfig.configPath = QStringLiteral("/nonexistent/baton.json");
    QTest::newRow("a configuration file that is not there is named")
            << missingConfig << badInput << QStringLiteral("/nonexistent/baton.json");
    LeaseSourceOptions missingKubeconfig;
    missingKubeconfig.kind = LeaseSourceOptions::Kind::Kubernetes;
    missingKubeconfig.kubeconfigPath = QStringLiteral("/nonexistent/kubeconfig");
    QTest::newRow("a kubeconfig that is not there is named")
            << missingKubeconfig << badInput << QStringLiteral("/nonexistent/kubeconfig");
}

void TestObserverOpen::refusals()
{
    // O2, R1, R2
    QFETCH(LeaseSourceOptions, options);
    QFETCH(int, error);
    QFETCH(QString, message);
    QString errorString;
    LeaseObserver::OpenError why = LeaseObserver::OpenError::NoError;
    QObject parent;
    QCOMPARE(LeaseObserver::open(options, &parent, &errorString, &why), nullptr);
    QCOMPARE(int(why), error);
    QVERIFY2(errorString.contains(message), qPrintable(errorString));
    QVERIFY2(!errorString.contains(QStringLiteral("s3cret")), qPrintable(errorString));
    QVERIFY(parent.children().isEmpty());
}

void TestObserverOpen::aFileUrlIsReadWithoutWriting()
{
    // O2: an empty Registry folder is read, and says what empty means.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString error;
    QObject parent;
    LeaseObserver *observer = LeaseObserver::open(storeUrl(QUrl::fromLocalFile(dir.path()).toString()),
                                                  &parent, &error);
    QVERIFY2(observer, qPrintable(error));
    QCOMPARE(observer->parent(), &parent);
    QVERIFY(observer->store());
    QCOMPARE(observer->describeEmpty(), QStringLiteral("no cluster:* entries in the Registry"));
    QSignalSpy ready(observer, &LeaseObserver::ready);
    observer->start();
    QVERIFY(ready.wait());
    QVERIFY(observer->leases().isEmpty());
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList());
}

void TestObserverOpen::aStoreServiceGivesItsStoreToJoinThrough()
{
    // O2, O4: the dashboard's form describes a store; it joins through store().
    LeaseSourceOptions options;
    options.kind = LeaseSourceOptions::Kind::StoreService;
    options.storeService = {{QStringLiteral("type"), QStringLiteral("Webda/MemoryStore")}};
    options.readOnly = false;
    QString error;
    QPointer<Store> store;
    {
        QObject parent;
        LeaseObserver *observer = LeaseObserver::open(options, &parent, &error);
        QVERIFY2(observer, qPrintable(error));
        store = observer->store();
        QVERIFY(store);
        QSignalSpy ready(observer, &LeaseObserver::ready);
        observer->start();
        QVERIFY(ready.wait());
    }
    QVERIFY2(!store, "the store open() made goes with its observer");
}

void TestObserverOpen::aMissingFolderIsNamedAndNotCreated()
{
    // O2: status never creates anything; the folder is named.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString missing = QDir(dir.path()).filePath(QStringLiteral("typo"));
    QString error;
    LeaseObserver::OpenError why = LeaseObserver::OpenError::NoError;
    QObject parent;
    QCOMPARE(LeaseObserver::open(storeUrl(QUrl::fromLocalFile(missing).toString()), &parent, &error, &why),
             nullptr);
    QCOMPARE(why, LeaseObserver::OpenError::SourceUnavailable);
    QVERIFY2(error.contains(missing), qPrintable(error));
    QVERIFY(!QFileInfo::exists(missing));
}

void TestObserverOpen::onlyAConfigurationWithoutARegistryIsTheDefaultRegistry()
{
    // R8: `baton status` warns of the default Registry, and of it only.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString data = dir.filePath(QStringLiteral("data"));
    QVERIFY(QDir().mkpath(data + QStringLiteral("/registry")));
    const QString configPath = dir.filePath(QStringLiteral("config.json"));
    QFile config(configPath);
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(R"({"services": {"cluster": {"type": "StoreClusterService"}}})");
    config.close();
    LeaseSourceOptions byConfig;
    byConfig.kind = LeaseSourceOptions::Kind::Configuration;
    byConfig.configPath = configPath;
    qputenv("BATON_DATA_DIR", data.toUtf8());
    QString error;
    QObject parent;
    LeaseObserver *byDefault = LeaseObserver::open(byConfig, &parent, &error);
    qunsetenv("BATON_DATA_DIR");
    QVERIFY2(byDefault, qPrintable(error));
    QVERIFY(byDefault->isDefaultRegistry());
    LeaseObserver *named = LeaseObserver::open(storeUrl(QUrl::fromLocalFile(data + QStringLiteral("/registry")).toString()),
                                               &parent, &error);
    QVERIFY2(named, qPrintable(error));
    QVERIFY(!named->isDefaultRegistry());
    LeaseSourceOptions service;
    service.kind = LeaseSourceOptions::Kind::StoreService;
    service.storeService = {{QStringLiteral("type"), QStringLiteral("Webda/MemoryStore")}};
    LeaseObserver *described = LeaseObserver::open(service, &parent, &error);
    QVERIFY2(described, qPrintable(error));
    QVERIFY(!described->isDefaultRegistry());
}

QTEST_GUILESS_MAIN(TestObserverOpen)
#include "tst_observeropen.moc"
