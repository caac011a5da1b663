// The watches that share one etcd stream (EtcdWatchHub), on a real etcd:
// widening the stream for a new watch loses no write to the new key made
// after watch() returned, and the replay that widening needs reaches no
// watch twice (B1, F8).

#include "etcdfixture.h"
#include "etcdstore.h"
#include "etcdwatchstream.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>
#include <QUuid>

#include <memory>

using namespace baton;

namespace {

std::unique_ptr<EtcdStore> etcdStore(const QStringList &endpoints, const QString &prefix,
                                     QString *error)
{
    auto store = std::make_unique<EtcdStore>(
            QStringLiteral("Registry"),
            QJsonObject { { QStringLiteral("endpoints"), QJsonArray::fromStringList(endpoints) },
                          { QStringLiteral("prefix"), prefix } },
            nullptr);
    if (!store->init(error))
        return nullptr;
    return store;
}

QStringList versionsOf(const QSignalSpy &spy)
{
    QStringList versions;
    for (const QList<QVariant> &arguments : spy)
        versions.append(arguments.at(0).value<StoreEntry>().version);
    return versions;
}

} // namespace

class TestEtcdSharedWatch : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void wideningForANewKeyLosesNoWriteMadeAfterWatchReturned();

private:
    test::EtcdFixture m_etcd { "BATON_ETCD_DIR" };
};

void TestEtcdSharedWatch::initTestCase()
{
    if (!m_etcd.configured())
        QSKIP("no etcd fixture: run through ctest");
    QVERIFY2(!m_etcd.endpoints().isEmpty(), qPrintable(m_etcd.errorString()));
}

// F8, B1: the stream shared by the "cluster:" keys first covers cluster:a.
// A watch of cluster:z widens it. Before the widened stream opens, another
// client writes cluster:z and then cluster:a, and the old stream reads the
// later write: the widened stream must still start at or before the write
// to cluster:z (the new watch's floor), and the cluster:a write it replays
// is not heard twice.
void TestEtcdSharedWatch::wideningForANewKeyLosesNoWriteMadeAfterWatchReturned()
{
    const QString prefix = QStringLiteral("shared/%1/")
                                   .arg(QUuid::createUuid().toString(QUuid::WithoutBraces));
    QString error;
    auto store = etcdStore(m_etcd.endpoints(), prefix, &error);
    QVERIFY2(store, qPrintable(error));
    const QString first = QStringLiteral("cluster:a");
    const QString later = QStringLiteral("cluster:z");

    QObject owner;
    StoreWatch *firstWatch = store->watch(first, &owner);
    QVERIFY(firstWatch);
    QSignalSpy firstChanged(firstWatch, &StoreWatch::entryChanged);
    QString created;
    store->create(first, QJsonObject { { QStringLiteral("n"), 1 } },
                  [&created](const StoreResult &r) { created = r.entry.version; });
    // The watch may hear the write before the create's own answer arrives:
    // wait for both (seen failing under the sanitizers, where it is slower).
    QTRY_VERIFY_WITH_TIMEOUT(firstChanged.size() == 1 && !created.isEmpty(), 10000);
    QCOMPARE(versionsOf(firstChanged), QStringList { created });

    StoreWatch *laterWatch = store->watch(later, &owner);
    QVERIFY(laterWatch);
    QSignalSpy laterChanged(laterWatch, &StoreWatch::entryChanged);
    // Another client, while this one's event loop waits (etcdctl runs to
    // its end): a write to the new key after watch() returned, then one
    // under the old range that the old stream reads first.
    QVERIFY2(!m_etcd.etcdctl({ QStringLiteral("put"), prefix + later, QStringLiteral("{\"n\":2}") })
                      .isNull(),
             qPrintable(m_etcd.errorString()));
    QVERIFY2(!m_etcd.etcdctl({ QStringLiteral("put"), prefix + first, QStringLiteral("{\"n\":3}") })
                      .isNull(),
             qPrintable(m_etcd.errorString()));

    QTRY_COMPARE_WITH_TIMEOUT(laterChanged.size(), 1, 10000);
    QCOMPARE(laterChanged.first().at(0).value<StoreEntry>().document.value(QStringLiteral("n")), 2);

    // One more write to cluster:a, after the replay: heard once, as is the
    // one the replay repeated.
    QTRY_COMPARE_WITH_TIMEOUT(firstChanged.size(), 2, 10000);
    const QString secondFirst = versionsOf(firstChanged).at(1);
    QString updated;
    store->update(first, QJsonObject { { QStringLiteral("n"), 4 } }, secondFirst,
                  [&updated](const StoreResult &r) { updated = r.entry.version; });
    QTRY_VERIFY_WITH_TIMEOUT(!updated.isEmpty(), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(firstChanged.size(), 3, 10000);
    QCOMPARE(versionsOf(firstChanged), (QStringList { created, secondFirst, updated }));
    QCOMPARE(laterChanged.size(), 1);
    QCOMPARE(store->findChildren<EtcdWatchStream *>().size(), 1);
}

QTEST_GUILESS_MAIN(TestEtcdSharedWatch)
#include "tst_etcdsharedwatch.moc"
