// Preference (H2) and drain (H3) with real processes: `baton join` on one
// FileStore folder (or, built as tst_etcdsteering, on the test etcd), with
// --priority, --prefer-after and `baton drain` / `baton undrain` run beside
// them as an operator runs them. The facts come from the participants' own
// event streams, on the host's boot clock, and from the stored history.

#include <baton/application.h>
#include <baton/clock.h>
#include <baton/store.h>
#include "etcdfixture.h"
#include "eventstream.h"
#include "leasefolder.h"
#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <algorithm>
#include <csignal>

using namespace baton;
using namespace baton::test;

namespace {

// Candidates beat every lease duration and are gone after three of them.
const qint64 leaseMs = scaledMs(2000);
const qint64 renewMs = scaledMs(500);
const qint64 preferAfterMs = scaledMs(4000);

QString durationArgument(qint64 ms)
{
    return QStringLiteral("%1ms").arg(ms);
}

} // namespace

class TestSteering : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void aHigherPriorityLeadsAfterTheHysteresisAndTheHistorySaysWhy();
    void aHigherPriorityRestartedFasterThanTheHysteresisMovesNothing();
    void aDrainedLeaderHandsOverAndStandsByAcrossARestartUntilUndrained();
    void aStandbyTakesNoFreeLeaseWhileAnotherCanLeadAndLeadsWhenNoneCan();
    void aLabelSelectorHandsOverToTheRunningUndrainedMatch();
    void theLeaderRemovesTheRecordsOfCandidatesLongGoneUnlessDrained();
    void badPreferenceOrDrainIsRefusedAndNothingIsWritten_data();
    void badPreferenceOrDrainIsRefusedAndNothingIsWritten();
    void cleanup();

private:
    QJsonObject registry() const;
    QString configFor(const QString &id);
    ParticipantProcess *start(const QString &id, const QStringList &extra = {});
    void stop(ParticipantProcess *participant, int signalNumber = SIGTERM);
    /*! The document stored under \a key, read through the store as any reader would. */
    QJsonObject stored(const QString &key);
    /*! The stored holder changes of the lease, oldest first. */
    QJsonArray storedHistory() { return stored(QStringLiteral("history:") + m_lease).value(QStringLiteral("changes")).toArray(); }

#ifdef BATON_STEERING_ON_ETCD
    test::EtcdFixture m_etcd {"BATON_ETCD_DIR"};
#endif
    std::unique_ptr<QTemporaryDir> m_folder;
    /*! A lease of its own per test: a rerun on the same etcd starts afresh. */
    QString m_lease;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
};

void TestSteering::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
#ifdef BATON_STEERING_ON_ETCD
    if (!m_etcd.configured())
        QSKIP("no etcd fixture: run through ctest");
    QVERIFY2(!m_etcd.endpoints().isEmpty(), qPrintable(m_etcd.errorString()));
#endif
}

QJsonObject TestSteering::registry() const
{
#ifdef BATON_STEERING_ON_ETCD
    return QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/EtcdStore")},
                        {QStringLiteral("endpoints"), QJsonArray::fromStringList(m_etcd.endpoints())},
                        {QStringLiteral("timeout"), 1000}};
#else
    return fileRegistry(m_folder->filePath(QStringLiteral("registry")));
#endif
}

void TestSteering::init()
{
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
    m_lease = QStringLiteral("steering-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
}

QString TestSteering::configFor(const QString &id)
{
    const ParticipantConfig config {registry(), m_lease, id, leaseMs, renewMs};
    return config.writeTo(m_folder->filePath(id + QStringLiteral(".json")));
}

ParticipantProcess *TestSteering::start(const QString &id, const QStringList &extra)
{
    const QString path = configFor(id);
    if (path.isEmpty())
        return nullptr;
    m_participants.push_back(startParticipant(id, path, extra));
    return m_participants.back().get();
}

void TestSteering::stop(ParticipantProcess *participant, int signalNumber)
{
    QSignalSpy finished(participant, &ParticipantProcess::finished);
    participant->sendSignal(signalNumber);
    QVERIFY(finished.wait(20000));
}

QJsonObject TestSteering::stored(const QString &key)
{
    Application reader;
    QString error;
    const QJsonObject config {{QStringLiteral("services"), QJsonObject {{QStringLiteral("Registry"), registry()}}}};
    if (!reader.loadConfig(QJsonDocument(config).toJson(), QStringLiteral("reader.json"), &error)
        || !reader.init(&error)) {
        qWarning("the store cannot be read: %s", qPrintable(error));
        return {};
    }
    QJsonObject document;
    bool answered = false;
    reader.registry()->get(key, [&](const StoreResult &result) {
        document = result.entry.document;
        answered = true;
    });
    if (!QTest::qWaitFor([&answered] { return answered; }, 10000))
        qWarning("the store did not answer");
    QSignalSpy stopped(&reader, &Application::stopped);
    reader.stop();
    stopped.wait(10000);
    return document;
}

void TestSteering::aHigherPriorityLeadsAfterTheHysteresisAndTheHistorySaysWhy()
{
    // H2: the leader hands over to a candidate of a higher priority once
    // that one has run unchanged for the leader's --prefer-after, not before.
    const QStringList prefer {QStringLiteral("--prefer-after"), durationArgument(preferAfterMs)};
    ParticipantProcess *low = start(QStringLiteral("low"), prefer);
    QVERIFY(low);
    QTRY_VERIFY_WITH_TIMEOUT(low->isLeading(), 20000);
    const qint64 highStarted = Clock::system().monotonicMs();
    ParticipantProcess *high = start(QStringLiteral("high"), prefer + QStringList {QStringLiteral("--priority"),
                                                                                   QStringLiteral("5")});
    QVERIFY(high);
    QTRY_VERIFY_WITH_TIMEOUT(high->isLeading(), 20000 + preferAfterMs);
    QVERIFY(!low->isLeading());

    const QJsonObject requested = lastEvent(*low, QStringLiteral("handover-requested"));
    QCOMPARE(requested.value(QStringLiteral("to")).toString(), QStringLiteral("high"));
    QCOMPARE(requested.value(QStringLiteral("by")).toString(), QStringLiteral("preferred holder"));
    qInfo("preference: the lease moved %lld ms after the higher priority started (hysteresis %lld ms)",
          monoOf(requested) - highStarted, preferAfterMs);
    QVERIFY(monoOf(requested) - highStarted >= preferAfterMs);
    const QJsonObject took = firstEvent(*high, QStringLiteral("started-leading"));
    QVERIFY(monoOf(took) >= monoOf(lastEvent(*low, QStringLiteral("stopped-leading"))));
    QCOMPARE(firstEvent(*high, QStringLiteral("candidates")).value(QStringLiteral("priority")).toInt(), 5);

    // H4: the stored history says who asked.
    const QJsonArray changes = storedHistory();
    QVERIFY2(!changes.isEmpty(), "no stored history");
    const QJsonObject last = changes.last().toObject();
    QCOMPARE(last.value(QStringLiteral("to")).toString(), QStringLiteral("high"));
    QCOMPARE(last.value(QStringLiteral("why")).toString(), QStringLiteral("handed-over"));
    QCOMPARE(last.value(QStringLiteral("requestedBy")).toString(), QStringLiteral("preferred holder"));
}

void TestSteering::aHigherPriorityRestartedFasterThanTheHysteresisMovesNothing()
{
    // H2: a candidate that crashes and restarts more often than
    // --prefer-after is live all along (its record outlives each crash by
    // three heartbeats), but each run is a new incarnation: never stable
    // long enough to take the lease.
    const QStringList prefer {QStringLiteral("--prefer-after"), durationArgument(preferAfterMs)};
    const QStringList flappingOptions = prefer + QStringList {QStringLiteral("--priority"), QStringLiteral("9")};
    ParticipantProcess *low = start(QStringLiteral("low"), prefer);
    QVERIFY(low);
    QTRY_VERIFY_WITH_TIMEOUT(low->isLeading(), 20000);
    const qint64 since = Clock::system().monotonicMs();
    qint64 flappingFrom = 0;
    for (int run = 0; run < 4; ++run) {
        const qint64 started = Clock::system().monotonicMs();
        ParticipantProcess *flapping = start(QStringLiteral("flapping"), flappingOptions);
        QVERIFY(flapping);
        QTRY_VERIFY_WITH_TIMEOUT(!firstEvent(*flapping, QStringLiteral("candidates")).isEmpty(), 20000);
        if (run == 0) {
            // The leader sees it (at its next heartbeat) before the crashes begin.
            QTRY_VERIFY_WITH_TIMEOUT(
                    lastEvent(*low, QStringLiteral("candidates"), since).value(QStringLiteral("live")).toInt() == 2,
                    20000);
            flappingFrom = monoOf(lastEvent(*low, QStringLiteral("candidates"), since));
        }
        // Killed half the hysteresis after its start (an interval to
        // observe, not a synchronisation), or at once where a slow start
        // used that up.
        QTest::qWait(int(std::max<qint64>(0, started + preferAfterMs / 2 - Clock::system().monotonicMs())));
        stop(flapping, SIGKILL);
        QVERIFY2(Clock::system().monotonicMs() - started < preferAfterMs, "a run outlived the hysteresis");
    }
    // Seen live by the leader for longer than the hysteresis, and never
    // stable for it.
    QVERIFY(Clock::system().monotonicMs() - flappingFrom > preferAfterMs);
    for (const QJsonObject &event : low->events())
        if (event.value(QStringLiteral("event")).toString() == QLatin1String("candidates") && monoOf(event) > flappingFrom)
            QCOMPARE(event.value(QStringLiteral("live")).toInt(), 2);
    QVERIFY(low->isLeading());
    QVERIFY(firstEvent(*low, QStringLiteral("handover-requested"), since).isEmpty());
    QVERIFY(firstEvent(*low, QStringLiteral("stopped-leading"), since).isEmpty());
}

void TestSteering::aDrainedLeaderHandsOverAndStandsByAcrossARestartUntilUndrained()
{
    // H3: `baton drain` on the leader: it hands over at its next heartbeat
    // and stands by; the drain is stored, so a restart comes up standing
    // by; `baton undrain` lets it lead again.
    ParticipantProcess *first = start(QStringLiteral("a"));
    QVERIFY(first);
    QTRY_VERIFY_WITH_TIMEOUT(first->isLeading(), 20000);
    ParticipantProcess *second = start(QStringLiteral("b"));
    QVERIFY(second);
    // Both candidates known to the leader before the drain.
    QTRY_VERIFY_WITH_TIMEOUT(lastEvent(*first, QStringLiteral("candidates")).value(QStringLiteral("live")).toInt() == 2,
                             20000);
    const QString config = m_folder->filePath(QStringLiteral("a.json"));

    const qint64 drained = Clock::system().monotonicMs();
    const BatonRun drain = runBaton({QStringLiteral("drain"), QStringLiteral("a"), QStringLiteral("--config"), config});
    QVERIFY2(drain.exitCode == 0, qPrintable(drain.err));
    QTRY_VERIFY_WITH_TIMEOUT(second->isLeading(), 20000);
    QVERIFY(!first->isLeading());
    const QJsonObject requested = lastEvent(*first, QStringLiteral("handover-requested"), drained);
    QCOMPARE(requested.value(QStringLiteral("to")).toString(), QStringLiteral("b"));
    QCOMPARE(requested.value(QStringLiteral("by")).toString(), QStringLiteral("drain"));
    QVERIFY(lastEvent(*first, QStringLiteral("standing-by"), drained).value(QStringLiteral("standingBy")).toBool());
    // Within one heartbeat (a lease duration) and the handover itself.
    qInfo("drain: handed over %lld ms after `baton drain` (heartbeat %lld ms)",
          monoOf(requested) - drained, leaseMs);
    QVERIFY(monoOf(requested) - drained <= 2 * leaseMs);
    const QJsonArray changes = storedHistory();
    QVERIFY(!changes.isEmpty());
    QCOMPARE(changes.last().toObject().value(QStringLiteral("requestedBy")).toString(), QStringLiteral("drain"));

    // The drain outlives a restart: the new run stands by at once and never leads.
    stop(first);
    const qint64 restarted = Clock::system().monotonicMs();
    ParticipantProcess *again = start(QStringLiteral("a"));
    QVERIFY(again);
    QTRY_VERIFY_WITH_TIMEOUT(!firstEvent(*again, QStringLiteral("standing-by"), restarted).isEmpty(), 20000);
    const QJsonObject standing = firstEvent(*again, QStringLiteral("standing-by"), restarted);
    QVERIFY(standing.value(QStringLiteral("standingBy")).toBool());
    const QString drainedBy = firstEvent(*again, QStringLiteral("candidate-drained")).value(QStringLiteral("by")).toString();
    QVERIFY2(isUserAtThisHost(drainedBy), qPrintable(drainedBy));
    QVERIFY(second->isLeading());
    QVERIFY(firstEvent(*again, QStringLiteral("started-leading")).isEmpty());

    // Undrained: it stops standing by at its next heartbeat, and leads
    // when the other goes.
    const qint64 undrained = Clock::system().monotonicMs();
    const BatonRun undrain = runBaton({QStringLiteral("undrain"), QStringLiteral("a"), QStringLiteral("--config"), config});
    QVERIFY2(undrain.exitCode == 0, qPrintable(undrain.err));
    QTRY_VERIFY_WITH_TIMEOUT(!lastEvent(*again, QStringLiteral("standing-by"), undrained).isEmpty(), 20000);
    QVERIFY(!lastEvent(*again, QStringLiteral("standing-by"), undrained).value(QStringLiteral("standingBy")).toBool());
    QVERIFY(second->isLeading()); // equal priorities: undraining moves nothing
    stop(second);
    QTRY_VERIFY_WITH_TIMEOUT(again->isLeading(), 20000);
}

void TestSteering::aStandbyTakesNoFreeLeaseWhileAnotherCanLeadAndLeadsWhenNoneCan()
{
    // H3: started with --standby, it stands by: a lease released by a
    // clean stop goes to the other candidate, not to it; with nobody else
    // left it leads, since the work must run somewhere.
    ParticipantProcess *b = start(QStringLiteral("b"));
    ParticipantProcess *c = start(QStringLiteral("c"));
    QVERIFY(b && c);
    QTRY_VERIFY_WITH_TIMEOUT(b->isLeading() || c->isLeading(), 20000);
    ParticipantProcess *standby = start(QStringLiteral("a"), {QStringLiteral("--standby")});
    QVERIFY(standby);
    QTRY_VERIFY_WITH_TIMEOUT(!firstEvent(*standby, QStringLiteral("standing-by")).isEmpty(), 20000);
    QVERIFY(firstEvent(*standby, QStringLiteral("standing-by")).value(QStringLiteral("standingBy")).toBool());
    // Told once its record is written, which comes after it stands by.
    QTRY_COMPARE_WITH_TIMEOUT(
            firstEvent(*standby, QStringLiteral("candidate-drained")).value(QStringLiteral("by")).toString(),
            QStringLiteral("standby"), 20000);

    ParticipantProcess *first = b->isLeading() ? b : c;
    ParticipantProcess *other = first == b ? c : b;
    const qint64 released = Clock::system().monotonicMs();
    stop(first);
    QTRY_VERIFY_WITH_TIMEOUT(other->isLeading(), 20000);
    // The standby saw the release (a free lease) and let it go. Its own
    // event, from another process, may come after the other's lead.
    QTRY_VERIFY_WITH_TIMEOUT(!lastEvent(*standby, QStringLiteral("leader-changed"), released).isEmpty(), 20000);
    QVERIFY(firstEvent(*standby, QStringLiteral("started-leading")).isEmpty());

    stop(other);
    // A clean stop says the instance left: a candidate gone at once, not
    // after three heartbeats.
    const QJsonObject left = stored(QStringLiteral("candidate:%1:%2").arg(m_lease, other->label()));
    QCOMPARE(left.value(QStringLiteral("left")).toBool(), true);
    QTRY_VERIFY_WITH_TIMEOUT(standby->isLeading(), 20000);
    QVERIFY(!lastEvent(*standby, QStringLiteral("standing-by")).value(QStringLiteral("standingBy")).toBool());
}

void TestSteering::aLabelSelectorHandsOverToTheRunningUndrainedMatch()
{
    // H1 with labels: `baton handover --to zone=b` asks the holder to hand
    // over to the candidate whose labels match, that runs and is not
    // drained; no match writes nothing; a holder that matches moves nothing.
    const auto label = [](const QString &pair) { return QStringList {QStringLiteral("--label"), pair}; };
    ParticipantProcess *a = start(QStringLiteral("a"), label(QStringLiteral("zone=a")));
    QVERIFY(a);
    QTRY_VERIFY_WITH_TIMEOUT(a->isLeading(), 20000);
    ParticipantProcess *b = start(QStringLiteral("b"), label(QStringLiteral("zone=b")) + label(QStringLiteral("tier=1")));
    ParticipantProcess *c = start(QStringLiteral("c"), label(QStringLiteral("zone=b")) + QStringList {QStringLiteral("--standby")});
    QVERIFY(b && c);
    // Both announced (their first listing follows their first write).
    QTRY_VERIFY_WITH_TIMEOUT(!firstEvent(*b, QStringLiteral("candidates")).isEmpty()
                                     && !firstEvent(*c, QStringLiteral("candidates")).isEmpty(),
                             20000);
    QCOMPARE(stored(QStringLiteral("candidate:%1:b").arg(m_lease)).value(QStringLiteral("labels")).toObject(),
             (QJsonObject {{QStringLiteral("tier"), QStringLiteral("1")}, {QStringLiteral("zone"), QStringLiteral("b")}}));
    const QString config = m_folder->filePath(QStringLiteral("a.json"));

    const BatonRun none = runBaton({QStringLiteral("handover"), m_lease, QStringLiteral("--to"),
                                    QStringLiteral("zone=c"), QStringLiteral("--config"), config});
    QCOMPARE(none.exitCode, 1);
    QVERIFY2(none.err.contains(QStringLiteral("no running, undrained candidate matches \"zone=c\"")), qPrintable(none.err));
    QVERIFY2(none.err.contains(QStringLiteral("b (labels: tier=1,zone=b)")), qPrintable(none.err));
    QVERIFY(stored(QStringLiteral("cluster:") + m_lease).value(QStringLiteral("successor")).toString().isEmpty());

    const qint64 asked = Clock::system().monotonicMs();
    const BatonRun moved = runBaton({QStringLiteral("handover"), m_lease, QStringLiteral("--to"),
                                     QStringLiteral("zone=b"), QStringLiteral("--config"), config});
    QVERIFY2(moved.exitCode == 0, qPrintable(moved.err));
    QVERIFY2(moved.out.contains(QStringLiteral("asked a to hand the lease over to b")), qPrintable(moved.out));
    QTRY_VERIFY_WITH_TIMEOUT(b->isLeading(), 20000);
    QCOMPARE(lastEvent(*a, QStringLiteral("handover-requested"), asked).value(QStringLiteral("to")).toString(),
             QStringLiteral("b"));
    // The drained match was passed over and never led.
    QVERIFY(firstEvent(*c, QStringLiteral("started-leading")).isEmpty());
    const QJsonObject last = storedHistory().last().toObject();
    QCOMPARE(last.value(QStringLiteral("to")).toString(), QStringLiteral("b"));
    QVERIFY2(isUserAtThisHost(last.value(QStringLiteral("requestedBy")).toString()),
             qPrintable(last.value(QStringLiteral("requestedBy")).toString()));

    const BatonRun already = runBaton({QStringLiteral("handover"), m_lease, QStringLiteral("--to"),
                                       QStringLiteral("zone in (b,c),tier"), QStringLiteral("--config"), config});
    QVERIFY2(already.exitCode == 0, qPrintable(already.err));
    QVERIFY2(already.out.contains(QStringLiteral("b holds the lease and matches")), qPrintable(already.out));
    QVERIFY(stored(QStringLiteral("cluster:") + m_lease).value(QStringLiteral("successor")).toString().isEmpty());
    QVERIFY(b->isLeading());
}

void TestSteering::theLeaderRemovesTheRecordsOfCandidatesLongGoneUnlessDrained()
{
    // Records do not pile up: the leader removes those of candidates that
    // stopped (b) or were killed (d) once unchanged for ten heartbeats; a
    // drained one (c) is kept, since the drain must outlive the process.
    ParticipantProcess *a = start(QStringLiteral("a"));
    QVERIFY(a);
    QTRY_VERIFY_WITH_TIMEOUT(a->isLeading(), 20000);
    ParticipantProcess *b = start(QStringLiteral("b"));
    ParticipantProcess *c = start(QStringLiteral("c"));
    ParticipantProcess *d = start(QStringLiteral("d"));
    QVERIFY(b && c && d);
    QTRY_VERIFY_WITH_TIMEOUT(lastEvent(*a, QStringLiteral("candidates")).value(QStringLiteral("live")).toInt() == 4,
                             20000);
    const BatonRun drain = runBaton({QStringLiteral("drain"), QStringLiteral("c"), QStringLiteral("--config"),
                                     m_folder->filePath(QStringLiteral("a.json"))});
    QVERIFY2(drain.exitCode == 0, qPrintable(drain.err));
    const auto key = [this](const char *instance) {
        return QStringLiteral("candidate:%1:%2").arg(m_lease, QString::fromLatin1(instance));
    };
    QTRY_VERIFY_WITH_TIMEOUT(!firstEvent(*c, QStringLiteral("standing-by")).isEmpty(), 20000);
    const qint64 gone = Clock::system().monotonicMs();
    stop(b);
    stop(c, SIGKILL);
    stop(d, SIGKILL);
    QCOMPARE(stored(key("b")).value(QStringLiteral("left")).toBool(), true);
    QVERIFY(!stored(key("d")).isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(stored(key("b")).isEmpty() && stored(key("d")).isEmpty(), 20 * leaseMs + 20000);
    // Not before ten heartbeats unchanged.
    QVERIFY(Clock::system().monotonicMs() - gone >= 10 * leaseMs);
    QVERIFY(stored(key("c")).value(QStringLiteral("drained")).toBool());
    QCOMPARE(stored(key("a")).value(QStringLiteral("left")).toBool(), false);
    QVERIFY(a->isLeading());
}

void TestSteering::badPreferenceOrDrainIsRefusedAndNothingIsWritten_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QJsonObject>("parameters"); // added to the configuration's cluster service
    QTest::addColumn<QString>("message");
    QTest::newRow("H2: a priority out of range")
            << QStringList {QStringLiteral("--priority"), QStringLiteral("1001")} << QJsonObject()
            << "--priority takes a whole number from -1000 to 1000, not \"1001\"";
    QTest::newRow("H2: a priority that is no number")
            << QStringList {QStringLiteral("--priority"), QStringLiteral("high")} << QJsonObject()
            << "--priority takes a whole number from -1000 to 1000, not \"high\"";
    QTest::newRow("H2: a hysteresis that is no duration")
            << QStringList {QStringLiteral("--prefer-after"), QStringLiteral("soon")} << QJsonObject() << "--prefer-after";
    QTest::newRow("H2: a priority in the file out of range")
            << QStringList() << QJsonObject {{QStringLiteral("priority"), -1001}} << "parameter \"priority\"";
    QTest::newRow("H3: standby in the file that is no boolean")
            << QStringList() << QJsonObject {{QStringLiteral("standby"), QStringLiteral("yes")}}
            << "parameter \"standby\"";
    QTest::newRow("H2: a label that is not KEY=VALUE")
            << QStringList {QStringLiteral("--label"), QStringLiteral("zone")} << QJsonObject()
            << "--label \"zone\" is not KEY=VALUE";
    QTest::newRow("H2: a label value with a character labels do not take")
            << QStringList {QStringLiteral("--label"), QStringLiteral("zone=b c")} << QJsonObject()
            << "the label value \"b c\" holds \" \"";
    QTest::newRow("H2: labels in the file that are not labels")
            << QStringList()
            << QJsonObject {{QStringLiteral("labels"), QJsonObject {{QStringLiteral("-zone"), QStringLiteral("b")}}}}
            << "labels.-zone";
    QTest::newRow("H2: labels in the file that are no object")
            << QStringList() << QJsonObject {{QStringLiteral("labels"), QStringLiteral("zone=b")}}
            << "parameter \"labels\"";
    QTest::newRow("H3: standby for a local election")
            << QStringList {QStringLiteral("--standby")}
            << QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/LocalClusterService")}}
            << "has no other candidates";
}

void TestSteering::badPreferenceOrDrainIsRefusedAndNothingIsWritten()
{
    QFETCH(QStringList, arguments);
    QFETCH(QJsonObject, parameters);
    QFETCH(QString, message);
    QJsonObject config = ParticipantConfig {registry(), m_lease, QStringLiteral("x"), leaseMs, renewMs}.toJson();
    QJsonObject services = config.value(QStringLiteral("services")).toObject();
    QJsonObject cluster = services.value(QStringLiteral("cluster")).toObject();
    for (auto it = parameters.constBegin(); it != parameters.constEnd(); ++it)
        cluster.insert(it.key(), it.value());
    if (parameters.contains(QStringLiteral("type"))) {
        cluster.remove(QStringLiteral("leaseDuration"));
        cluster.remove(QStringLiteral("renewInterval"));
    }
    services.insert(QStringLiteral("cluster"), cluster);
    config.insert(QStringLiteral("services"), services);
    const QString path = m_folder->filePath(QStringLiteral("refused.json"));
    QVERIFY(writeJsonFile(path, config));
    const BatonRun run = runBaton(QStringList {QStringLiteral("join"), QStringLiteral("--config"), path} + arguments);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(message), qPrintable(run.err));
    // Nothing changed: no candidate announced, no lease taken.
    QVERIFY(stored(QStringLiteral("candidate:%1:x").arg(m_lease)).isEmpty());
    QVERIFY(stored(QStringLiteral("cluster:") + m_lease).isEmpty());
}

void TestSteering::cleanup()
{
    if (QTest::currentTestFailed()) {
        for (const auto &p : m_participants)
            qWarning("--- %s (%d events) ---\n%s", qPrintable(p->label()), int(p->events().size()),
                     p->standardError().constData());
    }
    m_participants.clear();
}

QTEST_GUILESS_MAIN(TestSteering)
#include "tst_steering.moc"
