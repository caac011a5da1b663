// The test Lease API server answers as the Kubernetes apiserver does
// (shared/reference/kubernetes-lease.md), checked with plain HTTP requests
// over TLS: the Kubernetes client tests are only as good as this stand-in.

#include "leaseapiserver.h"
#include "testcertificates.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QSslKey>
#include <QTemporaryDir>
#include <QTest>

using namespace baton::test;

namespace {

const QString leases = QStringLiteral("/apis/coordination.k8s.io/v1/namespaces/ns1/leases");
const QByteArray admin = "admin-token";
const QString configMaps = QStringLiteral("/api/v1/namespaces/ns1/configmaps");

QJsonObject configMapBody(const QString &name, const QString &record, const QString &rv = {},
                          const QJsonObject &labels = {})
{
    QJsonObject meta {{QStringLiteral("name"), name}};
    if (!rv.isEmpty())
        meta.insert(QStringLiteral("resourceVersion"), rv);
    if (!labels.isEmpty())
        meta.insert(QStringLiteral("labels"), labels);
    return {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
            {QStringLiteral("kind"), QStringLiteral("ConfigMap")},
            {QStringLiteral("metadata"), meta},
            {QStringLiteral("data"), QJsonObject {{QStringLiteral("record"), record}}}};
}

QJsonObject leaseBody(const QString &name, const QJsonObject &spec, const QString &rv = {})
{
    QJsonObject meta {{QStringLiteral("name"), name}};
    if (!rv.isEmpty())
        meta.insert(QStringLiteral("resourceVersion"), rv);
    return {{QStringLiteral("apiVersion"), QStringLiteral("coordination.k8s.io/v1")},
            {QStringLiteral("kind"), QStringLiteral("Lease")},
            {QStringLiteral("metadata"), meta},
            {QStringLiteral("spec"), spec}};
}

QJsonObject spec(const QString &holder, int seconds = 15, int transitions = 0)
{
    return {{QStringLiteral("holderIdentity"), holder},
            {QStringLiteral("leaseDurationSeconds"), seconds},
            {QStringLiteral("acquireTime"), QStringLiteral("2026-07-04T21:58:30.000123Z")},
            {QStringLiteral("renewTime"), QStringLiteral("2026-07-04T21:58:48.065888Z")},
            {QStringLiteral("leaseTransitions"), transitions}};
}

QString rvOf(const QJsonObject &object)
{
    return object[QStringLiteral("metadata")][QStringLiteral("resourceVersion")].toString();
}

struct Answer
{
    int status = 0;
    QJsonObject json;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
};

} // namespace

class TestLeaseApiServer : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void authentication_data();
    void authentication();
    void clientCertificateAuthenticates();
    void otherCaIsRefusedByTheClient();
    void forbiddenNamesTheVerb();
    void getCreateUpdate();
    void identicalUpdateChangesNothing();
    void anUpdateReplacesTheMetadataOtherWritersMaySet();
    void aLaggingWatchSendsItsEventsInOrderAfterTheAnswers();
    void putToAMissingNameCreates();
    void validation_data();
    void validation();
    void aPreferredHolderIsTakenWithAStrategyOnly();
    void listNamespacedAndAll();
    void watchStreamsChanges();
    void watchFromAVersionReplaysAndFilters();
    void watchBookmarksAndTimeout();
    void watchFromACompactedVersionGetsExpired();
    void injectedFailures();
    void deleteSendsAnEvent();
    void eventsAreStoredListedValidatedAndMayBeForbidden();
    void configMapCreateIsConditionalAndSaysAlreadyExists();
    void configMapUpdateAndDeleteAreConditionalOnTheVersion();
    void configMapListSelectsByLabels();
    void configMapsAreGrantedApartFromLeases();

private:
    Answer send(const QByteArray &method, const QString &path, const QJsonObject &body = {},
                const QByteArray &token = admin);
    QNetworkRequest request(const QString &path, const QByteArray &token) const;

    QTemporaryDir m_folder;
    TestCertificates m_certificates;
    std::unique_ptr<LeaseApiServer> m_server;
    QNetworkAccessManager m_network;
    QSslConfiguration m_ssl;
};

void TestLeaseApiServer::initTestCase()
{
    QVERIFY(m_folder.isValid());
    QString error;
    QVERIFY2(m_certificates.generate(m_folder.path(), &error), qPrintable(error));
    m_ssl = QSslConfiguration::defaultConfiguration();
    m_ssl.setCaCertificates(QSslCertificate::fromPath(m_certificates.caFile()));
}

void TestLeaseApiServer::init()
{
    m_network.clearConnectionCache();
    m_server = std::make_unique<LeaseApiServer>();
    QString error;
    QVERIFY2(m_server->setTls(m_certificates.serverCertFile(), m_certificates.serverKeyFile(),
                              m_certificates.caFile(), &error),
             qPrintable(error));
    QVERIFY2(m_server->listen(&error), qPrintable(error));
    m_server->addToken(QString::fromLatin1(admin), QStringLiteral("admin"),
                       {QStringLiteral("get"), QStringLiteral("list"), QStringLiteral("watch"),
                        QStringLiteral("create"), QStringLiteral("update"), QStringLiteral("delete"),
                        QStringLiteral("configmaps/get"), QStringLiteral("configmaps/list"),
                        QStringLiteral("configmaps/create"), QStringLiteral("configmaps/update"),
                        QStringLiteral("configmaps/delete")});
}

QNetworkRequest TestLeaseApiServer::request(const QString &path, const QByteArray &token) const
{
    QUrl url = m_server->url();
    const qsizetype q = path.indexOf(QLatin1Char('?'));
    url.setPath(q < 0 ? path : path.left(q));
    if (q >= 0)
        url.setQuery(path.mid(q + 1));
    QNetworkRequest r(url);
    r.setSslConfiguration(m_ssl);
    r.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    if (!token.isEmpty())
        r.setRawHeader("Authorization", "Bearer " + token);
    return r;
}

Answer TestLeaseApiServer::send(const QByteArray &method, const QString &path,
                                const QJsonObject &body, const QByteArray &token)
{
    QNetworkReply *reply = m_network.sendCustomRequest(
            request(path, token), method,
            body.isEmpty() ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact));
    QSignalSpy done(reply, &QNetworkReply::finished);
    if (!reply->isFinished())
        done.wait(10000);
    Answer a;
    a.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    a.json = QJsonDocument::fromJson(reply->readAll()).object();
    a.error = reply->error();
    reply->deleteLater();
    return a;
}

void TestLeaseApiServer::authentication_data()
{
    QTest::addColumn<QByteArray>("token");
    QTest::newRow("no token is 401") << QByteArray();
    QTest::newRow("an unknown token is 401") << QByteArray("not-a-token");
}

void TestLeaseApiServer::authentication()
{
    QFETCH(QByteArray, token);
    const Answer a = send("GET", leases + QStringLiteral("/x"), {}, token);
    QCOMPARE(a.status, 401);
    QCOMPARE(a.json[QStringLiteral("kind")].toString(), QStringLiteral("Status"));
    QCOMPARE(a.json[QStringLiteral("reason")].toString(), QStringLiteral("Unauthorized"));
    QCOMPARE(a.json[QStringLiteral("code")].toInt(), 401);
}

void TestLeaseApiServer::clientCertificateAuthenticates()
{
    QString cert;
    QString key;
    QString error;
    QVERIFY2(m_certificates.generateClient(QStringLiteral("alice"), &cert, &key, &error), qPrintable(error));
    m_server->addCertificateUser(QStringLiteral("alice"), {QStringLiteral("get")});
    QSslConfiguration ssl = m_ssl;
    ssl.setLocalCertificate(QSslCertificate::fromPath(cert).value(0));
    QFile keyFile(key);
    QVERIFY(keyFile.open(QIODevice::ReadOnly));
    ssl.setPrivateKey(QSslKey(keyFile.readAll(), QSsl::Ec));
    QNetworkRequest r = request(leases + QStringLiteral("/x"), {});
    r.setSslConfiguration(ssl);
    QNetworkReply *reply = m_network.get(r);
    QSignalSpy done(reply, &QNetworkReply::finished);
    QVERIFY(done.wait(10000));
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 404);
    QCOMPARE(m_server->count(QStringLiteral("alice"), QStringLiteral("get")), 1);
    reply->deleteLater();
}

void TestLeaseApiServer::otherCaIsRefusedByTheClient()
{
    QString other;
    QString error;
    QVERIFY2(m_certificates.generateOtherCa(&other, &error), qPrintable(error));
    QNetworkRequest r = request(leases + QStringLiteral("/x"), admin);
    QSslConfiguration ssl = m_ssl;
    ssl.setCaCertificates(QSslCertificate::fromPath(other));
    r.setSslConfiguration(ssl);
    QNetworkReply *reply = m_network.get(r);
    QSignalSpy done(reply, &QNetworkReply::finished);
    QVERIFY(done.wait(10000));
    QCOMPARE(reply->error(), QNetworkReply::SslHandshakeFailedError);
    reply->deleteLater();
}

void TestLeaseApiServer::forbiddenNamesTheVerb()
{
    m_server->addToken(QStringLiteral("reader"), QStringLiteral("system:serviceaccount:ns1:reader"),
                       {QStringLiteral("get")});
    const Answer a = send("POST", leases, leaseBody(QStringLiteral("x"), spec(QStringLiteral("a"))), "reader");
    QCOMPARE(a.status, 403);
    QCOMPARE(a.json[QStringLiteral("reason")].toString(), QStringLiteral("Forbidden"));
    QCOMPARE(a.json[QStringLiteral("message")].toString(),
             QStringLiteral("leases.coordination.k8s.io is forbidden: User \"system:serviceaccount:ns1:reader\" "
                            "cannot create resource \"leases\" in API group \"coordination.k8s.io\" in the "
                            "namespace \"ns1\""));
    const Answer watch = send("GET", QStringLiteral("/apis/coordination.k8s.io/v1/leases?watch=1"), {}, "reader");
    QCOMPARE(watch.status, 403);
    QVERIFY(watch.json[QStringLiteral("message")].toString().contains(QStringLiteral("cannot watch resource \"leases\" in API group \"coordination.k8s.io\" at the cluster scope")));
    QCOMPARE(m_server->count(QStringLiteral("system:serviceaccount:ns1:reader"), QStringLiteral("create"), true), 1);
    QCOMPARE(m_server->count(QStringLiteral("system:serviceaccount:ns1:reader"), QStringLiteral("create")), 0);
    QCOMPARE(m_server->verbsUsed(QStringLiteral("system:serviceaccount:ns1:reader")), QSet<QString> {});
}

void TestLeaseApiServer::getCreateUpdate()
{
    const QString path = leases + QStringLiteral("/billing-cron");
    Answer a = send("GET", path);
    QCOMPARE(a.status, 404);
    QCOMPARE(a.json[QStringLiteral("reason")].toString(), QStringLiteral("NotFound"));

    a = send("POST", leases, leaseBody(QStringLiteral("billing-cron"), spec(QStringLiteral("a"))));
    QCOMPARE(a.status, 201);
    const QString rv1 = rvOf(a.json);
    QVERIFY(!rv1.isEmpty());
    QVERIFY(!a.json[QStringLiteral("metadata")][QStringLiteral("uid")].toString().isEmpty());
    QCOMPARE(a.json[QStringLiteral("metadata")][QStringLiteral("namespace")].toString(), QStringLiteral("ns1"));

    a = send("POST", leases, leaseBody(QStringLiteral("billing-cron"), spec(QStringLiteral("b"))));
    QCOMPARE(a.status, 409);
    QCOMPARE(a.json[QStringLiteral("reason")].toString(), QStringLiteral("AlreadyExists"));

    a = send("GET", path + QStringLiteral("?timeout=10s"));
    QCOMPARE(a.status, 200);
    QCOMPARE(a.json[QStringLiteral("spec")][QStringLiteral("holderIdentity")].toString(), QStringLiteral("a"));

    a = send("PUT", path, leaseBody(QStringLiteral("billing-cron"), spec(QStringLiteral("a"), 15, 1), rv1));
    QCOMPARE(a.status, 200);
    const QString rv2 = rvOf(a.json);
    QVERIFY(rv2 != rv1);

    a = send("PUT", path, leaseBody(QStringLiteral("billing-cron"), spec(QStringLiteral("c")), rv1));
    QCOMPARE(a.status, 409);
    QCOMPARE(a.json[QStringLiteral("reason")].toString(), QStringLiteral("Conflict"));
    QVERIFY(a.json[QStringLiteral("message")].toString().contains(QStringLiteral("the object has been modified")));

    a = send("PUT", path, leaseBody(QStringLiteral("billing-cron"), spec(QStringLiteral("c"))));
    QCOMPARE(a.status, 422);
    QCOMPARE(a.json[QStringLiteral("details")][QStringLiteral("causes")][0][QStringLiteral("field")].toString(),
             QStringLiteral("metadata.resourceVersion"));
    QCOMPARE(m_server->count(QStringLiteral("admin"), QStringLiteral("update")), 3);
}

void TestLeaseApiServer::identicalUpdateChangesNothing()
{
    Answer a = send("POST", leases, leaseBody(QStringLiteral("same"), spec(QStringLiteral("a"))));
    const QString rv = rvOf(a.json);
    QSignalSpy watchStarted(m_server.get(), &LeaseApiServer::watchStarted);
    QNetworkReply *watch = m_network.get(request(leases + QStringLiteral("?watch=1&resourceVersion=") + rv, admin));
    QVERIFY(watchStarted.wait(10000));
    a = send("PUT", leases + QStringLiteral("/same"), leaseBody(QStringLiteral("same"), spec(QStringLiteral("a")), rv));
    QCOMPARE(a.status, 200);
    QCOMPARE(rvOf(a.json), rv);
    QCOMPARE(m_server->resourceVersion(), rv);
    // A real change afterwards is the first thing the watch sees.
    a = send("PUT", leases + QStringLiteral("/same"), leaseBody(QStringLiteral("same"), spec(QStringLiteral("b")), rv));
    QCOMPARE(a.status, 200);
    QTRY_VERIFY(watch->canReadLine());
    const QJsonObject event = QJsonDocument::fromJson(watch->readLine()).object();
    QCOMPARE(event[QStringLiteral("type")].toString(), QStringLiteral("MODIFIED"));
    QCOMPARE(event[QStringLiteral("object")][QStringLiteral("spec")][QStringLiteral("holderIdentity")].toString(),
             QStringLiteral("b"));
    watch->abort();
    watch->deleteLater();
}

// As the apiserver: what a client may set in metadata is replaced by what
// an update carries, so an update that leaves it out removes it (R7 tests
// rely on this to see a client drop other writers' metadata).
void TestLeaseApiServer::anUpdateReplacesTheMetadataOtherWritersMaySet()
{
    QJsonObject body = leaseBody(QStringLiteral("owned"), spec(QStringLiteral("a")));
    QJsonObject meta = body[QStringLiteral("metadata")].toObject();
    meta.insert(QStringLiteral("labels"), QJsonObject {{QStringLiteral("app.kubernetes.io/managed-by"), QStringLiteral("Helm")}});
    meta.insert(QStringLiteral("ownerReferences"),
                QJsonArray {QJsonObject {{QStringLiteral("kind"), QStringLiteral("Deployment")},
                                         {QStringLiteral("name"), QStringLiteral("billing")}}});
    meta.insert(QStringLiteral("finalizers"), QJsonArray {QStringLiteral("example.com/keep")});
    body.insert(QStringLiteral("metadata"), meta);
    Answer a = send("POST", leases, body);
    QCOMPARE(a.status, 201);
    for (const QString &key : {QStringLiteral("labels"), QStringLiteral("ownerReferences"), QStringLiteral("finalizers")})
        QVERIFY2(a.json[QStringLiteral("metadata")].toObject().contains(key), qPrintable(key));
    const QString uid = a.json[QStringLiteral("metadata")][QStringLiteral("uid")].toString();

    a = send("PUT", leases + QStringLiteral("/owned"),
             leaseBody(QStringLiteral("owned"), spec(QStringLiteral("b")), rvOf(a.json)));
    QCOMPARE(a.status, 200);
    const QJsonObject stored = m_server->lease(QStringLiteral("ns1"), QStringLiteral("owned"))[QStringLiteral("metadata")].toObject();
    for (const QString &key : {QStringLiteral("labels"), QStringLiteral("ownerReferences"), QStringLiteral("finalizers")})
        QVERIFY2(!stored.contains(key), qPrintable(key));
    QCOMPARE(stored[QStringLiteral("uid")].toString(), uid);
}

// The test control for a watch that lags: events are held, in order, while
// answers go out; released one by one, then all; a replay sends an old one again.
void TestLeaseApiServer::aLaggingWatchSendsItsEventsInOrderAfterTheAnswers()
{
    Answer a = send("POST", leases, leaseBody(QStringLiteral("lag"), spec(QStringLiteral("a"))));
    const QString first = rvOf(a.json);
    QSignalSpy watchStarted(m_server.get(), &LeaseApiServer::watchStarted);
    QNetworkReply *watch = m_network.get(request(leases + QStringLiteral("?watch=1&resourceVersion=") + first, admin));
    QVERIFY(watchStarted.wait(10000));
    m_server->holdWatchEvents();
    QStringList versions;
    QString rv = first;
    for (const QString &holder : {QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")}) {
        a = send("PUT", leases + QStringLiteral("/lag"), leaseBody(QStringLiteral("lag"), spec(holder), rv));
        QCOMPARE(a.status, 200);
        rv = rvOf(a.json);
        versions << rv;
    }
    QCOMPARE(m_server->heldWatchEvents(), 3);

    auto next = [watch] {
        return QJsonDocument::fromJson(watch->readLine()).object()[QStringLiteral("object")].toObject();
    };
    m_server->releaseWatchEvents(1);
    QTRY_VERIFY(watch->canReadLine());
    QCOMPARE(rvOf(next()), versions[0]);
    QCOMPARE(m_server->heldWatchEvents(), 2);
    m_server->stopHoldingWatchEvents();
    QTRY_VERIFY(watch->canReadLine());
    QCOMPARE(rvOf(next()), versions[1]);
    QTRY_VERIFY(watch->canReadLine());
    QCOMPARE(rvOf(next()), versions[2]);

    QVERIFY(m_server->replayWatchEvent(versions[0]));
    QTRY_VERIFY(watch->canReadLine());
    const QJsonObject replayed = next();
    QCOMPARE(rvOf(replayed), versions[0]);
    QCOMPARE(replayed[QStringLiteral("spec")][QStringLiteral("holderIdentity")].toString(), QStringLiteral("b"));
    QVERIFY(!m_server->replayWatchEvent(QStringLiteral("999")));
    watch->abort();
    watch->deleteLater();
}

void TestLeaseApiServer::putToAMissingNameCreates()
{
    const Answer a = send("PUT", leases + QStringLiteral("/fresh"),
                          leaseBody(QStringLiteral("fresh"), spec(QStringLiteral("a")), QStringLiteral("12")));
    QCOMPARE(a.status, 201);
    QCOMPARE(send("GET", leases + QStringLiteral("/fresh")).status, 200);
}

void TestLeaseApiServer::validation_data()
{
    QTest::addColumn<QJsonObject>("body");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("field");
    QTest::newRow("an upper-case name is invalid")
            << leaseBody(QStringLiteral("Billing"), spec(QStringLiteral("a"))) << 422 << QStringLiteral("metadata.name");
    QTest::newRow("a name with a colon is invalid")
            << leaseBody(QStringLiteral("a:b"), spec(QStringLiteral("a"))) << 422 << QStringLiteral("metadata.name");
    QTest::newRow("a zero duration is invalid")
            << leaseBody(QStringLiteral("x"), spec(QStringLiteral("a"), 0)) << 422
            << QStringLiteral("spec.leaseDurationSeconds");
    QTest::newRow("negative transitions are invalid")
            << leaseBody(QStringLiteral("x"), spec(QStringLiteral("a"), 5, -1)) << 422
            << QStringLiteral("spec.leaseTransitions");
    QJsonObject millis = spec(QStringLiteral("a"));
    millis.insert(QStringLiteral("renewTime"), QStringLiteral("2026-07-04T21:58:48.065Z"));
    QTest::newRow("a MicroTime with three digits does not decode")
            << leaseBody(QStringLiteral("x"), millis) << 400 << QString();
    QJsonObject nanos = spec(QStringLiteral("a"));
    nanos.insert(QStringLiteral("acquireTime"), QStringLiteral("2026-07-04T21:58:48.065888123Z"));
    QTest::newRow("a MicroTime with nine digits does not decode")
            << leaseBody(QStringLiteral("x"), nanos) << 400 << QString();
    // H2: coordinated leader election's fields, as the 1.31 apiserver validates them.
    QJsonObject unasked = spec(QStringLiteral("a"));
    unasked.insert(QStringLiteral("preferredHolder"), QStringLiteral("b"));
    QTest::newRow("a preferred holder without a strategy is forbidden")
            << leaseBody(QStringLiteral("x"), unasked) << 422 << QStringLiteral("spec.preferredHolder");
    unasked.insert(QStringLiteral("strategy"), QString());
    QTest::newRow("a preferred holder with an empty strategy is forbidden")
            << leaseBody(QStringLiteral("x"), unasked) << 422 << QStringLiteral("spec.strategy");
    for (const QString &strategy : {QStringLiteral("Newest"), QStringLiteral("baton.dev/"), QStringLiteral("/steering"),
                                    QStringLiteral("Baton.dev/steering"), QStringLiteral("baton.dev/steer ing"),
                                    QStringLiteral("a/b/c")}) {
        QJsonObject odd = spec(QStringLiteral("a"));
        odd.insert(QStringLiteral("strategy"), strategy);
        QTest::addRow("the strategy \"%s\" is invalid", qPrintable(strategy))
                << leaseBody(QStringLiteral("x"), odd) << 422 << QStringLiteral("spec.strategy");
    }
    QJsonObject text = spec(QStringLiteral("a"));
    text.insert(QStringLiteral("leaseDurationSeconds"), QStringLiteral("15"));
    QTest::newRow("a duration as a string does not decode") << leaseBody(QStringLiteral("x"), text) << 400 << QString();
}

void TestLeaseApiServer::validation()
{
    QFETCH(QJsonObject, body);
    QFETCH(int, status);
    QFETCH(QString, field);
    const Answer a = send("POST", leases, body);
    QCOMPARE(a.status, status);
    QCOMPARE(a.json[QStringLiteral("code")].toInt(), status);
    if (status == 422) {
        QCOMPARE(a.json[QStringLiteral("reason")].toString(), QStringLiteral("Invalid"));
        QCOMPARE(a.json[QStringLiteral("details")][QStringLiteral("causes")][0][QStringLiteral("field")].toString(), field);
    } else {
        QCOMPARE(a.json[QStringLiteral("reason")].toString(), QStringLiteral("BadRequest"));
    }
    QCOMPARE(m_server->resourceVersion(), QStringLiteral("0"));
}

void TestLeaseApiServer::aPreferredHolderIsTakenWithAStrategyOnly()
{
    // H2: what a Lease that names a preferred holder must carry, on a create and an update.
    QJsonObject asked = spec(QStringLiteral("a"));
    asked.insert(QStringLiteral("preferredHolder"), QStringLiteral("b"));
    const Answer refused = send("POST", leases, leaseBody(QStringLiteral("cron"), asked));
    QCOMPARE(refused.status, 422);
    QCOMPARE(refused.json[QStringLiteral("message")].toString(),
             QStringLiteral("Lease.coordination.k8s.io \"cron\" is invalid: spec.preferredHolder: Forbidden: may "
                            "only be specified if `strategy` is defined"));
    QCOMPARE(refused.json[QStringLiteral("details")][QStringLiteral("causes")][0][QStringLiteral("reason")].toString(),
             QStringLiteral("FieldValueForbidden"));

    asked.insert(QStringLiteral("strategy"), QStringLiteral("baton.dev/steering"));
    const Answer created = send("POST", leases, leaseBody(QStringLiteral("cron"), asked));
    QCOMPARE(created.status, 201);
    QCOMPARE(created.json[QStringLiteral("spec")][QStringLiteral("strategy")].toString(),
             QStringLiteral("baton.dev/steering"));
    QCOMPARE(created.json[QStringLiteral("spec")][QStringLiteral("preferredHolder")].toString(), QStringLiteral("b"));
    const QString version = created.json[QStringLiteral("metadata")][QStringLiteral("resourceVersion")].toString();

    // An update that drops the strategy and keeps the preferred holder is refused too.
    QJsonObject dropped = asked;
    dropped.remove(QStringLiteral("strategy"));
    QCOMPARE(send("PUT", leases + QStringLiteral("/cron"), leaseBody(QStringLiteral("cron"), dropped, version)).status,
             422);
    // The built-in strategy does, and a strategy without a preferred holder is fine.
    QJsonObject builtIn = asked;
    builtIn.insert(QStringLiteral("strategy"), QStringLiteral("OldestEmulationVersion"));
    const Answer updated = send("PUT", leases + QStringLiteral("/cron"), leaseBody(QStringLiteral("cron"), builtIn, version));
    QCOMPARE(updated.status, 200);
    QJsonObject strategyOnly = spec(QStringLiteral("a"));
    strategyOnly.insert(QStringLiteral("strategy"), QStringLiteral("example.com/Mine_1"));
    QCOMPARE(send("POST", leases, leaseBody(QStringLiteral("other"), strategyOnly)).status, 201);

    QJsonObject unsupported = spec(QStringLiteral("a"));
    unsupported.insert(QStringLiteral("strategy"), QStringLiteral("Newest"));
    QCOMPARE(send("POST", leases, leaseBody(QStringLiteral("third"), unsupported)).json[QStringLiteral("message")]
                     .toString(),
             QStringLiteral("Lease.coordination.k8s.io \"third\" is invalid: spec.strategy: Unsupported value: "
                            "\"Newest\": supported values: \"OldestEmulationVersion\""));
}

void TestLeaseApiServer::listNamespacedAndAll()
{
    QCOMPARE(send("POST", leases, leaseBody(QStringLiteral("a"), spec(QStringLiteral("x")))).status, 201);
    QCOMPARE(send("POST", QStringLiteral("/apis/coordination.k8s.io/v1/namespaces/ns2/leases"),
                  leaseBody(QStringLiteral("b"), spec(QStringLiteral("y"))))
                     .status,
             201);
    Answer a = send("GET", leases);
    QCOMPARE(a.status, 200);
    QCOMPARE(a.json[QStringLiteral("kind")].toString(), QStringLiteral("LeaseList"));
    QCOMPARE(a.json[QStringLiteral("items")].toArray().size(), 1);
    QCOMPARE(rvOf(a.json), QStringLiteral("2"));
    a = send("GET", QStringLiteral("/apis/coordination.k8s.io/v1/leases"));
    QCOMPARE(a.json[QStringLiteral("items")].toArray().size(), 2);
    QCOMPARE(m_server->count(QStringLiteral("admin"), QStringLiteral("list")), 2);
}

void TestLeaseApiServer::watchStreamsChanges()
{
    Answer a = send("POST", leases, leaseBody(QStringLiteral("w"), spec(QStringLiteral("a"))));
    QNetworkReply *watch = m_network.get(request(leases + QStringLiteral("?watch=true"), admin));
    QTRY_VERIFY(watch->canReadLine());
    QJsonObject event = QJsonDocument::fromJson(watch->readLine()).object();
    QCOMPARE(event[QStringLiteral("type")].toString(), QStringLiteral("ADDED"));
    QCOMPARE(watch->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    a = send("PUT", leases + QStringLiteral("/w"), leaseBody(QStringLiteral("w"), spec(QStringLiteral("b")), rvOf(a.json)));
    QTRY_VERIFY(watch->canReadLine());
    event = QJsonDocument::fromJson(watch->readLine()).object();
    QCOMPARE(event[QStringLiteral("type")].toString(), QStringLiteral("MODIFIED"));
    QCOMPARE(rvOf(event[QStringLiteral("object")].toObject()), rvOf(a.json));
    QCOMPARE(m_server->watchCount(), 1);
    QSignalSpy ended(m_server.get(), &LeaseApiServer::watchEnded);
    watch->abort();
    QVERIFY(ended.count() == 1 || ended.wait(10000));
    watch->deleteLater();
}

void TestLeaseApiServer::watchFromAVersionReplaysAndFilters()
{
    const Answer first = send("POST", leases, leaseBody(QStringLiteral("mine"), spec(QStringLiteral("a"))));
    send("POST", leases, leaseBody(QStringLiteral("other"), spec(QStringLiteral("a"))));
    send("PUT", leases + QStringLiteral("/mine"), leaseBody(QStringLiteral("mine"), spec(QStringLiteral("b")), rvOf(first.json)));
    QNetworkReply *watch = m_network.get(request(
            leases + QStringLiteral("?watch=1&fieldSelector=metadata.name%3Dmine&resourceVersion=") + rvOf(first.json),
            admin));
    QTRY_VERIFY(watch->canReadLine());
    const QJsonObject event = QJsonDocument::fromJson(watch->readLine()).object();
    QCOMPARE(event[QStringLiteral("type")].toString(), QStringLiteral("MODIFIED"));
    QCOMPARE(event[QStringLiteral("object")][QStringLiteral("metadata")][QStringLiteral("name")].toString(),
             QStringLiteral("mine"));
    QVERIFY(!watch->canReadLine());
    watch->abort();
    watch->deleteLater();
}

void TestLeaseApiServer::watchBookmarksAndTimeout()
{
    m_server->setBookmarkInterval(50);
    QNetworkReply *watch = m_network.get(
            request(leases + QStringLiteral("?watch=1&allowWatchBookmarks=true&timeoutSeconds=1"), admin));
    QTRY_VERIFY(watch->canReadLine());
    const QJsonObject event = QJsonDocument::fromJson(watch->readLine()).object();
    QCOMPARE(event[QStringLiteral("type")].toString(), QStringLiteral("BOOKMARK"));
    QCOMPARE(rvOf(event[QStringLiteral("object")].toObject()), m_server->resourceVersion());
    // timeoutSeconds: the server ends the stream cleanly.
    QSignalSpy finished(watch, &QNetworkReply::finished);
    QVERIFY(finished.wait(5000));
    QCOMPARE(watch->error(), QNetworkReply::NoError);
    QCOMPARE(m_server->watchCount(), 0);
    watch->deleteLater();
}

void TestLeaseApiServer::watchFromACompactedVersionGetsExpired()
{
    m_server->setHistoryLimit(2);
    Answer a = send("POST", leases, leaseBody(QStringLiteral("c"), spec(QStringLiteral("a"))));
    const QString old = rvOf(a.json);
    for (const QString &holder : {QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")})
        a = send("PUT", leases + QStringLiteral("/c"), leaseBody(QStringLiteral("c"), spec(holder), rvOf(a.json)));
    QNetworkReply *watch = m_network.get(request(leases + QStringLiteral("?watch=1&resourceVersion=") + old, admin));
    QSignalSpy finished(watch, &QNetworkReply::finished);
    QVERIFY(finished.wait(10000));
    QCOMPARE(watch->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    const QJsonObject event = QJsonDocument::fromJson(watch->readLine()).object();
    QCOMPARE(event[QStringLiteral("type")].toString(), QStringLiteral("ERROR"));
    QCOMPARE(event[QStringLiteral("object")][QStringLiteral("code")].toInt(), 410);
    QCOMPARE(event[QStringLiteral("object")][QStringLiteral("reason")].toString(), QStringLiteral("Expired"));
    watch->deleteLater();
    // The latest version is still watchable.
    m_server->compactHistory();
    QNetworkReply *fresh = m_network.get(request(leases + QStringLiteral("?watch=1&resourceVersion=") + rvOf(a.json), admin));
    QSignalSpy started(m_server.get(), &LeaseApiServer::watchStarted);
    QVERIFY(started.wait(10000));
    fresh->abort();
    fresh->deleteLater();
}

void TestLeaseApiServer::injectedFailures()
{
    m_server->failNextRequests(2, 503);
    QCOMPARE(send("GET", leases + QStringLiteral("/x")).status, 503);
    QCOMPARE(send("GET", leases + QStringLiteral("/x")).status, 503);
    QCOMPARE(send("GET", leases + QStringLiteral("/x")).status, 404);
    m_server->setResponseDelay(50);
    QCOMPARE(send("GET", leases + QStringLiteral("/x")).status, 404);
}

// B4: the Events leader election posts on a Lease, as the apiserver answers them.
void TestLeaseApiServer::eventsAreStoredListedValidatedAndMayBeForbidden()
{
    const QString events = QStringLiteral("/api/v1/namespaces/ns1/events");
    auto event = [](const QString &name, const QString &lease, const QString &ns = QStringLiteral("ns1"),
                    const QString &type = QStringLiteral("Normal")) {
        return QJsonObject {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
                            {QStringLiteral("kind"), QStringLiteral("Event")},
                            {QStringLiteral("metadata"), QJsonObject {{QStringLiteral("name"), name}}},
                            {QStringLiteral("involvedObject"),
                             QJsonObject {{QStringLiteral("kind"), QStringLiteral("Lease")},
                                          {QStringLiteral("name"), lease},
                                          {QStringLiteral("namespace"), ns}}},
                            {QStringLiteral("reason"), QStringLiteral("LeaderElection")},
                            {QStringLiteral("message"), QStringLiteral("a became leader")},
                            {QStringLiteral("type"), type}};
    };
    Answer a = send("POST", events, event(QStringLiteral("billing-cron.17f0a1"), QStringLiteral("billing-cron")));
    QCOMPARE(a.status, 201);
    QVERIFY(!a.json[QStringLiteral("metadata")][QStringLiteral("uid")].toString().isEmpty());
    QVERIFY(!rvOf(a.json).isEmpty());
    QCOMPARE(a.json[QStringLiteral("metadata")][QStringLiteral("namespace")].toString(), QStringLiteral("ns1"));
    QCOMPARE(send("POST", events, event(QStringLiteral("other.17f0a2"), QStringLiteral("other"))).status, 201);

    a = send("POST", events, event(QStringLiteral("billing-cron.17f0a1"), QStringLiteral("billing-cron")));
    QCOMPARE(a.status, 409);
    QCOMPARE(a.json[QStringLiteral("reason")].toString(), QStringLiteral("AlreadyExists"));
    a = send("POST", events, event(QStringLiteral("x.1"), QStringLiteral("x"), QStringLiteral("ns2")));
    QCOMPARE(a.status, 422);
    QCOMPARE(a.json[QStringLiteral("details")][QStringLiteral("causes")][0][QStringLiteral("field")].toString(),
             QStringLiteral("involvedObject.namespace"));
    a = send("POST", events, event(QStringLiteral("x.2"), QStringLiteral("x"), QStringLiteral("ns1"), QStringLiteral("Info")));
    QCOMPARE(a.status, 422);
    QCOMPARE(a.json[QStringLiteral("details")][QStringLiteral("causes")][0][QStringLiteral("field")].toString(),
             QStringLiteral("type"));

    a = send("GET", events + QStringLiteral("?fieldSelector=involvedObject.name%3Dbilling-cron"));
    QCOMPARE(a.status, 200);
    QCOMPARE(a.json[QStringLiteral("kind")].toString(), QStringLiteral("EventList"));
    QCOMPARE(a.json[QStringLiteral("items")].toArray().size(), 1);
    QCOMPARE(a.json[QStringLiteral("items")][0][QStringLiteral("metadata")][QStringLiteral("name")].toString(),
             QStringLiteral("billing-cron.17f0a1"));
    QCOMPARE(send("GET", events).json[QStringLiteral("items")].toArray().size(), 2);
    QCOMPARE(m_server->events(QStringLiteral("ns1")).size(), 2);
    QCOMPARE(m_server->count(QStringLiteral("admin"), QStringLiteral("events/create")), 5); // answered, whatever the answer
    QCOMPARE(m_server->count(QStringLiteral("admin"), QStringLiteral("create")), 0);

    m_server->setEventsForbidden(true);
    a = send("POST", events, event(QStringLiteral("billing-cron.17f0a3"), QStringLiteral("billing-cron")));
    QCOMPARE(a.status, 403);
    QCOMPARE(a.json[QStringLiteral("reason")].toString(), QStringLiteral("Forbidden"));
    QCOMPARE(a.json[QStringLiteral("message")].toString(),
             QStringLiteral("events is forbidden: User \"admin\" cannot create resource \"events\" in API group \"\" "
                            "in the namespace \"ns1\""));
    QCOMPARE(m_server->count(QStringLiteral("admin"), QStringLiteral("events/create"), true), 1);
    QCOMPARE(m_server->events(QStringLiteral("ns1")).size(), 2);
}

void TestLeaseApiServer::deleteSendsAnEvent()
{
    send("POST", leases, leaseBody(QStringLiteral("d"), spec(QStringLiteral("a"))));
    QNetworkReply *watch = m_network.get(request(leases + QStringLiteral("?watch=1&resourceVersion=1"), admin));
    QSignalSpy started(m_server.get(), &LeaseApiServer::watchStarted);
    QVERIFY(started.wait(10000));
    QCOMPARE(send("DELETE", leases + QStringLiteral("/d")).status, 200);
    QCOMPARE(send("DELETE", leases + QStringLiteral("/d")).status, 404);
    QTRY_VERIFY(watch->canReadLine());
    QCOMPARE(QJsonDocument::fromJson(watch->readLine()).object()[QStringLiteral("type")].toString(),
             QStringLiteral("DELETED"));
    watch->abort();
    watch->deleteLater();
}



// What scheduled runs rely on (S1): of two creates of one name, one wins;
// the other gets 409 AlreadyExists in a Status, and the first stays.
void TestLeaseApiServer::configMapCreateIsConditionalAndSaysAlreadyExists()
{
    const Answer first = send("POST", configMaps, configMapBody(QStringLiteral("run-a"), QStringLiteral("one")));
    QCOMPARE(first.status, 201);
    QVERIFY(!rvOf(first.json).isEmpty());
    QVERIFY(!first.json[QStringLiteral("metadata")][QStringLiteral("uid")].toString().isEmpty());
    QCOMPARE(first.json[QStringLiteral("metadata")][QStringLiteral("namespace")].toString(), QStringLiteral("ns1"));
    const Answer second = send("POST", configMaps, configMapBody(QStringLiteral("run-a"), QStringLiteral("two")));
    QCOMPARE(second.status, 409);
    QCOMPARE(second.json[QStringLiteral("kind")].toString(), QStringLiteral("Status"));
    QCOMPARE(second.json[QStringLiteral("reason")].toString(), QStringLiteral("AlreadyExists"));
    QCOMPARE(second.json[QStringLiteral("message")].toString(), QStringLiteral("configmaps \"run-a\" already exists"));
    const Answer read = send("GET", configMaps + QStringLiteral("/run-a"));
    QCOMPARE(read.status, 200);
    QCOMPARE(read.json[QStringLiteral("data")][QStringLiteral("record")].toString(), QStringLiteral("one"));
    QCOMPARE(send("GET", configMaps + QStringLiteral("/run-b")).status, 404);
    // Neither a name that is not a DNS-1123 subdomain nor data that is not strings.
    QCOMPARE(send("POST", configMaps, configMapBody(QStringLiteral("Run_A"), QStringLiteral("x"))).status, 422);
    QJsonObject numbers = configMapBody(QStringLiteral("run-c"), QString());
    numbers.insert(QStringLiteral("data"), QJsonObject {{QStringLiteral("record"), 5}});
    QCOMPARE(send("POST", configMaps, numbers).status, 400);
    QVERIFY(m_server->configMap(QStringLiteral("ns1"), QStringLiteral("run-c")).isEmpty());
}

void TestLeaseApiServer::configMapUpdateAndDeleteAreConditionalOnTheVersion()
{
    const QString path = configMaps + QStringLiteral("/run-a");
    const QString v1 = rvOf(send("POST", configMaps, configMapBody(QStringLiteral("run-a"), QStringLiteral("one"))).json);
    const Answer updated = send("PUT", path, configMapBody(QStringLiteral("run-a"), QStringLiteral("two"), v1));
    QCOMPARE(updated.status, 200);
    const QString v2 = rvOf(updated.json);
    QVERIFY(v2 != v1);
    const Answer stale = send("PUT", path, configMapBody(QStringLiteral("run-a"), QStringLiteral("three"), v1));
    QCOMPARE(stale.status, 409);
    QCOMPARE(stale.json[QStringLiteral("reason")].toString(), QStringLiteral("Conflict"));
    QCOMPARE(send("GET", path).json[QStringLiteral("data")][QStringLiteral("record")].toString(), QStringLiteral("two"));
    // No create on update, unlike Leases.
    QCOMPARE(send("PUT", configMaps + QStringLiteral("/run-z"),
                  configMapBody(QStringLiteral("run-z"), QStringLiteral("x"), v1)).status, 404);
    const QJsonObject staleDelete {{QStringLiteral("kind"), QStringLiteral("DeleteOptions")},
                                   {QStringLiteral("apiVersion"), QStringLiteral("v1")},
                                   {QStringLiteral("preconditions"), QJsonObject {{QStringLiteral("resourceVersion"), v1}}}};
    const Answer refused = send("DELETE", path, staleDelete);
    QCOMPARE(refused.status, 409);
    QVERIFY2(refused.json[QStringLiteral("message")].toString().contains(QStringLiteral("precondition")),
             qPrintable(refused.json[QStringLiteral("message")].toString()));
    QVERIFY(!m_server->configMap(QStringLiteral("ns1"), QStringLiteral("run-a")).isEmpty());
    QJsonObject current = staleDelete;
    current.insert(QStringLiteral("preconditions"), QJsonObject {{QStringLiteral("resourceVersion"), v2}});
    QCOMPARE(send("DELETE", path, current).status, 200);
    QVERIFY(m_server->configMap(QStringLiteral("ns1"), QStringLiteral("run-a")).isEmpty());
    QCOMPARE(send("DELETE", path, current).status, 404);
}

void TestLeaseApiServer::configMapListSelectsByLabels()
{
    const QJsonObject nightly {{QStringLiteral("baton.dev/lease"), QStringLiteral("nightly")},
                               {QStringLiteral("app.kubernetes.io/managed-by"), QStringLiteral("baton")}};
    const QJsonObject other {{QStringLiteral("baton.dev/lease"), QStringLiteral("other")},
                             {QStringLiteral("app.kubernetes.io/managed-by"), QStringLiteral("baton")}};
    QCOMPARE(send("POST", configMaps, configMapBody(QStringLiteral("a"), QStringLiteral("1"), {}, nightly)).status, 201);
    QCOMPARE(send("POST", configMaps, configMapBody(QStringLiteral("b"), QStringLiteral("2"), {}, other)).status, 201);
    QCOMPARE(send("POST", configMaps, configMapBody(QStringLiteral("c"), QStringLiteral("3"))).status, 201);
    QCOMPARE(send("POST", QStringLiteral("/api/v1/namespaces/ns2/configmaps"),
                  configMapBody(QStringLiteral("d"), QStringLiteral("4"), {}, nightly)).status, 201);
    const Answer all = send("GET", configMaps);
    QCOMPARE(all.json[QStringLiteral("kind")].toString(), QStringLiteral("ConfigMapList"));
    QCOMPARE(all.json[QStringLiteral("items")].toArray().size(), 3);
    const QString selectedUrl = configMaps + QStringLiteral("?labelSelector=")
            + QString::fromLatin1(
                    QUrl::toPercentEncoding(QStringLiteral("baton.dev/lease=nightly,app.kubernetes.io/managed-by==baton")));
    const Answer selected = send("GET", selectedUrl);
    QCOMPARE(selected.status, 200);
    const QJsonArray items = selected.json[QStringLiteral("items")].toArray();
    QCOMPARE(items.size(), 1);
    QCOMPARE(items.at(0)[QStringLiteral("metadata")][QStringLiteral("name")].toString(), QStringLiteral("a"));
    QCOMPARE(send("GET", configMaps + QStringLiteral("?labelSelector=a!%3Db")).status, 400);
    // H2, H3: a candidate's ConfigMap carries another label than a run's, and each selects its own.
    const QJsonObject candidate {{QStringLiteral("baton.dev/candidate-for"), QStringLiteral("nightly")},
                                 {QStringLiteral("app.kubernetes.io/managed-by"), QStringLiteral("baton")}};
    QCOMPARE(send("POST", configMaps, configMapBody(QStringLiteral("e"), QStringLiteral("5"), {}, candidate)).status, 201);
    const Answer candidates = send("GET", configMaps + QStringLiteral("?labelSelector=")
                                                  + QString::fromLatin1(QUrl::toPercentEncoding(
                                                          QStringLiteral("baton.dev/candidate-for=nightly,"
                                                                         "app.kubernetes.io/managed-by=baton"))));
    QCOMPARE(candidates.json[QStringLiteral("items")].toArray().size(), 1);
    QCOMPARE(candidates.json[QStringLiteral("items")][0][QStringLiteral("metadata")][QStringLiteral("name")].toString(),
             QStringLiteral("e"));
    QCOMPARE(send("GET", selectedUrl).json[QStringLiteral("items")].toArray().size(), 1);
}

void TestLeaseApiServer::configMapsAreGrantedApartFromLeases()
{
    m_server->addToken(QStringLiteral("lease-only"), QStringLiteral("lease-only"),
                       {QStringLiteral("get"), QStringLiteral("list"), QStringLiteral("create"), QStringLiteral("update")});
    const Answer denied = send("POST", configMaps, configMapBody(QStringLiteral("a"), QStringLiteral("1")), "lease-only");
    QCOMPARE(denied.status, 403);
    QCOMPARE(denied.json[QStringLiteral("message")].toString(),
             QStringLiteral("configmaps is forbidden: User \"lease-only\" cannot create resource \"configmaps\" in "
                            "API group \"\" in the namespace \"ns1\""));
    QCOMPARE(m_server->count(QStringLiteral("lease-only"), QStringLiteral("configmaps/create"), true), 1);
    QVERIFY(m_server->configMaps(QStringLiteral("ns1")).isEmpty());
    QCOMPARE(send("POST", configMaps, configMapBody(QStringLiteral("a"), QStringLiteral("1"))).status, 201);
    QCOMPARE(m_server->count(QStringLiteral("admin"), QStringLiteral("configmaps/create")), 1);
}

QTEST_GUILESS_MAIN(TestLeaseApiServer)
#include "tst_leaseapiserver.moc"
