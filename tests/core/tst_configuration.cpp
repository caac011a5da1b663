// The reading of a configuration (P1): every misconfiguration is refused
// before anything starts with one line that names the file, the service,
// the parameter, the value and the rule, and suggests the name a typo
// meant; durations take units; secrets come from files.

#include "parameters.h"
#include <batoninternal/durationtext.h>
#include "secretfile.h"

#include <baton/application.h>
#include <baton/clusterservice.h>
#include <baton/servicefactory.h>
#include <baton/service.h>

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace baton;

namespace {

/*! An application type that declares its parameters, as a program's own would. */
class DeclaredService : public Service
{
public:
    using Service::Service;
    bool init(QString *) override { return true; }
};

/*! An application type that declares nothing, and so is not checked. */
class UndeclaredService : public Service
{
public:
    using Service::Service;
    bool init(QString *) override { return true; }
};

QByteArray configWith(const QString &services)
{
    return QStringLiteral(R"({"services": {%1}})").arg(services).toUtf8();
}

/*! Loads and starts \a json; the refusal, or an empty string when it started. */
QString refusalOf(const QByteArray &json, Application *app)
{
    QString error;
    if (!app->loadConfig(json, QStringLiteral("bad.json"), &error))
        return error;
    if (!app->init(&error))
        return error;
    return {};
}

} // namespace

class TestConfiguration : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void eachMistakeIsRefusedWithOneExactLine_data();
    void eachMistakeIsRefusedWithOneExactLine();
    void everyMistakeIsALineOfItsOwnAtItsParameter_data();
    void everyMistakeIsALineOfItsOwnAtItsParameter();
    void durationsTakeMillisecondsOrAUnit_data();
    void durationsTakeMillisecondsOrAUnit();
    void durationsAreWrittenAsTheyAreRead_data();
    void durationsAreWrittenAsTheyAreRead();
    void typesThatDeclareNothingAreNotChecked();
    void passwordFileIsReadAndNeverShown();
    void passwordFileResolvesAgainstTheCredentialsFolder();
    void secretFileReadableByOthersWarns();
    void secretFileIsReadAgainWhenItChanges();

private:
    QTemporaryDir m_folder;
};

void TestConfiguration::initTestCase()
{
    QVERIFY(m_folder.isValid());
    ServiceFactory::registerType<DeclaredService>(QStringLiteral("Test/Declared"),
                                                  {QStringLiteral("interval"),
                                                   QStringLiteral("target.url")});
    ServiceFactory::registerType<UndeclaredService>(QStringLiteral("Test/Undeclared"));
}

void TestConfiguration::eachMistakeIsRefusedWithOneExactLine_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");

    const QString cluster = QStringLiteral(R"("cluster": {"type": "StoreClusterService", %1})");
    const QString etcd = QStringLiteral(
            R"("Registry": {"type": "EtcdStore", "endpoints": ["http*SLASHES*127.0.0.1:2379"], %1})");
    const QString kube = QStringLiteral(R"("cluster": {"type": "KubernetesClusterService", %1})");
    auto row = [](const char *sentence, const QString &services, const QString &message) {
        QTest::newRow(sentence) << configWith(services) << message;
    };

    // The top of the file.
    QTest::newRow("a misspelt services key is refused with a suggestion")
            << QByteArray(R"({"servces": {"cluster": {"type": "StoreClusterService"}}})")
            << QStringLiteral(R"(bad.json: key "servces" = an object: unknown key at the top of the configuration, did you mean "services"?)");
    QTest::newRow("an unknown key beside services is refused")
            << QByteArray(R"({"services": {}, "version": 2})")
            << QStringLiteral(R"(bad.json: key "version" = 2: unknown key at the top of the configuration, which holds only "services")");

    // P1: a service given twice (QJsonDocument would keep the last one
    // silently; two jobs edited in two places would become one).
    QTest::newRow("a service defined twice is refused with both places")
            << QByteArray(R"({"services": {"cluster": {"type": "StoreClusterService"},)" "\n"
                          R"(  "cluster": {"type": "StoreClusterService", "leaseName": "b"}}})")
            << QStringLiteral(R"(bad.json:2:3: service "cluster" is defined twice, first at line 1 column 15: only one of them would be used, without a word; keep one)");
    QTest::newRow("a parameter given twice in one service is refused with both places")
            << configWith(cluster.arg(QStringLiteral(R"("leaseName": "a", "leaseName": "b")")))
            << QStringLiteral(R"(bad.json:1:76: service "cluster": parameter "leaseName" is given twice, first at line 1 column 58: only the last would be used, without a word; keep one)");
    QTest::newRow("a key given twice in a block is refused with both places")
            << configWith(etcd.arg(QStringLiteral(R"("tls": {"ca": "a.pem", "ca": "b.pem"})")))
            << QStringLiteral(R"(bad.json:1:112: service "Registry": parameter "tls.ca" is given twice, first at line 1 column 97: only the last would be used, without a word; keep one)");
    // Columns count characters, as an editor shows them, not UTF-8 bytes.
    row("a column after accented text counts characters",
        cluster.arg(QStringLiteral(R"("leaseName": "ééé", "leaseduration": 5000)")),
        QStringLiteral(R"(bad.json:1:78: service "cluster" (Webda/StoreClusterService): parameter "leaseduration" = 5000: unknown parameter, did you mean "leaseDuration"?)"));
    // A byte-order mark (some Windows editors write one) is not a mistake:
    // QJsonDocument skips it, and so do the positions.
    QTest::newRow("a file that starts with a byte-order mark is read, and its columns start after it")
            << QByteArray("\xEF\xBB\xBF") + configWith(cluster.arg(QStringLiteral(R"("leaseduration": 5000)")))
            << QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseduration" = 5000: unknown parameter, did you mean "leaseDuration"?)");
    QTest::newRow("a service without a type is refused with the known types")
            << configWith(QStringLiteral(R"("cluster": {"leaseName": "x"})"))
            << QStringLiteral(R"(bad.json:1:15: service "cluster" has no "type": say which service it is (known types: TYPES))");
    QTest::newRow("a type that is not a string is refused with the known types")
            << configWith(QStringLiteral(R"("cluster": {"type": 3})"))
            << QStringLiteral(R"(bad.json:1:15: service "cluster": "type" is 3, not the name of a service type (known types: TYPES))");

    // Unknown parameters of a service (F4 cannot hold if two jobs share a lease by a typo).
    // O2: how many holder changes a lease keeps.
    row("a historyLength below 0 is refused with its range",
        cluster.arg(QStringLiteral(R"("historyLength": -1)")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "historyLength" = -1: it must be a whole number from 0 to 1000)"));
    row("a historyLength that is not a whole number is refused with its range",
        cluster.arg(QStringLiteral(R"("historyLength": "20")")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "historyLength" = "20": it must be a whole number from 0 to 1000)"));
    row("a parameter in the wrong case is refused with its right spelling",
        cluster.arg(QStringLiteral(R"("leaseduration": 5000)")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseduration" = 5000: unknown parameter, did you mean "leaseDuration"?)"));
    row("a parameter of another type is refused on a local cluster",
        QStringLiteral(R"("solo": {"type": "LocalClusterService", "store": "Registry"})"),
        QStringLiteral(R"(bad.json:1:55: service "solo" (Webda/LocalClusterService): parameter "store" = "Registry": unknown parameter (known: instanceId, leaseDuration, leaseName, renewInterval))"));
    row("a misspelt FileStore folder is refused with a suggestion",
        QStringLiteral(R"("Registry": {"type": "FileStore", "foldr": "/tmp/x"})"),
        QStringLiteral(R"(bad.json:1:49: service "Registry" (Webda/FileStore): parameter "foldr" = "/tmp/x": unknown parameter, did you mean "folder"?)"));
    row("a misspelt MemoryStore persistence block is refused with a suggestion",
        QStringLiteral(R"("Registry": {"type": "MemoryStore", "persistance": {"path": "x.json"}})"),
        QStringLiteral(R"(bad.json:1:51: service "Registry" (Webda/MemoryStore): parameter "persistance" = an object: unknown parameter, did you mean "persistence"?)"));
    row("an unknown key inside the persistence block is refused",
        QStringLiteral(R"("Registry": {"type": "MemoryStore", "persistence": {"pth": "x.json"}})"),
        QStringLiteral(R"(bad.json:1:67: service "Registry" (Webda/MemoryStore): parameter "persistence.pth" = "x.json": unknown parameter, did you mean "persistence.path"?)"));
    row("an unknown key inside the tls block is refused",
        etcd.arg(QStringLiteral(R"("tls": {"caFile": "ca.pem"})")),
        QStringLiteral(R"(bad.json:1:97: service "Registry" (Webda/EtcdStore): parameter "tls.caFile" = "ca.pem": unknown parameter (known: ca, cert, insecureSkipVerify, key))"));
    row("a near miss inside the tls block is refused with a suggestion",
        etcd.arg(QStringLiteral(R"("tls": {"crt": "client.pem"})")),
        QStringLiteral(R"(bad.json:1:97: service "Registry" (Webda/EtcdStore): parameter "tls.crt" = "client.pem": unknown parameter, did you mean "tls.cert"?)"));
    row("a misspelt password is refused without showing it",
        etcd.arg(QStringLiteral(R"("username": "app", "pasword": "s3cr3t-value")")),
        QStringLiteral(R"(bad.json:1:108: service "Registry" (Webda/EtcdStore): parameter "pasword" = (hidden): unknown parameter, did you mean "password"?)"));
    row("a misspelt Kubernetes namespace is refused with a suggestion",
        kube.arg(QStringLiteral(R"("namespce": "jobs")")),
        QStringLiteral(R"(bad.json:1:63: service "cluster" (Webda/KubernetesClusterService): parameter "namespce" = "jobs": unknown parameter, did you mean "namespace"?)"));
    row("an application type that declares its parameters is checked too",
        QStringLiteral(R"("poller": {"type": "Test/Declared", "intervl": 5})"),
        QStringLiteral(R"(bad.json:1:51: service "poller" (Test/Declared): parameter "intervl" = 5: unknown parameter, did you mean "interval"?)"));
    row("an application type's declared block is checked too",
        QStringLiteral(R"("poller": {"type": "Test/Declared", "target": {"ulr": "x"}})"),
        QStringLiteral(R"(bad.json:1:62: service "poller" (Test/Declared): parameter "target.ulr" = "x": unknown parameter, did you mean "target.url"?)"));

    // Durations (P1): a number of milliseconds, or a number with a unit ("1.5s", "1m30s").
    row("a duration with an unknown unit is refused naming the unit",
        cluster.arg(QStringLiteral(R"("leaseDuration": "15x")")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseDuration" = "15x": unknown unit "x" (ms, s, m or h))"));
    row("a duration spelt out in words is refused naming the unit",
        cluster.arg(QStringLiteral(R"("leaseDuration": "15 seconds")")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseDuration" = "15 seconds": unknown unit "seconds" (ms, s, m or h))"));
    row("a negative duration is refused",
        cluster.arg(QStringLiteral(R"("leaseDuration": -15000)")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseDuration" = -15000: it must be a duration from 1ms to 24h)"));
    row("a negative duration with a unit is refused",
        cluster.arg(QStringLiteral(R"("renewInterval": "-5s")")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "renewInterval" = "-5s": it must be a duration from 1ms to 24h)"));
    row("a zero duration is refused",
        cluster.arg(QStringLiteral(R"("renewInterval": 0)")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "renewInterval" = 0: it must be a duration from 1ms to 24h)"));
    row("a zero duration with a unit is refused",
        cluster.arg(QStringLiteral(R"("leaseDuration": "0s")")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseDuration" = "0s": it must be a duration from 1ms to 24h)"));
    row("a fractional number of milliseconds is refused",
        cluster.arg(QStringLiteral(R"("leaseDuration": 1500.5)")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseDuration" = 1500.5: finer than a millisecond (a bare number is milliseconds))"));
    row("a duration that is true is refused",
        cluster.arg(QStringLiteral(R"("leaseDuration": true)")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseDuration" = true: not a duration: it must be milliseconds (5000) or a number with a unit ms, s, m or h ("500ms", "1.5s", "2m", "1h30m"))"));
    row("a duration far too long is out of range, and says the range",
        cluster.arg(QStringLiteral(R"("leaseDuration": "100h")")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseDuration" = "100h": it must be a duration from 1ms to 24h)"));
    row("the largest int is out of range, and says the range",
        cluster.arg(QStringLiteral(R"("leaseDuration": 2147483647)")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseDuration" = 2147483647: it must be a duration from 1ms to 24h)"));
    row("a number beyond any clock is too long",
        cluster.arg(QStringLiteral(R"("leaseDuration": 1e99)")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseDuration" = 1e+99: too long a duration)"));
    row("a duration finer than a millisecond is refused",
        cluster.arg(QStringLiteral(R"("leaseDuration": "0.0001s")")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseDuration" = "0.0001s": finer than a millisecond)"));
    row("a string without a unit is refused",
        cluster.arg(QStringLiteral(R"("leaseDuration": "15")")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseDuration" = "15": a number without a unit (ms, s, m or h))"));
    row("a renewInterval equal to leaseDuration in other units is refused",
        cluster.arg(QStringLiteral(R"("leaseDuration": "15s", "renewInterval": 15000)")),
        QStringLiteral(R"(bad.json:1:82: service "cluster" (Webda/StoreClusterService): parameter "renewInterval" = 15000: it must be lower than "leaseDuration" (15000 ms))"));
    row("a renewInterval above the default leaseDuration is refused",
        cluster.arg(QStringLiteral(R"("renewInterval": "20s")")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "renewInterval" = "20s": it must be lower than "leaseDuration" (15000 ms))"));
    // F3: each attempt has leaseDuration - renewInterval for the store's
    // answer; "2ms" was accepted and every attempt then failed.
    row("a lease that leaves an attempt 1ms for the answer is refused with the reason",
        cluster.arg(QStringLiteral(R"("leaseDuration": "2ms", "renewInterval": "1ms")")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseDuration" = "2ms": it leaves each attempt 1ms (leaseDuration less renewInterval 1ms) to get the store's answer: it must be at least 100ms more than renewInterval)"));
    row("a lease 99ms longer than its renewal is refused",
        cluster.arg(QStringLiteral(R"("leaseDuration": 5099, "renewInterval": "5s")")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseDuration" = 5099: it leaves each attempt 99ms (leaseDuration less renewInterval 5s) to get the store's answer: it must be at least 100ms more than renewInterval)"));
    row("an etcd timeout below a round trip's floor is refused with its range",
        etcd.arg(QStringLiteral(R"("timeout": "99ms")")),
        QStringLiteral(R"(bad.json:1:89: service "Registry" (Webda/EtcdStore): parameter "timeout" = "99ms": it must be a duration from 100ms to 10m)"));
    row("a FileStore lockTimeout, which no write uses, is refused as unknown",
        QStringLiteral(R"("Registry": {"type": "FileStore", "folder": "/tmp/x", "lockTimeout": "11m"})"),
        QStringLiteral(R"(bad.json:1:69: service "Registry" (Webda/FileStore): parameter "lockTimeout" = "11m": unknown parameter (known: folder))"));
    row("an etcd timeout of zero is refused with its range",
        etcd.arg(QStringLiteral(R"("timeout": "0ms")")),
        QStringLiteral(R"(bad.json:1:89: service "Registry" (Webda/EtcdStore): parameter "timeout" = "0ms": it must be a duration from 100ms to 10m)"));
    row("a Kubernetes timeout of two hours is refused with its range",
        kube.arg(QStringLiteral(R"("leaseName": "billing-cron", "timeout": "2h")")),
        QStringLiteral(R"(bad.json:1:92: service "cluster" (Webda/KubernetesClusterService): parameter "timeout" = "2h": it must be a duration from 100ms to 10m)"));
    row("a Kubernetes historyLength above a thousand is refused with its range",
        kube.arg(QStringLiteral(R"("leaseName": "billing-cron", "historyLength": 1001)")),
        QStringLiteral(R"(bad.json:1:92: service "cluster" (Webda/KubernetesClusterService): parameter "historyLength" = 1001: it must be a whole number from 0 to 1000)"));
    row("a Kubernetes historyLength that is not a whole number is refused",
        kube.arg(QStringLiteral(R"("leaseName": "billing-cron", "historyLength": "20")")),
        QStringLiteral(R"(bad.json:1:92: service "cluster" (Webda/KubernetesClusterService): parameter "historyLength" = "20": it must be a whole number from 0 to 1000)"));

    // Strings, lists, blocks.
    row("an empty leaseName is refused",
        cluster.arg(QStringLiteral(R"("leaseName": "")")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseName" = "": it must be a non-empty string)"));
    row("a leaseName that is a number is refused",
        cluster.arg(QStringLiteral(R"("leaseName": 5)")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "leaseName" = 5: it must be a non-empty string)"));
    row("an empty instanceId is refused",
        cluster.arg(QStringLiteral(R"("instanceId": "")")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "instanceId" = "": it must be a non-empty string)"));
    row("a store parameter naming no store is refused",
        cluster.arg(QStringLiteral(R"("store": "Nope")")),
        QStringLiteral(R"(bad.json:1:58: service "cluster" (Webda/StoreClusterService): parameter "store" = "Nope": it must name a store service of the configuration)"));
    row("a Kubernetes lease name with capitals is refused",
        kube.arg(QStringLiteral(R"("leaseName": "Billing_Cron")")),
        QStringLiteral(R"(bad.json:1:63: service "cluster" (Webda/KubernetesClusterService): parameter "leaseName" = "Billing_Cron": a Kubernetes Lease name must be a DNS-1123 subdomain: at most 253 lower-case letters, digits, '-' and '.', starting and ending with a letter or digit)"));
    row("an etcd store without endpoints is refused",
        QStringLiteral(R"("Registry": {"type": "EtcdStore"})"),
        QStringLiteral(R"(bad.json:1:15: service "Registry" (Webda/EtcdStore): parameter "endpoints" = missing: it must be a non-empty list of http*SLASHES* or https*SLASHES* URLs such as ["http*SLASHES*127.0.0.1:2379"], with no user name or password in them)"));
    row("an etcd endpoint with a password in it is refused without showing it",
        QStringLiteral(R"("Registry": {"type": "EtcdStore", "endpoints": ["http*SLASHES*app:s3cr3t@127.0.0.1:2379"]})"),
        QStringLiteral(R"msg(bad.json:1:49: service "Registry" (Webda/EtcdStore): parameter "endpoints" = "(hidden)": it must be a non-empty list of http*SLASHES* or https*SLASHES* URLs such as ["http*SLASHES*127.0.0.1:2379"], with no user name or password in them)msg"));
    row("an etcd username without a password is refused",
        etcd.arg(QStringLiteral(R"("username": "app")")),
        QStringLiteral(R"(bad.json:1:15: service "Registry" (Webda/EtcdStore): parameter "password" = missing: it (or "passwordFile") is required with username)"));
    row("an etcd password that is not a string is refused without showing it",
        etcd.arg(QStringLiteral(R"("username": "app", "password": 12345678)")),
        QStringLiteral(R"(bad.json:1:108: service "Registry" (Webda/EtcdStore): parameter "password" = (hidden): it must be a string)"));
    row("an etcd password together with a passwordFile is refused",
        etcd.arg(QStringLiteral(R"("username": "app", "password": "s3cr3t-value", "passwordFile": "/run/pw")")),
        QStringLiteral(R"(bad.json:1:108: service "Registry" (Webda/EtcdStore): parameter "password" = (hidden): it is set together with "passwordFile": keep one)"));
    row("an etcd passwordFile that does not exist is refused naming it",
        etcd.arg(QStringLiteral(R"("username": "app", "passwordFile": "/nonexistent/etcd-password")")),
        QStringLiteral(R"(bad.json:1:108: service "Registry" (Webda/EtcdStore): parameter "passwordFile" = "/nonexistent/etcd-password": the file /nonexistent/etcd-password does not exist)"));
    row("an etcd tls that is not an object is refused",
        etcd.arg(QStringLiteral(R"("tls": "ca.pem")")),
        QStringLiteral(R"(bad.json:1:89: service "Registry" (Webda/EtcdStore): parameter "tls" = "ca.pem": it must be an object such as {"ca": "ca.pem", "cert": "client.pem", "key": "client-key.pem"})"));
    row("an etcd tls.insecureSkipVerify that is a word is refused",
        etcd.arg(QStringLiteral(R"("tls": {"insecureSkipVerify": "yes"})")),
        QStringLiteral(R"(bad.json:1:97: service "Registry" (Webda/EtcdStore): parameter "tls.insecureSkipVerify" = "yes": it must be true or false)"));
    row("a FileStore folder that is a number is refused",
        QStringLiteral(R"("Registry": {"type": "FileStore", "folder": 42})"),
        QStringLiteral(R"(bad.json:1:49: service "Registry" (Webda/FileStore): parameter "folder" = 42: it must be a string naming a folder)"));
    row("a MemoryStore persistence that is a string is refused",
        QStringLiteral(R"("Registry": {"type": "MemoryStore", "persistence": "x.json"})"),
        QStringLiteral(R"(bad.json:1:51: service "Registry" (Webda/MemoryStore): parameter "persistence" = "x.json": it must be an object such as {"path": "store.json"})"));
}

void TestConfiguration::eachMistakeIsRefusedWithOneExactLine()
{
    // P1: one mistake, one line, exactly this one, and nothing started
    // (several mistakes: everyMistakeIsALineOfItsOwnAtItsParameter).
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    // moc reads "//" in a raw string as a comment: the rows spell it *SLASHES*.
    json.replace("*SLASHES*", "://");
    message.replace(QStringLiteral("*SLASHES*"), QStringLiteral("://"));
    message.replace(QStringLiteral("TYPES"), ServiceFactory::types().join(QStringLiteral(", ")));
    Application app;
    const QString refusal = refusalOf(json, &app);
    QCOMPARE(refusal, message);
    QVERIFY(!refusal.contains(QLatin1Char('\n')));
    QVERIFY(!refusal.contains(QStringLiteral("s3cr3t")));
    QVERIFY(!app.isInitialised());
    QVERIFY(!app.firstCluster() || !app.firstCluster()->isLeader());
}

void TestConfiguration::everyMistakeIsALineOfItsOwnAtItsParameter_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("lines");
    // Unknown names, three in two services: the first used to hide the
    // others, and all carried the service's position.
    QTest::newRow("three typos in two services")
            << QByteArray("{\"services\": {\n"
                          "  \"cluster\": {\"type\": \"StoreClusterService\",\n"
                          "              \"leaseNme\": \"x\",\n"
                          "              \"leaseDuraton\": 5000},\n"
                          "  \"Registry\": {\"type\": \"FileStore\", \"foldr\": \"/tmp/x\"}\n"
                          "}}")
            << QStringList {
                       QStringLiteral(R"(bad.json:3:15: service "cluster" (Webda/StoreClusterService): parameter "leaseNme" = "x": unknown parameter, did you mean "leaseName"?)"),
                       QStringLiteral(R"(bad.json:4:15: service "cluster" (Webda/StoreClusterService): parameter "leaseDuraton" = 5000: unknown parameter, did you mean "leaseDuration"?)"),
                       QStringLiteral(R"(bad.json:5:37: service "Registry" (Webda/FileStore): parameter "foldr" = "/tmp/x": unknown parameter, did you mean "folder"?)")};
    // Values: the reader kept only its first refusal.
    QTest::newRow("three wrong values of one service, a block's key among them")
            << QByteArray("{\"services\": {\"Registry\": {\"type\": \"EtcdStore\",\n"
                          " \"endpoints\": [\"http://127.0.0.1:2379\"], \"timeout\": \"5x\",\n"
                          " \"tls\": {\"insecureSkipVerify\": \"yes\"},\n"
                          " \"prefix\": 3}}}")
            << QStringList {
                       QStringLiteral(R"(bad.json:2:42: service "Registry" (Webda/EtcdStore): parameter "timeout" = "5x": unknown unit "x" (ms, s, m or h))"),
                       QStringLiteral(R"(bad.json:3:10: service "Registry" (Webda/EtcdStore): parameter "tls.insecureSkipVerify" = "yes": it must be true or false)"),
                       QStringLiteral(R"(bad.json:4:2: service "Registry" (Webda/EtcdStore): parameter "prefix" = 3: it must be a string)")};
    QTest::newRow("a missing parameter is placed at its service")
            << QByteArray("{\"services\": {\"Registry\": {\"type\": \"EtcdStore\",\n"
                          " \"endpoints\": [\"http://127.0.0.1:2379\"], \"username\": \"u\", \"timeout\": 0}}}")
            << QStringList {
                       QStringLiteral(R"(bad.json:1:15: service "Registry" (Webda/EtcdStore): parameter "password" = missing: it (or "passwordFile") is required with username)"),
                       QStringLiteral(R"(bad.json:2:59: service "Registry" (Webda/EtcdStore): parameter "timeout" = 0: it must be a duration from 100ms to 10m)")};
}

void TestConfiguration::everyMistakeIsALineOfItsOwnAtItsParameter()
{
    // P1: every mistake of every service, each on its line with the line
    // and column of its parameter, in file order.
    QFETCH(QByteArray, json);
    QFETCH(QStringList, lines);
    Application app;
    const QString refusal = refusalOf(json, &app);
    QCOMPARE(refusal.split(QLatin1Char('\n')), lines);
    QVERIFY(!app.isInitialised());
}

void TestConfiguration::durationsTakeMillisecondsOrAUnit_data()
{
    QTest::addColumn<QString>("leaseDuration");
    QTest::addColumn<QString>("renewInterval");
    QTest::addColumn<qint64>("leaseMs");
    QTest::addColumn<qint64>("renewMs");
    QTest::newRow("milliseconds as a number, as before")
            << QStringLiteral("15000") << QStringLiteral("5000") << qint64(15000) << qint64(5000);
    QTest::newRow("seconds") << QStringLiteral(R"("15s")") << QStringLiteral(R"("5s")")
                             << qint64(15000) << qint64(5000);
    QTest::newRow("milliseconds with their unit")
            << QStringLiteral(R"("1500ms")") << QStringLiteral(R"("500ms")") << qint64(1500)
            << qint64(500);
    QTest::newRow("minutes and seconds mixed") << QStringLiteral(R"("1m")") << QStringLiteral(R"("20s")")
                                              << qint64(60000) << qint64(20000);
    QTest::newRow("hours") << QStringLiteral(R"("1h")") << QStringLiteral(R"("1m")")
                           << qint64(3600000) << qint64(60000);
    QTest::newRow("decimals, as Go and kubectl write them")
            << QStringLiteral(R"("1.5s")") << QStringLiteral(R"("0.5s")") << qint64(1500) << qint64(500);
    QTest::newRow("a lease 100ms longer than its renewal, the least")
            << QStringLiteral("5100") << QStringLiteral(R"("5s")") << qint64(5100) << qint64(5000);
    QTest::newRow("units in a row") << QStringLiteral(R"("1m30s")") << QStringLiteral(R"("2.5s")")
                                    << qint64(90000) << qint64(2500);
}

void TestConfiguration::durationsTakeMillisecondsOrAUnit()
{
    // P1, F4: the lease the election uses is the one written, whatever its unit.
    QFETCH(QString, leaseDuration);
    QFETCH(QString, renewInterval);
    QFETCH(qint64, leaseMs);
    QFETCH(qint64, renewMs);
    Application app;
    QString error;
    QVERIFY2(app.loadConfig(configWith(QStringLiteral(R"("cluster": {"type": "StoreClusterService",
                                       "leaseDuration": %1, "renewInterval": %2})")
                                               .arg(leaseDuration, renewInterval)),
                            QStringLiteral("good.json"), &error),
             qPrintable(error));
    ClusterService *cluster = app.firstCluster();
    QVERIFY(cluster);
    QVERIFY2(cluster->validate(&error), qPrintable(error));
    QCOMPARE(cluster->timings().leaseDuration, leaseMs);
    QCOMPARE(cluster->timings().renewInterval, renewMs);
}

void TestConfiguration::durationsAreWrittenAsTheyAreRead_data()
{
    QTest::addColumn<qint64>("ms");
    QTest::addColumn<QString>("text");
    QTest::newRow("zero") << qint64(0) << QStringLiteral("0s");
    QTest::newRow("below a second") << qint64(999) << QStringLiteral("999ms");
    QTest::newRow("a second and a half") << qint64(1500) << QStringLiteral("1.5s");
    QTest::newRow("minutes and seconds") << qint64(90000) << QStringLiteral("1m30s");
    QTest::newRow("hours and minutes") << qint64(5400000) << QStringLiteral("1h30m");
    QTest::newRow("a day") << qint64(86400000) << QStringLiteral("24h");
    QTest::newRow("every unit, milliseconds as decimals") << qint64(3723004) << QStringLiteral("1h2m3.004s");
    QTest::newRow("negative") << qint64(-1500) << QStringLiteral("-1.5s");
}

void TestConfiguration::durationsAreWrittenAsTheyAreRead()
{
    // P1: what baton prints of a duration reads back as the same duration.
    QFETCH(qint64, ms);
    QFETCH(QString, text);
    QCOMPARE(durationtext::format(ms), text);
    QString problem;
    QCOMPARE(durationtext::parse(text, &problem), std::optional<qint64>(ms));
    QVERIFY(problem.isEmpty());
}

void TestConfiguration::typesThatDeclareNothingAreNotChecked()
{
    // P1: only a type that declared its parameters can say which are unknown.
    Application app;
    QString error;
    QVERIFY2(app.loadConfig(configWith(QStringLiteral(
                                    R"("mine": {"type": "Test/Undeclared", "anything": 1}, )"
                                    R"("poller": {"type": "Test/Declared", "interval": 5, "target": {"url": "x"}})")),
                            QStringLiteral("good.json"), &error),
             qPrintable(error));
    QCOMPARE(ServiceFactory::parameters(QStringLiteral("Undeclared")), QStringList());
    QCOMPARE(ServiceFactory::parameters(QStringLiteral("Declared")),
             (QStringList {QStringLiteral("interval"), QStringLiteral("target.url")}));
}

void TestConfiguration::passwordFileIsReadAndNeverShown()
{
    // R2: the secret comes from its file, and no refusal after it shows it.
    const QString path = m_folder.filePath(QStringLiteral("etcd-password"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("s3cr3t-from-file\n");
    file.close();
    QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    Application app;
    const QString refusal = refusalOf(
            configWith(QStringLiteral(R"("Registry": {"type": "EtcdStore", "endpoints": ["http://127.0.0.1:2379"],
                       "username": "app", "passwordFile": "%1", "tls": {"ca": "/nonexistent/ca.pem"}})")
                               .arg(path)),
            &app);
    QVERIFY2(refusal.contains(QStringLiteral("/nonexistent/ca.pem")), qPrintable(refusal));
    QVERIFY2(!refusal.contains(QStringLiteral("s3cr3t")), qPrintable(refusal));
}

void TestConfiguration::passwordFileResolvesAgainstTheCredentialsFolder()
{
    // systemd's LoadCredential= puts the file in $CREDENTIALS_DIRECTORY.
    qputenv("CREDENTIALS_DIRECTORY", m_folder.path().toUtf8());
    QCOMPARE(SecretFile::resolve(QStringLiteral("etcd-password")),
             m_folder.filePath(QStringLiteral("etcd-password")));
    QCOMPARE(SecretFile::resolve(QStringLiteral("/etc/baton/pw")), QStringLiteral("/etc/baton/pw"));
    qunsetenv("CREDENTIALS_DIRECTORY");
    QCOMPARE(SecretFile::resolve(QStringLiteral("pw")), QDir::current().absoluteFilePath(QStringLiteral("pw")));
}

void TestConfiguration::secretFileReadableByOthersWarns()
{
    // R2: a secret others may read is accepted, and said to be exposed.
    const QString path = m_folder.filePath(QStringLiteral("shared-password"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("s3cr3t-shared");
    file.close();
    QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner
                                | QFileDevice::ReadOther));
    SecretFile secret;
    QString error;
    QString warning;
    QVERIFY2(secret.open(path, &error, &warning), qPrintable(error));
    QCOMPARE(secret.value(), QStringLiteral("s3cr3t-shared"));
    QCOMPARE(warning, QStringLiteral("the file %1 may be read by other users: make it readable by "
                                     "its owner only (chmod 600)")
                              .arg(path));
    QVERIFY(!warning.contains(QStringLiteral("s3cr3t")));
}

void TestConfiguration::secretFileIsReadAgainWhenItChanges()
{
    // A rotated credential is used without a restart.
    const QString path = m_folder.filePath(QStringLiteral("rotating-password"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("first\n");
    file.close();
    QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    SecretFile secret;
    QString error;
    QString warning;
    QVERIFY2(secret.open(path, &error, &warning), qPrintable(error));
    QVERIFY(warning.isEmpty());
    QCOMPARE(secret.value(), QStringLiteral("first"));
    QSignalSpy changed(&secret, &SecretFile::changed);
    // Replaced by a rename, as Kubernetes and credential rotation do.
    QSaveFile next(path);
    QVERIFY(next.open(QIODevice::WriteOnly));
    next.write("second\n");
    QVERIFY(next.commit());
    QVERIFY(changed.wait(5000));
    QCOMPARE(secret.value(), QStringLiteral("second"));
}

QTEST_GUILESS_MAIN(TestConfiguration)
#include "tst_configuration.moc"
