// What only MemoryStore has (persistence to one file), and the store
// contract (storecontract.h) run on a MemoryStore.

#include "memorystore.h"
#include "storecontract.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace baton;
using namespace baton::test;

class MemoryStoreContract : public StoreContract
{
    Q_OBJECT
protected:
    std::unique_ptr<Store> newStore(QString *error) override
    {
        auto store
            = std::make_unique<MemoryStore>(QStringLiteral("Registry"), QJsonObject(), nullptr);
        if (!store->init(error))
            return nullptr;
        return store;
    }
};


/*! What only MemoryStore has: persistence to one file. */
class MemoryStoreTest : public StoreCalls
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::unique_ptr<MemoryStore> m_owned;

    QString persistencePath() const { return m_dir.filePath(QStringLiteral("store.json")); }

    std::unique_ptr<MemoryStore> newStore(const QJsonObject &parameters, QString *error)
    {
        auto store = std::make_unique<MemoryStore>(QStringLiteral("Registry"), parameters, nullptr);
        if (!store->init(error))
            return nullptr;
        return store;
    }
    QJsonObject persistenceParameters() const
    {
        return QJsonObject { { QStringLiteral("persistence"),
                               QJsonObject { { QStringLiteral("path"), persistencePath() } } } };
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void cleanup()
    {
        checkEachCallbackRanOnce();
        m_owned.reset();
        m_store = nullptr;
        QFile::remove(persistencePath());
    }

    // B1: persistence.path: a new store on the same file finds the
    // documents, their versions, and a counter that goes on from there.
    void persistenceKeepsDocumentsAndVersions()
    {
        QString error;
        m_owned = newStore(persistenceParameters(), &error);
        QVERIFY2(m_owned, qPrintable(error));
        m_store = m_owned.get();
        CREATE_OK(created, QStringLiteral("cluster:leader"), doc(1));
        const CallPtr updated = updateCall(created.key, doc(2), created.version);
        WAIT_DONE(updated);
        COMPARE_STATUS(updated, "Ok");
        CREATE_OK(dropped, QStringLiteral("cluster:dropped"), doc(5));
        const CallPtr removed = removeCall(dropped.key, QString());
        WAIT_DONE(removed);
        m_owned.reset();

        m_owned = newStore(persistenceParameters(), &error);
        QVERIFY2(m_owned, qPrintable(error));
        m_store = m_owned.get();
        const CallPtr got = getCall(created.key);
        WAIT_DONE(got);
        COMPARE_STATUS(got, "Ok");
        QCOMPARE(got->result.entry.document, doc(2));
        QCOMPARE(got->result.entry.version, updated->result.entry.version);
        const CallPtr gone = getCall(dropped.key);
        WAIT_DONE(gone);
        COMPARE_STATUS(gone, "NotFound");

        // B2: the counter survived, so a recreated key gets a fresh version.
        CREATE_OK(recreated, dropped.key, doc(6));
        QVERIFY(recreated.version != dropped.version);
        QVERIFY(recreated.version != updated->result.entry.version);
    }

    // R2: the persistence file is owner-only.
    void persistenceFileIsOwnerOnly()
    {
        QString error;
        m_owned = newStore(persistenceParameters(), &error);
        QVERIFY2(m_owned, qPrintable(error));
        m_store = m_owned.get();
        CREATE_OK(created, QStringLiteral("cluster:leader"), doc(1));
        QCOMPARE(QFileInfo(persistencePath()).permissions(),
                 QFile::ReadOwner | QFile::WriteOwner | QFile::ReadUser | QFile::WriteUser);
    }

    void corruptPersistenceFileIsRefused_data()
    {
        QTest::addColumn<QByteArray>("contents");
        QTest::newRow("a file that is not JSON") << QByteArray("{\"documents\": ");
        QTest::newRow("a JSON array") << QByteArray("[]");
        QTest::newRow("an object without documents") << QByteArray("{\"lastVersion\": \"3\"}");
        QTest::newRow("a document without a version")
            << QByteArray("{\"lastVersion\": \"3\", \"documents\": {\"k\": {\"document\": {}}}}");
    }

    // R1: a corrupt persistence file is a clear init error naming the file,
    // never an empty store.
    void corruptPersistenceFileIsRefused()
    {
        QFETCH(QByteArray, contents);
        QFile file(persistencePath());
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(contents);
        file.close();

        QString error;
        QVERIFY(!newStore(persistenceParameters(), &error));
        QVERIFY2(error.contains(persistencePath()), qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("Registry")), qPrintable(error));
    }

    void badParameters_data()
    {
        QTest::addColumn<QByteArray>("parameters");
        QTest::addColumn<QString>("parameter");
        QTest::newRow("persistence.path that is a number is refused")
            << QByteArray(R"({"persistence": {"path": 7}})") << "persistence.path";
        QTest::newRow("persistence.path that is empty is refused")
            << QByteArray(R"({"persistence": {"path": ""}})") << "persistence.path";
        QTest::newRow("persistence.path in a folder that does not exist is refused")
            << QByteArray(R"({"persistence": {"path": "/nonexistent-baton/x.json"}})")
            << "persistence.path";
        QTest::newRow("persistence that is a string is refused")
            << QByteArray(R"({"persistence": "store.json"})") << "persistence";
    }

    // P1 (for stores, B1): refused at init with the service, parameter and value.
    void badParameters()
    {
        QFETCH(QByteArray, parameters);
        QFETCH(QString, parameter);
        const QJsonObject object = QJsonDocument::fromJson(parameters).object();
        QString error;
        QVERIFY(!newStore(object, &error));
        QVERIFY2(error.contains(QLatin1String("\"Registry\"")), qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("MemoryStore")), qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("parameter \"") + parameter + QLatin1String("\" = ")),
                 qPrintable(error));
    }
};


int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    MemoryStoreContract contract;
    MemoryStoreTest own;
    return runStoreTests(app.arguments(), {&contract, &own});
}

#include "tst_store_memory.moc"
