// etcd's wire format, without etcd: the stream splitter, the proto3 JSON
// traps (absent `succeeded`, absent `type`, string integers, missing `kvs`)
// and hostile replies (not JSON, missing fields, wrong types, 5xx, oversized,
// endless, a redirect elsewhere, silence, a certificate from another CA),
// served by a small HTTP(S) responder in this file that answers what each
// case says. Each gives a clear error and no crash (R1, R3);
// re-authentication on "invalid auth token" leaks nothing (R2).

#include "artifacts.h"
#include "etcdrangebatcher.h"
#include "etcdstore.h"
#include "etcdtxn.h"
#include "etcdwatchstream.h"
#include "httpclient.h"
#include "jsonstreamsplitter.h"
#include "testcertificates.h"
#include "testsecrets.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QPointer>
#include <QSignalSpy>
#include <QDeadlineTimer>
#include <QFile>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>

using namespace baton;
using Status = StoreResult::Status;

namespace {

QString b64(const char *text)
{
    return QString::fromLatin1(QByteArray(text).toBase64());
}

QByteArray httpReply(int status, const QByteArray &body, const QByteArray &extraHeaders = {})
{
    return "HTTP/1.1 " + QByteArray::number(status) + " X\r\nContent-Type: application/json\r\n"
            + "Content-Length: " + QByteArray::number(body.size()) + "\r\n" + extraHeaders
            + "\r\n" + body;
}

/*! One request as the responder saw it. */
struct SeenRequest
{
    QByteArray path;
    QByteArray authorization;
    QByteArray body;
    /*! Where the answer goes, when the test writes it itself. */
    QPointer<QTcpSocket> socket;
};

/*!
 * A loopback HTTP/1.1 server whose answers the test writes: the handler
 * gets each request and returns the raw bytes to send (status line
 * included); an empty answer means silence, and the connection stays open
 * so that further writes (a stream) can follow through stream().
 */
class Responder : public QObject
{
public:
    using Handler = std::function<QByteArray(const SeenRequest &)>;
    /*! Plain HTTP; with \a tls (a certificate and key), HTTPS. */
    explicit Responder(Handler handler, const std::optional<QSslConfiguration> &tls = std::nullopt)
        : m_handler(std::move(handler))
    {
        if (tls) {
            auto *server = new QSslServer(this);
            server->setSslConfiguration(*tls);
            m_server = server;
        } else {
            m_server = new QTcpServer(this);
        }
        // After the TLS handshake for QSslServer, at once for QTcpServer.
        connect(m_server, &QTcpServer::pendingConnectionAvailable, this, [this] {
            while (QTcpSocket *socket = m_server->nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { read(socket); });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        m_server->listen(QHostAddress::LocalHost);
    }
    QString url(const char *scheme = "http") const
    {
        return QStringLiteral("%1://127.0.0.1:%2").arg(QLatin1String(scheme)).arg(m_server->serverPort());
    }
    QList<SeenRequest> seen;
    QPointer<QTcpSocket> lastSocket;

private:
    void read(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end < 0) {
            if (!buffer.startsWith("POST")) // not HTTP at all (a TLS hello): say so, and hang up
                socket->write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
            return;
        }
        SeenRequest request;
        qsizetype length = 0;
        const QList<QByteArray> lines = buffer.left(end).split('\n');
        request.path = lines.first().split(' ').value(1);
        for (const QByteArray &line : lines) {
            const QByteArray lower = line.toLower();
            if (lower.startsWith("content-length:"))
                length = line.mid(15).trimmed().toLongLong();
            if (lower.startsWith("authorization:"))
                request.authorization = line.mid(14).trimmed();
        }
        if (buffer.size() < end + 4 + length)
            return;
        request.body = buffer.mid(end + 4, length);
        request.socket = socket;
        buffer.remove(0, end + 4 + length);
        seen.append(request);
        lastSocket = socket;
        const QByteArray answer = m_handler(request);
        if (!answer.isEmpty())
            socket->write(answer);
    }

    QTcpServer *m_server = nullptr;
    Handler m_handler;
    QHash<QTcpSocket *, QByteArray> m_buffers;
};

std::unique_ptr<EtcdStore> storeFor(const QString &endpoint, QString *error,
                                    QJsonObject extra = {})
{
    extra.insert(QStringLiteral("endpoints"), QJsonArray { endpoint });
    if (!extra.contains(QStringLiteral("timeout")))
        extra.insert(QStringLiteral("timeout"), 2000);
    auto store = std::make_unique<EtcdStore>(QStringLiteral("Registry"), extra, nullptr);
    if (!store->init(error))
        return nullptr;
    return store;
}

QStringList s_logLines;
void captureLog(QtMsgType, const QMessageLogContext &, const QString &message)
{
    s_logLines.append(message);
}

} // namespace

class TestEtcdWire : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void splitter_data();
    void splitter();
    void splitterRefusesWhatIsNotAStreamOfObjects_data();
    void splitterRefusesWhatIsNotAStreamOfObjects();
    void replies_data();
    void replies();
    void silentEndpointTimesOut();
    void watchReadsEventsWithoutType();
    void everyWatchOfAStoreSharesOneStreamThatWidens_data();
    void everyWatchOfAStoreSharesOneStreamThatWidens();
    void reauthenticatesOnInvalidTokenAndLeaksNothing();
    void aRefusedAuthenticationIsTypedByItsGrpcCode_data();
    void aRefusedAuthenticationIsTypedByItsGrpcCode();
    void tlsToAPlainServerIsATlsError();
    void endlessReplyIsCutAtTheLimit();
    void tricklingEndlessReplyTimesOut();
    void aTxnOfUpdatesIsWrittenAsItsOperationsWouldBe();
    void updatesOfOneTurnGoInOneTxn();
    void updatesWaitingForEtcdShareOneTxn();
    void updatesWaitBehindATxnEtcdIsSlowToAnswerOnlyBriefly();
    void aSharedTxnIsNeverLargerThanOneWriteOfQt();
    void updatesWaitingBehindASilentEtcdTimeOut();
    void aTxnRefusedAsTooLargeIsSentSmaller();
    void anUpdateWithTooLittleTimeLeftIsAnsweredWithoutCuttingTheOthersShort();
    void aTxnRefusedForOneUpdateLandsTheOthers();
    void serverCertificateFromAnotherCaIsATlsError();
    void requestsBeyondTheBoundWaitInTheClientAndAreAllAnswered();
    void readsAskedAtOnceShareTxnsAndEachIsAnsweredAsAlone();
    void readsOfARefusedTxnGoAgainInHalves();
    void aTxnOfReadsRefusedForItsSizeMakesTheNextOnesSmaller();
    void readsAllRefusedCostAFewRequestsMoreThanAlone();
    void aTxnOfReadsIsNeverLargerThanOneWriteOfQt();
    void aRequestThatWaitsOutItsTimeoutFailsAsUnanswered();

private:
    /*! A get through a new store at \a url; nullopt when it never finished. */
    std::optional<StoreResult> getThrough(const QString &url, const QJsonObject &extra);
};

void TestEtcdWire::splitter_data()
{
    QTest::addColumn<QList<QByteArray>>("reads");
    QTest::addColumn<QList<QByteArray>>("objects");
    const QByteArray a = R"({"result":{"created":true}})";
    const QByteArray b = R"({"result":{"events":[{"kv":{"key":"YQ=="}}]}})";
    QTest::newRow("one object per read, newline-separated as etcd 3.4 sends them")
            << QList<QByteArray> { a + "\n", b + "\n" } << QList<QByteArray> { a, b };
    QTest::newRow("an object split across reads")
            << QList<QByteArray> { a.left(5), a.mid(5, 9), a.mid(14) + "\n" } << QList<QByteArray> { a };
    QTest::newRow("several objects in one read")
            << QList<QByteArray> { a + "\n" + b + "\n" + a } << QList<QByteArray> { a, b, a };
    QTest::newRow("objects with no separator at all")
            << QList<QByteArray> { a + b } << QList<QByteArray> { a, b };
    QList<QByteArray> bytes;
    for (const char c : a + "\n" + b)
        bytes.append(QByteArray(1, c));
    QTest::newRow("objects fed one byte at a time") << bytes << QList<QByteArray> { a, b };
    QTest::newRow("braces and escaped quotes inside strings do not count")
            << QList<QByteArray> { R"({"m":"a } \" { b"})", "\r\n" }
            << QList<QByteArray> { R"({"m":"a } \" { b"})" };
}

void TestEtcdWire::splitter()
{
    QFETCH(QList<QByteArray>, reads);
    QFETCH(QList<QByteArray>, objects);
    JsonStreamSplitter splitter;
    QList<QByteArray> found;
    for (const QByteArray &read : reads)
        QVERIFY2(splitter.feed(read, &found), qPrintable(splitter.errorString()));
    QCOMPARE(found, objects);
    QCOMPARE(splitter.pendingBytes(), 0);
}

void TestEtcdWire::splitterRefusesWhatIsNotAStreamOfObjects_data()
{
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("an HTML page") << QByteArray("<html>") << "JSON object";
    QTest::newRow("a list where an object should be") << QByteArray("[1]") << "JSON object";
    QTest::newRow("one message larger than the limit")
            << QByteArray("{\"v\":\"" + QByteArray(200, 'x')) << "larger than 100";
    QTest::newRow("a whole message larger than the limit in one read")
            << QByteArray("{\"v\":\"" + QByteArray(200, 'x') + "\"}") << "larger than 100";
    QTest::newRow("a large message after a small one")
            << QByteArray("{}\n{\"v\":\"" + QByteArray(200, 'x') + "\"}") << "larger than 100";
}

// R1: a stream that is not objects, or one too large, stops with a clear error.
void TestEtcdWire::splitterRefusesWhatIsNotAStreamOfObjects()
{
    QFETCH(QByteArray, data);
    QFETCH(QString, mentions);
    JsonStreamSplitter splitter(100);
    QList<QByteArray> found;
    QVERIFY(!splitter.feed(data, &found));
    QVERIFY2(splitter.errorString().contains(mentions), qPrintable(splitter.errorString()));
    // HttpStream tells "too large" from "not JSON" by what is pending.
    QCOMPARE(splitter.pendingBytes() > 100, mentions.startsWith(QLatin1String("larger")));
    QVERIFY(!splitter.feed("{}", &found)); // stays failed
}

void TestEtcdWire::replies_data()
{
    QTest::addColumn<QString>("operation");
    QTest::addColumn<QByteArray>("reply");
    QTest::addColumn<QString>("status");
    QTest::addColumn<QString>("mentions");
    const QByteArray kv = "{\"key\":\"" + b64("cluster:a").toLatin1() + "\",\"value\":\""
            + b64(R"({"n":1})").toLatin1() + "\",\"mod_revision\":\"5\"}";

    QTest::newRow("a failed txn has no succeeded: a Conflict showing the winner")
            << "create" << httpReply(200, R"({"header":{"revision":"7"},"responses":[{"response_range":{"kvs":[)" + kv + "]}}]}")
            << "Conflict" << "already exists";
    QTest::newRow("a failed conditional update with no kvs: NotFound")
            << "update" << httpReply(200, R"({"header":{"revision":"7"},"responses":[{"response_range":{}}]})")
            << "NotFound" << "cluster:a";
    QTest::newRow("a range with no kvs: NotFound")
            << "get" << httpReply(200, R"({"header":{"revision":"3"}})") << "NotFound" << "cluster:a";
    QTest::newRow("revisions are strings: read as numbers")
            << "get" << httpReply(200, "{\"kvs\":[" + kv + "]}") << "Ok" << "5";
    QTest::newRow("a successful txn takes its version from header.revision")
            << "create" << httpReply(200, R"({"header":{"revision":"8"},"succeeded":true})") << "Ok" << "8";
    QTest::newRow("a successful txn without header.revision is BadReply")
            << "create" << httpReply(200, R"({"succeeded":true})") << "BadReply" << "header.revision";
    QTest::newRow("a reply that is not JSON is BadReply")
            << "get" << httpReply(200, "<html>busy</html>") << "BadReply" << "not a JSON object";
    QTest::newRow("kvs that is not a list is BadReply")
            << "get" << httpReply(200, R"({"kvs":{"key":"x"}})") << "BadReply" << "\"kvs\"";
    QTest::newRow("a record whose mod_revision is a list is BadReply")
            << "get" << httpReply(200, "{\"kvs\":[{\"key\":\"" + b64("cluster:a").toLatin1() + "\",\"value\":\"e30=\",\"mod_revision\":[5]}]}")
            << "BadReply" << "mod_revision";
    QTest::newRow("a record without a key is BadReply")
            << "get" << httpReply(200, R"({"kvs":[{"value":"e30=","mod_revision":"5"}]})") << "BadReply" << "\"key\"";
    QTest::newRow("a value that is not a JSON document is BadReply naming the key")
            << "get" << httpReply(200, "{\"kvs\":[{\"key\":\"" + b64("cluster:a").toLatin1() + "\",\"value\":\"" + b64("hello").toLatin1() + "\",\"mod_revision\":\"5\"}]}")
            << "BadReply" << "value of key \"cluster:a\"";
    QTest::newRow("succeeded that is a string is BadReply")
            << "create" << httpReply(200, R"({"succeeded":"yes"})") << "BadReply" << "succeeded";
    QTest::newRow("a 500 is Unavailable with the server's message")
            << "get" << httpReply(500, R"({"error":"etcdserver: boom","message":"etcdserver: boom","code":13})")
            << "Unavailable" << "etcdserver: boom";
    QTest::newRow("a 403 is Unavailable with the server's message")
            << "get" << httpReply(403, R"({"error":"etcdserver: permission denied","message":"etcdserver: permission denied","code":7})")
            << "Unavailable" << "HTTP 403: etcdserver: permission denied";
    QTest::newRow("an oversized reply is BadReply")
            << "get" << httpReply(200, "{\"kvs\":[],\"pad\":\"" + QByteArray(5 * 1024 * 1024, 'x') + "\"}")
            << "BadReply" << "limit";
    QTest::newRow("a redirect to another host is refused")
            << "get" << httpReply(307, "{}", "Location: http://203.0.113.9:2379/v3/kv/range\r\n")
            << "BadReply" << "redirect";
}

// R1: each reply gives the status it should, with a message naming what was wrong.
void TestEtcdWire::replies()
{
    QFETCH(QString, operation);
    QFETCH(QByteArray, reply);
    QFETCH(QString, status);
    QFETCH(QString, mentions);
    Responder responder([&](const SeenRequest &) { return reply; });
    QString error;
    auto store = storeFor(responder.url(), &error);
    QVERIFY2(store, qPrintable(error));
    int calls = 0;
    StoreResult result;
    auto done = [&](const StoreResult &r) {
        ++calls;
        result = r;
    };
    const QString key = QStringLiteral("cluster:a");
    if (operation == QLatin1String("get"))
        store->get(key, done);
    else if (operation == QLatin1String("create"))
        store->create(key, QJsonObject { { QStringLiteral("n"), 2 } }, done);
    else
        store->update(key, QJsonObject { { QStringLiteral("n"), 2 } }, QStringLiteral("4"), done);
    QCOMPARE(calls, 0); // never inside the call
    QTRY_COMPARE(calls, 1);
    const QString names[] = { QStringLiteral("Ok"), QStringLiteral("Conflict"),
                              QStringLiteral("NotFound"), QStringLiteral("Unavailable"),
                              QStringLiteral("BadReply"), QStringLiteral("CredentialsRefused") };
    QCOMPARE(names[int(result.status)], status);
    const QString shown = result.ok() ? result.entry.version : result.errorString;
    QVERIFY2(shown.contains(mentions), qPrintable(shown));
    if (!result.ok())
        QVERIFY2(result.errorString.contains(QLatin1String("Webda/EtcdStore \"Registry\"")),
                 qPrintable(result.errorString));
    if (status == QLatin1String("Conflict")) {
        QVERIFY(result.entryKnown);
        QCOMPARE(result.entry.version, QStringLiteral("5"));
        QCOMPARE(result.entry.document, (QJsonObject { { QStringLiteral("n"), 1 } }));
    }
}

// R4, B1 (timeout): an endpoint that accepts and never answers is
// Unavailable after the timeout, never a hang.
void TestEtcdWire::silentEndpointTimesOut()
{
    Responder responder([](const SeenRequest &) { return QByteArray(); });
    QString error;
    auto store = storeFor(responder.url(), &error, { { QStringLiteral("timeout"), 300 } });
    QVERIFY2(store, qPrintable(error));
    std::optional<StoreResult> result;
    store->get(QStringLiteral("cluster:a"), [&](const StoreResult &r) { result = r; });
    QTRY_VERIFY(result.has_value());
    QCOMPARE(int(result->status), int(Status::Unavailable));
    QVERIFY2(result->errorString.contains(QLatin1String("300 ms")), qPrintable(result->errorString));
}

// B1: a watch reads PUT events (no `type`) and DELETE events, from messages
// split and merged across reads, and resumes after the revision it saw.
void TestEtcdWire::watchReadsEventsWithoutType()
{
    Responder responder([](const SeenRequest &request) -> QByteArray {
        if (request.path != "/v3/watch")
            return httpReply(200, "{}");
        return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n";
    });
    QString error;
    auto store = storeFor(responder.url(), &error);
    QVERIFY2(store, qPrintable(error));
    QObject owner;
    StoreWatch *watch = store->watch(QStringLiteral("cluster:"), &owner);
    auto *stream = store->findChild<EtcdWatchStream *>();
    QSignalSpy created(stream, &EtcdWatchStream::streamCreated);
    QSignalSpy changed(watch, &StoreWatch::entryChanged);
    QSignalSpy removed(watch, &StoreWatch::entryRemoved);
    QTRY_VERIFY(responder.lastSocket);
    const QByteArray put = "{\"result\":{\"header\":{\"revision\":\"11\"},\"events\":[{\"kv\":{\"key\":\""
            + b64("cluster:a").toLatin1() + "\",\"value\":\"" + b64(R"({"n":1})").toLatin1()
            + "\",\"mod_revision\":\"11\"}}]}}\n";
    const QByteArray del = "{\"result\":{\"header\":{\"revision\":\"12\"},\"events\":[{\"type\":\"DELETE\",\"kv\":{\"key\":\""
            + b64("cluster:a").toLatin1() + "\",\"mod_revision\":\"12\"}}]}}\n";
    responder.lastSocket->write(R"({"result":{"header":{"revision":"10"},"created":true}})" "\n"
                                + put.left(30));
    QVERIFY(created.wait());
    responder.lastSocket->write(put.mid(30) + del);
    QTRY_COMPARE(removed.size(), 1);
    QCOMPARE(changed.size(), 1);
    const StoreEntry entry = changed.first().at(0).value<StoreEntry>();
    QCOMPARE(entry.key, QStringLiteral("cluster:a"));
    QCOMPARE(entry.version, QStringLiteral("11"));
    QCOMPARE(removed.first().at(0).toString(), QStringLiteral("cluster:a"));
    QCOMPARE(stream->nextRevision(), 13);

    // A hostile message breaks the stream (R1); the next one resumes at 13.
    const int before = int(responder.seen.size());
    responder.lastSocket->write("{\"result\": 5}\n");
    QTRY_VERIFY(responder.seen.size() > before);
    const QJsonObject resumed = QJsonDocument::fromJson(responder.seen.last().body).object();
    QCOMPARE(resumed.value(QLatin1String("create_request")).toObject()
                     .value(QLatin1String("start_revision")).toString(),
             QStringLiteral("13"));
}

void TestEtcdWire::everyWatchOfAStoreSharesOneStreamThatWidens_data()
{
    QTest::addColumn<QString>("later");
    QTest::addColumn<QByteArray>("rangeKey");
    QTest::addColumn<QByteArray>("rangeEnd");
    QTest::newRow("a watch of a whole kind joins the stream of one key's watch")
            << QStringLiteral("cluster:") << QByteArray("cluster:") << QByteArray("cluster;");
    QTest::newRow("a watch of every key widens the range to the whole key space")
            << QString() << QByteArray(1, '\0') << QByteArray(1, '\0');
}

// B1, P3: whatever their prefixes, the watches of one store share one
// stream (no key name chooses another path); a new watch widens its range,
// and a range over every key starts at "\0", as etcd wants.
void TestEtcdWire::everyWatchOfAStoreSharesOneStreamThatWidens()
{
    QFETCH(QString, later);
    QFETCH(QByteArray, rangeKey);
    QFETCH(QByteArray, rangeEnd);
    Responder responder([](const SeenRequest &request) -> QByteArray {
        if (request.path != "/v3/watch")
            return httpReply(200, "{}");
        return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
               R"({"result":{"header":{"revision":"10"},"created":true}})" "\n";
    });
    QString error;
    auto store = storeFor(responder.url(), &error); // no prefix: the keys are etcd's own
    QVERIFY2(store, qPrintable(error));
    QObject owner;
    QVERIFY(store->watch(QStringLiteral("cluster:a"), &owner));
    auto *stream = store->findChild<EtcdWatchStream *>();
    QVERIFY(stream);
    QSignalSpy created(stream, &EtcdWatchStream::streamCreated);
    QVERIFY(created.wait());

    QVERIFY(store->watch(later, &owner));
    QTRY_COMPARE(created.size(), 2);
    QCOMPARE(store->findChildren<EtcdWatchStream *>().size(), 1);
    const QJsonObject widened = QJsonDocument::fromJson(responder.seen.last().body)
                                        .object()
                                        .value(QLatin1String("create_request"))
                                        .toObject();
    QCOMPARE(QByteArray::fromBase64(widened.value(QLatin1String("key")).toString().toLatin1()),
             rangeKey);
    QCOMPARE(QByteArray::fromBase64(widened.value(QLatin1String("range_end")).toString().toLatin1()),
             rangeEnd);
}

// B1 (auth), R2: a refused token is renewed once and the request retried;
// the token goes bare in Authorization; neither password nor token is in
// any log line or message.
void TestEtcdWire::reauthenticatesOnInvalidTokenAndLeaksNothing()
{
    const QByteArray tokenPrefix = test::testSecret(QStringLiteral("etcdwire-token")).toUtf8();
    const QString password = test::testSecret(QStringLiteral("etcdwire-password"));
    int tokensIssued = 0;
    Responder responder([&](const SeenRequest &request) -> QByteArray {
        if (request.path == "/v3/auth/authenticate") {
            ++tokensIssued;
            return httpReply(200, "{\"token\":\"" + tokenPrefix + QByteArray::number(tokensIssued) + "\"}");
        }
        if (request.authorization == tokenPrefix + "1")
            return httpReply(401, R"({"error":"etcdserver: invalid auth token","message":"etcdserver: invalid auth token","code":16})");
        return httpReply(200, "{\"kvs\":[{\"key\":\"" + b64("cluster:a").toLatin1()
                                      + "\",\"value\":\"e30=\",\"mod_revision\":\"3\"}]}");
    });
    s_logLines.clear();
    QLoggingCategory::setFilterRules(QStringLiteral("baton.*.debug=true"));
    const QtMessageHandler previous = qInstallMessageHandler(captureLog);
    QString error;
    auto store = storeFor(responder.url(), &error,
                          { { QStringLiteral("username"), QStringLiteral("alice") },
                            { QStringLiteral("password"), password } });
    std::optional<StoreResult> result;
    if (store)
        store->get(QStringLiteral("cluster:a"), [&](const StoreResult &r) { result = r; });
    QTRY_VERIFY(!store || result.has_value());
    qInstallMessageHandler(previous);
    QLoggingCategory::setFilterRules(QStringLiteral("baton.*.debug=false"));
    // R2: the captured lines go to the secrets scan as well.
    test::keepArtifact(test::ArtifactKind::CapturedLog, QStringLiteral("reauthentication.log"),
                       s_logLines.join(QLatin1Char('\n')).toUtf8());
    QVERIFY2(store, qPrintable(error));

    QVERIFY2(result->ok(), qPrintable(result->errorString));
    QCOMPARE(store->authentications(), 2);
    QStringList authorizations;
    for (const SeenRequest &request : std::as_const(responder.seen))
        authorizations.append(QString::fromLatin1(request.path + " " + request.authorization).trimmed());
    QCOMPARE(authorizations, (QStringList { QStringLiteral("/v3/auth/authenticate"),
                                            QStringLiteral("/v3/kv/range %1").arg(QString::fromUtf8(tokenPrefix + "1")),
                                            QStringLiteral("/v3/auth/authenticate"),
                                            QStringLiteral("/v3/kv/range %1").arg(QString::fromUtf8(tokenPrefix + "2")) }));
    const QString logged = s_logLines.join(QLatin1Char('\n'));
    QVERIFY2(!s_logLines.isEmpty(), "nothing was logged: the capture proves nothing");
    QVERIFY2(!logged.contains(password), qPrintable(logged));
    QVERIFY2(!logged.contains(QString::fromUtf8(tokenPrefix)), qPrintable(logged));
}

void TestEtcdWire::aRefusedAuthenticationIsTypedByItsGrpcCode_data()
{
    QTest::addColumn<QByteArray>("answer");
    QTest::addColumn<QString>("status");
    // As etcd 3.4 answers (/work/shared/reference/etcd-v3-json.md): the gRPC
    // code in the body says what was refused; the words are for people.
    QTest::newRow("a wrong password: 400 with InvalidArgument")
            << httpReply(400, R"({"error":"etcdserver: authentication failed, invalid user ID or password","message":"etcdserver: authentication failed, invalid user ID or password","code":3})")
            << "CredentialsRefused";
    QTest::newRow("a user etcd refuses: 401 with Unauthenticated")
            << httpReply(401, R"({"error":"etcdserver: invalid auth token","message":"etcdserver: invalid auth token","code":16})")
            << "CredentialsRefused";
    QTest::newRow("authentication not enabled: 400 with FailedPrecondition")
            << httpReply(400, R"({"error":"etcdserver: authentication is not enabled","message":"etcdserver: authentication is not enabled","code":9})")
            << "Unavailable";
    QTest::newRow("the words of a wrong password without its code: a proxy's 400")
            << httpReply(400, R"({"message":"etcdserver: authentication failed, invalid user ID or password"})")
            << "Unavailable";
    QTest::newRow("etcd failing while authenticating: 503 with Unavailable")
            << httpReply(503, R"({"error":"etcdserver: request timed out","message":"etcdserver: request timed out","code":14})")
            << "Unavailable";
}

// B6: whether etcd refused the credentials is read from the code of its
// answer to the authentication, never from the words of a message.
void TestEtcdWire::aRefusedAuthenticationIsTypedByItsGrpcCode()
{
    QFETCH(QByteArray, answer);
    QFETCH(QString, status);
    Responder responder([&](const SeenRequest &request) -> QByteArray {
        if (request.path == "/v3/auth/authenticate")
            return answer;
        return httpReply(200, R"({"header":{"revision":"1"}})");
    });
    QString error;
    auto store = storeFor(responder.url(), &error,
                          { { QStringLiteral("username"), QStringLiteral("alice") },
                            { QStringLiteral("password"),
                              test::testSecret(QStringLiteral("etcdwire-refused")) } });
    QVERIFY2(store, qPrintable(error));
    std::optional<StoreResult> result;
    store->get(QStringLiteral("cluster:a"), [&](const StoreResult &r) { result = r; });
    QTRY_VERIFY(result.has_value());
    QCOMPARE(result->status == Status::CredentialsRefused ? QStringLiteral("CredentialsRefused")
             : result->status == Status::Unavailable      ? QStringLiteral("Unavailable")
                                                          : QStringLiteral("another status"),
             status);
    QVERIFY2(result->errorString.contains(QLatin1String("authentication as \"alice\" failed")),
             qPrintable(result->errorString));
}

// R1, R3: https to a server that does not speak TLS is a TLS error, named.
void TestEtcdWire::tlsToAPlainServerIsATlsError()
{
    if (!QSslSocket::supportsSsl())
        QSKIP("this Qt has no TLS backend");
    Responder responder([](const SeenRequest &) { return QByteArray(); });
    QString error;
    auto store = storeFor(responder.url("https"), &error, { { QStringLiteral("timeout"), 3000 } });
    QVERIFY2(store, qPrintable(error));
    std::optional<StoreResult> result;
    store->get(QStringLiteral("cluster:a"), [&](const StoreResult &r) { result = r; });
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10000);
    QCOMPARE(int(result->status), int(Status::Unavailable));
    QVERIFY2(result->errorString.contains(QLatin1String("TLS")), qPrintable(result->errorString));
}

std::optional<StoreResult> TestEtcdWire::getThrough(const QString &url, const QJsonObject &extra)
{
    QString error;
    auto store = storeFor(url, &error, extra);
    if (!store) {
        qWarning("%s", qPrintable(error));
        return std::nullopt;
    }
    std::optional<StoreResult> result;
    store->get(QStringLiteral("cluster:a"), [&](const StoreResult &r) { result = r; });
    if (!QTest::qWaitFor([&] { return result.has_value(); }, 20000))
        return std::nullopt;
    return result;
}

namespace {

const QByteArray chunkedHead = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               "Transfer-Encoding: chunked\r\n\r\n";

QByteArray chunk(const QByteArray &data)
{
    return QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n";
}

} // namespace

// R1: a reply that never ends (chunked, no length, sent as fast as the
// socket takes it) is cut at the size limit: BadReply, not a buffer that
// grows until the timeout, nor a hang.
void TestEtcdWire::endlessReplyIsCutAtTheLimit()
{
    Responder responder([](const SeenRequest &) { return chunkedHead + chunk("{\"kvs\":["); });
    const QByteArray filler = chunk(QByteArray(64 * 1024, ' '));
    QTimer feeder;
    connect(&feeder, &QTimer::timeout, &responder, [&] {
        if (responder.lastSocket && responder.lastSocket->bytesToWrite() < 1024 * 1024)
            responder.lastSocket->write(filler);
    });
    feeder.start(1);
    // A timeout far beyond what the limit takes: hitting it would mean no limit.
    const std::optional<StoreResult> result
            = getThrough(responder.url(), {{QStringLiteral("timeout"), 15000}});
    QVERIFY(result);
    QCOMPARE(int(result->status), int(Status::BadReply));
    QVERIFY2(result->errorString.contains(QLatin1String("larger than the limit")), qPrintable(result->errorString));
}

// R1, R4: a reply that never ends and stays small (a byte now and then, so
// that no silence ever lasts) is bounded by the request's timeout as a
// whole: Unavailable, named.
void TestEtcdWire::tricklingEndlessReplyTimesOut()
{
    Responder responder([](const SeenRequest &) { return chunkedHead + chunk("{"); });
    QTimer feeder;
    connect(&feeder, &QTimer::timeout, &responder, [&] {
        if (responder.lastSocket)
            responder.lastSocket->write(chunk(" "));
    });
    feeder.start(50);
    const std::optional<StoreResult> result
            = getThrough(responder.url(), {{QStringLiteral("timeout"), 500}});
    QVERIFY(result);
    QVERIFY2(responder.seen.size() == 1, "the request never reached the server");
    QCOMPARE(int(result->status), int(Status::Unavailable));
    QVERIFY2(result->errorString.contains(QLatin1String("no answer within 500 ms")), qPrintable(result->errorString));
}

// R3, R1: a server whose certificate another CA signed is a TLS error that
// says so; the same server with the right CA answers, so the CA is what
// was refused.
void TestEtcdWire::serverCertificateFromAnotherCaIsATlsError()
{
    if (!QSslSocket::supportsSsl())
        QSKIP("this Qt has no TLS backend");
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    test::TestCertificates certificates;
    QString error;
    QVERIFY2(certificates.generate(folder.path(), &error), qPrintable(error));
    QString otherCa;
    QVERIFY2(certificates.generateOtherCa(&otherCa, &error), qPrintable(error));
    QFile key(certificates.serverKeyFile());
    QVERIFY(key.open(QIODevice::ReadOnly));
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.setLocalCertificateChain(QSslCertificate::fromPath(certificates.serverCertFile()));
    tls.setPrivateKey(QSslKey(key.readAll(), QSsl::Ec));
    tls.setPeerVerifyMode(QSslSocket::VerifyNone);
    Responder responder(
            [](const SeenRequest &) {
                return httpReply(200, "{\"kvs\":[{\"key\":\"" + b64("cluster:a").toLatin1()
                                              + "\",\"value\":\"e30=\",\"mod_revision\":\"3\"}]}");
            },
            tls);

    const auto withCa = [](const QString &ca) {
        return QJsonObject {{QStringLiteral("timeout"), 5000},
                            {QStringLiteral("tls"), QJsonObject {{QStringLiteral("ca"), ca}}}};
    };
    const std::optional<StoreResult> trusted = getThrough(responder.url("https"), withCa(certificates.caFile()));
    QVERIFY(trusted);
    QVERIFY2(trusted->ok(), qPrintable(trusted->errorString));

    const std::optional<StoreResult> refused = getThrough(responder.url("https"), withCa(otherCa));
    QVERIFY(refused);
    QCOMPARE(int(refused->status), int(Status::Unavailable));
    QVERIFY2(refused->errorString.contains(QLatin1String("TLS error")), qPrintable(refused->errorString));
    QVERIFY2(refused->errorString.contains(QLatin1String("certificate"), Qt::CaseInsensitive),
             qPrintable(refused->errorString));
    QVERIFY2(refused->errorString.contains(QLatin1String("Webda/EtcdStore \"Registry\"")),
             qPrintable(refused->errorString));
    // The handshake failed before any request: only the trusted one arrived.
    QCOMPARE(responder.seen.size(), 1);
}

namespace {

/*! The keys a txn compares, in order. */
QStringList comparedKeys(const SeenRequest &request)
{
    QStringList keys;
    const QJsonArray compares = QJsonDocument::fromJson(request.body).object()
                                        .value(QLatin1String("compare")).toArray();
    for (const QJsonValue &compare : compares)
        keys.append(QString::fromUtf8(QByteArray::fromBase64(
                compare.toObject().value(QLatin1String("key")).toString().toLatin1())));
    return keys;
}

/*! The key of \a op (a RangeRequest), decoded. */
QByteArray rangeKey(const QJsonObject &range)
{
    return QByteArray::fromBase64(range.value(QLatin1String("key")).toString().toLatin1());
}

/*!
 * etcd's answer to one range: the key with a document naming it, at
 * mod_revision 5, when \a present says it is there; else no kvs at all,
 * as etcd leaves empty fields out.
 */
QJsonObject rangeAnswer(const QByteArray &key, bool present)
{
    if (!present)
        return QJsonObject { { QStringLiteral("header"), QJsonObject { { QStringLiteral("revision"), "9" } } } };
    const QByteArray document = QJsonDocument(QJsonObject { { QStringLiteral("k"), QString::fromUtf8(key) } })
                                        .toJson(QJsonDocument::Compact);
    return QJsonObject {
        { QStringLiteral("kvs"),
          QJsonArray { QJsonObject { { QStringLiteral("key"), QString::fromLatin1(key.toBase64()) },
                                     { QStringLiteral("value"), QString::fromLatin1(document.toBase64()) },
                                     { QStringLiteral("mod_revision"), "5" } } } },
        { QStringLiteral("count"), "1" }
    };
}

/*! Keys ending in an even digit are there, the others not. */
bool presentKey(const QByteArray &key)
{
    return (key.back() - '0') % 2 == 0;
}

/*! A txn of ranges answered as etcd does: one response_range per operation, in order. */
QByteArray rangesAnswered(const SeenRequest &request)
{
    QJsonArray responses;
    const QJsonArray success = QJsonDocument::fromJson(request.body).object()
                                       .value(QLatin1String("success")).toArray();
    for (const QJsonValue &op : success) {
        const QByteArray key = rangeKey(op.toObject().value(QLatin1String("request_range")).toObject());
        responses.append(QJsonObject { { QStringLiteral("response_range"), rangeAnswer(key, presentKey(key)) } });
    }
    return httpReply(200, QJsonDocument(QJsonObject {
                                                { QStringLiteral("header"), QJsonObject { { QStringLiteral("revision"), "9" } } },
                                                { QStringLiteral("succeeded"), true },
                                                { QStringLiteral("responses"), responses } })
                                  .toJson(QJsonDocument::Compact));
}

QByteArray rangeAnswered(const SeenRequest &request)
{
    const QByteArray key = rangeKey(QJsonDocument::fromJson(request.body).object());
    return httpReply(200, QJsonDocument(rangeAnswer(key, presentKey(key))).toJson(QJsonDocument::Compact));
}

/*! An etcd that answers a txn of ranges at once, and a range alone once *\a hold is false. */
Responder::Handler rangesHeldWhile(const bool *hold)
{
    return [hold](const SeenRequest &request) {
        if (request.path == "/v3/kv/txn")
            return rangesAnswered(request);
        return *hold ? QByteArray() : rangeAnswered(request);
    };
}

/*!
 * An etcd store on a Responder, and the answer of each of its get()s by
 * key: the read batcher's tests ask many reads and check each answer.
 */
struct Reads
{
    std::unique_ptr<EtcdStore> store;
    QHash<QString, StoreResult> answers;

    void get(const QString &key)
    {
        store->get(key, [this, key](const StoreResult &r) { answers.insert(key, r); });
    }
    /*!
     * Fills the batcher's places for reads alone with \a prefix0,
     * \a prefix2...; true once \a responder holds them all, unanswered.
     */
    bool getAlone(Responder *responder, const QString &prefix)
    {
        const qsizetype before = responder->seen.size();
        for (int i = 0; i < EtcdRangeBatcher::kMaxInFlight; ++i)
            get(prefix + QString::number(i * 2));
        return QTest::qWaitFor([&] { return responder->seen.size() == before + EtcdRangeBatcher::kMaxInFlight; });
    }
};

/*! Answers the first \a count ranges \a responder held. */
void answerFirst(Responder *responder, int count)
{
    for (int i = 0; i < count; ++i)
        responder->seen.at(i).socket->write(rangeAnswered(responder->seen.at(i)));
}

QByteArray txnSucceeded(int revision)
{
    return httpReply(200, R"({"header":{"revision":")" + QByteArray::number(revision)
                                  + R"("},"succeeded":true})");
}

/*! A failed txn's answer: what each compared key holds now (its mod_revision). */
QByteArray txnFailed(const QList<QPair<QByteArray, int>> &current)
{
    QByteArray responses;
    for (const auto &[key, revision] : current) {
        if (!responses.isEmpty())
            responses += ',';
        responses += R"({"response_range":{"kvs":[{"key":")" + key.toBase64() + R"(","value":")"
                + QByteArray(R"({"n":1})").toBase64() + R"(","mod_revision":")"
                + QByteArray::number(revision) + R"("}]}})";
    }
    return httpReply(200, R"({"header":{"revision":"20"},"responses":[)" + responses + "]}");
}

} // namespace

void TestEtcdWire::aTxnOfUpdatesIsWrittenAsItsOperationsWouldBe()
{
    // The bytes the batcher sends must say what the txn's objects say:
    // keys with bytes that base64 pads differently, a value with quotes,
    // a revision past 32 bits.
    const QList<std::tuple<QByteArray, qint64, QByteArray>> updates {
            { QByteArrayLiteral("p/cluster:a"), 7, QByteArrayLiteral(R"({"holderIdentity":"x \"y\""})") },
            { QByteArrayLiteral("p/cluster:bb"), 5000000000, QByteArrayLiteral("{}") },
            { QByteArrayLiteral("p/cluster:ccc\xff"), 1, QByteArray(300, 'v') },
    };
    etcdtxn::GuardedPuts written;
    QJsonArray compares;
    QJsonArray puts;
    QJsonArray reads;
    for (const auto &[key, revision, value] : updates) {
        written.add(key, revision, value);
        compares.append(etcdtxn::modifiedAt(key, revision));
        puts.append(etcdtxn::putValueOp(key, value));
        reads.append(etcdtxn::rangeOp(key));
    }
    QJsonParseError error;
    const QJsonDocument body = QJsonDocument::fromJson(written.take(), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(body.object(), (QJsonObject { { QStringLiteral("compare"), compares },
                                           { QStringLiteral("success"), puts },
                                           { QStringLiteral("failure"), reads } }));
    QVERIFY(written.isEmpty());
    const QJsonDocument none = QJsonDocument::fromJson(written.take(), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(none.object().value(QStringLiteral("compare")), QJsonValue(QJsonArray()));
}

// P3: the updates of one turn of the event loop (the renewals of a slot,
// whose timers fire together) go in one txn at its end, not the first
// alone and the others behind its answer.
void TestEtcdWire::updatesOfOneTurnGoInOneTxn()
{
    Responder responder([](const SeenRequest &) { return QByteArray(); });
    QString error;
    auto store = storeFor(responder.url(), &error);
    QVERIFY2(store, qPrintable(error));
    QHash<QString, StoreResult> results;
    const QStringList keys { QStringLiteral("cluster:a"), QStringLiteral("cluster:b"), QStringLiteral("cluster:c") };
    for (qsizetype i = 0; i < keys.size(); ++i)
        store->update(keys.at(i), QJsonObject { { QStringLiteral("n"), int(i) } }, QString::number(i + 3),
                      [&results, key = keys.at(i)](const StoreResult &r) { results.insert(key, r); });
    QTRY_COMPARE(responder.seen.size(), 1);
    QCOMPARE(comparedKeys(responder.seen.first()), keys);
    responder.seen.first().socket->write(txnSucceeded(9));
    QTRY_COMPARE(results.size(), keys.size());
    for (const QString &key : keys)
        QCOMPARE(results.value(key).entry.version, QStringLiteral("9"));
    QCOMPARE(responder.seen.size(), 1);
}

// P3, B2: updates that come while an update txn waits for etcd wait for
// its answer and then share one txn. When one of them lost its comparison,
// it is a Conflict, and the others of that txn go again rather than lose
// with it. A txn never holds one key twice (etcd refuses that): the second
// update of a key goes in a txn of its own beside it.
void TestEtcdWire::updatesWaitingForEtcdShareOneTxn()
{
    Responder responder([](const SeenRequest &) { return QByteArray(); });
    QString error;
    auto store = storeFor(responder.url(), &error);
    QVERIFY2(store, qPrintable(error));
    QHash<QString, StoreResult> results;
    auto update = [&](const QString &label, const QString &key, int version) {
        store->update(key, QJsonObject { { QStringLiteral("n"), version } }, QString::number(version),
                      [&results, label](const StoreResult &r) { results.insert(label, r); });
    };
    update(QStringLiteral("first"), QStringLiteral("cluster:first"), 4);
    QTRY_COMPARE(responder.seen.size(), 1);
    QCOMPARE(comparedKeys(responder.seen.last()).size(), 1);
    const QString b = QStringLiteral("cluster:b"), c = QStringLiteral("cluster:c"),
                  d = QStringLiteral("cluster:d");
    update(QStringLiteral("b"), b, 5);
    update(QStringLiteral("c"), c, 6);
    update(QStringLiteral("d"), d, 7);
    update(QStringLiteral("b again"), b, 11);

    responder.seen.at(0).socket->write(txnSucceeded(8));
    QTRY_COMPARE(responder.seen.size(), 3);
    QCOMPARE(comparedKeys(responder.seen.at(1)), (QStringList { b, c, d }));
    QCOMPARE(comparedKeys(responder.seen.at(2)), QStringList { b });
    QTRY_VERIFY(results.contains(QStringLiteral("first")));
    QCOMPARE(results.value(QStringLiteral("first")).entry.version, QStringLiteral("8"));

    // c was changed by someone else (9, not 6); b and d still hold theirs.
    responder.seen.at(1).socket->write(
            txnFailed({ { b.toUtf8(), 5 }, { c.toUtf8(), 9 }, { d.toUtf8(), 7 } }));
    QTRY_COMPARE(responder.seen.size(), 4);
    QCOMPARE(comparedKeys(responder.seen.last()), (QStringList { b, d }));
    QTRY_VERIFY(results.contains(QStringLiteral("c")));
    const StoreResult lost = results.value(QStringLiteral("c"));
    QCOMPARE(int(lost.status), int(Status::Conflict));
    QCOMPARE(lost.entry.version, QStringLiteral("9"));
    QVERIFY(!results.contains(QStringLiteral("b")));

    responder.seen.at(2).socket->write(txnSucceeded(12));
    responder.seen.at(3).socket->write(txnSucceeded(13));
    QTRY_COMPARE(results.size(), 5);
    QCOMPARE(results.value(QStringLiteral("b again")).entry.version, QStringLiteral("12"));
    QCOMPARE(results.value(QStringLiteral("b")).entry.version, QStringLiteral("13"));
    QCOMPARE(results.value(QStringLiteral("d")).entry.version, QStringLiteral("13"));
    QCOMPARE(responder.seen.size(), 4);
}

// P3, F4: updates wait behind a txn etcd has not answered only briefly
// (a connection that lost its packets can hold that txn until the
// timeout): they go together in a txn of their own long before it, and
// each is answered from that txn.
void TestEtcdWire::updatesWaitBehindATxnEtcdIsSlowToAnswerOnlyBriefly()
{
    Responder responder([&](const SeenRequest &) {
        return responder.seen.size() <= 1 ? QByteArray() : txnSucceeded(21); // the first: never
    });
    QString error;
    auto store = storeFor(responder.url(), &error, { { QStringLiteral("timeout"), 60000 } });
    QVERIFY2(store, qPrintable(error));
    QHash<QString, StoreResult> results;
    auto update = [&](const QString &key) {
        store->update(key, QJsonObject {}, QStringLiteral("4"),
                      [&results, key](const StoreResult &r) { results.insert(key, r); });
    };
    update(QStringLiteral("cluster:stuck"));
    QTRY_COMPARE(responder.seen.size(), 1);
    const QStringList behind { QStringLiteral("cluster:a"), QStringLiteral("cluster:b"), QStringLiteral("cluster:c") };
    for (const QString &key : behind)
        update(key);
    QTRY_COMPARE(results.size(), behind.size());
    QCOMPARE(responder.seen.size(), 2);
    QCOMPARE(comparedKeys(responder.seen.at(1)), behind);
    for (const QString &key : behind)
        QCOMPARE(results.value(key).entry.version, QStringLiteral("21"));
}

// P3: Qt writes a body 16 KiB at a time with Nagle's algorithm on, so a
// txn over 16 KiB waited about 40 ms for etcd's delayed acknowledgement.
// Updates that wait together are cut into txns that each stay below it,
// and every one of them is sent.
void TestEtcdWire::aSharedTxnIsNeverLargerThanOneWriteOfQt()
{
    Responder responder([&](const SeenRequest &) {
        return responder.seen.size() <= 1 ? QByteArray() : txnSucceeded(30); // the first answered below
    });
    QString error;
    auto store = storeFor(responder.url(), &error);
    QVERIFY2(store, qPrintable(error));
    int answered = 0;
    auto update = [&](const QString &key) {
        // About 600 bytes each, as a lease record with its labels.
        const QJsonObject document {{QStringLiteral("holder"), QString(600, QLatin1Char('h'))}};
        store->update(key, document, QStringLiteral("4"), [&answered](const StoreResult &r) {
            QVERIFY2(r.ok(), qPrintable(r.errorString));
            ++answered;
        });
    };
    constexpr int limit = 1; // the update etcd has, which the others wait behind
    update(QStringLiteral("cluster:first"));
    QTRY_COMPARE(responder.seen.size(), 1);
    constexpr int waiting = 100;
    for (int i = 0; i < waiting; ++i)
        update(QStringLiteral("cluster:k%1").arg(i, 3, 10, QLatin1Char('0')));
    responder.seen.at(0).socket->write(txnSucceeded(29));
    QTRY_COMPARE(answered, limit + waiting);
    QStringList sent;
    for (qsizetype i = limit; i < responder.seen.size(); ++i) {
        const SeenRequest &txn = responder.seen.at(i);
        QVERIFY2(txn.body.size() <= 16 * 1024, qPrintable(QString::number(txn.body.size())));
        sent += comparedKeys(txn);
    }
    QCOMPARE(sent.size(), waiting);
    // Shared still: a few txns, not one per update.
    QVERIFY2(responder.seen.size() - limit < waiting / 10, qPrintable(QString::number(responder.seen.size())));
}

// R4: an update that waits behind txns etcd never answers is answered too,
// Unavailable, within the timeout; waiting is no way round it.
void TestEtcdWire::updatesWaitingBehindASilentEtcdTimeOut()
{
    Responder responder([](const SeenRequest &) { return QByteArray(); });
    QString error;
    auto store = storeFor(responder.url(), &error, { { QStringLiteral("timeout"), 300 } });
    QVERIFY2(store, qPrintable(error));
    QList<StoreResult> results;
    constexpr int count = EtcdUpdateQueue::kMaxInFlight + 3;
    for (int i = 0; i < count; ++i) {
        store->update(QStringLiteral("cluster:k%1").arg(i), QJsonObject {}, QStringLiteral("4"),
                      [&results](const StoreResult &r) { results.append(r); });
    }
    QTRY_COMPARE(results.size(), count);
    for (const StoreResult &result : std::as_const(results)) {
        QCOMPARE(int(result.status), int(Status::Unavailable));
        // Sent when its wait ran out (what is left of its 300 ms), or never.
        QVERIFY2(result.errorString.contains(QLatin1String("no answer within"))
                         || result.errorString.contains(QLatin1String("never sent")),
                 qPrintable(result.errorString));
    }
}

// B1: an etcd whose --max-txn-ops is lower than a shared txn refuses it;
// the updates go again in smaller ones and all land.
void TestEtcdWire::aTxnRefusedAsTooLargeIsSentSmaller()
{
    Responder responder([&](const SeenRequest &request) {
        if (comparedKeys(request).size() > 2) {
            return httpReply(400, R"({"error":"etcdserver: too many operations in txn request",)"
                                  R"("code":3,"message":"etcdserver: too many operations in txn request"})");
        }
        // The first is answered below, once the others wait behind it.
        return responder.seen.size() <= 1 ? QByteArray() : txnSucceeded(30);
    });
    QString error;
    auto store = storeFor(responder.url(), &error);
    QVERIFY2(store, qPrintable(error));
    QList<StoreResult> results;
    constexpr int count = 6;
    for (int i = 0; i < count; ++i) {
        store->update(QStringLiteral("cluster:k%1").arg(i), QJsonObject {}, QStringLiteral("4"),
                      [&results](const StoreResult &r) { results.append(r); });
        if (i == 0)
            QTRY_COMPARE(responder.seen.size(), 1);
    }
    responder.seen.at(0).socket->write(txnSucceeded(29));
    QTRY_COMPARE(results.size(), count);
    for (const StoreResult &result : std::as_const(results))
        QVERIFY2(result.ok(), qPrintable(result.errorString));
    QCOMPARE(comparedKeys(responder.seen.at(1)).size(), count - 1);
    for (qsizetype i = 2; i < responder.seen.size(); ++i)
        QVERIFY(comparedKeys(responder.seen.at(i)).size() <= 2);
}

// R4, P3: a shared txn lives as long as the earliest deadline it carries.
// An update that waited so long behind a busy etcd that less than half its
// timeout is left is answered Unavailable without being sent, so the fresh
// update behind it goes alone, with all of its own time.
void TestEtcdWire::anUpdateWithTooLittleTimeLeftIsAnsweredWithoutCuttingTheOthersShort()
{
    constexpr int timeoutMs = 4000;
    Responder responder([](const SeenRequest &) { return QByteArray(); });
    QString error;
    auto store = storeFor(responder.url(), &error, { { QStringLiteral("timeout"), timeoutMs } });
    QVERIFY2(store, qPrintable(error));
    QHash<QString, StoreResult> results;
    auto update = [&](const QString &key) {
        store->update(key, QJsonObject {}, QStringLiteral("4"),
                      [&results, key](const StoreResult &r) { results.insert(key, r); });
    };
    constexpr int limit = EtcdUpdateQueue::kMaxInFlight;
    for (int i = 0; i < limit; ++i) {
        update(QStringLiteral("cluster:busy%1").arg(i));
        QTRY_COMPARE(responder.seen.size(), i + 1);
    }
    const QString old = QStringLiteral("cluster:old"), fresh = QStringLiteral("cluster:fresh");
    update(old);
    // Past the half of the old update's timeout (the store's own rule).
    const QDeadlineTimer halfGone(timeoutMs / 2 + 100);
    QTRY_VERIFY_WITH_TIMEOUT(halfGone.hasExpired(), timeoutMs);
    update(fresh);
    responder.seen.at(0).socket->write(txnSucceeded(8));

    QTRY_COMPARE(responder.seen.size(), limit + 1);
    QCOMPARE(comparedKeys(responder.seen.last()), QStringList { fresh });
    QTRY_VERIFY(results.contains(old));
    QCOMPARE(int(results.value(old).status), int(Status::Unavailable));
    QVERIFY2(results.value(old).errorString.contains(QLatin1String("never sent")),
             qPrintable(results.value(old).errorString));
    responder.seen.last().socket->write(txnSucceeded(9));
    QTRY_VERIFY(results.contains(fresh));
    QVERIFY2(results.value(fresh).ok(), qPrintable(results.value(fresh).errorString));
    QCOMPARE(results.value(fresh).entry.version, QStringLiteral("9"));
}

// B1, B2: etcd refuses a whole txn for one update in it (here a key outside
// the user's role: 403 "permission denied"). The txn goes again in halves
// until that update is alone: it alone is refused, the others land.
void TestEtcdWire::aTxnRefusedForOneUpdateLandsTheOthers()
{
    constexpr int limit = 1; // the update etcd has, which the others wait behind
    const QString forbidden = QStringLiteral("cluster:forbidden");
    Responder responder([&](const SeenRequest &request) {
        if (responder.seen.size() <= limit)
            return QByteArray(); // answered below, once the others wait
        if (comparedKeys(request).contains(forbidden)) {
            return httpReply(403, R"({"error":"etcdserver: permission denied","code":7,)"
                                  R"("message":"etcdserver: permission denied"})");
        }
        return txnSucceeded(40);
    });
    QString error;
    auto store = storeFor(responder.url(), &error);
    QVERIFY2(store, qPrintable(error));
    QHash<QString, StoreResult> results;
    auto update = [&](const QString &key) {
        store->update(key, QJsonObject {}, QStringLiteral("4"),
                      [&results, key](const StoreResult &r) { results.insert(key, r); });
    };
    update(QStringLiteral("cluster:busy"));
    QTRY_COMPARE(responder.seen.size(), limit);
    const QStringList others { QStringLiteral("cluster:a"), QStringLiteral("cluster:b"),
                               QStringLiteral("cluster:c") };
    update(others.at(0));
    update(forbidden);
    update(others.at(1));
    update(others.at(2));
    responder.seen.at(0).socket->write(txnSucceeded(30));

    QTRY_COMPARE(results.size(), limit + 4);
    QCOMPARE(comparedKeys(responder.seen.at(limit)).size(), 4);
    for (const QString &key : others)
        QVERIFY2(results.value(key).ok(), qPrintable(key + QLatin1String(": ")
                                                     + results.value(key).errorString));
    const StoreResult refused = results.value(forbidden);
    QCOMPARE(int(refused.status), int(Status::Unavailable));
    QVERIFY2(refused.errorString.contains(QLatin1String("permission denied")),
             qPrintable(refused.errorString));
}

// P3: a process in a thousand elections makes thousands of requests at
// once (the first acquisitions, the candidate records). Past a bound they
// wait in the client, not as replies queued inside Qt, whose heap the
// process keeps; every one is still sent, in turn, and answered once.
void TestEtcdWire::requestsBeyondTheBoundWaitInTheClientAndAreAllAnswered()
{
    bool answering = false;
    Responder responder([&](const SeenRequest &) { return answering ? httpReply(200, "{}") : QByteArray(); });
    HttpClient client;
    // A stream (a watch) lasts as long as its owner wants: it holds no place.
    QObject streamOwner;
    client.postStream(QUrl(responder.url() + QStringLiteral("/v3/watch")), {}, {}, &streamOwner);
    const int bound = HttpClient::kMaxRequestsInFlight;
    const int made = bound + 58;
    QList<int> answers(made, 0);
    int failed = 0;
    for (int i = 0; i < made; ++i)
        client.postJson(QUrl(responder.url() + QStringLiteral("/v3/kv/range")), { { QStringLiteral("n"), i } }, {},
                        60000, [&, i](const HttpResult &result) {
                            ++answers[i];
                            failed += result.ok() ? 0 : 1;
                        });
    QCOMPARE(client.requestsInFlight(), bound);
    QCOMPARE(client.requestsWaiting(), made - bound);
    // The connections hold what the server has seen; it answers those, and
    // from then on every request as it comes.
    QTRY_VERIFY(!responder.seen.isEmpty());
    QVERIFY(responder.seen.size() <= bound);
    answering = true;
    for (const SeenRequest &held : std::as_const(responder.seen))
        if (held.socket)
            held.socket->write(httpReply(200, "{}"));
    QTRY_COMPARE_WITH_TIMEOUT(int(std::count(answers.cbegin(), answers.cend(), 1)), made, 30000);
    QCOMPARE(failed, 0);
    QCOMPARE(client.requestsWaiting(), 0);
    QCOMPARE(int(std::count(answers.cbegin(), answers.cend(), 1)), made); // none twice
    QCOMPARE(responder.seen.size(), made + 1);
}

// The timeout of a request counts from the call, waiting included: one
// that waited it out fails as a silent server's would, the others go on.
void TestEtcdWire::aRequestThatWaitsOutItsTimeoutFailsAsUnanswered()
{
    Responder responder([](const SeenRequest &) { return QByteArray(); });
    std::optional<HttpResult> late;
    int othersAnswered = 0;
    {
        HttpClient client;
        const QUrl url(responder.url() + QStringLiteral("/v3/kv/range"));
        for (int i = 0; i < HttpClient::kMaxRequestsInFlight; ++i)
            client.postJson(url, {}, {}, 60000, [&](const HttpResult &) { ++othersAnswered; });
        client.postJson(url, {}, {}, 300, [&](const HttpResult &result) { late = result; });
        client.postJson(url, {}, {}, 60000, [&](const HttpResult &) { ++othersAnswered; });
        QCOMPARE(client.requestsWaiting(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(late.has_value(), 30000);
        QCOMPARE(int(late->error.kind), int(HttpError::Kind::Timeout));
        QVERIFY2(late->error.message.contains(QLatin1String("no answer within 300 ms")), qPrintable(late->error.message));
        QCOMPARE(client.requestsWaiting(), 1);
        QCOMPARE(client.requestsInFlight(), HttpClient::kMaxRequestsInFlight);
    }
    // A client destroyed answers nothing more, waiting or in flight.
    QCoreApplication::processEvents();
    QCOMPARE(othersAnswered, 0);
}

// P3: a process that reads thousands of leases and candidate records at
// once (its start) sends them as a few txns of ranges, not one request each,
// and each read is answered as the range alone would have been.
void TestEtcdWire::readsAskedAtOnceShareTxnsAndEachIsAnsweredAsAlone()
{
    bool holdRanges = true;
    Responder responder(rangesHeldWhile(&holdRanges));
    QString error;
    Reads reads { storeFor(responder.url(), &error), {} };
    QVERIFY2(reads.store, qPrintable(error));
    QHash<QString, StoreResult> &answers = reads.answers;
    auto get = [&reads](const QString &key) { reads.get(key); };
    constexpr int alone = EtcdRangeBatcher::kMaxInFlight;
    QVERIFY(reads.getAlone(&responder, QStringLiteral("cluster:first")));
    // Behind those: more than a txn holds.
    constexpr int waiting = EtcdRangeBatcher::kMaxBatch + 73;
    for (int i = 0; i < waiting; ++i)
        get(QStringLiteral("cluster:k%1").arg(i, 3, 10, QLatin1Char('0')));
    QCOMPARE(responder.seen.size(), alone);
    holdRanges = false;
    answerFirst(&responder, alone);
    QTRY_COMPARE(answers.size(), alone + waiting);

    // The first went alone, as ranges; the others together, at most
    // kMaxBatch to a txn, in the order they were asked (the two txns go on
    // two connections: they may reach the server in either order).
    QStringList paths;
    QList<QJsonObject> txns;
    for (const SeenRequest &request : std::as_const(responder.seen)) {
        paths.append(QString::fromLatin1(request.path));
        if (request.path == "/v3/kv/txn")
            txns.append(QJsonDocument::fromJson(request.body).object());
    }
    const QStringList expected = QStringList(alone, QStringLiteral("/v3/kv/range"))
            + QStringList { QStringLiteral("/v3/kv/txn"), QStringLiteral("/v3/kv/txn") };
    QCOMPARE(paths, expected);
    std::sort(txns.begin(), txns.end(), [](const QJsonObject &a, const QJsonObject &b) {
        return a.value(QLatin1String("success")).toArray().size() > b.value(QLatin1String("success")).toArray().size();
    });
    const QJsonArray first = txns.at(0).value(QLatin1String("success")).toArray();
    QCOMPARE(first.size(), EtcdRangeBatcher::kMaxBatch);
    QCOMPARE(txns.at(1).value(QLatin1String("success")).toArray().size(), waiting - EtcdRangeBatcher::kMaxBatch);
    QCOMPARE(rangeKey(first.at(0).toObject().value(QLatin1String("request_range")).toObject()),
             QByteArray("cluster:k000"));
    for (const QJsonObject &txn : std::as_const(txns))
        QVERIFY(!txn.contains(QLatin1String("compare")));

    for (auto it = answers.cbegin(); it != answers.cend(); ++it) {
        const bool present = presentKey(it.key().toUtf8());
        QVERIFY2(present ? it->ok() : it->status == Status::NotFound,
                 qPrintable(it.key() + QStringLiteral(": ") + it->errorString));
        if (present) {
            QCOMPARE(it->entry.key, it.key());
            QCOMPARE(it->entry.document.value(QLatin1String("k")).toString(), it.key());
            QCOMPARE(it->entry.version, QStringLiteral("5"));
        }
    }
}

namespace {

/*! Whether a txn of ranges reads a key that ends with \a suffix. */
bool txnReads(const SeenRequest &request, const QByteArray &suffix)
{
    const QJsonArray success = QJsonDocument::fromJson(request.body).object()
                                       .value(QLatin1String("success")).toArray();
    for (const QJsonValue &op : success)
        if (rangeKey(op.toObject().value(QLatin1String("request_range")).toObject()).endsWith(suffix))
            return true;
    return false;
}

int txnOperations(const SeenRequest &request)
{
    return int(QJsonDocument::fromJson(request.body).object().value(QLatin1String("success")).toArray().size());
}

} // namespace

// A txn of reads that etcd refuses (one key outside the user's role) is not
// every read's fault: it goes again in halves, so that the reads beside the
// refused one get their answers, and only that one is refused.
void TestEtcdWire::readsOfARefusedTxnGoAgainInHalves()
{
    bool holdRanges = true;
    const QByteArray denied = httpReply(403, R"({"error":"etcdserver: permission denied","code":7})");
    Responder responder([&](const SeenRequest &request) {
        if (request.path == "/v3/kv/txn")
            return txnReads(request, "forbidden") ? denied : rangesAnswered(request);
        if (rangeKey(QJsonDocument::fromJson(request.body).object()).endsWith("forbidden"))
            return denied;
        return holdRanges ? QByteArray() : rangeAnswered(request);
    });
    QString error;
    Reads reads { storeFor(responder.url(), &error), {} };
    QVERIFY2(reads.store, qPrintable(error));
    QHash<QString, StoreResult> &answers = reads.answers;
    auto get = [&reads](const QString &key) { reads.get(key); };
    constexpr int alone = EtcdRangeBatcher::kMaxInFlight;
    QVERIFY(reads.getAlone(&responder, QStringLiteral("cluster:first")));
    const QStringList waiting { QStringLiteral("cluster:a0"), QStringLiteral("cluster:forbidden"),
                                QStringLiteral("cluster:b1"), QStringLiteral("cluster:c2") };
    for (const QString &key : waiting)
        get(key);
    holdRanges = false;
    answerFirst(&responder, alone);
    QTRY_COMPARE(answers.size(), alone + int(waiting.size()));

    // The four together, refused; a0 and forbidden together, refused, b1 and
    // c2 together, answered; then a0 and forbidden each alone.
    QStringList paths;
    QList<int> operations;
    for (qsizetype i = alone; i < responder.seen.size(); ++i) {
        paths.append(QString::fromLatin1(responder.seen.at(i).path));
        if (responder.seen.at(i).path == "/v3/kv/txn")
            operations.append(txnOperations(responder.seen.at(i)));
    }
    paths.sort();
    QCOMPARE(paths, QStringList({ QStringLiteral("/v3/kv/range"), QStringLiteral("/v3/kv/range"),
                                  QStringLiteral("/v3/kv/txn"), QStringLiteral("/v3/kv/txn"),
                                  QStringLiteral("/v3/kv/txn") }));
    QCOMPARE(operations, QList<int>({ 4, 2, 2 }));
    QVERIFY2(answers.value(QStringLiteral("cluster:a0")).ok(), qPrintable(answers.value(QStringLiteral("cluster:a0")).errorString));
    QCOMPARE(int(answers.value(QStringLiteral("cluster:b1")).status), int(Status::NotFound));
    QVERIFY(answers.value(QStringLiteral("cluster:c2")).ok());
    const StoreResult refused = answers.value(QStringLiteral("cluster:forbidden"));
    QVERIFY2(!refused.ok() && refused.errorString.contains(QLatin1String("permission denied")),
             qPrintable(refused.errorString));
}

// An etcd started with a --max-txn-ops below the batcher's own bound
// refuses a txn of reads for its size: the reads go again in smaller txns,
// and the txns after that are no larger than what etcd took.
void TestEtcdWire::aTxnOfReadsRefusedForItsSizeMakesTheNextOnesSmaller()
{
    constexpr int maxTxnOps = 8;
    bool holdRanges = true;
    int refusedTxns = 0;
    Responder responder([&](const SeenRequest &request) {
        if (request.path == "/v3/kv/txn") {
            if (txnOperations(request) <= maxTxnOps)
                return rangesAnswered(request);
            ++refusedTxns;
            return httpReply(400, R"({"error":"etcdserver: too many operations in txn request","code":3})");
        }
        return holdRanges ? QByteArray() : rangeAnswered(request);
    });
    QString error;
    Reads reads { storeFor(responder.url(), &error), {} };
    QVERIFY2(reads.store, qPrintable(error));
    QHash<QString, StoreResult> &answers = reads.answers;
    auto get = [&reads](const QString &key) { reads.get(key); };
    constexpr int alone = EtcdRangeBatcher::kMaxInFlight;
    constexpr int waiting = 40;
    // Twice: the reads of the first burst teach the batcher etcd's bound,
    // those of the second go within it.
    for (int burst = 0; burst < 2; ++burst) {
        const qsizetype seenBefore = responder.seen.size();
        const int refusedBefore = refusedTxns;
        holdRanges = true;
        QVERIFY(reads.getAlone(&responder, QStringLiteral("cluster:burst%1-first").arg(burst)));
        for (int i = 0; i < waiting; ++i)
            get(QStringLiteral("cluster:burst%1-k%2").arg(burst).arg(i, 2, 10, QLatin1Char('0')));
        holdRanges = false;
        for (qsizetype i = seenBefore; i < seenBefore + alone; ++i)
            responder.seen.at(i).socket->write(rangeAnswered(responder.seen.at(i)));
        QTRY_COMPARE(answers.size(), (burst + 1) * (alone + waiting));
        if (burst == 0)
            QVERIFY(refusedTxns > refusedBefore);
        else
            QCOMPARE(refusedTxns, refusedBefore);
    }
    for (auto it = answers.cbegin(); it != answers.cend(); ++it) {
        const bool present = presentKey(it.key().toUtf8());
        QVERIFY2(present ? it->ok() : it->status == Status::NotFound,
                 qPrintable(it.key() + QStringLiteral(": ") + it->errorString));
    }
}

// A prefix outside the user's role refuses every read: the halving that
// finds one refused key among many must not cost such reads twice the
// requests of reading each alone, and each read is answered with the
// refusal it met, not as a read never sent.
void TestEtcdWire::readsAllRefusedCostAFewRequestsMoreThanAlone()
{
    bool holdRanges = true;
    const QByteArray denied = httpReply(403, R"({"error":"etcdserver: permission denied","code":7})");
    Responder responder([&](const SeenRequest &request) {
        if (request.path == "/v3/kv/txn")
            return denied;
        if (rangeKey(QJsonDocument::fromJson(request.body).object()).startsWith("cluster:denied"))
            return denied;
        return holdRanges ? QByteArray() : rangeAnswered(request);
    });
    QString error;
    Reads reads { storeFor(responder.url(), &error), {} };
    QVERIFY2(reads.store, qPrintable(error));
    QHash<QString, StoreResult> &answers = reads.answers;
    auto get = [&reads](const QString &key) { reads.get(key); };
    constexpr int alone = EtcdRangeBatcher::kMaxInFlight;
    QVERIFY(reads.getAlone(&responder, QStringLiteral("cluster:first")));
    constexpr int waiting = 32;
    for (int i = 0; i < waiting; ++i)
        get(QStringLiteral("cluster:denied%1").arg(i));
    holdRanges = false;
    answerFirst(&responder, alone);
    QTRY_COMPARE(answers.size(), alone + waiting);

    // One txn, its two halves, then each read alone.
    QCOMPARE(responder.seen.size() - alone, 1 + 2 + waiting);
    for (auto it = answers.cbegin(); it != answers.cend(); ++it) {
        if (!it.key().startsWith(QLatin1String("cluster:denied")))
            continue;
        QVERIFY2(!it->ok() && it->errorString.contains(QLatin1String("permission denied")),
                 qPrintable(it.key() + QStringLiteral(": ") + it->errorString));
    }
}

// As for the updates' txns: a txn of reads goes in one write of Qt's, or it
// (and every request behind it on its connection) waits 40 ms for etcd's
// delayed acknowledgement.
void TestEtcdWire::aTxnOfReadsIsNeverLargerThanOneWriteOfQt()
{
    bool holdRanges = true;
    Responder responder(rangesHeldWhile(&holdRanges));
    QString error;
    Reads reads { storeFor(responder.url(), &error), {} };
    QVERIFY2(reads.store, qPrintable(error));
    constexpr int alone = EtcdRangeBatcher::kMaxInFlight;
    QVERIFY(reads.getAlone(&responder, QStringLiteral("cluster:first")));
    // Long names (a lease name may be 253 characters): 100 of them are ~45 KB of ranges.
    constexpr int waiting = 100;
    for (int i = 0; i < waiting; ++i)
        reads.get(QStringLiteral("cluster:%1%2").arg(QString(300, QLatin1Char('n'))).arg(i, 3, 10, QLatin1Char('0')));
    holdRanges = false;
    answerFirst(&responder, alone);
    QTRY_COMPARE(int(reads.answers.size()), alone + waiting);
    int txns = 0;
    for (const SeenRequest &request : std::as_const(responder.seen)) {
        if (request.path != "/v3/kv/txn")
            continue;
        ++txns;
        QVERIFY2(request.body.size() <= 16 * 1024, qPrintable(QString::number(request.body.size())));
    }
    QVERIFY2(txns >= 3 && txns < waiting / 10, qPrintable(QString::number(txns)));
}

QTEST_GUILESS_MAIN(TestEtcdWire)
#include "tst_etcdwire.moc"
