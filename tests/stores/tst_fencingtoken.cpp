// F7: the fencing token (leaseTransitions when an instance became leader)
// never goes back, even when someone deletes the lease record, on the
// stores whose versions only grow: the memory store, the file store and a
// real etcd. The
// lease is driven through StoreLeaseProtocol, the way the Elector writes it:
// a create with transitions 0 when it found no record.

#include "leasebackendtesting.h"
#include "etcdfixture.h"
#include "etcdstore.h"
#include "filestore.h"
#include "memorystore.h"
#include <batoninternal/registrykey.h>
#include "storeleaseprotocol.h"

#include <QDateTime>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <memory>
#include <optional>

using namespace baton;

using baton::test::heldRecord;

namespace {

const QString kLease = QStringLiteral("fenced");

/*! One backend request, waited for with the event loop. */
std::optional<LeaseReply> await(const std::function<void(LeaseProtocol::Callback)> &request)
{
    std::optional<LeaseReply> reply;
    request([&reply](const LeaseReply &r) { reply = r; });
    if (!QTest::qWaitFor([&reply] { return reply.has_value(); }, 10000))
        return std::nullopt;
    return reply;
}

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

} // namespace

class TestFencingToken : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void memoryStoreKeepsTheTokenRisingAfterADeletedRecord();
    void etcdKeepsTheTokenRisingAfterADeletedRecord();
    void fileStoreKeepsTheTokenRisingWhenAnotherProcessCreatesAndRemovesBetweenOurReadAndOurCreate();

private:
    /*! Three terms on \a first, the record deleted, then a new term on \a second; its token. */
    void runTermsAroundADeletion(Store *first, Store *second, qint64 *lastToken,
                                 qint64 *newToken);
};

void TestFencingToken::runTermsAroundADeletion(Store *first, Store *second, qint64 *lastToken,
                                               qint64 *newToken)
{
    test::OneLease before(std::make_unique<StoreLeaseProtocol>(first), kLease);
    auto created = await([&](auto done) { before.create(heldRecord(QStringLiteral("a"), 0), std::nullopt, done); });
    QVERIFY(created);
    QCOMPARE(int(created->outcome), int(LeaseReply::Outcome::Ok));
    LeaseState state = created->state;
    // Two takeovers, as the Elector writes them: the transitions plus one.
    for (const QString &holder : { QStringLiteral("b"), QStringLiteral("c") }) {
        const LeaseRecord next = heldRecord(holder, state.record.transitions + 1);
        auto taken = await([&](auto done) { before.update(next, state.version, std::nullopt, done); });
        QVERIFY(taken);
        QCOMPARE(int(taken->outcome), int(LeaseReply::Outcome::Ok));
        state = taken->state;
    }
    *lastToken = state.record.transitions;

    // Someone deletes the record (an operator, a cleanup job).
    bool removed = false;
    first->remove(registryLeaseKey(kLease), QString(),
                  [&removed](const StoreResult &result) { removed = result.ok(); });
    QTRY_VERIFY(removed);

    // The next instance reads, finds nothing and creates from transitions 0.
    test::OneLease after(std::make_unique<StoreLeaseProtocol>(second), kLease);
    auto read = await([&](auto done) { after.read(done); });
    QVERIFY(read);
    QVERIFY(!read->state.exists);
    auto again = await([&](auto done) { after.create(heldRecord(QStringLiteral("d"), 0), std::nullopt, done); });
    QVERIFY(again);
    QCOMPARE(int(again->outcome), int(LeaseReply::Outcome::Ok));
    *newToken = again->state.record.transitions;
}

// F7 on the memory store: it remembers the last version of a removed key.
void TestFencingToken::memoryStoreKeepsTheTokenRisingAfterADeletedRecord()
{
    MemoryStore store(QStringLiteral("Registry"), QJsonObject(), nullptr);
    QString error;
    QVERIFY2(store.init(&error), qPrintable(error));
    qint64 lastToken = -1, newToken = -1;
    runTermsAroundADeletion(&store, &store, &lastToken, &newToken);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(lastToken, 2);
    QVERIFY2(newToken > lastToken,
             qPrintable(QStringLiteral("token %1 after %2").arg(newToken).arg(lastToken)));
}

// F7 on etcd: revisions only grow, and the read that found the record gone
// came after its deletion. A client of its own re-creates it, as another
// process would.
void TestFencingToken::etcdKeepsTheTokenRisingAfterADeletedRecord()
{
    test::EtcdFixture etcd("BATON_ETCD_DIR");
    if (!etcd.configured())
        QSKIP("no etcd fixture: run through ctest");
    const QStringList endpoints = etcd.endpoints();
    QVERIFY2(!endpoints.isEmpty(), qPrintable(etcd.errorString()));
    const QString prefix = QStringLiteral("fencing/%1/")
                                   .arg(QUuid::createUuid().toString(QUuid::WithoutBraces));
    QString error;
    auto first = etcdStore(endpoints, prefix, &error);
    QVERIFY2(first, qPrintable(error));
    auto second = etcdStore(endpoints, prefix, &error);
    QVERIFY2(second, qPrintable(error));
    qint64 lastToken = -1, newToken = -1;
    runTermsAroundADeletion(first.get(), second.get(), &lastToken, &newToken);
    if (QTest::currentTestFailed())
        return;
    QVERIFY2(newToken > lastToken,
             qPrintable(QStringLiteral("token %1 after %2").arg(newToken).arg(lastToken)));
}

// F7 on the file store, with another process between our read and our
// create: both find the record removed; the other creates it (the token
// its read allowed), takes it over once more and removes it again, all
// before our create. Our term must start above every token it held, not at
// the removal our read saw. Two stores on one folder stand for the two
// processes; each drives its own backend the way an Elector does.
void TestFencingToken::
        fileStoreKeepsTheTokenRisingWhenAnotherProcessCreatesAndRemovesBetweenOurReadAndOurCreate()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QJsonObject parameters { { QStringLiteral("folder"), dir.path() } };
    FileStore ours(QStringLiteral("Registry"), parameters, nullptr);
    FileStore theirs(QStringLiteral("Registry"), parameters, nullptr);
    QString error;
    QVERIFY2(ours.init(&error) && theirs.init(&error), qPrintable(error));

    test::OneLease we(std::make_unique<StoreLeaseProtocol>(&ours), kLease);
    test::OneLease they(std::make_unique<StoreLeaseProtocol>(&theirs), kLease);
    const auto removeTheRecord = [&theirs] {
        bool removed = false;
        theirs.remove(registryLeaseKey(kLease), QString(),
                      [&removed](const StoreResult &result) { removed = result.ok(); });
        return QTest::qWaitFor([&removed] { return removed; }, 10000);
    };
    // A lease with a past: a term, then the record removed.
    auto firstRead = await([&](auto done) { they.read(done); });
    QVERIFY(firstRead);
    auto first = await([&](auto done) { they.create(heldRecord(QStringLiteral("a"), 0), std::nullopt, done); });
    QVERIFY(first);
    QCOMPARE(int(first->outcome), int(LeaseReply::Outcome::Ok));
    QVERIFY(removeTheRecord());

    auto ourRead = await([&](auto done) { we.read(done); });
    QVERIFY(ourRead);
    QVERIFY(!ourRead->state.exists);

    // Between our read and our create: they read, create, take over again
    // and remove.
    auto theirRead = await([&](auto done) { they.read(done); });
    QVERIFY(theirRead);
    QVERIFY(!theirRead->state.exists);
    auto created = await([&](auto done) { they.create(heldRecord(QStringLiteral("e"), 0), std::nullopt, done); });
    QVERIFY(created);
    QCOMPARE(int(created->outcome), int(LeaseReply::Outcome::Ok));
    const LeaseRecord takeover = heldRecord(QStringLiteral("f"), created->state.record.transitions + 1);
    auto taken = await(
            [&](auto done) { they.update(takeover, created->state.version, std::nullopt, done); });
    QVERIFY(taken);
    QCOMPARE(int(taken->outcome), int(LeaseReply::Outcome::Ok));
    const qint64 theirLastToken = taken->state.record.transitions;
    QVERIFY(removeTheRecord());

    auto ourCreate = await([&](auto done) { we.create(heldRecord(QStringLiteral("g"), 0), std::nullopt, done); });
    QVERIFY(ourCreate);
    QCOMPARE(int(ourCreate->outcome), int(LeaseReply::Outcome::Ok));
    QVERIFY2(ourCreate->state.record.transitions > theirLastToken,
             qPrintable(QStringLiteral("token %1 after %2")
                                .arg(ourCreate->state.record.transitions)
                                .arg(theirLastToken)));
}

QTEST_GUILESS_MAIN(TestFencingToken)
#include "tst_fencingtoken.moc"
