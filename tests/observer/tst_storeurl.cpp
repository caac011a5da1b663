// `baton status --store URL`: which Registry a URL names, and the refusals
// (R1: a clear error that names what was wrong; R2: a password in a URL is
// never echoed).

#include "storeurl.h"

#include <QJsonArray>
#include <QTest>

using namespace baton;

class TestStoreUrl : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void storesByUrl_data();
    void storesByUrl();
    void refusals_data();
    void refusals();
};

void TestStoreUrl::storesByUrl_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("where");
    QTest::newRow("a folder") << "file:///var/lib/app/registry" << "Webda/FileStore"
                              << "/var/lib/app/registry";
    QTest::newRow("one etcd endpoint") << "http://127.0.0.1:2379" << "Webda/EtcdStore"
                                       << "http://127.0.0.1:2379";
    QTest::newRow("etcd endpoints, etcd scheme")
            << "etcd://10.0.0.1:2379, etcds://10.0.0.2:2379" << "Webda/EtcdStore"
            << "http://10.0.0.1:2379 https://10.0.0.2:2379";
}

void TestStoreUrl::storesByUrl()
{
    QFETCH(QString, url);
    QFETCH(QString, type);
    QFETCH(QString, where);
    QString error;
    const QJsonObject registry = registryForStoreUrl(url, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(registry.value(QStringLiteral("type")).toString(), type);
    if (type == QLatin1String("Webda/FileStore")) {
        QCOMPARE(registry.value(QStringLiteral("folder")).toString(), where);
    } else {
        QStringList endpoints;
        for (const QJsonValue &e : registry.value(QStringLiteral("endpoints")).toArray())
            endpoints << e.toString();
        QCOMPARE(endpoints.join(QLatin1Char(' ')), where);
    }
}

void TestStoreUrl::refusals_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("nothing") << "" << "no URL";
    QTest::newRow("an unknown scheme") << "redis://127.0.0.1:6379" << "redis://127.0.0.1:6379";
    QTest::newRow("a relative folder") << "file:registry" << "file:///absolute/path";
    QTest::newRow("two folders") << "file:///a,file:///b" << "one folder";
    QTest::newRow("a password in the URL") << "http://root:s3cret@127.0.0.1:2379" << "credentials";
    // R2: the file store's own refusals must not repeat a password either.
    QTest::newRow("a password in a file URL") << "file://root:s3cret@host/registry" << "credentials";
    QTest::newRow("a folder and an endpoint with a password")
            << "file:///registry,http://root:s3cret@127.0.0.1:2379" << "credentials";
}

void TestStoreUrl::refusals()
{
    QFETCH(QString, url);
    QFETCH(QString, mentions);
    QString error;
    QVERIFY(registryForStoreUrl(url, &error).isEmpty());
    QVERIFY2(error.contains(mentions), qPrintable(error));
    QVERIFY2(!error.contains(QStringLiteral("s3cret")), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestStoreUrl)
#include "tst_storeurl.moc"
