// H3 with real processes: `baton drain INSTANCE` and `baton undrain
// INSTANCE` as an operator runs them, on a file Registry, on a real etcd
// and on the Lease API server (ConfigMaps). The facts are the candidate
// records the store then holds, read through the library as another
// instance would, and what the command printed and exited with.

#include "etcdfixture.h"
#include "etcdstore.h"
#include "filestore.h"
#include "kubeapiclient.h"
#include "kubecandidaterecords.h"
#include "kubernetesleaseprotocol.h"
#include "leaseapiserver.h"
#include "participantprocess.h"
#include "participants.h"
#include "testcertificates.h"
#include "testsupport.h"

#include <batoninternal/candidatebook.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <csignal>
#include <memory>
#include <optional>

using namespace baton;
using namespace baton::test;

namespace {

const QString kNamespace = QStringLiteral("jobs");
const QString kToken = QStringLiteral("drain-test-token");

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

} // namespace

class TestDrainCommand : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void stores_data();
    void aNeverStartedInstanceIsDrainedThenUndrainedAndKeepsItsRecord_data() { stores_data(); }
    void aNeverStartedInstanceIsDrainedThenUndrainedAndKeepsItsRecord();
    void aRunningCandidateIsDrainedWithEverythingElseKept_data() { stores_data(); }
    void aRunningCandidateIsDrainedWithEverythingElseKept();
    void aMistypedLeaseOrAMissingInstanceIsRefusedAndWritesNothing_data() { stores_data(); }
    void aMistypedLeaseOrAMissingInstanceIsRefusedAndWritesNothing();
    void statusShowsTheCandidatesOfEachLease_data() { stores_data(); }
    void statusShowsTheCandidatesOfEachLease();
    void onStores_data();
    void aStoreUrlWithTheLeaseNamedDrainsItThere_data() { onStores_data(); }
    void aStoreUrlWithTheLeaseNamedDrainsItThere();
    void onTheLeaseApiServer_data();
    void aDrainMetByTheInstancesWriteReadsAgainAndKeepsIt_data() { onTheLeaseApiServer_data(); }
    void aDrainMetByTheInstancesWriteReadsAgainAndKeepsIt();

private:
    /*! The configuration of one participant of m_lease on the row's store, and a book to read its candidates. */
    bool open();
    /*! `baton ARGUMENTS`, waited for with the event loop running (the Lease API server is in this process). */
    Run baton(const QStringList &arguments);
    std::optional<CandidateRecord> stored(const QString &instance);
    QList<CandidateRecord> listed();
    QString writeKubeconfig();

    QTemporaryDir m_folder;
    test::EtcdFixture m_etcd {"BATON_ETCD_DIR"};
    test::TestCertificates m_certificates;
    std::unique_ptr<test::LeaseApiServer> m_server;
    QString m_lease;
    QString m_config;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<KubernetesLeaseProtocol> m_kube;
    std::unique_ptr<CandidateBook> m_book;
    std::unique_ptr<ParticipantProcess> m_participant;
};

void TestDrainCommand::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
    QString error;
    QVERIFY2(m_certificates.generate(m_folder.path(), &error), qPrintable(error));
}

void TestDrainCommand::stores_data()
{
    QTest::addColumn<QString>("store");
    QTest::newRow("on a file Registry") << "file";
    QTest::newRow("on etcd") << "etcd";
    QTest::newRow("on the Lease API server") << "kubernetes";
}

void TestDrainCommand::onStores_data()
{
    QTest::addColumn<QString>("store");
    QTest::newRow("on a file Registry") << "file";
    QTest::newRow("on etcd") << "etcd";
}

void TestDrainCommand::onTheLeaseApiServer_data()
{
    QTest::addColumn<QString>("store");
    QTest::newRow("on the Lease API server") << "kubernetes";
}

void TestDrainCommand::init()
{
    m_lease = QStringLiteral("cron-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
}

void TestDrainCommand::cleanup()
{
    if (m_participant && m_participant->isRunning()) {
        QSignalSpy finished(m_participant.get(), &ParticipantProcess::finished);
        m_participant->sendSignal(SIGTERM);
        finished.wait(10000);
    }
    m_participant.reset();
    m_book.reset();
    m_kube.reset();
    m_store.reset();
    m_server.reset();
}

QString TestDrainCommand::writeKubeconfig()
{
    const QString path = m_folder.filePath(QStringLiteral("kubeconfig-%1").arg(m_lease));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    file.write(QStringLiteral("apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                              "clusters:\n- name: test\n  cluster:\n    server: %1\n"
                              "    certificate-authority: %2\n"
                              "contexts:\n- name: test\n  context:\n    cluster: test\n    user: me\n"
                              "    namespace: %3\n"
                              "users:\n- name: me\n  user:\n    token: %4\n")
                       .arg(m_server->url().toString(), m_certificates.caFile(), kNamespace, kToken)
                       .toUtf8());
    return path;
}

bool TestDrainCommand::open()
{
    const QString kind = QString::fromLatin1(QTest::currentDataTag());
    QString error;
    QJsonObject cluster {{QStringLiteral("leaseName"), m_lease},
                         {QStringLiteral("instanceId"), QStringLiteral("web-1")},
                         {QStringLiteral("leaseDuration"), 4000},
                         {QStringLiteral("renewInterval"), 1000}};
    QJsonObject services;
    if (kind.endsWith(QLatin1String("Lease API server"))) {
        m_server = std::make_unique<test::LeaseApiServer>();
        if (!m_server->setTls(m_certificates.serverCertFile(), m_certificates.serverKeyFile(), {}, &error)
            || !m_server->listen(&error))
            qFatal("%s", qPrintable(error));
        // What the participant's Role grants.
        m_server->addToken(kToken, QStringLiteral("system:serviceaccount:jobs:participant"),
                           {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
                            QStringLiteral("list"), QStringLiteral("watch"), QStringLiteral("configmaps/get"),
                            QStringLiteral("configmaps/list"), QStringLiteral("configmaps/create"),
                            QStringLiteral("configmaps/update"), QStringLiteral("configmaps/delete")});
        cluster.insert(QStringLiteral("type"), QStringLiteral("Webda/KubernetesClusterService"));
        cluster.insert(QStringLiteral("config"), writeKubeconfig());
        KubeClientConfig config;
        config.server = m_server->url();
        QFile ca(m_certificates.caFile());
        if (!ca.open(QIODevice::ReadOnly))
            return false;
        config.caPem = ca.readAll();
        config.token = kToken;
        config.namespaceName = kNamespace;
        config.source = QStringLiteral("the test");
        m_kube = std::make_unique<KubernetesLeaseProtocol>(config, false, 5000);
        if (!m_kube->setUp(&error))
            qFatal("%s", qPrintable(error));
        m_book = std::make_unique<CandidateBook>(
                std::make_unique<KubeCandidateRecords>(m_kube->api(), kNamespace, m_lease), m_lease);
    } else {
        QJsonObject registry;
        if (kind.endsWith(QLatin1String("etcd"))) {
            if (!m_etcd.configured())
                return false;
            registry = QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/EtcdStore")},
                                    {QStringLiteral("endpoints"), QJsonArray::fromStringList(m_etcd.endpoints())},
                                    {QStringLiteral("timeout"), 1000}};
            QJsonObject parameters = registry;
            parameters.remove(QStringLiteral("type"));
            m_store = std::make_unique<EtcdStore>(QStringLiteral("Registry"), parameters, nullptr);
        } else {
            registry = test::fileRegistry(m_folder.filePath(QStringLiteral("registry")));
            QJsonObject parameters = registry;
            parameters.remove(QStringLiteral("type"));
            m_store = std::make_unique<FileStore>(QStringLiteral("Registry"), parameters, nullptr);
        }
        if (!m_store->init(&error))
            qFatal("%s", qPrintable(error));
        services.insert(QStringLiteral("Registry"), registry);
        cluster.insert(QStringLiteral("type"), QStringLiteral("Webda/StoreClusterService"));
        m_book = std::make_unique<CandidateBook>(m_store.get(), m_lease);
    }
    services.insert(QStringLiteral("cluster"), cluster);
    m_config = m_folder.filePath(m_lease + QStringLiteral(".json"));
    return test::writeJsonFile(m_config, QJsonObject {{QStringLiteral("services"), services}});
}

#define OPEN()                                                                                     \
    if (!open())                                                                                   \
        QSKIP("no etcd fixture: run through ctest");

Run TestDrainCommand::baton(const QStringList &arguments)
{
    QProcess process;
    process.start(test::batonBinary(), arguments);
    QSignalSpy finished(&process, &QProcess::finished);
    if (!finished.wait(30000)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    return {process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

std::optional<CandidateRecord> TestDrainCommand::stored(const QString &instance)
{
    std::optional<std::optional<CandidateRecord>> found;
    m_book->read(instance, [&found](bool ok, const std::optional<CandidateRecord> &record, const QString &error) {
        if (!ok)
            qWarning("%s", qPrintable(error));
        found = record;
    });
    (void)QTest::qWaitFor([&found] { return found.has_value(); }, 10000);
    return found.value_or(std::nullopt);
}

QList<CandidateRecord> TestDrainCommand::listed()
{
    std::optional<QList<CandidateRecord>> records;
    m_book->list([&records](bool ok, const QList<CandidateRecord> &found, const QString &) {
        records = ok ? found : QList<CandidateRecord>();
    });
    (void)QTest::qWaitFor([&records] { return records.has_value(); }, 10000);
    return records.value_or(QList<CandidateRecord>());
}

void TestDrainCommand::aNeverStartedInstanceIsDrainedThenUndrainedAndKeepsItsRecord()
{
    // H3: a drain outlives the process, and comes before it: an instance
    // drained before it ever ran starts drained.
    OPEN();
    const Run drain = baton({QStringLiteral("drain"), QStringLiteral("web-2"), QStringLiteral("--config"), m_config});
    QVERIFY2(drain.exitCode == 0, qPrintable(drain.err));
    QVERIFY2(drain.out.contains(QStringLiteral("web-2 drained for %1").arg(m_lease)), qPrintable(drain.out));
    QVERIFY2(drain.out.contains(QStringLiteral("not running")), qPrintable(drain.out));
    QVERIFY2(!drain.err.contains(QStringLiteral("warning")), qPrintable(drain.err)); // no other candidate to name
    std::optional<CandidateRecord> record = stored(QStringLiteral("web-2"));
    QVERIFY(record);
    QVERIFY(record->drained);
    QVERIFY2(isUserAtThisHost(record->drainedBy), qPrintable(record->drainedBy));
    QVERIFY(record->drainedAt.isValid());
    // Not announced as a running candidate: nobody counts it as live.
    QVERIFY(record->left);
    QCOMPARE(record->heartbeatIntervalMs, 0);
    const QString drainedVersion = record->version;

    const Run again = baton({QStringLiteral("drain"), QStringLiteral("web-2"), QStringLiteral("--config"), m_config});
    QVERIFY2(again.exitCode == 0, qPrintable(again.err));
    QVERIFY2(again.out.contains(QStringLiteral("already")), qPrintable(again.out));
    QCOMPARE(stored(QStringLiteral("web-2"))->version, drainedVersion); // nothing rewritten

    const Run undrain = baton({QStringLiteral("undrain"), QStringLiteral("web-2"), QStringLiteral("--config"), m_config});
    QVERIFY2(undrain.exitCode == 0, qPrintable(undrain.err));
    QVERIFY2(undrain.out.contains(QStringLiteral("web-2 undrained for %1").arg(m_lease)), qPrintable(undrain.out));
    record = stored(QStringLiteral("web-2"));
    QVERIFY(record); // kept: only the mark goes
    QVERIFY(!record->drained);
    QVERIFY(record->drainedBy.isEmpty());
    QVERIFY(record->left);

    const Run twice = baton({QStringLiteral("undrain"), QStringLiteral("web-2"), QStringLiteral("--config"), m_config,
                             QStringLiteral("--lease"), m_lease});
    QVERIFY2(twice.exitCode == 0, qPrintable(twice.err));
    QVERIFY2(twice.out.contains(QStringLiteral("not drained")), qPrintable(twice.out));
    QCOMPARE(listed().size(), 1);
}

void TestDrainCommand::aRunningCandidateIsDrainedWithEverythingElseKept()
{
    // H3: the drain changes the mark only; the candidate's own fields stay
    // as it wrote them, and the command says when it will act.
    OPEN();
    CandidateRecord running;
    running.instance = QStringLiteral("web-1");
    running.incarnation = QStringLiteral("b7c1");
    running.priority = 5;
    running.heartbeat = QDateTime::currentDateTimeUtc();
    running.heartbeatIntervalMs = 4000;
    std::optional<bool> created;
    m_book->create(running, [&created](bool ok, const CandidateRecord &, const QString &) { created = ok; });
    QTRY_VERIFY(created.has_value());
    QVERIFY(*created);

    const Run drain = baton({QStringLiteral("drain"), QStringLiteral("web-1"), QStringLiteral("--config"), m_config});
    QVERIFY2(drain.exitCode == 0, qPrintable(drain.err));
    QVERIFY2(drain.out.contains(QStringLiteral("within 4s")), qPrintable(drain.out));
    const std::optional<CandidateRecord> record = stored(QStringLiteral("web-1"));
    QVERIFY(record);
    QVERIFY(record->drained);
    QCOMPARE(record->incarnation, running.incarnation);
    QCOMPARE(record->priority, 5);
    QCOMPARE(record->heartbeat, running.heartbeat);
    QCOMPARE(record->heartbeatIntervalMs, 4000);
    QVERIFY(!record->left);
}

void TestDrainCommand::aMistypedLeaseOrAMissingInstanceIsRefusedAndWritesNothing()
{
    OPEN();
    const QString typo = m_lease.left(m_lease.size() - 1);
    const Run mistyped = baton({QStringLiteral("drain"), QStringLiteral("web-2"), QStringLiteral("--config"), m_config,
                                QStringLiteral("--lease"), typo});
    QCOMPARE(mistyped.exitCode, 2);
    QVERIFY2(mistyped.err.contains(QStringLiteral("--lease %1").arg(typo)), qPrintable(mistyped.err));
    QVERIFY2(mistyped.err.contains(QStringLiteral("did you mean %1?").arg(m_lease)), qPrintable(mistyped.err));

    const Run missing = baton({QStringLiteral("drain"), QStringLiteral("--config"), m_config});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains(QStringLiteral("INSTANCE")), qPrintable(missing.err));
    const Run empty = baton({QStringLiteral("undrain"), QStringLiteral(" "), QStringLiteral("--config"), m_config});
    QCOMPARE(empty.exitCode, 2);
    QVERIFY2(empty.err.contains(QStringLiteral("INSTANCE")), qPrintable(empty.err));

    QVERIFY(listed().isEmpty());
    QVERIFY(!stored(QStringLiteral("web-2")));
}

void TestDrainCommand::statusShowsTheCandidatesOfEachLease()
{
    // H2, H3: `baton status -o wide` and `-o json` show each lease's
    // candidates: priority, drained or standby, live or gone.
    OPEN();
    m_participant = std::make_unique<ParticipantProcess>(
            QStringLiteral("web-1"), test::batonBinary(),
            QStringList {QStringLiteral("join"), QStringLiteral("--config"), m_config, QStringLiteral("--events"),
                         QStringLiteral("json")});
    test::keepOutput(m_participant.get());
    m_participant->start();
    QTRY_VERIFY_WITH_TIMEOUT(m_participant->isLeading(), 20000);
    CandidateRecord live;
    live.instance = QStringLiteral("web-3");
    live.incarnation = QStringLiteral("a1");
    live.priority = 7;
    live.heartbeat = QDateTime::currentDateTimeUtc();
    live.heartbeatIntervalMs = 60000;
    live.labels = {{QStringLiteral("zone"), QStringLiteral("b")}, {QStringLiteral("tier"), QStringLiteral("1")}};
    std::optional<bool> created;
    m_book->create(live, [&created](bool ok, const CandidateRecord &, const QString &) { created = ok; });
    QTRY_VERIFY(created.has_value());
    QVERIFY(*created);
    const Run drain = baton({QStringLiteral("drain"), QStringLiteral("web-2"), QStringLiteral("--config"), m_config});
    QVERIFY2(drain.exitCode == 0, qPrintable(drain.err));
    // Never run beside candidates that did: perhaps a misspelt name, so they are named.
    QVERIFY2(drain.err.contains(QStringLiteral("warning: no instance web-2 has stood for %1 yet (its candidates: "
                                               "web-1, web-3; did you mean web-")
                                        .arg(m_lease)),
             qPrintable(drain.err));

    const Run wide = baton({QStringLiteral("status"), QStringLiteral("--config"), m_config, QStringLiteral("-o"),
                            QStringLiteral("wide")});
    QVERIFY2(wide.exitCode == 0, qPrintable(wide.err));
    const QString lease = QRegularExpression::escape(m_lease);
    QVERIFY2(QRegularExpression(QStringLiteral("(^|\\n)LEASE +CANDIDATE +PRIORITY +STATE +LIVE +LAST-HEARTBEAT +LABELS\\n"))
                     .match(wide.out).hasMatch(),
             qPrintable(wide.out));
    QVERIFY2(QRegularExpression(QStringLiteral("\\n%1 +web-2 +0 +drained +left +never +-\\n").arg(lease))
                     .match(wide.out).hasMatch(),
             qPrintable(wide.out));
    QVERIFY2(QRegularExpression(QStringLiteral("\\n%1 +web-3 +7 +ready +live +\\S+ ago +tier=1,zone=b\\n").arg(lease))
                     .match(wide.out).hasMatch(),
             qPrintable(wide.out));

    const Run json = baton({QStringLiteral("status"), QStringLiteral("--config"), m_config, QStringLiteral("-o"),
                            QStringLiteral("json")});
    QVERIFY2(json.exitCode == 0, qPrintable(json.err));
    const QJsonObject document = QJsonDocument::fromJson(json.out.toUtf8()).object();
    QJsonObject record;
    for (const QJsonValue &item : document.value(QStringLiteral("items")).toArray())
        if (item[QStringLiteral("lease")].toString() == m_lease)
            record = item.toObject();
    QHash<QString, QJsonObject> candidates;
    for (const QJsonValue &candidate : record.value(QStringLiteral("candidates")).toArray())
        candidates.insert(candidate[QStringLiteral("instance")].toString(), candidate.toObject());
    QVERIFY2(candidates.contains(QStringLiteral("web-2")) && candidates.contains(QStringLiteral("web-3")),
             qPrintable(json.out));
    const QJsonObject drained = candidates.value(QStringLiteral("web-2"));
    QVERIFY(drained.value(QStringLiteral("drained")).toBool());
    QVERIFY2(isUserAtThisHost(drained.value(QStringLiteral("drainedBy")).toString()), qPrintable(json.out));
    QCOMPARE(drained[QStringLiteral("display")][QStringLiteral("state")].toString(), QStringLiteral("drained"));
    QVERIFY(!drained[QStringLiteral("display")][QStringLiteral("live")].toBool());
    const QJsonObject ready = candidates.value(QStringLiteral("web-3"));
    QCOMPARE(ready.value(QStringLiteral("priority")).toInt(), 7);
    QVERIFY(ready[QStringLiteral("display")][QStringLiteral("live")].toBool());
    QCOMPARE(ready[QStringLiteral("display")][QStringLiteral("state")].toString(), QStringLiteral("ready"));
    QCOMPARE(ready.value(QStringLiteral("labels")).toObject().value(QStringLiteral("zone")).toString(),
             QStringLiteral("b"));
}

void TestDrainCommand::aStoreUrlWithTheLeaseNamedDrainsItThere()
{
    // H3, as `baton handover --store`: no configuration, the lease named in
    // the store at a URL, which must have it.
    OPEN();
    const QString url = QString::fromLatin1(QTest::currentDataTag()).endsWith(QLatin1String("etcd"))
            ? m_etcd.endpoints().join(QLatin1Char(','))
            : QStringLiteral("file://") + m_folder.filePath(QStringLiteral("registry"));
    m_participant = std::make_unique<ParticipantProcess>(
            QStringLiteral("web-1"), test::batonBinary(),
            QStringList {QStringLiteral("join"), QStringLiteral("--config"), m_config, QStringLiteral("--events"),
                         QStringLiteral("json")});
    test::keepOutput(m_participant.get());
    m_participant->start();
    QTRY_VERIFY_WITH_TIMEOUT(m_participant->isLeading(), 20000);

    const Run unnamed = baton({QStringLiteral("drain"), QStringLiteral("web-2"), QStringLiteral("--store"), url});
    QCOMPARE(unnamed.exitCode, 2);
    QVERIFY2(unnamed.err.contains(QStringLiteral("--lease")), qPrintable(unnamed.err));
    const QString typo = m_lease.left(m_lease.size() - 1);
    const Run mistyped = baton({QStringLiteral("drain"), QStringLiteral("web-2"), QStringLiteral("--store"), url,
                                QStringLiteral("--lease"), typo});
    QCOMPARE(mistyped.exitCode, 2);
    QVERIFY2(mistyped.err.contains(QStringLiteral("did you mean %1?").arg(m_lease)), qPrintable(mistyped.err));
    QVERIFY(!stored(QStringLiteral("web-2")));

    const Run drain = baton({QStringLiteral("drain"), QStringLiteral("web-2"), QStringLiteral("--store"), url,
                             QStringLiteral("--lease"), m_lease});
    QVERIFY2(drain.exitCode == 0, qPrintable(drain.err));
    QVERIFY2(drain.out.contains(QStringLiteral("web-2 drained for %1").arg(m_lease)), qPrintable(drain.out));
    QVERIFY(stored(QStringLiteral("web-2"))->drained);
    const Run undrain = baton({QStringLiteral("undrain"), QStringLiteral("web-2"), QStringLiteral("--store"), url,
                               QStringLiteral("--lease"), m_lease});
    QVERIFY2(undrain.exitCode == 0, qPrintable(undrain.err));
    QVERIFY(!stored(QStringLiteral("web-2"))->drained);
}

void TestDrainCommand::aDrainMetByTheInstancesWriteReadsAgainAndKeepsIt()
{
    // H3: the instance rewrites its record every heartbeat; a drain that
    // meets such a write (here, at a moment the server chooses: between the
    // drain's read and its write) reads again, writes again, and keeps
    // what the instance wrote. The Lease API server runs in this process,
    // so the write in between is exactly there.
    OPEN();
    CandidateRecord running;
    running.instance = QStringLiteral("web-1");
    running.incarnation = QStringLiteral("c3");
    running.priority = 5;
    running.heartbeat = QDateTime::currentDateTimeUtc();
    running.heartbeatIntervalMs = 4000;
    std::optional<bool> created;
    m_book->create(running, [&created](bool ok, const CandidateRecord &, const QString &) { created = ok; });
    QTRY_VERIFY(created.has_value());
    QVERIFY(*created);

    const QString user = QStringLiteral("system:serviceaccount:jobs:participant");
    const QString name = KubeCandidateRecords::objectName(m_lease, QStringLiteral("web-1"));
    bool wroteBetween = false;
    const QMetaObject::Connection between = connect(
            m_server.get(), &test::LeaseApiServer::requestHandled, this,
            [&](const QString &who, const QString &verb, int status) {
                if (wroteBetween || who != user || verb != QLatin1String("configmaps/get") || status != 200)
                    return;
                wroteBetween = true;
                QJsonObject map = m_server->configMap(kNamespace, name);
                CandidateRecord beat = *CandidateRecord::fromJson(
                        QJsonDocument::fromJson(map[QStringLiteral("data")][QStringLiteral("record")].toString().toUtf8())
                                .object());
                beat.priority = 9;
                map.insert(QStringLiteral("data"),
                           QJsonObject {{QStringLiteral("record"),
                                         QString::fromUtf8(QJsonDocument(beat.toJson()).toJson(QJsonDocument::Compact))}});
                m_server->putConfigMapRaw(kNamespace, name, map);
            });
    const int updatesBefore = m_server->count(user, QStringLiteral("configmaps/update"));
    const Run drain = baton({QStringLiteral("drain"), QStringLiteral("web-1"), QStringLiteral("--config"), m_config});
    disconnect(between);
    QVERIFY(wroteBetween);
    QVERIFY2(drain.exitCode == 0, qPrintable(drain.err));
    // One write refused (the version moved on), one from the version read again.
    QCOMPARE(m_server->count(user, QStringLiteral("configmaps/update")) - updatesBefore, 2);
    const std::optional<CandidateRecord> record = stored(QStringLiteral("web-1"));
    QVERIFY(record);
    QVERIFY(record->drained);
    QCOMPARE(record->priority, 9);
}

QTEST_GUILESS_MAIN(TestDrainCommand)
#include "tst_draincommand.moc"
