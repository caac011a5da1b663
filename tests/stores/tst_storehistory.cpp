// O2: the holder changes a Registry election keeps in `history:<leaseName>`,
// with real elections on a memory store and a file store: written with each
// change of holder and never on a renewal, the last historyLength kept, a bad
// stored history ignored with one warning while the election goes on.

#include "filestore.h"
#include "filestoresteps.h"
#include "leasebackendtesting.h"
#include "memorystore.h"
#include "storeleaseprotocol.h"
#include "testsupport.h"

#include <baton/clusterservice.h>
#include <baton/store.h>
#include <batoninternal/leasehistory.h>
#include <batoninternal/storelease.h>
#include <memory>
#include <optional>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace baton;

namespace {

const QString kLease = QStringLiteral("leader");
const QString kLeaseKey = QStringLiteral("cluster:leader");
const QString kHistoryKey = QStringLiteral("history:leader");
// Short, so that an expiry takes a fraction of a second; scaled where the
// machine is slow (the sanitizer pass), or a clean stop can come past the
// leader's F4 deadline and its lease is left to expire instead of released.
const int kLeaseMs = int(baton::test::scaledMs(600));
const int kRenewMs = int(baton::test::scaledMs(100));
// Enough for a follower to see a lease expire and take it.
const int kTakeOverMs = 10 * kLeaseMs;

HistoryEntry change(const QString &from, const QString &to, qint64 transitions)
{
    HistoryEntry entry;
    entry.from = from;
    entry.to = to;
    entry.why = QStringLiteral("expired");
    entry.at = QDateTime::currentDateTimeUtc();
    entry.gapMs = 5;
    entry.transitions = transitions;
    return entry;
}

qsizetype compactSize(const QJsonObject &document)
{
    return QJsonDocument(document).toJson(QJsonDocument::Compact).size();
}

/*!
 * Ten changes between holders with long names, the last name grown until
 * the document is \a bytes long.
 */
QList<HistoryEntry> historyOfSize(qsizetype bytes)
{
    QList<HistoryEntry> changes;
    for (int i = 1; i <= 10; ++i)
        changes.append(change(QString(3000, QLatin1Char('a' + i - 1)), QString(3000, QLatin1Char('a' + i)), i));
    const qsizetype missing = bytes - compactSize(leasehistory::encode(changes));
    changes.last().to += QString(missing, QLatin1Char('z'));
    return changes;
}

} // namespace

class TestStoreHistory : public QObject
{
    Q_OBJECT

private:
    /*! The store of the current row, empty and initialised. */
    void openStore();
    /*! A Registry election for \a id on the store, started; nullptr (test failed) when refused. */
    ClusterService *join(const QString &id, const QJsonObject &extra = {});
    /*! The entry \a key as the store has it now. */
    StoreResult read(const QString &key);
    /*! The stored history's changes; the test fails when it cannot be read. */
    QList<HistoryEntry> history();
    void write(const QString &key, const QJsonObject &document);
    /*! Every row runs on both stores. */
    void addStoreColumn();
    /*!
     * With one warning matching \a warning (and no second), a first
     * participant takes the lease and the history starts again from it.
     */
    void expectHistoryStartedAgain(const QRegularExpression &warning);

    QTemporaryDir m_folder;
    std::unique_ptr<Store> m_store;
    std::vector<std::unique_ptr<ClusterService>> m_services;

private Q_SLOTS:
    void cleanup();
    void firstAcquireIsOneChangeAndRenewalsWriteNone_data() { addStoreColumn(); }
    void firstAcquireIsOneChangeAndRenewalsWriteNone();
    void crashThenCleanStopRecordExpiredThenReleased_data() { addStoreColumn(); }
    void crashThenCleanStopRecordExpiredThenReleased();
    void malformedHistoryWarnsOnceAndStartsAgain_data() { addStoreColumn(); }
    void malformedHistoryWarnsOnceAndStartsAgain();
    void historyLengthKeepsTheLastChanges_data() { addStoreColumn(); }
    void historyLengthKeepsTheLastChanges();
    void historyLengthZeroWritesNoHistory_data() { addStoreColumn(); }
    void historyLengthZeroWritesNoHistory();
    void historyLengthOutOfRangeIsRefused();
    void aHistoryNearTheLimitLosesItsOldestChangesToFit_data() { addStoreColumn(); }
    void aHistoryNearTheLimitLosesItsOldestChangesToFit();
    void aHistoryTooLargeIsIgnoredWithOneWarning_data() { addStoreColumn(); }
    void aHistoryTooLargeIsIgnoredWithOneWarning();
    void encodeWithinKeepsTheNewestChangesThatFit();
    void aLateHistoryWriteNeverErasesTheSuccessorsChange_data();
    void aLateHistoryWriteNeverErasesTheSuccessorsChange();
};

void TestStoreHistory::addStoreColumn()
{
    QTest::addColumn<QString>("store");
    QTest::newRow("on a memory store") << "memory";
    QTest::newRow("on a file store") << "file";
}

void TestStoreHistory::openStore()
{
    QFETCH(QString, store);
    QVERIFY(m_folder.isValid());
    if (store == QLatin1String("memory")) {
        m_store = std::make_unique<MemoryStore>(QStringLiteral("Registry"), QJsonObject(), nullptr);
    } else {
        // A folder of its own per row: the file store keeps what it wrote.
        const QString folder = m_folder.filePath(QString::fromLatin1(QTest::currentDataTag())
                                                         .replace(QLatin1Char(' '), QLatin1Char('-'))
                                                 + QLatin1Char('-')
                                                 + QString::fromLatin1(QTest::currentTestFunction()));
        m_store = std::make_unique<FileStore>(
                QStringLiteral("Registry"), QJsonObject {{QStringLiteral("folder"), folder}}, nullptr);
    }
    QString error;
    QVERIFY2(m_store->init(&error), qPrintable(error));
}

ClusterService *TestStoreHistory::join(const QString &id, const QJsonObject &extra)
{
    QJsonObject parameters {{QStringLiteral("instanceId"), id},
                            {QStringLiteral("leaseName"), kLease},
                            {QStringLiteral("leaseDuration"), kLeaseMs},
                            {QStringLiteral("renewInterval"), kRenewMs}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        parameters.insert(it.key(), it.value());
    std::unique_ptr<ClusterService> service(createStoreElection(m_store.get(), id, parameters));
    QString error;
    if (!service->init(&error)) {
        qWarning("%s", qPrintable(error));
        return nullptr;
    }
    m_services.push_back(std::move(service));
    return m_services.back().get();
}

StoreResult TestStoreHistory::read(const QString &key)
{
    std::optional<StoreResult> result;
    m_store->get(key, [&result](const StoreResult &r) { result = r; });
    // The store answers on a later turn; a bound only for a broken store.
    if (!QTest::qWaitFor([&result] { return result.has_value(); }, 5000))
        qWarning("the store did not answer a get of %s", qPrintable(key));
    return result.value_or(StoreResult {StoreResult::Status::Unavailable, {}, false, {}, {}});
}

QList<HistoryEntry> TestStoreHistory::history()
{
    const StoreResult stored = read(kHistoryKey);
    QList<HistoryEntry> changes;
    QString error;
    if (!stored.ok())
        qWarning("no history: %s", qPrintable(stored.errorString));
    else if (!leasehistory::decode(stored.entry.document, &changes, &error))
        qWarning("history unreadable: %s", qPrintable(error));
    return changes;
}

void TestStoreHistory::write(const QString &key, const QJsonObject &document)
{
    std::optional<StoreResult> result;
    m_store->create(key, document, [&result](const StoreResult &r) { result = r; });
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 5000);
    QVERIFY2(result->ok(), qPrintable(result->errorString));
}

void TestStoreHistory::expectHistoryStartedAgain(const QRegularExpression &warning)
{
    QTest::ignoreMessage(QtWarningMsg, warning);
    QTest::failOnWarning(warning); // a second one
    ClusterService *a = join(QStringLiteral("a"));
    QVERIFY(a);
    QTRY_VERIFY_WITH_TIMEOUT(a->isLeader(), kTakeOverMs);
    QTRY_COMPARE_WITH_TIMEOUT(history().size(), 1, kTakeOverMs);
    QCOMPARE(history().constFirst().to, QStringLiteral("a"));
    QCOMPARE(history().constFirst().why, QStringLiteral("first-acquire"));
}

void TestStoreHistory::cleanup()
{
    m_services.clear();
    m_store.reset();
}

// O2: the first acquisition is one change; renewals leave the history as it was.
void TestStoreHistory::firstAcquireIsOneChangeAndRenewalsWriteNone()
{
    openStore();
    ClusterService *a = join(QStringLiteral("a"));
    QVERIFY(a);
    QTRY_VERIFY_WITH_TIMEOUT(a->isLeader(), kTakeOverMs);

    QTRY_COMPARE_WITH_TIMEOUT(history().size(), 1, kTakeOverMs);
    const HistoryEntry first = history().constFirst();
    QCOMPARE(first.from, QString());
    QCOMPARE(first.to, QStringLiteral("a"));
    QCOMPARE(first.why, QStringLiteral("first-acquire"));
    QCOMPARE(first.transitions, a->fencingToken());
    const QString historyVersion = read(kHistoryKey).entry.version;

    // Three renewals: the lease record's version moves three times.
    const QString leaseVersion = read(kLeaseKey).entry.version;
    int renewals = 0;
    QString seen = leaseVersion;
    QTRY_VERIFY_WITH_TIMEOUT(([&] {
                                 const QString now = read(kLeaseKey).entry.version;
                                 if (now != seen) {
                                     seen = now;
                                     ++renewals;
                                 }
                                 return renewals >= 3;
                             }()),
                             kTakeOverMs);
    QVERIFY(a->isLeader());
    QCOMPARE(read(kHistoryKey).entry.version, historyVersion);
    QCOMPARE(history().size(), 1);
}

// O2: a crashed leader's lease taken after expiry is an expired change; a
// clean stop handed to a follower is one released change from it to the next.
void TestStoreHistory::crashThenCleanStopRecordExpiredThenReleased()
{
    openStore();
    ClusterService *a = join(QStringLiteral("a"));
    QVERIFY(a);
    QTRY_VERIFY_WITH_TIMEOUT(a->isLeader(), kTakeOverMs);
    ClusterService *b = join(QStringLiteral("b"));
    QVERIFY(b);
    QTRY_COMPARE_WITH_TIMEOUT(b->currentHolder(), QStringLiteral("a"), kTakeOverMs);

    // A crash: the service goes without releasing its lease.
    m_services.erase(m_services.begin());
    QTRY_VERIFY_WITH_TIMEOUT(b->isLeader(), kTakeOverMs);

    ClusterService *c = join(QStringLiteral("c"));
    QVERIFY(c);
    QTRY_COMPARE_WITH_TIMEOUT(c->currentHolder(), QStringLiteral("b"), kTakeOverMs);
    b->stop();
    QTRY_VERIFY_WITH_TIMEOUT(c->isLeader(), kTakeOverMs);

    QTRY_COMPARE_WITH_TIMEOUT(history().size(), 3, kTakeOverMs);
    const QList<HistoryEntry> changes = history();
    QCOMPARE(changes.at(0).why, QStringLiteral("first-acquire"));
    QCOMPARE(changes.at(0).to, QStringLiteral("a"));

    QCOMPARE(changes.at(1).why, QStringLiteral("expired"));
    QCOMPARE(changes.at(1).from, QStringLiteral("a"));
    QCOMPARE(changes.at(1).to, QStringLiteral("b"));
    QVERIFY2(changes.at(1).gapMs >= 0, qPrintable(QString::number(changes.at(1).gapMs)));

    QCOMPARE(changes.at(2).why, QStringLiteral("released"));
    QCOMPARE(changes.at(2).from, QStringLiteral("b"));
    QCOMPARE(changes.at(2).to, QStringLiteral("c"));
    QVERIFY2(changes.at(2).gapMs >= 0, qPrintable(QString::number(changes.at(2).gapMs)));

    // F7: each change names the term it began, one more than the one before.
    QCOMPARE(changes.at(2).transitions, c->fencingToken());
    QVERIFY(changes.at(0).transitions < changes.at(1).transitions);
    QVERIFY(changes.at(1).transitions < changes.at(2).transitions);
}

// O2: a stored history this client cannot read is no error of the election:
// one warning, the lease is taken, and the history starts again from it.
void TestStoreHistory::malformedHistoryWarnsOnceAndStartsAgain()
{
    openStore();
    write(kHistoryKey, QJsonObject {{QStringLiteral("v"), 9}});
    const QRegularExpression warning(QStringLiteral("lease history \"history:leader\" ignored and "
                                                    "started again: field \"v\" must be 1"));
    expectHistoryStartedAgain(warning);
}

// O2: with historyLength 3, the change appended to five stored ones leaves the last three.
void TestStoreHistory::historyLengthKeepsTheLastChanges()
{
    openStore();
    QList<HistoryEntry> stored;
    for (int i = 1; i <= 5; ++i)
        stored.append(change(QStringLiteral("old%1").arg(i - 1), QStringLiteral("old%1").arg(i), i));
    write(kHistoryKey, leasehistory::encode(stored));

    ClusterService *a = join(QStringLiteral("a"), {{QStringLiteral("historyLength"), 3}});
    QVERIFY(a);
    QTRY_VERIFY_WITH_TIMEOUT(a->isLeader(), kTakeOverMs);
    QTRY_COMPARE_WITH_TIMEOUT(history().constLast().to, QStringLiteral("a"), kTakeOverMs);
    const QList<HistoryEntry> changes = history();
    QCOMPARE(changes.size(), 3);
    QCOMPARE(changes.at(0), stored.at(3));
    QCOMPARE(changes.at(1), stored.at(4));
}

// O2: historyLength 0 keeps no history: the lease alone is written.
void TestStoreHistory::historyLengthZeroWritesNoHistory()
{
    openStore();
    ClusterService *a = join(QStringLiteral("a"), {{QStringLiteral("historyLength"), 0}});
    QVERIFY(a);
    QTRY_VERIFY_WITH_TIMEOUT(a->isLeader(), kTakeOverMs);
    QCOMPARE(read(kLeaseKey).status, StoreResult::Status::Ok);
    QCOMPARE(read(kHistoryKey).status, StoreResult::Status::NotFound);
}

// P1: a historyLength out of 0..1000 is refused naming service, parameter and value.
void TestStoreHistory::historyLengthOutOfRangeIsRefused()
{
    m_store = std::make_unique<MemoryStore>(QStringLiteral("Registry"), QJsonObject(), nullptr);
    QString error;
    QVERIFY(m_store->init(&error));
    std::unique_ptr<ClusterService> service(createStoreElection(
            m_store.get(), QStringLiteral("cluster"),
            {{QStringLiteral("historyLength"), 1001}}));
    QVERIFY(!service->init(&error));
    QVERIFY2(error.contains(QStringLiteral("service \"cluster\"")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("\"historyLength\" = 1001")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("from 0 to 1000")), qPrintable(error));
}

// O2: a writer never stores a history its readers would refuse: appending
// to one just under maxDocumentBytes drops its oldest changes until it fits.
void TestStoreHistory::aHistoryNearTheLimitLosesItsOldestChangesToFit()
{
    openStore();
    const QList<HistoryEntry> stored = historyOfSize(leasehistory::maxDocumentBytes - 50);
    QCOMPARE(compactSize(leasehistory::encode(stored)), leasehistory::maxDocumentBytes - 50);
    write(kHistoryKey, leasehistory::encode(stored));

    ClusterService *a = join(QStringLiteral("a"));
    QVERIFY(a);
    QTRY_VERIFY_WITH_TIMEOUT(a->isLeader(), kTakeOverMs);
    // Empty while unreadable: a history the writer did not trim is refused.
    QTRY_VERIFY_WITH_TIMEOUT(!history().isEmpty() && history().constLast().to == QLatin1String("a"),
                             kTakeOverMs);
    const StoreResult written = read(kHistoryKey);
    QVERIFY2(compactSize(written.entry.document) <= leasehistory::maxDocumentBytes,
             qPrintable(QString::number(compactSize(written.entry.document))));
    const QList<HistoryEntry> changes = history();
    QCOMPARE(changes.size(), stored.size()); // the oldest went, the new one came
    QCOMPARE(changes.constFirst(), stored.at(1));
    QCOMPARE(changes.at(changes.size() - 2), stored.constLast());
}

// O2: what Registry and Kubernetes writers store: a document at the limit
// whole; one byte over loses its oldest change; a single change over it
// stays, for the readers to refuse.
void TestStoreHistory::encodeWithinKeepsTheNewestChangesThatFit()
{
    const QList<HistoryEntry> atLimit = historyOfSize(leasehistory::maxDocumentBytes);
    QCOMPARE(leasehistory::encodeWithin(atLimit), leasehistory::encode(atLimit));
    const QList<HistoryEntry> over = historyOfSize(leasehistory::maxDocumentBytes + 1);
    QCOMPARE(leasehistory::encodeWithin(over), leasehistory::encode(over.mid(1)));
    HistoryEntry huge = change(QString(), QString(leasehistory::maxDocumentBytes, QLatin1Char('h')), 1);
    QCOMPARE(leasehistory::encodeWithin({huge}), leasehistory::encode({huge}));
}

// O2: a stored history over maxDocumentBytes is one warning, and the
// history starts again from the change that takes the lease.
void TestStoreHistory::aHistoryTooLargeIsIgnoredWithOneWarning()
{
    openStore();
    write(kHistoryKey, leasehistory::encode(historyOfSize(leasehistory::maxDocumentBytes + 1)));
    const QRegularExpression warning(
            QStringLiteral("lease history \"history:leader\" ignored and started again: %1 bytes, more than the %2")
                    .arg(leasehistory::maxDocumentBytes + 1)
                    .arg(leasehistory::maxDocumentBytes));
    expectHistoryStartedAgain(warning);
}

namespace {

/*! What a backend's call answered, once it has. */
std::optional<LeaseReply> answerOf(const std::function<void(LeaseProtocol::Callback)> &call)
{
    std::optional<LeaseReply> reply;
    call([&reply](const LeaseReply &r) { reply = r; });
    // A bound only for a broken store.
    if (!QTest::qWaitFor([&reply] { return reply.has_value(); }, 5000))
        qWarning("the backend did not answer");
    return reply;
}

LeaseRecord recordOf(const QString &holder, qint64 transitions)
{
    LeaseRecord record;
    record.holder = holder;
    record.leaseDurationMs = kLeaseMs;
    record.acquireTime = record.renewTime = QDateTime::currentDateTimeUtc();
    record.transitions = transitions;
    return record;
}

} // namespace

// R7, O2: the reproduction on the file store, whose history write
// comes after the lease write. A leader frozen between the two, resumed
// after a successor took its lease and stored that change, keeps the
// successor's change and puts its own before it: the story of the failover
// stays true. So it does when A could not read the history (a corrupt file
// that B's write then replaced): what A read tells nothing of what B wrote.
void TestStoreHistory::aLateHistoryWriteNeverErasesTheSuccessorsChange_data()
{
    QTest::addColumn<bool>("unreadable");
    QTest::newRow("over a history A read") << false;
    QTest::newRow("over a history A could not read") << true;
}

void TestStoreHistory::aLateHistoryWriteNeverErasesTheSuccessorsChange()
{
    QFETCH(bool, unreadable);
    QVERIFY(m_folder.isValid());
    const QString folder = m_folder.filePath(unreadable ? QStringLiteral("late-unreadable")
                                                        : QStringLiteral("late"));
    const QJsonObject parameters { { QStringLiteral("folder"), folder } };
    if (unreadable) {
        QVERIFY(QDir().mkpath(folder));
        QFile corrupt(folder + QLatin1Char('/') + FileStore::fileNameForKey(kHistoryKey, 1));
        QVERIFY(corrupt.open(QIODevice::WriteOnly));
        QVERIFY(corrupt.write("{ not json") > 0);
        corrupt.close();
        // A and B each say once that they could not read it.
        const QRegularExpression warning(QStringLiteral("lease history \"history:leader\""));
        QTest::ignoreMessage(QtWarningMsg, warning);
        QTest::ignoreMessage(QtWarningMsg, warning);
    }
    FileStore storeA(QStringLiteral("Registry"), parameters, nullptr);
    FileStore storeB(QStringLiteral("Registry"), parameters, nullptr);
    QString error;
    QVERIFY2(storeA.init(&error), qPrintable(error));
    QVERIFY2(storeB.init(&error), qPrintable(error));
    test::OneLease a(std::make_unique<StoreLeaseProtocol>(&storeA), kLease);
    test::OneLease b(std::make_unique<StoreLeaseProtocol>(&storeB), kLease);

    // A is frozen right after its lease write is won, before its history
    // write; while it is, B takes the lease over and stores that change.
    bool frozen = false;
    std::optional<LeaseReply> takeover;
    filestoresteps::setHook(&storeA, [&](filestoresteps::WriteStep at) {
        if (at != filestoresteps::WriteStep::Verified || frozen)
            return;
        frozen = true;
        const std::optional<LeaseReply> seen = answerOf([&b](auto done) { b.read(done); });
        if (!seen || seen->outcome != LeaseReply::Outcome::Ok || !seen->state.exists)
            return;
        takeover = answerOf([&](auto done) {
            b.update(recordOf(QStringLiteral("b"), seen->state.record.transitions + 1),
                     seen->state.version, change(QStringLiteral("a"), QStringLiteral("b"), 0), done);
        });
    });
    const std::optional<LeaseReply> acquired = answerOf([&](auto done) {
        a.create(recordOf(QStringLiteral("a"), 1), change(QString(), QStringLiteral("a"), 0), done);
    });
    QVERIFY(frozen);
    QVERIFY(acquired);
    QCOMPARE(acquired->outcome, LeaseReply::Outcome::Ok);
    QVERIFY(takeover);
    QCOMPARE(takeover->outcome, LeaseReply::Outcome::Ok);

    m_store = std::make_unique<FileStore>(QStringLiteral("Registry"), parameters, nullptr);
    QVERIFY2(m_store->init(&error), qPrintable(error));
    QCOMPARE(read(kLeaseKey).entry.document.value(QLatin1String("holderIdentity")).toString(),
             QStringLiteral("b"));
    const QList<HistoryEntry> stored = history();
    QCOMPARE(stored.size(), 2);
    QCOMPARE(stored.at(0).to, QStringLiteral("a"));
    QCOMPARE(stored.at(0).transitions, acquired->state.record.transitions);
    QCOMPARE(stored.at(1).from, QStringLiteral("a"));
    QCOMPARE(stored.at(1).to, QStringLiteral("b"));
    QCOMPARE(stored.at(1).transitions, takeover->state.record.transitions);
}

QTEST_GUILESS_MAIN(TestStoreHistory)
#include "tst_storehistory.moc"
