// A followed prefix on a real etcd (FollowedListings, as each election's
// candidate records are): once a range primed it, EtcdStore lists it from
// its watch, with every change in order and its own writes at once, and
// asks etcd again only when the watch cannot vouch for it. Every request
// goes through a proxy that counts them by request line.

#include "countingproxy.h"
#include "etcdfixture.h"
#include "etcdstore.h"
#include "etcdwatchstream.h"
#include "tcpproxy.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>
#include <QUrl>
#include <QUuid>

#include <functional>
#include <memory>

using namespace baton;
using namespace baton::test;

namespace {

const QString kRange = QStringLiteral("POST /v3/kv/range");
const QString kFollowed = QStringLiteral("candidate:l:");

std::unique_ptr<EtcdStore> etcdStore(const QString &endpoint, const QString &prefix)
{
    auto store = std::make_unique<EtcdStore>(
            QStringLiteral("Registry"),
            QJsonObject { { QStringLiteral("endpoints"), QJsonArray { endpoint } },
                          { QStringLiteral("prefix"), prefix },
                          { QStringLiteral("timeout"), 5000 } },
            nullptr);
    QString error;
    if (!store->init(&error)) {
        qWarning("%s", qPrintable(error));
        return nullptr;
    }
    return store;
}

QString viaProxy(quint16 port)
{
    return QStringLiteral("http://127.0.0.1:%1").arg(port);
}

/*! What one call of \a store answers; Unavailable, saying so, when nothing came in time. */
StoreResult answerOf(const std::function<void(Store::Callback)> &call)
{
    auto answer = std::make_shared<std::optional<StoreResult>>();
    call([answer](const StoreResult &result) { *answer = result; });
    if (!QTest::qWaitFor([answer] { return answer->has_value(); }, 10000)) {
        StoreResult none;
        none.status = StoreResult::Status::Unavailable;
        none.errorString = QStringLiteral("no answer within 10 s");
        return none;
    }
    return **answer;
}

StoreResult listed(Store *store)
{
    return answerOf([store](Store::Callback done) { store->list(kFollowed, done); });
}

/*! key=n@version for each entry, in the order listed. */
QStringList shown(const StoreResult &result)
{
    QStringList entries;
    for (const StoreEntry &entry : result.entries)
        entries.append(QStringLiteral("%1=%2@%3")
                               .arg(entry.key)
                               .arg(entry.document.value(QStringLiteral("n")).toInt())
                               .arg(entry.version));
    return entries;
}

QString shownEntry(const StoreResult &result)
{
    return QStringLiteral("%1=%2@%3")
            .arg(result.entry.key)
            .arg(result.entry.document.value(QStringLiteral("n")).toInt())
            .arg(result.entry.version);
}

QJsonObject doc(int n)
{
    return QJsonObject { { QStringLiteral("n"), n } };
}

} // namespace

class TestEtcdFollowedListing : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void aFollowedPrefixIsListedFromTheWatchWithEveryChange();
    void aListingShowsThisStoresOwnWriteAtOnce();
    void aWriteAnsweredLateNeverUndoesALaterRemoval();
    void aBrokenWatchListsNothingStaleAndCompactionPrimesAgain();

private:
    /*! Whether one listing asked etcd nothing (once: asking changes what the next one asks). */
    bool listsFromTheWatch(Store *store, CountingProxy *proxy);
    /*! Lists until a listing asks etcd nothing: the watch's stream is up and the copy primed. */
    bool untilListedFromTheWatch(Store *store, CountingProxy *proxy);
    StoreResult write(Store *store, const QString &key, int n, const QString &version = {});
    quint16 etcdPort() const { return quint16(QUrl(m_etcd.endpoints().first()).port()); }

    EtcdFixture m_etcd { "BATON_ETCD_DIR" };
    QString m_prefix;
    std::unique_ptr<EtcdStore> m_writer;
};

void TestEtcdFollowedListing::initTestCase()
{
    if (!m_etcd.configured())
        QSKIP("no etcd fixture: run through ctest");
    QVERIFY2(!m_etcd.endpoints().isEmpty(), qPrintable(m_etcd.errorString()));
}

void TestEtcdFollowedListing::init()
{
    m_prefix = QStringLiteral("followed/%1/").arg(QUuid::createUuid().toString(QUuid::Id128));
    m_writer = etcdStore(m_etcd.endpoints().first(), m_prefix);
    QVERIFY(m_writer);
}

bool TestEtcdFollowedListing::listsFromTheWatch(Store *store, CountingProxy *proxy)
{
    const int before = proxy->count(kRange);
    return listed(store).ok() && proxy->count(kRange) == before;
}

bool TestEtcdFollowedListing::untilListedFromTheWatch(Store *store, CountingProxy *proxy)
{
    return QTest::qWaitFor([&] { return listsFromTheWatch(store, proxy); }, 10000);
}

StoreResult TestEtcdFollowedListing::write(Store *store, const QString &key, int n, const QString &version)
{
    return answerOf([&](Store::Callback done) {
        if (version.isEmpty())
            store->create(key, doc(n), done);
        else
            store->update(key, doc(n), version, done);
    });
}

// P3: listing a followed prefix again costs etcd no request once a range
// primed it, and shows what another client changed since (a write, a
// removal, a new key), in key order, at the versions etcd gave; a prefix
// no longer followed is asked of etcd at every listing.
void TestEtcdFollowedListing::aFollowedPrefixIsListedFromTheWatchWithEveryChange()
{
    const StoreResult x = write(m_writer.get(), kFollowed + QStringLiteral("x"), 1);
    const StoreResult y = write(m_writer.get(), kFollowed + QStringLiteral("y"), 1);
    QVERIFY(x.ok() && y.ok());
    QVERIFY(write(m_writer.get(), QStringLiteral("candidate:l2:z"), 1).ok()); // another lease's

    CountingProxy proxy(etcdPort());
    auto reader = etcdStore(viaProxy(proxy.port()), m_prefix);
    QVERIFY(reader);
    reader->followListing(kFollowed);
    const StoreResult first = listed(reader.get());
    QVERIFY2(first.ok(), qPrintable(first.errorString));
    QCOMPARE(shown(first), (QStringList { shownEntry(x), shownEntry(y) }));
    QCOMPARE(proxy.count(kRange), 1);

    QVERIFY(untilListedFromTheWatch(reader.get(), &proxy));
    const int ranges = proxy.count(kRange);

    const StoreResult x2 = write(m_writer.get(), x.entry.key, 2, x.entry.version);
    QVERIFY(answerOf([&](Store::Callback done) { m_writer->remove(y.entry.key, y.entry.version, done); }).ok());
    const StoreResult w = write(m_writer.get(), kFollowed + QStringLiteral("w"), 1);
    QVERIFY(x2.ok() && w.ok());
    const QStringList now { shownEntry(w), shownEntry(x2) };
    QTRY_COMPARE_WITH_TIMEOUT(shown(listed(reader.get())), now, 10000);
    QCOMPARE(proxy.count(kRange), ranges);

    reader->unfollowListing(kFollowed);
    QCOMPARE(shown(listed(reader.get())), now);
    QCOMPARE(proxy.count(kRange), ranges + 1);
}

// P3: a write of this store is in its next listing of a followed prefix
// at once, at the version etcd gave it, even while the watch that would
// bring it lags (its stream held back, open); never an older version of
// it after that, when the watch catches up.
void TestEtcdFollowedListing::aListingShowsThisStoresOwnWriteAtOnce()
{
    CountingProxy proxy(etcdPort());
    auto store = etcdStore(viaProxy(proxy.port()), m_prefix);
    QVERIFY(store);
    store->followListing(kFollowed);
    StoreResult x = write(store.get(), kFollowed + QStringLiteral("x"), 1);
    QVERIFY(x.ok());
    QVERIFY(untilListedFromTheWatch(store.get(), &proxy));
    const int ranges = proxy.count(kRange);
    proxy.setHolding(QStringLiteral("POST /v3/watch"), true);
    for (int n = 2; n <= 4; ++n) {
        x = write(store.get(), x.entry.key, n, x.entry.version);
        QVERIFY2(x.ok(), qPrintable(x.errorString));
        QCOMPARE(shown(listed(store.get())), QStringList { shownEntry(x) });
    }
    proxy.setHolding(QStringLiteral("POST /v3/watch"), false);
    const StoreResult y = write(m_writer.get(), kFollowed + QStringLiteral("y"), 1);
    QVERIFY(y.ok());
    QTRY_COMPARE_WITH_TIMEOUT(shown(listed(store.get())), (QStringList { shownEntry(x), shownEntry(y) }), 10000);
    QCOMPARE(proxy.count(kRange), ranges);
}

// P3: the answer of this store's write may come after the watch showed
// it and a removal of the key by another client since: the listing keeps
// the key removed, as a range would show it.
void TestEtcdFollowedListing::aWriteAnsweredLateNeverUndoesALaterRemoval()
{
    CountingProxy proxy(etcdPort());
    auto store = etcdStore(viaProxy(proxy.port()), m_prefix);
    QVERIFY(store);
    store->followListing(kFollowed);
    const StoreResult x = write(store.get(), kFollowed + QStringLiteral("x"), 1);
    QVERIFY(x.ok());
    QVERIFY(untilListedFromTheWatch(store.get(), &proxy));

    proxy.setHolding(QStringLiteral("POST /v3/kv/txn"), true);
    auto answer = std::make_shared<std::optional<StoreResult>>();
    store->update(x.entry.key, doc(2), x.entry.version, [answer](const StoreResult &r) { *answer = r; });
    // The update lands (another client sees it), then that client removes the key.
    StoreResult seen;
    QTRY_VERIFY_WITH_TIMEOUT((seen = answerOf([&](Store::Callback done) { m_writer->get(x.entry.key, done); })).ok()
                                     && seen.entry.document == doc(2),
                             10000);
    QVERIFY(answerOf([&](Store::Callback done) { m_writer->remove(x.entry.key, seen.entry.version, done); }).ok());
    QTRY_COMPARE_WITH_TIMEOUT(shown(listed(store.get())), QStringList(), 10000);

    proxy.setHolding(QStringLiteral("POST /v3/kv/txn"), false);
    QTRY_VERIFY_WITH_TIMEOUT(answer->has_value(), 10000);
    QVERIFY2((*answer)->ok(), qPrintable((*answer)->errorString));
    QCOMPARE(shown(listed(store.get())), QStringList());
}

// P3, B1: while the watch is broken, a listing goes to etcd (and fails with
// it) rather than answer what the watch last showed. When the changes it
// missed were compacted away (a write and a removal) and the stream has
// caught up with a later write since, the next listing asks etcd again
// and shows all three, then lists from the watch once more. The listings
// have a stream of their own, apart from the leases' (whose span would
// otherwise take in every lease between `candidate:` and `cluster:`).
void TestEtcdFollowedListing::aBrokenWatchListsNothingStaleAndCompactionPrimesAgain()
{
    CountingProxy counting(etcdPort());
    TcpProxy cut(counting.port());
    QVERIFY(cut.listen());
    auto reader = etcdStore(viaProxy(cut.port()), m_prefix);
    QVERIFY(reader);
    reader->followListing(kFollowed);
    const StoreResult x = write(m_writer.get(), kFollowed + QStringLiteral("x"), 1);
    const StoreResult y = write(m_writer.get(), kFollowed + QStringLiteral("y"), 1);
    QVERIFY(x.ok() && y.ok());
    QVERIFY(untilListedFromTheWatch(reader.get(), &counting));
    QCOMPARE(shown(listed(reader.get())), (QStringList { shownEntry(x), shownEntry(y) }));
    // The listing's stream: no other watch of this store has one.
    const QList<EtcdWatchStream *> streams = reader->findChildren<EtcdWatchStream *>();
    QCOMPARE(streams.size(), 1);
    QSignalSpy changed(streams.first(), &EtcdWatchStream::entryChanged);
    QSignalSpy resynchronised(streams.first(), &EtcdWatchStream::resynchronise);

    cut.setRefusing(true);
    cut.cutAll();
    const StoreResult x2 = write(m_writer.get(), x.entry.key, 2, x.entry.version);
    QVERIFY(x2.ok());
    QVERIFY(answerOf([&](Store::Callback done) { m_writer->remove(y.entry.key, y.entry.version, done); }).ok());
    const StoreResult elsewhere = write(m_writer.get(), QStringLiteral("candidate:l2:z"), 1);
    QVERIFY(elsewhere.ok());
    const StoreResult whileCut = listed(reader.get());
    QVERIFY2(!whileCut.ok(), qPrintable(shown(whileCut).join(QLatin1Char(' '))));
    // The stream resumes after the last revision it saw, older than this.
    QVERIFY2(!m_etcd.etcdctl({ QStringLiteral("compact"), elsewhere.entry.version }).isNull(),
             qPrintable(m_etcd.errorString()));

    cut.setRefusing(false);
    QTRY_COMPARE_WITH_TIMEOUT(resynchronised.size(), 1, 10000);
    changed.clear();
    const StoreResult w = write(m_writer.get(), kFollowed + QStringLiteral("w"), 1);
    QVERIFY(w.ok());
    // The stream has caught up past the changes it lost: it would vouch for
    // a copy that had kept them.
    QTRY_VERIFY_WITH_TIMEOUT(!changed.isEmpty() && changed.last().at(1).toLongLong() == w.entry.version.toLongLong(),
                             10000);
    const int ranges = counting.count(kRange);
    QCOMPARE(shown(listed(reader.get())), (QStringList { shownEntry(w), shownEntry(x2) }));
    QCOMPARE(counting.count(kRange), ranges + 1);
    QVERIFY(untilListedFromTheWatch(reader.get(), &counting));
    const StoreResult x3 = write(m_writer.get(), x.entry.key, 3, x2.entry.version);
    QVERIFY(x3.ok());
    QTRY_COMPARE_WITH_TIMEOUT(shown(listed(reader.get())), (QStringList { shownEntry(w), shownEntry(x3) }), 10000);
}

QTEST_GUILESS_MAIN(TestEtcdFollowedListing)
#include "tst_etcdfollowedlisting.moc"
