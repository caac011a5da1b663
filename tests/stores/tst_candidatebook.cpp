// The candidate records that preference and drain (H2, H3) build on,
// through the public Store API on the memory store, the file store (two
// store objects on one folder, as two processes have) and a real etcd (two
// clients), and as ConfigMaps on the test Lease API server (two API
// clients): a record is created once, replaced only from the version read,
// listed with its lease's candidates only, removed; an odd record is
// refused or read safely.

#include "etcdfixture.h"
#include "etcdstore.h"
#include "filestore.h"
#include "kubeapiclient.h"
#include "kubecandidaterecords.h"
#include "kubernetesleaseprotocol.h"
#include "kuberunrecords.h"
#include "leaseapiserver.h"
#include "memorystore.h"

#include <batoninternal/candidatebook.h>
#include <batoninternal/runledger.h>

#include <baton/store.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <memory>
#include <optional>

using namespace baton;

namespace {

const QString kLease = QStringLiteral("cron");

struct Outcome
{
    bool ok = false;
    CandidateRecord record;
    QString error;
};

struct ReadOutcome
{
    bool ok = false;
    std::optional<CandidateRecord> record;
    QString error;
    bool answered = false;
};

Outcome await(const std::function<void(CandidateBook::Done)> &request)
{
    std::optional<Outcome> outcome;
    request([&outcome](bool ok, const CandidateRecord &record, const QString &error) {
        outcome = Outcome {ok, record, error};
    });
    if (!QTest::qWaitFor([&outcome] { return outcome.has_value(); }, 10000))
        return Outcome {false, {}, QStringLiteral("no answer")};
    return *outcome;
}

ReadOutcome readOf(CandidateBook &book, const QString &instance)
{
    ReadOutcome outcome;
    book.read(instance, [&outcome](bool ok, const std::optional<CandidateRecord> &record, const QString &error) {
        outcome = ReadOutcome {ok, record, error, true};
    });
    (void)QTest::qWaitFor([&outcome] { return outcome.answered; }, 10000);
    return outcome;
}

QList<CandidateRecord> listed(CandidateBook &book)
{
    std::optional<QList<CandidateRecord>> records;
    book.list([&records](bool ok, const QList<CandidateRecord> &found, const QString &) {
        records = ok ? found : QList<CandidateRecord>();
    });
    (void)QTest::qWaitFor([&records] { return records.has_value(); }, 10000);
    return records.value_or(QList<CandidateRecord>());
}

QStringList instancesOf(const QList<CandidateRecord> &records)
{
    QStringList instances;
    for (const CandidateRecord &record : records)
        instances.append(record.instance);
    return instances;
}

CandidateRecord announced(const QString &instance, int priority = 0)
{
    CandidateRecord record;
    record.instance = instance;
    record.incarnation = QUuid::createUuid().toString(QUuid::WithoutBraces);
    record.priority = priority;
    record.heartbeat = QDateTime::currentDateTimeUtc();
    record.heartbeatIntervalMs = 15000;
    return record;
}

} // namespace

class TestCandidateBook : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();

    void stores_data();
    void aSecondCreateOfAnInstanceConflicts_data() { stores_data(); }
    void aSecondCreateOfAnInstanceConflicts();
    void aReplaceFromAVersionThatMovedOnConflicts_data() { stores_data(); }
    void aReplaceFromAVersionThatMovedOnConflicts();
    void everyFieldIsKeptAndReadBack_data() { stores_data(); }
    void everyFieldIsKeptAndReadBack();
    void anInstanceWithoutARecordReadsAsNone_data() { stores_data(); }
    void anInstanceWithoutARecordReadsAsNone();
    void onlyTheLeasesCandidatesAreListed_data() { stores_data(); }
    void onlyTheLeasesCandidatesAreListed();
    void aRemovedRecordIsGoneButNotOneWrittenSince_data() { stores_data(); }
    void aRemovedRecordIsGoneButNotOneWrittenSince();
    void anOddDocumentIsNotListedAndIsReplaceable_data() { stores_data(); }
    void anOddDocumentIsNotListedAndIsReplaceable();

    void oddFieldsReadAsTheirDefaults();
    void aDocumentWithoutAnInstanceIsNoRecord();

private:
    /*! Two stores on the same data, as two instances have. */
    bool openStores();
    /*! A book of \a lease on the first store (or API client), or on the second. */
    std::unique_ptr<CandidateBook> book(bool second, const QString &lease = kLease);
    /*! Puts \a document, which is not a candidate record, where \a instance's would be. */
    bool putOdd(const QString &instance, const QJsonObject &document);

    QTemporaryDir m_folder;
    std::unique_ptr<Store> m_first;
    std::unique_ptr<Store> m_second;
    Store *m_secondStore = nullptr;
    std::unique_ptr<test::LeaseApiServer> m_server;
    std::unique_ptr<KubernetesLeaseProtocol> m_kubeFirst;
    std::unique_ptr<KubernetesLeaseProtocol> m_kubeSecond;
};

void TestCandidateBook::stores_data()
{
    QTest::addColumn<QString>("store");
    QTest::newRow("on a memory store") << "memory";
    QTest::newRow("on a file store") << "file";
    QTest::newRow("on etcd") << "etcd";
    QTest::newRow("on the Lease API server") << "kubernetes";
}

void TestCandidateBook::init()
{
    m_first.reset();
    m_second.reset();
    m_secondStore = nullptr;
    m_kubeFirst.reset();
    m_kubeSecond.reset();
    m_server.reset();
}

void TestCandidateBook::cleanup()
{
    init();
}

std::unique_ptr<CandidateBook> TestCandidateBook::book(bool second, const QString &lease)
{
    if (m_server) {
        KubeApiClient *api = (second ? m_kubeSecond : m_kubeFirst)->api();
        return std::make_unique<CandidateBook>(
                std::make_unique<KubeCandidateRecords>(api, QStringLiteral("jobs"), lease), lease);
    }
    return std::make_unique<CandidateBook>(second ? m_secondStore : m_first.get(), lease);
}

bool TestCandidateBook::putOdd(const QString &instance, const QJsonObject &document)
{
    if (m_server) {
        // As a person would with kubectl: the candidate's name and labels, another content.
        const QJsonObject configMap {
                {QStringLiteral("apiVersion"), QStringLiteral("v1")},
                {QStringLiteral("kind"), QStringLiteral("ConfigMap")},
                {QStringLiteral("metadata"),
                 QJsonObject {{QStringLiteral("name"), KubeCandidateRecords::objectName(kLease, instance)},
                              {QStringLiteral("labels"),
                               QJsonObject {{KubeCandidateRecords::leaseLabel, kLease},
                                            {QStringLiteral("app.kubernetes.io/managed-by"), QStringLiteral("baton")}}}}},
                {QStringLiteral("data"),
                 QJsonObject {{QStringLiteral("record"),
                               QString::fromUtf8(QJsonDocument(document).toJson(QJsonDocument::Compact))}}}};
        std::optional<bool> created;
        KubeApiClient *api = m_kubeFirst->api();
        api->send("POST", api->configMapsUrl(QStringLiteral("jobs")), configMap,
                  [&created](const HttpResult &result) { created = result.ok(); });
        return QTest::qWaitFor([&created] { return created.has_value(); }, 10000) && *created;
    }
    std::optional<StoreResult> result;
    m_first->create(CandidateBook::key(kLease, instance), document,
                    [&result](const StoreResult &answer) { result = answer; });
    return QTest::qWaitFor([&result] { return result.has_value(); }, 10000) && result->ok();
}

bool TestCandidateBook::openStores()
{
    const QString kind = QTest::currentDataTag() ? QString::fromLatin1(QTest::currentDataTag()) : QString();
    QString error;
    if (kind.endsWith(QLatin1String("Lease API server"))) {
        m_server = std::make_unique<test::LeaseApiServer>();
        if (!m_server->listen(&error))
            qFatal("%s", qPrintable(error));
        // What the participant's Role grants on configmaps.
        m_server->addToken(QStringLiteral("candidates-test-token"), QStringLiteral("candidates"),
                           {QStringLiteral("configmaps/get"), QStringLiteral("configmaps/list"),
                            QStringLiteral("configmaps/create"), QStringLiteral("configmaps/update"),
                            QStringLiteral("configmaps/delete")});
        KubeClientConfig config;
        config.server = m_server->url();
        config.token = QStringLiteral("candidates-test-token");
        config.namespaceName = QStringLiteral("jobs");
        config.source = QStringLiteral("the test");
        m_kubeFirst = std::make_unique<KubernetesLeaseProtocol>(config, false, 5000);
        m_kubeSecond = std::make_unique<KubernetesLeaseProtocol>(config, false, 5000);
        if (!m_kubeFirst->setUp(&error) || !m_kubeSecond->setUp(&error))
            qFatal("%s", qPrintable(error));
        return true;
    }
    if (kind.endsWith(QLatin1String("memory store")) || kind.isEmpty()) {
        m_first = std::make_unique<MemoryStore>(QStringLiteral("Registry"), QJsonObject(), nullptr);
        m_secondStore = m_first.get();
    } else if (kind.endsWith(QLatin1String("file store"))) {
        const QString folder = m_folder.filePath(QString::fromLatin1(QTest::currentTestFunction()));
        const QJsonObject parameters {{QStringLiteral("folder"), folder}};
        m_first = std::make_unique<FileStore>(QStringLiteral("Registry"), parameters, nullptr);
        m_second = std::make_unique<FileStore>(QStringLiteral("Registry"), parameters, nullptr);
    } else {
        test::EtcdFixture etcd("BATON_ETCD_DIR");
        if (!etcd.configured())
            return false;
        const QJsonObject parameters {
                {QStringLiteral("endpoints"), QJsonArray::fromStringList(etcd.endpoints())},
                {QStringLiteral("prefix"), QStringLiteral("/candidatebook-%1/")
                                                   .arg(QUuid::createUuid().toString(QUuid::Id128))}};
        m_first = std::make_unique<EtcdStore>(QStringLiteral("Registry"), parameters, nullptr);
        m_second = std::make_unique<EtcdStore>(QStringLiteral("Registry"), parameters, nullptr);
    }
    if (!m_first->init(&error) || (m_second && !m_second->init(&error)))
        qFatal("%s", qPrintable(error));
    if (m_second)
        m_secondStore = m_second.get();
    return true;
}

#define OPEN_STORES()                                                                              \
    if (!openStores())                                                                             \
        QSKIP("no etcd fixture: run through ctest");

void TestCandidateBook::aSecondCreateOfAnInstanceConflicts()
{
    // H2, H3: one record per instance and lease; a second create loses, it does not fail.
    OPEN_STORES();
    const auto a = book(false);
    const auto b = book(true);
    const Outcome first = await([&](auto done) { a->create(announced(QStringLiteral("web-1"), 5), done); });
    QVERIFY2(first.ok, qPrintable(first.error));
    QVERIFY(!first.record.version.isEmpty());
    const Outcome second = await([&](auto done) { b->create(announced(QStringLiteral("web-1"), 7), done); });
    QVERIFY(!second.ok);
    QVERIFY2(second.error.isEmpty(), qPrintable(second.error));
    const ReadOutcome read = readOf(*b, QStringLiteral("web-1"));
    QVERIFY2(read.ok && read.record, qPrintable(read.error));
    QCOMPARE(read.record->priority, 5);
    QCOMPARE(read.record->version, first.record.version);
}

void TestCandidateBook::aReplaceFromAVersionThatMovedOnConflicts()
{
    // H3: an operator's drain and the candidate's heartbeat never overwrite each other blindly.
    OPEN_STORES();
    const auto candidate = book(false);
    const auto operatorBook = book(true);
    const Outcome created = await([&](auto done) { candidate->create(announced(QStringLiteral("web-2")), done); });
    QVERIFY2(created.ok, qPrintable(created.error));

    const ReadOutcome seen = readOf(*operatorBook, QStringLiteral("web-2"));
    QVERIFY2(seen.ok && seen.record, qPrintable(seen.error));
    CandidateRecord drained = *seen.record;
    drained.drained = true;
    drained.drainedBy = QStringLiteral("operator");
    drained.drainedAt = QDateTime::currentDateTimeUtc();
    const Outcome drain = await([&](auto done) { operatorBook->replace(*seen.record, drained, done); });
    QVERIFY2(drain.ok, qPrintable(drain.error));
    QVERIFY(drain.record.version != created.record.version);

    // The candidate's heartbeat from the version it wrote: that version moved on.
    CandidateRecord beat = created.record;
    beat.heartbeat = QDateTime::currentDateTimeUtc();
    const Outcome late = await([&](auto done) { candidate->replace(created.record, beat, done); });
    QVERIFY(!late.ok);
    QVERIFY2(late.error.isEmpty(), qPrintable(late.error));
    const ReadOutcome now = readOf(*candidate, QStringLiteral("web-2"));
    QVERIFY(now.record);
    QVERIFY(now.record->drained);
    QCOMPARE(now.record->version, drain.record.version);

    // From the version read now, it goes through.
    CandidateRecord again = *now.record;
    again.heartbeat = QDateTime::currentDateTimeUtc();
    const Outcome retried = await([&](auto done) { candidate->replace(*now.record, again, done); });
    QVERIFY2(retried.ok, qPrintable(retried.error));

    // Nothing read, nothing replaced: no blind write.
    CandidateRecord unread = again;
    unread.version.clear();
    const Outcome blind = await([&](auto done) { candidate->replace(unread, again, done); });
    QVERIFY(!blind.ok);
    QVERIFY(!blind.error.isEmpty());
}

void TestCandidateBook::everyFieldIsKeptAndReadBack()
{
    OPEN_STORES();
    const auto writer = book(false);
    const auto reader = book(true);
    CandidateRecord record = announced(QStringLiteral("web-3"), -20);
    record.drained = true;
    record.drainedBy = QStringLiteral("standby");
    record.drainedAt = QDateTime::currentDateTimeUtc().addSecs(-60);
    record.heartbeatIntervalMs = 2500;
    record.left = true;
    QVERIFY(await([&](auto done) { writer->create(record, done); }).ok);
    const ReadOutcome read = readOf(*reader, QStringLiteral("web-3"));
    QVERIFY(read.record);
    QCOMPARE(read.record->instance, record.instance);
    QCOMPARE(read.record->incarnation, record.incarnation);
    QCOMPARE(read.record->priority, -20);
    QVERIFY(read.record->drained);
    QCOMPARE(read.record->drainedBy, QStringLiteral("standby"));
    QCOMPARE(read.record->drainedAt, record.drainedAt.toUTC());
    QCOMPARE(read.record->heartbeat, record.heartbeat.toUTC());
    QCOMPARE(read.record->heartbeatIntervalMs, 2500);
    QVERIFY(read.record->left);
    const QList<CandidateRecord> records = listed(*reader);
    QCOMPARE(records.size(), 1);
    QCOMPARE(records.first().toJson(), read.record->toJson());
    QCOMPARE(records.first().version, read.record->version);
}

void TestCandidateBook::anInstanceWithoutARecordReadsAsNone()
{
    OPEN_STORES();
    const auto candidates = book(false);
    const ReadOutcome read = readOf(*candidates, QStringLiteral("nobody"));
    QVERIFY(read.answered);
    QVERIFY2(read.ok, qPrintable(read.error));
    QVERIFY(!read.record);
}

void TestCandidateBook::onlyTheLeasesCandidatesAreListed()
{
    OPEN_STORES();
    const auto cron = book(false);
    // A lease whose name starts with the other's.
    const auto cronjob = book(false, kLease + QStringLiteral("job"));
    QVERIFY(await([&](auto done) { cron->create(announced(QStringLiteral("web-2")), done); }).ok);
    QVERIFY(await([&](auto done) { cron->create(announced(QStringLiteral("web-1")), done); }).ok);
    QVERIFY(await([&](auto done) { cronjob->create(announced(QStringLiteral("web-9")), done); }).ok);
    // The same lease's run records live beside the candidates.
    const auto runs = m_server ? std::make_unique<RunLedger>(
                                         std::make_unique<KubeRunRecords>(m_kubeFirst->api(), QStringLiteral("jobs"), kLease),
                                         kLease)
                               : std::make_unique<RunLedger>(m_first.get(), kLease);
    RunRecord run;
    run.tick = QStringLiteral("2026-12-01T03:00:00Z");
    run.instance = QStringLiteral("web-1");
    run.start = QDateTime::currentDateTimeUtc();
    run.outcome = RunRecord::running;
    std::optional<bool> claimed;
    runs->claim(run, [&claimed](bool ok, const RunRecord &, const QString &) { claimed = ok; });
    QTRY_VERIFY(claimed.has_value());
    QVERIFY(*claimed);

    QCOMPARE(instancesOf(listed(*cron)), (QStringList {QStringLiteral("web-1"), QStringLiteral("web-2")}));
    QCOMPARE(instancesOf(listed(*cronjob)), QStringList {QStringLiteral("web-9")});
}

void TestCandidateBook::aRemovedRecordIsGoneButNotOneWrittenSince()
{
    OPEN_STORES();
    const auto candidates = book(false);
    const auto other = book(true);
    const Outcome gone = await([&](auto done) { candidates->create(announced(QStringLiteral("web-1")), done); });
    QVERIFY(gone.ok);
    candidates->remove(gone.record);
    QTRY_VERIFY(listed(*other).isEmpty());
    QVERIFY(!readOf(*other, QStringLiteral("web-1")).record);

    // A removal from a version that moved on leaves the newer record.
    const Outcome kept = await([&](auto done) { candidates->create(announced(QStringLiteral("web-2")), done); });
    QVERIFY(kept.ok);
    CandidateRecord newer = kept.record;
    newer.priority = 3;
    const Outcome replaced = await([&](auto done) { other->replace(kept.record, newer, done); });
    QVERIFY(replaced.ok);
    candidates->remove(kept.record);
    // A marker removed after the stale removal was sent: once it is gone, the stale one was answered too.
    const Outcome marker = await([&](auto done) { candidates->create(announced(QStringLiteral("web-3")), done); });
    QVERIFY(marker.ok);
    candidates->remove(marker.record);
    QTRY_COMPARE(instancesOf(listed(*other)), QStringList {QStringLiteral("web-2")});
    QCOMPARE(readOf(*other, QStringLiteral("web-2")).record->priority, 3);
}

void TestCandidateBook::anOddDocumentIsNotListedAndIsReplaceable()
{
    // A document under a candidate's key that is not its record (edited by
    // hand, or copied from another instance's): nobody's announcement, and
    // no obstacle to the instance's next write.
    OPEN_STORES();
    QVERIFY(putOdd(QStringLiteral("web-1"), QJsonObject {{QStringLiteral("note"), QStringLiteral("by hand")}}));
    QVERIFY(putOdd(QStringLiteral("web-2"), announced(QStringLiteral("web-7")).toJson()));
    const auto candidates = book(true);
    QVERIFY(listed(*candidates).isEmpty());

    const ReadOutcome read = readOf(*candidates, QStringLiteral("web-1"));
    QVERIFY2(read.ok && read.record, qPrintable(read.error));
    QCOMPARE(read.record->instance, QStringLiteral("web-1"));
    QVERIFY(read.record->left);
    QCOMPARE(read.record->heartbeatIntervalMs, 0);
    QVERIFY(!read.record->version.isEmpty());
    const Outcome replaced = await([&](auto done) {
        candidates->replace(*read.record, announced(QStringLiteral("web-1")), done);
    });
    QVERIFY2(replaced.ok, qPrintable(replaced.error));
    QCOMPARE(instancesOf(listed(*candidates)), QStringList {QStringLiteral("web-1")});
}

void TestCandidateBook::oddFieldsReadAsTheirDefaults()
{
    // A record edited by hand, or written by another version: every field of
    // the wrong type reads as its default; nothing it lacks makes it live.
    const QJsonObject odd {{QStringLiteral("instance"), QStringLiteral("web-1")},
                           {QStringLiteral("priority"), QStringLiteral("high")},
                           {QStringLiteral("drained"), QStringLiteral("yes")},
                           {QStringLiteral("heartbeat"), 12},
                           {QStringLiteral("heartbeatIntervalMs"), -5},
                           {QStringLiteral("future"), QStringLiteral("field")}};
    const std::optional<CandidateRecord> record = CandidateRecord::fromJson(odd);
    QVERIFY(record);
    QCOMPARE(record->instance, QStringLiteral("web-1"));
    QCOMPARE(record->priority, 0);
    QVERIFY(!record->drained);
    QVERIFY(!record->heartbeat.isValid());
    QCOMPARE(record->heartbeatIntervalMs, 0);
    QVERIFY(record->left); // written by no running candidate

    const std::optional<CandidateRecord> loud =
            CandidateRecord::fromJson({{QStringLiteral("instance"), QStringLiteral("web-2")},
                                       {QStringLiteral("priority"), 1e9},
                                       {QStringLiteral("left"), false}});
    QVERIFY(loud);
    QCOMPARE(loud->priority, 1000);
    QVERIFY(!loud->left);

    // A record that would stay live for a year holds drained instances
    // back for ever: it lives an hour at most.
    const std::optional<CandidateRecord> eternal =
            CandidateRecord::fromJson({{QStringLiteral("instance"), QStringLiteral("web-3")},
                                       {QStringLiteral("heartbeatIntervalMs"), 3.2e10},
                                       {QStringLiteral("left"), false}});
    QVERIFY(eternal);
    QCOMPARE(eternal->heartbeatIntervalMs, qint64(3600 * 1000));
}

void TestCandidateBook::aDocumentWithoutAnInstanceIsNoRecord()
{
    QVERIFY(!CandidateRecord::fromJson({}));
    QVERIFY(!CandidateRecord::fromJson({{QStringLiteral("instance"), 7}}));
    QVERIFY(!CandidateRecord::fromJson({{QStringLiteral("instance"), QString()}}));
    // Text that reaches logs and tables: a newline would forge a log line,
    // and a megabyte of name would come back in every listing.
    QVERIFY(!CandidateRecord::fromJson({{QStringLiteral("instance"), QStringLiteral("web-1\nbaton.election info: forged")}}));
    QVERIFY(!CandidateRecord::fromJson({{QStringLiteral("instance"), QStringLiteral("web-1")},
                                        {QStringLiteral("drainedBy"), QStringLiteral("root@vm\r")}}));
    QVERIFY(!CandidateRecord::fromJson({{QStringLiteral("instance"), QString(300, QLatin1Char('w'))}}));
    QVERIFY(!CandidateRecord::fromJson({{QStringLiteral("instance"), QStringLiteral("web-1")},
                                        {QStringLiteral("incarnation"), QString(300, QLatin1Char('i'))}}));
    // And the JSON written reads back as the record it came from.
    CandidateRecord record = announced(QStringLiteral("web-1"), 9);
    record.drainedAt = QDateTime::currentDateTimeUtc();
    QCOMPARE(CandidateRecord::fromJson(record.toJson())->toJson(), record.toJson());
}

QTEST_GUILESS_MAIN(TestCandidateBook)
#include "tst_candidatebook.moc"
