// What only EtcdStore has (endpoints, a watch that resumes, compaction,
// authentication), and the store contract (storecontract.h) run on a real
// etcd. They run against the etcd that CTest's fixtures start (tests/etcd);
// run by hand without them, they are skipped.

#include "artifacts.h"
#include "etcdfixture.h"
#include "etcdstore.h"
#include "etcdwatchstream.h"
#include "storecontract.h"
#include "tcpproxy.h"
#include "testsecrets.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QSaveFile>
#include <QSet>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <memory>
#include <vector>

using namespace baton;
using namespace baton::test;

namespace {

/*! Every message logged while it lives, whatever the category or level (R2 tests). */
class LogCapture
{
public:
    LogCapture()
    {
        s_lines.clear();
        QLoggingCategory::setFilterRules(QStringLiteral("baton.*.debug=true"));
        m_previous = qInstallMessageHandler(&LogCapture::handle);
    }
    ~LogCapture()
    {
        qInstallMessageHandler(m_previous);
        // R2: the lines it kept from the test output go to the secrets scan.
        test::keepArtifact(test::ArtifactKind::CapturedLog, QStringLiteral("store.log"), all().toUtf8());
        QLoggingCategory::setFilterRules(QStringLiteral("baton.*.debug=false"));
    }
    static QString all() { return s_lines.join(QLatin1Char('\n')); }

private:
    static void handle(QtMsgType, const QMessageLogContext &, const QString &message)
    {
        s_lines.append(message);
    }
    static inline QStringList s_lines;
    QtMessageHandler m_previous = nullptr;
};

QJsonObject etcdParameters(const QStringList &endpoints, const QString &prefix)
{
    return QJsonObject { { QStringLiteral("endpoints"), QJsonArray::fromStringList(endpoints) },
                         { QStringLiteral("prefix"), prefix },
                         { QStringLiteral("timeout"), 5000 } };
}

std::unique_ptr<EtcdStore> newEtcdStore(const QJsonObject &parameters, QString *error)
{
    auto store = std::make_unique<EtcdStore>(QStringLiteral("Registry"), parameters, nullptr);
    if (!store->init(error))
        return nullptr;
    return store;
}

/*! A prefix no other test uses, so every test starts from an empty store. */
QString freshPrefix(const QString &base = QStringLiteral("test/"))
{
    return base + QUuid::createUuid().toString(QUuid::WithoutBraces) + QLatin1Char('/');
}

quint16 portOf(const QString &url)
{
    return quint16(QUrl(url).port());
}

} // namespace

class EtcdStoreContract : public StoreContract
{
    Q_OBJECT
protected:
    QString skipReason() const override
    {
        return m_etcd.configured() ? QString()
                                   : QStringLiteral("no etcd fixture: run through ctest");
    }
    std::unique_ptr<Store> newStore(QString *error) override
    {
        const QStringList endpoints = m_etcd.endpoints();
        if (endpoints.isEmpty()) {
            *error = m_etcd.errorString();
            return nullptr;
        }
        return newEtcdStore(etcdParameters(endpoints, freshPrefix()), error);
    }

private:
    test::EtcdFixture m_etcd { "BATON_ETCD_DIR" };
};

/*! What only EtcdStore has: endpoints, a watch that resumes, compaction, authentication. */
class EtcdStoreTest : public StoreCalls
{
    Q_OBJECT
private:
    test::EtcdFixture m_etcd { "BATON_ETCD_DIR" };
    test::EtcdFixture m_authEtcd { "BATON_ETCD_AUTH_DIR" };
    std::vector<std::unique_ptr<Store>> m_stores;

    EtcdStore *open(const QJsonObject &parameters)
    {
        QString error;
        auto store = newEtcdStore(parameters, &error);
        if (!store) {
            qWarning("%s", qPrintable(error));
            return nullptr;
        }
        m_stores.push_back(std::move(store));
        m_store = m_stores.back().get();
        return static_cast<EtcdStore *>(m_store);
    }
    QString endpoint()
    {
        const QStringList endpoints = m_etcd.endpoints();
        return endpoints.isEmpty() ? QString() : endpoints.first();
    }

    /*! A watch on "cluster:" whose only way to etcd is a proxy the test cuts. */
    struct CutWatch
    {
        explicit CutWatch(quint16 etcdPort) : proxy(etcdPort) { }
        test::TcpProxy proxy;
        QObject owner;
        std::unique_ptr<QSignalSpy> created;
        std::unique_ptr<QSignalSpy> changed;
        std::unique_ptr<QSignalSpy> resynchronised;
    };

    // Opens a store through \a cut's proxy, watches "cluster:" under \a prefix
    // with it until its stream is up, then cuts the proxy and keeps it
    // refusing; the test's writes go to a store that reaches etcd around it.
    void watchThenCut(CutWatch *cut, const QString &prefix)
    {
        QVERIFY(cut->proxy.listen());
        EtcdStore *watched = open(
                etcdParameters({ QStringLiteral("http://127.0.0.1:%1").arg(cut->proxy.port()) }, prefix));
        QVERIFY(watched);
        StoreWatch *watch = watched->watch(QStringLiteral("cluster:"), &cut->owner);
        QVERIFY(watch);
        cut->created = std::make_unique<QSignalSpy>(watched->findChild<EtcdWatchStream *>(),
                                                    &EtcdWatchStream::streamCreated);
        cut->changed = std::make_unique<QSignalSpy>(watch, &StoreWatch::entryChanged);
        cut->resynchronised = std::make_unique<QSignalSpy>(watch, &StoreWatch::resynchronise);
        QVERIFY(cut->created->wait());

        cut->proxy.setRefusing(true);
        cut->proxy.cutAll();
        QVERIFY(open(etcdParameters({ endpoint() }, prefix))); // writes around the proxy
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (!m_etcd.configured())
            QSKIP("no etcd fixture: run through ctest");
        QVERIFY2(!endpoint().isEmpty(), qPrintable(m_etcd.errorString()));
    }

    void cleanup()
    {
        checkEachCallbackRanOnce();
        m_store = nullptr;
        m_stores.clear();
    }

    // B1: values are the documents as compact JSON, readable with etcdctl,
    // under the configured prefix.
    void valuesAreReadableWithEtcdctl()
    {
        const QString prefix = freshPrefix();
        QVERIFY(open(etcdParameters({ endpoint() }, prefix)));
        const QJsonObject document { { QStringLiteral("holderIdentity"), QStringLiteral("a") } };
        CREATE_OK(created, QStringLiteral("cluster:leader"), document);
        const QByteArray shown = m_etcd.etcdctl(
                { QStringLiteral("get"), prefix + QStringLiteral("cluster:leader"),
                  QStringLiteral("--print-value-only") });
        QVERIFY2(!shown.isNull(), qPrintable(m_etcd.errorString()));
        QCOMPARE(shown.trimmed(), QByteArray(R"({"holderIdentity":"a"})"));
    }

    // P3: reads asked together (the start of thousands of elections) go to
    // a real etcd as txns of ranges, and each is answered as it would be
    // alone: a key that is there with its document and version, one that
    // is not as NotFound, a list with what it holds.
    void readsAskedTogetherAreEachAnsweredAsAlone()
    {
        QVERIFY(open(etcdParameters({ endpoint() }, freshPrefix())));
        QHash<QString, StoreEntry> stored;
        for (int i = 0; i < 40; i += 2) {
            CREATE_OK(created, QStringLiteral("cluster:k%1").arg(i), doc(i));
            stored.insert(created.key, created);
        }
        QList<CallPtr> gets;
        for (int i = 0; i < 40; ++i)
            gets.append(getCall(QStringLiteral("cluster:k%1").arg(i)));
        const CallPtr listed = listCall(QStringLiteral("cluster:"));
        for (int i = 0; i < 40; ++i) {
            const CallPtr &got = gets.at(i);
            WAIT_DONE(got);
            const QString key = QStringLiteral("cluster:k%1").arg(i);
            if (!stored.contains(key)) {
                COMPARE_STATUS(got, "NotFound");
                continue;
            }
            COMPARE_STATUS(got, "Ok");
            QCOMPARE(got->result.entry.key, key);
            QCOMPARE(got->result.entry.document, doc(i));
            QCOMPARE(got->result.entry.version, stored.value(key).version);
        }
        WAIT_DONE(listed);
        COMPARE_STATUS(listed, "Ok");
        QCOMPARE(listed->result.entries.size(), stored.size());
    }

    // B1 (endpoints): a request that cannot reach one endpoint is retried on
    // the next; with none reachable, Unavailable naming the endpoint.
    void requestMovesToTheNextEndpoint()
    {
        QTcpServer closed; // a port that was free a moment ago, now closed again
        QVERIFY(closed.listen(QHostAddress::LocalHost));
        const QString dead = QStringLiteral("http://127.0.0.1:%1").arg(closed.serverPort());
        closed.close();

        QVERIFY(open(etcdParameters({ dead, endpoint() }, freshPrefix())));
        CREATE_OK(created, QStringLiteral("cluster:leader"), doc(1));
        const CallPtr got = getCall(created.key);
        WAIT_DONE(got);
        COMPARE_STATUS(got, "Ok");

        QVERIFY(open(etcdParameters({ dead }, freshPrefix())));
        const CallPtr failed = getCall(created.key);
        WAIT_DONE(failed);
        COMPARE_STATUS(failed, "Unavailable");
        QVERIFY2(failed->result.errorString.contains(dead), qPrintable(failed->result.errorString));
        QVERIFY2(failed->result.errorString.contains(QLatin1String("refused")),
                 qPrintable(failed->result.errorString));
        // R1: a refusal is not a timeout: the message says what each endpoint
        // did, not that none answered within the timeout.
        QVERIFY2(!failed->result.errorString.contains(QLatin1String("within")),
                 qPrintable(failed->result.errorString));

        QTcpServer second;
        QVERIFY(second.listen(QHostAddress::LocalHost));
        const QString alsoDead = QStringLiteral("http://127.0.0.1:%1").arg(second.serverPort());
        second.close();
        QVERIFY(open(etcdParameters({ dead, alsoDead }, freshPrefix())));
        const CallPtr bothFailed = getCall(created.key);
        WAIT_DONE(bothFailed);
        COMPARE_STATUS(bothFailed, "Unavailable");
        QVERIFY2(bothFailed->result.errorString.contains(dead + QStringLiteral("/v3/kv/range: connection refused"))
                         && bothFailed->result.errorString.contains(alsoDead + QStringLiteral("/v3/kv/range: connection refused")),
                 qPrintable(bothFailed->result.errorString));
    }

    // P3: the watches of single keys share one stream (a stream holds an
    // HTTP/1.1 connection, and Qt opens six per host: twelve elections'
    // watches would otherwise leave none for their requests). Each watch
    // hears only its keys; one added beyond the range so far still sees a
    // write made at once.
    void watchesOfSingleKeysShareOneStream()
    {
        QVERIFY(open(etcdParameters({ endpoint() }, freshPrefix())));
        QObject owner;
        constexpr int count = 12;
        auto key = [](int i) { return QStringLiteral("cluster:k%1").arg(i, 2, 10, QLatin1Char('0')); };
        std::vector<std::unique_ptr<QSignalSpy>> spies;
        for (int i = 0; i < count - 1; ++i) {
            StoreWatch *watch = m_store->watch(key(i), &owner);
            QVERIFY(watch);
            spies.push_back(std::make_unique<QSignalSpy>(watch, &StoreWatch::entryChanged));
        }
        // One stream for all of them, whatever HttpClient would do with more.
        QCOMPARE(m_store->findChildren<EtcdWatchStream *>().size(), 1);
        for (int i = 0; i < count - 1; ++i) {
            CREATE_OK(entry, key(i), doc(i));
        }
        for (int i = 0; i < count - 1; ++i) {
            QTRY_COMPARE_WITH_TIMEOUT(spies[size_t(i)]->size(), 1, 10000);
            QCOMPARE(spies[size_t(i)]->first().at(0).value<StoreEntry>().key, key(i));
        }

        StoreWatch *last = m_store->watch(key(count - 1), &owner);
        QVERIFY(last);
        QSignalSpy lastChanged(last, &StoreWatch::entryChanged);
        CREATE_OK(lastEntry, key(count - 1), doc(count - 1));
        QTRY_COMPARE_WITH_TIMEOUT(lastChanged.size(), 1, 10000);
        QCOMPARE(lastChanged.first().at(0).value<StoreEntry>().version, lastEntry.version);
        QCOMPARE(m_store->findChildren<EtcdWatchStream *>().size(), 1);

        // In the range but nobody's key, then one under the first prefix:
        // once that one is heard, the other was seen and handed to nobody.
        CREATE_OK(between, QStringLiteral("cluster:k0z"), doc(0));
        CREATE_OK(underFirst, QStringLiteral("cluster:k00z"), doc(0));
        QTRY_COMPARE_WITH_TIMEOUT(spies.front()->size(), 2, 10000);
        QCOMPARE(spies.front()->at(1).at(0).value<StoreEntry>().key, underFirst.key);
        for (int i = 1; i < count - 1; ++i)
            QCOMPARE(spies[size_t(i)]->size(), 1);
        QCOMPARE(lastChanged.size(), 1);
    }

    // B1 (watch by prefix), P3: a watch added to a shared stream hears what
    // happens after it was made, not its key's history. Widening the stream
    // for it restarts it from where it was, before this key's earlier
    // writes: those are replayed by etcd and must not reach the new watch as
    // news (they would be reported as leader changes that are long over).
    void aWatchAddedToASharedStreamHearsNoHistory()
    {
        QVERIFY(open(etcdParameters({ endpoint() }, freshPrefix())));
        QObject owner;
        const QString first = QStringLiteral("cluster:a");
        const QString later = QStringLiteral("cluster:z"); // outside the stream's range so far
        QVERIFY(m_store->watch(first, &owner));
        CREATE_OK(firstEntry, first, doc(1));
        CREATE_OK(old, later, doc(1));
        const CallPtr older = updateCall(later, doc(2), old.version);
        WAIT_DONE(older);
        COMPARE_STATUS(older, "Ok");

        StoreWatch *watch = m_store->watch(later, &owner);
        QVERIFY(watch);
        QSignalSpy changed(watch, &StoreWatch::entryChanged);
        const CallPtr news = updateCall(later, doc(3), older->result.entry.version);
        WAIT_DONE(news);
        COMPARE_STATUS(news, "Ok");
        QTRY_VERIFY_WITH_TIMEOUT(!changed.isEmpty(), 10000);
        QCOMPARE(changed.first().at(0).value<StoreEntry>().version, news->result.entry.version);
        QCOMPARE(m_store->findChildren<EtcdWatchStream *>().size(), 1);
    }

    // P3, B2 on a real etcd: forty renewals issued at once all land, each
    // with the version etcd gave its key, in fewer txns than renewals (the
    // keys one txn writes share its revision); a stale one among them is a
    // Conflict and costs the others nothing.
    void updatesIssuedTogetherShareTransactions()
    {
        QVERIFY(open(etcdParameters({ endpoint() }, freshPrefix())));
        constexpr int count = 40;
        constexpr int stale = 7;
        QList<StoreEntry> created;
        for (int i = 0; i < count; ++i) {
            CREATE_OK(entry, QStringLiteral("cluster:k%1").arg(i), doc(0));
            created.append(entry);
        }
        QList<CallPtr> calls;
        for (int i = 0; i < count; ++i) {
            calls.append(updateCall(created.at(i).key, doc(i + 1),
                                    i == stale ? created.first().version : created.at(i).version));
        }
        QSet<QString> revisions;
        for (int i = 0; i < count; ++i) {
            WAIT_DONE(calls.at(i));
            if (i == stale) {
                COMPARE_STATUS(calls.at(i), "Conflict");
                QCOMPARE(calls.at(i)->result.entry.version, created.at(i).version);
                continue;
            }
            COMPARE_STATUS(calls.at(i), "Ok");
            const CallPtr got = getCall(created.at(i).key);
            WAIT_DONE(got);
            QCOMPARE(got->result.entry.version, calls.at(i)->result.entry.version);
            QCOMPARE(got->result.entry.document, doc(i + 1));
            revisions.insert(got->result.entry.version);
        }
        QVERIFY2(revisions.size() < count - 1,
                 qPrintable(QStringLiteral("%1 renewals took %2 txns").arg(count - 1).arg(revisions.size())));
    }

    // B1, F8: a watch whose stream is cut resumes from the last revision it
    // saw: a change made while it was cut off is still reported, with no
    // resynchronise.
    void watchResumesAfterTheStreamIsCut()
    {
        CutWatch cut(portOf(endpoint()));
        watchThenCut(&cut, freshPrefix());
        if (QTest::currentTestFailed())
            return;
        CREATE_OK(a, QStringLiteral("cluster:a"), doc(1));
        QCOMPARE(cut.changed->size(), 0);

        cut.proxy.setRefusing(false);
        QTRY_COMPARE_WITH_TIMEOUT(cut.changed->size(), 1, 10000);
        QCOMPARE(cut.changed->first().at(0).value<StoreEntry>().key, a.key);
        QCOMPARE(cut.changed->first().at(0).value<StoreEntry>().version, a.version);
        QVERIFY(cut.created->size() >= 2); // a second stream, not a lucky first one
        QCOMPARE(cut.resynchronised->size(), 0);
    }

    // B1, R4: when the revisions a broken watch would resume from have been
    // compacted, it says resynchronise and goes on from the oldest revision
    // left, so the latest change is still reported and later ones too.
    void watchRecoversFromCompaction()
    {
        CutWatch cut(portOf(endpoint()));
        watchThenCut(&cut, freshPrefix());
        if (QTest::currentTestFailed())
            return;
        CREATE_OK(a, QStringLiteral("cluster:a"), doc(1));
        const CallPtr updated = updateCall(a.key, doc(2), a.version);
        WAIT_DONE(updated);
        COMPARE_STATUS(updated, "Ok");
        const QString latest = updated->result.entry.version;
        QVERIFY2(!m_etcd.etcdctl({ QStringLiteral("compact"), latest }).isNull(),
                 qPrintable(m_etcd.errorString()));

        cut.proxy.setRefusing(false);
        QTRY_COMPARE_WITH_TIMEOUT(cut.resynchronised->size(), 1, 10000);
        QTRY_VERIFY(!cut.changed->isEmpty()
                    && cut.changed->last().at(0).value<StoreEntry>().version == latest);
        QCOMPARE(cut.changed->last().at(0).value<StoreEntry>().document, doc(2));

        const CallPtr later = updateCall(a.key, doc(3), latest);
        WAIT_DONE(later);
        COMPARE_STATUS(later, "Ok");
        QTRY_COMPARE(cut.changed->last().at(0).value<StoreEntry>().version,
                     later->result.entry.version);
    }

    void badParameters_data()
    {
        QTest::addColumn<QByteArray>("parameters");
        QTest::addColumn<QString>("parameter");
        QTest::newRow("no endpoints is refused") << QByteArray("{}") << "endpoints";
        QTest::newRow("an empty endpoint list is refused")
                << QByteArray(R"({"endpoints": []})") << "endpoints";
        QTest::newRow("one endpoint as a string is refused")
                << QByteArray(R"({"endpoints": "PLAIN"})") << "endpoints";
        QTest::newRow("an endpoint that is not http is refused")
                << QByteArray(R"({"endpoints": ["FTP"]})") << "endpoints";
        QTest::newRow("an endpoint with no host is refused")
                << QByteArray(R"({"endpoints": ["NOHOST"]})") << "endpoints";
        QTest::newRow("a prefix that is a number is refused")
                << QByteArray(R"({"endpoints": ["PLAIN"], "prefix": 3})") << "prefix";
        QTest::newRow("a zero timeout is refused")
                << QByteArray(R"({"endpoints": ["PLAIN"], "timeout": 0})") << "timeout";
        QTest::newRow("a fractional timeout is refused")
                << QByteArray(R"({"endpoints": ["PLAIN"], "timeout": 1.5})") << "timeout";
        QTest::newRow("a username without password is refused")
                << QByteArray(R"({"endpoints": ["PLAIN"], "username": "u"})") << "password";
        QTest::newRow("a tls that is a string is refused")
                << QByteArray(R"({"endpoints": ["SECURE"], "tls": "yes"})") << "tls";
        QTest::newRow("a CA file that does not exist is refused")
                << QByteArray(R"({"endpoints": ["SECURE"], "tls": {"ca": "MISSING"}})")
                << "tls";
        QTest::newRow("a cert without a key is refused")
                << QByteArray(R"({"endpoints": ["SECURE"], "tls": {"cert": "MISSING"}})")
                << "tls";
        QTest::newRow("an insecureSkipVerify that is a string is refused")
                << QByteArray(R"({"endpoints": ["SECURE"], "tls": {"insecureSkipVerify": "yes"}})")
                << "tls.insecureSkipVerify";
    }

    // P1 (for stores, B1): refused at init naming the service and parameter.
    void badParameters()
    {
        QFETCH(QByteArray, parameters);
        QFETCH(QString, parameter);
        // Placeholders, as "//" inside a raw string literal confuses moc.
        parameters.replace("SECURE", "https://127.0.0.1:2379")
                .replace("PLAIN", "http://127.0.0.1:2379")
                .replace("FTP", "ftp://127.0.0.1:2379")
                .replace("NOHOST", "http://")
                .replace("MISSING", "/nonexistent/file.pem");
        EtcdStore store(QStringLiteral("Registry"), QJsonDocument::fromJson(parameters).object(),
                        nullptr);
        QString error;
        QVERIFY(!store.init(&error));
        QVERIFY2(error.contains(QLatin1String("service \"Registry\" (Webda/EtcdStore)")), qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("parameter \"") + parameter + QLatin1String("\" = ")), qPrintable(error));
    }

    // R2: a password given with the wrong type is refused without being shown.
    void refusedPasswordIsNotShown()
    {
        EtcdStore store(QStringLiteral("Registry"),
                        QJsonObject { { QStringLiteral("endpoints"),
                                        QJsonArray { QStringLiteral("http://127.0.0.1:2379") } },
                                      { QStringLiteral("username"), QStringLiteral("u") },
                                      { QStringLiteral("password"), 987654321 } },
                        nullptr);
        QString error;
        QVERIFY(!store.init(&error));
        QVERIFY2(error.contains(QLatin1String("parameter \"password\" = (hidden)")), qPrintable(error));
        QVERIFY2(!error.contains(QLatin1String("987654321")), qPrintable(error));
    }

    // R3: certificates are verified unless the configuration says otherwise
    // in so many words, and then a warning is logged at start.
    void insecureSkipVerifyIsWarnedAtInit()
    {
        LogCapture logs;
        EtcdStore store(QStringLiteral("Registry"),
                        QJsonObject { { QStringLiteral("endpoints"),
                                        QJsonArray { QStringLiteral("https://127.0.0.1:2379") } },
                                      { QStringLiteral("tls"),
                                        QJsonObject { { QStringLiteral("insecureSkipVerify"), true } } } },
                        nullptr);
        QString error;
        QVERIFY2(store.init(&error), qPrintable(error));
        QVERIFY2(LogCapture::all().contains(QLatin1String("insecureSkipVerify")),
                 qPrintable(LogCapture::all()));
    }

    // B1 (username, password), R2: against an etcd with authentication on,
    // the store authenticates once and works, watch included; the password
    // appears in no log line (all categories at debug) and no message. The
    // re-authentication on "invalid auth token" is proved in tst_etcdwire,
    // where the test controls the token (etcd 3.4 keeps honouring a simple
    // token across a restart, so a real etcd cannot be made to refuse one
    // quickly).
    void authenticatesAndNeverLogsThePassword()
    {
        if (!m_authEtcd.configured())
            QSKIP("no etcd fixture: run through ctest");
        const QStringList endpoints = m_authEtcd.endpoints();
        QVERIFY2(!endpoints.isEmpty(), qPrintable(m_authEtcd.errorString()));
        const QString password = m_authEtcd.password();
        QVERIFY(!password.isEmpty());
        LogCapture logs;
        QJsonObject parameters = etcdParameters(endpoints, freshPrefix(QStringLiteral("auth/")));
        parameters.insert(QStringLiteral("username"), m_authEtcd.username());
        parameters.insert(QStringLiteral("password"), password);
        EtcdStore *store = open(parameters);
        QVERIFY(store);
        QObject owner;
        StoreWatch *watch = store->watch(QStringLiteral("cluster:"), &owner);
        QVERIFY(watch);
        QSignalSpy created(store->findChild<EtcdWatchStream *>(), &EtcdWatchStream::streamCreated);
        QSignalSpy changed(watch, &StoreWatch::entryChanged);
        CREATE_OK(first, QStringLiteral("cluster:a"), doc(1));
        QCOMPARE(store->authentications(), 1);
        QTRY_COMPARE(changed.size(), 1);

        const CallPtr updated = updateCall(first.key, doc(2), first.version);
        WAIT_DONE(updated);
        COMPARE_STATUS(updated, "Ok");
        QCOMPARE(store->authentications(), 1); // the token is kept, not fetched per request
        QTRY_VERIFY(changed.last().at(0).value<StoreEntry>().version
                    == updated->result.entry.version);

        const QString logged = LogCapture::all();
        QVERIFY2(!logged.contains(password), "the password was logged");
        QVERIFY2(!updated->result.errorString.contains(password), "the password is in a message");
    }

    // B1, R2: the password read from a file (a systemd credential, a mounted
    // Secret) is read again when the file changes: a rotated password is
    // used without a restart, and neither is ever logged.
    void passwordFileIsReadAgainWhenItChanges()
    {
        if (!m_authEtcd.configured())
            QSKIP("no etcd fixture: run through ctest");
        const QStringList endpoints = m_authEtcd.endpoints();
        QVERIFY2(!endpoints.isEmpty(), qPrintable(m_authEtcd.errorString()));
        LogCapture logs;
        QTemporaryDir credentials;
        QVERIFY(credentials.isValid());
        const QString path = credentials.filePath(QStringLiteral("etcd-password"));
        const QString wrong = QString::fromLatin1(test::testSecretMarker() + "-stale-")
                + QUuid::createUuid().toString(QUuid::WithoutBraces);
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
            file.write(wrong.toUtf8() + '\n');
        }
        QJsonObject parameters = etcdParameters(endpoints, freshPrefix(QStringLiteral("auth/")));
        parameters.insert(QStringLiteral("username"), m_authEtcd.username());
        parameters.insert(QStringLiteral("passwordFile"), path);
        QVERIFY(open(parameters));
        const CallPtr refused = getCall(QStringLiteral("cluster:a"));
        WAIT_DONE(refused);
        COMPARE_STATUS(refused, "CredentialsRefused");

        // Rotated as a credential manager does: a new file renamed over the old.
        QSaveFile rotated(path);
        QVERIFY(rotated.open(QIODevice::WriteOnly));
        rotated.write(m_authEtcd.password().toUtf8() + '\n');
        QVERIFY(rotated.commit());
        QTRY_VERIFY(LogCapture::all().contains(QStringLiteral("read the secret in %1 again").arg(path)));
        const CallPtr got = getCall(QStringLiteral("cluster:a"));
        WAIT_DONE(got);
        COMPARE_STATUS(got, "NotFound");

        const QString logged = LogCapture::all();
        QVERIFY2(!logged.contains(wrong), "the old password was logged");
        QVERIFY2(!logged.contains(m_authEtcd.password()), "the password was logged");
        QVERIFY2(!refused->result.errorString.contains(wrong), qPrintable(refused->result.errorString));
    }

    // R2, B1: a wrong password is refused credentials, a status of its own
    // (B6), that names the user and the parameters to mend, never the password.
    void wrongPasswordIsAnErrorWithoutThePassword()
    {
        if (!m_authEtcd.configured())
            QSKIP("no etcd fixture: run through ctest");
        const QStringList endpoints = m_authEtcd.endpoints();
        QVERIFY2(!endpoints.isEmpty(), qPrintable(m_authEtcd.errorString()));
        LogCapture logs;
        const QString wrong = QString::fromLatin1(test::testSecretMarker() + "-wrong-")
                + QUuid::createUuid().toString(QUuid::WithoutBraces);
        QJsonObject parameters = etcdParameters(endpoints, freshPrefix(QStringLiteral("auth/")));
        parameters.insert(QStringLiteral("username"), m_authEtcd.username());
        parameters.insert(QStringLiteral("password"), wrong);
        QVERIFY(open(parameters));
        const CallPtr got = getCall(QStringLiteral("cluster:a"));
        WAIT_DONE(got);
        COMPARE_STATUS(got, "CredentialsRefused");
        QVERIFY2(got->result.errorString.contains(m_authEtcd.username()),
                 qPrintable(got->result.errorString));
        QVERIFY2(got->result.errorString.contains(QLatin1String("authentication")),
                 qPrintable(got->result.errorString));
        QVERIFY2(got->result.errorString.contains(QLatin1String("check the store's \"username\" and \"password\"")),
                 qPrintable(got->result.errorString));
        QVERIFY2(!got->result.errorString.contains(wrong), qPrintable(got->result.errorString));
        QVERIFY2(!LogCapture::all().contains(wrong), "the password was logged");
    }

    // B6, R4: credentials with no etcd listening: the authentication never
    // reached etcd, which may come back, so it is Unavailable like any
    // other store that cannot be reached, never refused credentials.
    void anUnreachableEtcdWhileAuthenticatingIsUnavailable()
    {
        QTcpServer closed; // a port that was free a moment ago, now closed again
        QVERIFY(closed.listen(QHostAddress::LocalHost));
        const QString dead = QStringLiteral("http://127.0.0.1:%1").arg(closed.serverPort());
        closed.close();
        QJsonObject parameters = etcdParameters({ dead }, freshPrefix(QStringLiteral("auth/")));
        parameters.insert(QStringLiteral("username"), QStringLiteral("someone"));
        parameters.insert(QStringLiteral("password"),
                          QString::fromLatin1(test::testSecretMarker() + "-unsent"));
        QVERIFY(open(parameters));
        const CallPtr got = getCall(QStringLiteral("cluster:a"));
        WAIT_DONE(got);
        COMPARE_STATUS(got, "Unavailable");
        QVERIFY2(got->result.errorString.contains(QLatin1String("authentication as \"someone\" failed")),
                 qPrintable(got->result.errorString));
        QVERIFY2(got->result.errorString.contains(QLatin1String("connection refused")),
                 qPrintable(got->result.errorString));
    }
};

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    EtcdStoreContract contract;
    EtcdStoreTest own;
    return runStoreTests(app.arguments(), {&contract, &own});
}

#include "tst_store_etcd.moc"
