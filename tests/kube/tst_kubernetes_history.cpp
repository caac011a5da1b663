// The stored history of a Kubernetes Lease and the Events of its leader
// changes (O2, B4), at the level of the lease protocol, for the election and the
// observer alike, against the test Lease API server in process: what each
// write puts on the wire, what each read gives back.

#include "leasebackendtesting.h"
#include "kubernetesleaseprotocol.h"
#include "leaseapiserver.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>
#include <QTimeZone>

#include <optional>

using namespace baton;

using baton::test::heldRecord;
using baton::test::ReplyWaiter;

namespace {

const QString kNamespace = QStringLiteral("history");
const QString kToken = QStringLiteral("kube-history-test-token");
const QString kUser = QStringLiteral("system:serviceaccount:history:participant");

/*! The warnings logged while it lives. */
class WarningLog
{
public:
    WarningLog()
    {
        s_current = this;
        m_previous = qInstallMessageHandler(&WarningLog::handle);
    }
    ~WarningLog()
    {
        qInstallMessageHandler(m_previous);
        s_current = nullptr;
    }
    int count(const QString &part) const
    {
        return int(std::count_if(m_lines.begin(), m_lines.end(),
                                 [&](const QString &line) { return line.contains(part); }));
    }
    QString all() const { return m_lines.join(QLatin1Char('\n')); }

private:
    static void handle(QtMsgType type, const QMessageLogContext &context, const QString &message)
    {
        if (s_current && type == QtWarningMsg)
            s_current->m_lines << message;
        if (s_current && s_current->m_previous)
            s_current->m_previous(type, context, message);
    }
    static inline WarningLog *s_current = nullptr;
    QtMessageHandler m_previous = nullptr;
    QStringList m_lines;
};

HistoryEntry change(const QString &from, const QString &to, const QString &why, qint64 transitions)
{
    HistoryEntry entry;
    entry.from = from;
    entry.to = to;
    entry.why = why;
    entry.at = QDateTime::fromMSecsSinceEpoch(1780000000000 + transitions * 1000, QTimeZone::utc());
    entry.gapMs = from.isEmpty() ? -1 : 1200;
    entry.transitions = transitions;
    return entry;
}

} // namespace

class TestKubernetesHistory : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void firstAcquisitionWritesOneChangeAndOneEvent();
    void renewalsPostNoEventAndKeepTheAnnotation();
    void takeoversAppendUpToHistoryLength();
    void aHistoryLengthOfZeroWritesNoAnnotation();
    void forbiddenEventsAreLoggedOnceAndTheElectionGoesOn();
    void aMalformedAnnotationWarnsOnceAndIsWrittenAfresh();
    void theObserverReadsTheStoredHistoryWithTheLease();

private:
    std::unique_ptr<test::OneLease> backend(const QString &lease);
    LeaseReply run(const std::function<void(LeaseProtocol::Callback)> &request);
    QList<HistoryEntry> stored(const QString &lease) const;
    QList<QJsonObject> eventsOn(const QString &lease) const;

    test::LeaseApiServer m_server;
    KubeClientConfig m_config;
};

void TestKubernetesHistory::initTestCase()
{
    QString error;
    QVERIFY2(m_server.listen(&error), qPrintable(error));
    m_server.addToken(kToken, kUser, {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update")});
    m_config.server = m_server.url();
    m_config.token = kToken;
    m_config.namespaceName = kNamespace;
    m_config.source = QStringLiteral("the test");
}

void TestKubernetesHistory::init()
{
    m_server.setEventsForbidden(false);
}

std::unique_ptr<test::OneLease> TestKubernetesHistory::backend(const QString &lease)
{
    auto made = std::make_unique<KubernetesLeaseProtocol>(m_config, false, 5000);
    QString error;
    if (!made->setUp(&error))
        qWarning("%s", qPrintable(error));
    return std::make_unique<test::OneLease>(std::move(made), lease);
}

LeaseReply TestKubernetesHistory::run(const std::function<void(LeaseProtocol::Callback)> &request)
{
    ReplyWaiter waiter;
    request(waiter.callback());
    if (!waiter.wait())
        return LeaseReply::error(QStringLiteral("no answer"));
    return waiter.reply();
}

QList<HistoryEntry> TestKubernetesHistory::stored(const QString &lease) const
{
    const QJsonValue text = m_server.lease(kNamespace, lease)[QStringLiteral("metadata")][QStringLiteral("annotations")]
                                    [leasehistory::kubernetesAnnotation];
    QList<HistoryEntry> changes;
    QString error;
    if (!text.isString() || !leasehistory::decodeText(text.toString(), &changes, &error))
        qWarning("the stored history of %s: %s", qPrintable(lease), qPrintable(error));
    return changes;
}

QList<QJsonObject> TestKubernetesHistory::eventsOn(const QString &lease) const
{
    QList<QJsonObject> found;
    for (const QJsonObject &e : m_server.events(kNamespace))
        if (e[QStringLiteral("involvedObject")][QStringLiteral("name")].toString() == lease)
            found << e;
    return found;
}

// O2, B4: the write that takes the Lease carries its history (one change),
// and one Event says who became leader, as client-go's leader election
// records it, on the Lease by kind, name and uid.
void TestKubernetesHistory::firstAcquisitionWritesOneChangeAndOneEvent()
{
    const QString lease = QStringLiteral("first");
    auto b = backend(lease);
    const HistoryEntry first = change({}, QStringLiteral("alpha"), QStringLiteral("first-acquire"), 0);
    const LeaseReply created = run([&](auto done) { b->create(heldRecord(QStringLiteral("alpha"), 0), first, done); });
    QCOMPARE(int(created.outcome), int(LeaseReply::Outcome::Ok));
    QCOMPARE(stored(lease), QList<HistoryEntry> {first});

    QTRY_COMPARE(eventsOn(lease).size(), 1);
    const QJsonObject event = eventsOn(lease).first();
    const QJsonObject leaseMeta = m_server.lease(kNamespace, lease)[QStringLiteral("metadata")].toObject();
    QCOMPARE(event[QStringLiteral("reason")].toString(), QStringLiteral("LeaderElection"));
    QCOMPARE(event[QStringLiteral("message")].toString(), QStringLiteral("alpha became leader"));
    QCOMPARE(event[QStringLiteral("type")].toString(), QStringLiteral("Normal"));
    QCOMPARE(event[QStringLiteral("source")][QStringLiteral("component")].toString(), QStringLiteral("baton"));
    const QJsonObject involved = event[QStringLiteral("involvedObject")].toObject();
    QCOMPARE(involved[QStringLiteral("kind")].toString(), QStringLiteral("Lease"));
    QCOMPARE(involved[QStringLiteral("apiVersion")].toString(), QStringLiteral("coordination.k8s.io/v1"));
    QCOMPARE(involved[QStringLiteral("namespace")].toString(), kNamespace);
    QCOMPARE(involved[QStringLiteral("name")].toString(), lease);
    QCOMPARE(involved[QStringLiteral("uid")].toString(), leaseMeta[QStringLiteral("uid")].toString());
    QVERIFY(event[QStringLiteral("metadata")][QStringLiteral("name")].toString().startsWith(lease + QLatin1Char('.')));
    QVERIFY(QDateTime::fromString(event[QStringLiteral("firstTimestamp")].toString(), Qt::ISODate).isValid());
    QCOMPARE(event[QStringLiteral("lastTimestamp")], event[QStringLiteral("firstTimestamp")]);
}

// O2: a renewal writes nothing more than before: no Event, the annotation
// carried as it is (the whole object is PUT, as client-go does).
void TestKubernetesHistory::renewalsPostNoEventAndKeepTheAnnotation()
{
    const QString lease = QStringLiteral("renewals");
    auto b = backend(lease);
    LeaseRecord record = heldRecord(QStringLiteral("alpha"), 0);
    LeaseReply reply = run([&](auto done) {
        b->create(record, change({}, QStringLiteral("alpha"), QStringLiteral("first-acquire"), 0), done);
    });
    QCOMPARE(int(reply.outcome), int(LeaseReply::Outcome::Ok));
    QTRY_COMPARE(eventsOn(lease).size(), 1);
    const QJsonValue annotation = m_server.lease(kNamespace, lease)[QStringLiteral("metadata")][QStringLiteral("annotations")];
    const int eventCreates = m_server.count(kUser, QStringLiteral("events/create"));

    for (int i = 1; i <= 3; ++i) {
        record.renewTime = record.renewTime.addMSecs(1000);
        const QString version = reply.state.version;
        reply = run([&](auto done) { b->update(record, version, std::nullopt, done); });
        QCOMPARE(int(reply.outcome), int(LeaseReply::Outcome::Ok));
        QVERIFY(reply.state.version != version);
        QCOMPARE(m_server.lease(kNamespace, lease)[QStringLiteral("metadata")][QStringLiteral("annotations")], annotation);
    }
    // The answer to a renewal comes after any Event it would have posted.
    const LeaseReply read = run([&](auto done) { b->read(done); });
    QCOMPARE(int(read.outcome), int(LeaseReply::Outcome::Ok));
    QCOMPARE(m_server.count(kUser, QStringLiteral("events/create")), eventCreates);
    QCOMPARE(eventsOn(lease).size(), 1);
    // What the annotation adds to each renewal's PUT, with a full history
    // of the default length: for docs/architecture.md.
    QList<HistoryEntry> full;
    for (int i = 0; i < leasehistory::defaultLength; ++i)
        full << change(QStringLiteral("web-7f9c-1234-a1b2"), QStringLiteral("web-7f9c-5678-c3d4"),
                       QStringLiteral("expired"), 1000 + i);
    const QByteArray text = QJsonDocument(leasehistory::encode(full)).toJson(QJsonDocument::Compact);
    const QByteArray asField = QJsonDocument(QJsonObject {{leasehistory::kubernetesAnnotation, QString::fromUtf8(text)}})
                                       .toJson(QJsonDocument::Compact);
    qInfo("a history of %d changes adds %lld bytes to each renewal's PUT", leasehistory::defaultLength,
          qint64(asField.size()));
}

// O2: each takeover appends; the last historyLength changes are kept.
void TestKubernetesHistory::takeoversAppendUpToHistoryLength()
{
    const QString lease = QStringLiteral("takeovers");
    auto b = backend(lease);
    static_cast<KubernetesLeaseProtocol &>(b->protocol()).setHistoryLength(2);
    QList<HistoryEntry> changes {change({}, QStringLiteral("a"), QStringLiteral("first-acquire"), 0),
                                 change(QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("expired"), 1),
                                 change(QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("released"), 2)};
    LeaseReply reply = run([&](auto done) { b->create(heldRecord(QStringLiteral("a"), 0), changes[0], done); });
    QCOMPARE(int(reply.outcome), int(LeaseReply::Outcome::Ok));
    for (int i = 1; i < changes.size(); ++i) {
        const QString version = reply.state.version;
        reply = run([&](auto done) { b->update(heldRecord(changes[i].to, i), version, changes[i], done); });
        QCOMPARE(int(reply.outcome), int(LeaseReply::Outcome::Ok));
    }
    QCOMPARE(stored(lease), changes.mid(1));
    QTRY_COMPARE(eventsOn(lease).size(), 3);
    QStringList messages;
    for (const QJsonObject &e : eventsOn(lease))
        messages << e[QStringLiteral("message")].toString();
    QCOMPARE(messages, (QStringList {QStringLiteral("a became leader"), QStringLiteral("b became leader"),
                                     QStringLiteral("c became leader")}));
}

// O2: historyLength 0 keeps no stored history; the Event is still posted.
void TestKubernetesHistory::aHistoryLengthOfZeroWritesNoAnnotation()
{
    const QString lease = QStringLiteral("no-history");
    auto b = backend(lease);
    static_cast<KubernetesLeaseProtocol &>(b->protocol()).setHistoryLength(0);
    const LeaseReply reply = run([&](auto done) {
        b->create(heldRecord(QStringLiteral("alpha"), 0), change({}, QStringLiteral("alpha"), QStringLiteral("first-acquire"), 0), done);
    });
    QCOMPARE(int(reply.outcome), int(LeaseReply::Outcome::Ok));
    QVERIFY(!m_server.lease(kNamespace, lease)[QStringLiteral("metadata")].toObject().contains(QStringLiteral("annotations")));
    QTRY_COMPARE(eventsOn(lease).size(), 1);
}

// B4: a Role without create on events costs the Events, never the lease:
// one warning per service naming what is missing, no more tries.
void TestKubernetesHistory::forbiddenEventsAreLoggedOnceAndTheElectionGoesOn()
{
    const QString lease = QStringLiteral("no-events");
    m_server.setEventsForbidden(true);
    WarningLog log;
    auto b = backend(lease);
    LeaseReply reply = run([&](auto done) {
        b->create(heldRecord(QStringLiteral("a"), 0), change({}, QStringLiteral("a"), QStringLiteral("first-acquire"), 0), done);
    });
    QCOMPARE(int(reply.outcome), int(LeaseReply::Outcome::Ok));
    QTRY_COMPARE(m_server.count(kUser, QStringLiteral("events/create"), true), 1);
    QTRY_COMPARE(log.count(QStringLiteral("may not create events")), 1);
    for (int i = 1; i <= 2; ++i) {
        const QString version = reply.state.version;
        reply = run([&](auto done) {
            b->update(heldRecord(QStringLiteral("b%1").arg(i), i), version,
                      change(QStringLiteral("a"), QStringLiteral("b%1").arg(i), QStringLiteral("expired"), i), done);
        });
        QCOMPARE(int(reply.outcome), int(LeaseReply::Outcome::Ok));
    }
    QCOMPARE(stored(lease).size(), 3);
    const LeaseReply read = run([&](auto done) { b->read(done); });
    QCOMPARE(int(read.outcome), int(LeaseReply::Outcome::Ok));
    QCOMPARE(m_server.count(kUser, QStringLiteral("events/create"), true), 1);
    QCOMPARE(log.count(QStringLiteral("may not create events")), 1);
    const QString warning = log.all();
    QVERIFY2(warning.contains(QStringLiteral("cannot create resource \"events\"")), qPrintable(warning));
    QVERIFY2(warning.contains(QStringLiteral("role.yaml")), qPrintable(warning));
    QVERIFY(eventsOn(lease).isEmpty());
}

// O2: a stored history that cannot be read is ignored with one warning
// naming the Lease and what was wrong, and the acquisition writes a fresh
// one; other annotations survive.
void TestKubernetesHistory::aMalformedAnnotationWarnsOnceAndIsWrittenAfresh()
{
    const QString lease = QStringLiteral("malformed");
    const QString old = QStringLiteral("2026-01-01T00:00:00.000000Z");
    m_server.putRaw(kNamespace, lease,
                    {{QStringLiteral("apiVersion"), QStringLiteral("coordination.k8s.io/v1")},
                     {QStringLiteral("kind"), QStringLiteral("Lease")},
                     {QStringLiteral("metadata"),
                      QJsonObject {{QStringLiteral("annotations"),
                                    QJsonObject {{leasehistory::kubernetesAnnotation, QStringLiteral("{\"v\":1,\"changes\":[{\"from\":")},
                                                 {QStringLiteral("team"), QStringLiteral("billing")}}}}},
                     {QStringLiteral("spec"),
                      QJsonObject {{QStringLiteral("holderIdentity"), QStringLiteral("gone")},
                                   {QStringLiteral("leaseDurationSeconds"), 1},
                                   {QStringLiteral("acquireTime"), old},
                                   {QStringLiteral("renewTime"), old},
                                   {QStringLiteral("leaseTransitions"), 4}}}});
    WarningLog log;
    auto b = backend(lease);
    const LeaseReply read = run([&](auto done) { b->read(done); });
    QCOMPARE(int(read.outcome), int(LeaseReply::Outcome::Ok));
    QCOMPARE(log.count(leasehistory::kubernetesAnnotation), 0); // reading the lease is not the history's business
    const HistoryEntry taken = change(QStringLiteral("gone"), QStringLiteral("alpha"), QStringLiteral("expired"), 5);
    const LeaseReply reply = run([&](auto done) { b->update(heldRecord(QStringLiteral("alpha"), 5), read.state.version, taken, done); });
    QCOMPARE(int(reply.outcome), int(LeaseReply::Outcome::Ok));
    QCOMPARE(stored(lease), QList<HistoryEntry> {taken});
    QCOMPARE(m_server.lease(kNamespace, lease)[QStringLiteral("metadata")][QStringLiteral("annotations")]
                     [QStringLiteral("team")].toString(),
             QStringLiteral("billing"));
    QCOMPARE(log.count(leasehistory::kubernetesAnnotation), 1);
    const QString warning = log.all();
    QVERIFY2(warning.contains(QStringLiteral("Lease history/malformed")), qPrintable(warning));
    QVERIFY2(warning.contains(QStringLiteral("not JSON")), qPrintable(warning));
}

// O2: every Lease the observer reads carries its stored history; one that
// cannot be read is an error of the history only, the Lease still shows.
void TestKubernetesHistory::theObserverReadsTheStoredHistoryWithTheLease()
{
    KubernetesLeaseProtocol source(m_config, false, 5000);
    const QString now = QStringLiteral("2026-01-01T00:00:00.000000Z");
    const QJsonObject spec {{QStringLiteral("holderIdentity"), QStringLiteral("alpha")},
                            {QStringLiteral("leaseDurationSeconds"), 2},
                            {QStringLiteral("acquireTime"), now},
                            {QStringLiteral("renewTime"), now},
                            {QStringLiteral("leaseTransitions"), 1}};
    const QList<HistoryEntry> changes {change({}, QStringLiteral("beta"), QStringLiteral("first-acquire"), 0),
                                       change(QStringLiteral("beta"), QStringLiteral("alpha"), QStringLiteral("released"), 1)};
    auto leaseWith = [&](const QJsonObject &annotations) {
        QJsonObject meta {{QStringLiteral("name"), QStringLiteral("observed")},
                          {QStringLiteral("namespace"), kNamespace},
                          {QStringLiteral("resourceVersion"), QStringLiteral("7")}};
        if (!annotations.isEmpty())
            meta.insert(QStringLiteral("annotations"), annotations);
        return QJsonObject {{QStringLiteral("metadata"), meta}, {QStringLiteral("spec"), spec}};
    };

    SourcedLease withHistory;
    QVERIFY(source.toSourced(leaseWith({{leasehistory::kubernetesAnnotation,
                                         QString::fromUtf8(QJsonDocument(leasehistory::encode(changes)).toJson())}}),
                             &withHistory));
    QVERIFY(withHistory.valid);
    QCOMPARE(withHistory.history, std::optional(changes));
    QVERIFY(withHistory.historyError.isEmpty());

    // A Lease that client-go, not Baton, elects on: no history, not an error.
    SourcedLease without;
    QVERIFY(source.toSourced(leaseWith({}), &without));
    QCOMPARE(without.history, std::optional(QList<HistoryEntry> {}));
    QVERIFY(without.historyError.isEmpty());

    SourcedLease malformed;
    QVERIFY(source.toSourced(leaseWith({{leasehistory::kubernetesAnnotation, QStringLiteral("{\"v\":2,\"changes\":[]}")}}),
                             &malformed));
    QVERIFY(malformed.valid);
    QCOMPARE(malformed.record.holder, QStringLiteral("alpha"));
    QVERIFY(!malformed.history.has_value());
    QVERIFY2(malformed.historyError.contains(leasehistory::kubernetesAnnotation), qPrintable(malformed.historyError));
    QVERIFY2(malformed.historyError.contains(QStringLiteral("\"v\"")), qPrintable(malformed.historyError));
}

QTEST_GUILESS_MAIN(TestKubernetesHistory)
#include "tst_kubernetes_history.moc"
