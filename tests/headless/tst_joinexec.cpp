// `baton join --exec` end to end: three real processes on one FileStore
// folder run one command "while leading". Across a crash (SIGKILL), a freeze
// longer than the lease (SIGSTOP, SIGCONT) and a clean handover (SIGTERM),
// the command never runs in two places at once (O3). Every copy of the
// command appends its lines to one shared file (O_APPEND: the file's order is
// the order of the writes), so two copies running at once would interleave.
// The same test runs twice: on a FileStore, and (as tst_joinexec_etcd, with
// BATON_JOINEXEC_STORE=etcd) on the etcd that the CTest fixture started.

#include "etcdfixture.h"
#include "eventstream.h"
#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <csignal>

using namespace baton;
using namespace baton::test;

namespace {

// The lease and renewal of this run, BATON_TEST_TIME_SCALE times those of a
// quiet machine; every bound below is derived from them.
const qint64 leaseMs = scaledMs(2000);
const qint64 renewMs = scaledMs(500);

int countEvents(const ParticipantProcess &p, const QString &name)
{
    const QList<QJsonObject> events = p.events();
    return int(std::count_if(events.begin(), events.end(), [&](const QJsonObject &e) {
        return e.value(QStringLiteral("event")).toString() == name;
    }));
}

bool isAlive(qint64 pid)
{
    return pid > 0 && ::kill(pid_t(pid), 0) == 0;
}

} // namespace

class TestJoinExec : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void theCommandNeverRunsTwiceAcrossCrashFreezeAndHandover();
    void aSecondSignalExitsAtOnceAndTheCommandDiesWithIt();
    void twoProcessesConfiguredWithOneInstanceIdNeverRunTheCommandTogether();

private:
    QString writeConfig(const QString &name, const QString &instanceId, const QString &lease);
    /*! Starts the participant \a label, elected as \a instanceId (default: \a label). */
    ParticipantProcess *start(const QString &label, const QString &lease, const QStringList &extra,
                              const QString &instanceId = {});
    /*! Fails the test unless the copies of the command in the log ran one after another. */
    void verifyCopiesNeverOverlap(int expectedCopies) const;
    /*! A running participant that leads, other than \a except (a frozen one still says it leads). */
    ParticipantProcess *leader(const ParticipantProcess *except = nullptr) const;
    QStringList logLines() const;
    /*! Lines written by the copy of the command with \a pid. */
    int linesOf(qint64 pid) const;

    QTemporaryDir m_folder;
    QString m_log;
    QJsonObject m_registry;
    QString m_leaseSuffix;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
};

void TestJoinExec::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
    m_log = m_folder.filePath(QStringLiteral("command.log"));
    if (qEnvironmentVariable("BATON_JOINEXEC_STORE") == QLatin1String("etcd")) {
        EtcdFixture etcd("BATON_ETCD_DIR");
        QVERIFY2(etcd.configured() && !etcd.endpoints().isEmpty(),
                 qPrintable(QStringLiteral("no etcd from the fixture: %1").arg(etcd.errorString())));
        m_registry = QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/EtcdStore")},
                                  {QStringLiteral("endpoints"), QJsonArray::fromStringList(etcd.endpoints())}};
        // The fixture's etcd is shared: a lease name of this run's own.
        m_leaseSuffix = QLatin1Char('-') + QUuid::createUuid().toString(QUuid::Id128).left(8);
    } else {
        m_registry = fileRegistry(m_folder.filePath(QStringLiteral("registry")));
    }
}

QString TestJoinExec::writeConfig(const QString &name, const QString &instanceId, const QString &lease)
{
    const ParticipantConfig config {m_registry, lease + m_leaseSuffix, instanceId, leaseMs, renewMs};
    return config.writeTo(m_folder.filePath(name));
}

ParticipantProcess *TestJoinExec::start(const QString &label, const QString &lease,
                                       const QStringList &extra, const QString &instanceId)
{
    const QString config = writeConfig(label + QStringLiteral(".json"),
                                       instanceId.isEmpty() ? label : instanceId, lease);
    m_participants.push_back(std::make_unique<ParticipantProcess>(
            label, test::batonBinary(),
            QStringList {QStringLiteral("join"), QStringLiteral("--config"), config,
                         QStringLiteral("--events"), QStringLiteral("json")}
                    + extra));
    test::keepOutput(m_participants.back().get());
    m_participants.back()->start();
    return m_participants.back().get();
}

ParticipantProcess *TestJoinExec::leader(const ParticipantProcess *except) const
{
    for (const auto &p : m_participants)
        if (p.get() != except && p->isRunning() && p->isLeading())
            return p.get();
    return nullptr;
}

void TestJoinExec::cleanup()
{
    for (const auto &p : m_participants) {
        p->sendSignal(SIGCONT);
        p->sendSignal(SIGKILL);
    }
    m_participants.clear();
}

QStringList TestJoinExec::logLines() const
{
    QFile file(m_log);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

int TestJoinExec::linesOf(qint64 pid) const
{
    const QString suffix = QLatin1Char(' ') + QString::number(pid);
    const QStringList lines = logLines();
    return int(std::count_if(lines.begin(), lines.end(), [&](const QString &l) { return l.endsWith(suffix); }));
}

void TestJoinExec::theCommandNeverRunsTwiceAcrossCrashFreezeAndHandover()
{
    // Each line: "<start|tick> <instance> <pid of this copy>". A copy
    // writes ticks until SIGTERM ends it (the trap writes nothing).
    const QString command = QStringLiteral(
            "echo \"start $BATON_INSTANCE $$\" >> '%1'; trap 'exit 0' TERM; "
            "while :; do echo \"tick $BATON_INSTANCE $$\" >> '%1'; sleep 0.02; done")
                                    .arg(m_log);
    const QStringList exec {QStringLiteral("--exec"), command, QStringLiteral("--grace"), QStringLiteral("300")};
    for (const QString &id : {QStringLiteral("e1"), QStringLiteral("e2"), QStringLiteral("e3")})
        start(id, QStringLiteral("nightly"), exec);

    // O3: the leader, and only it, runs the command.
    QTRY_VERIFY_WITH_TIMEOUT(leader() && countEvents(*leader(), QStringLiteral("exec-started")) == 1, 20000);
    ParticipantProcess *first = leader();
    const qint64 firstPid = qint64(lastEvent(*first, QStringLiteral("exec-started")).value(QStringLiteral("pid")).toDouble());
    QTRY_VERIFY_WITH_TIMEOUT(linesOf(firstPid) >= 10, 10000);

    // Crash (F6): SIGKILL to baton join. Its command dies with it (the exec
    // guard kills it at once): no orphan keeps working while the lease runs out.
    QSignalSpy firstDied(first, &ParticipantProcess::finished);
    first->sendSignal(SIGKILL);
    QVERIFY(firstDied.wait(10000));
    QTRY_VERIFY_WITH_TIMEOUT(!isAlive(firstPid), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(leader(first) && countEvents(*leader(first), QStringLiteral("exec-started")) == 1,
                             20000);
    ParticipantProcess *second = leader(first);
    const qint64 secondPid = qint64(lastEvent(*second, QStringLiteral("exec-started")).value(QStringLiteral("pid")).toDouble());
    QTRY_VERIFY_WITH_TIMEOUT(linesOf(secondPid) >= 10, 10000);

    // Freeze (F4): baton join and its command stopped for longer than the
    // lease. The third instance takes over and starts its own copy. The exec
    // guard, awake, sends TERM then CONT to the stopped command at the F4
    // deadline, which thus ends without running another step; on SIGCONT,
    // baton steps down (reason "deadline") and reports it. (A freeze of the whole host
    // resumes both at once; then the old copy runs until SIGTERM reaches it,
    // a few milliseconds: docs/safety.md.)
    second->sendSignal(SIGSTOP);
    QCOMPARE(::kill(-pid_t(secondPid), SIGSTOP), 0);
    QTRY_VERIFY_WITH_TIMEOUT(leader(second) && countEvents(*leader(second), QStringLiteral("exec-started")) == 1,
                             20000);
    ParticipantProcess *third = leader(second);
    QVERIFY(third != first);
    second->sendSignal(SIGCONT);
    QTRY_VERIFY_WITH_TIMEOUT(countEvents(*second, QStringLiteral("exec-stopped")) == 1, 10000);
    // On SIGCONT the command's end (the guard killed it while baton was
    // stopped) and baton's passed deadline are both waiting for its loop,
    // and are told in either order.
    QTRY_COMPARE_WITH_TIMEOUT(
            lastEvent(*second, QStringLiteral("stopped-leading")).value(QStringLiteral("reason")).toString(),
            QStringLiteral("deadline"), 10000);
    QVERIFY(!isAlive(secondPid));
    QVERIFY(second->isRunning()); // stepping down never ends the process (F5)

    // Clean handover (F5, F8): SIGTERM; the command is stopped before the
    // release, and the follower takes over on the release, not on an expiry.
    const qint64 thirdPid = qint64(lastEvent(*third, QStringLiteral("exec-started")).value(QStringLiteral("pid")).toDouble());
    QTRY_VERIFY_WITH_TIMEOUT(linesOf(thirdPid) >= 10, 10000);
    QSignalSpy thirdExited(third, &ParticipantProcess::finished);
    third->sendSignal(SIGTERM);
    QVERIFY(thirdExited.wait(10000));
    QCOMPARE(third->exitStatus(), QProcess::NormalExit);
    QCOMPARE(third->exitCode(), 0);
    QVERIFY(!isAlive(thirdPid));
    const QJsonObject execStopped = lastEvent(*third, QStringLiteral("exec-stopped"));
    const QJsonObject released = lastEvent(*third, QStringLiteral("released"));
    QVERIFY(released.value(QStringLiteral("released")).toBool());
    QVERIFY(monoOf(execStopped) <= monoOf(released));
    QCOMPARE(execStopped.value(QStringLiteral("exitCode")).toInt(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(countEvents(*second, QStringLiteral("exec-started")) == 2, 10000);
    // The next leader may start a moment before the old process stamps its
    // "released" (the follower saw the release first), but never before the
    // old command was dead: that is the order F5 promises.
    const qint64 nextStarted = monoOf(lastEvent(*second, QStringLiteral("started-leading")));
    QVERIFY(nextStarted >= monoOf(execStopped));
    const qint64 handoverMs = nextStarted - monoOf(released);
    qInfo("clean handover with --exec: %lld ms from the release to the next leader", handoverMs);
    QVERIFY(handoverMs < leaseMs);

    const qint64 lastPid = qint64(lastEvent(*second, QStringLiteral("exec-started")).value(QStringLiteral("pid")).toDouble());
    QTRY_VERIFY_WITH_TIMEOUT(linesOf(lastPid) >= 10, 10000);
    QSignalSpy secondExited(second, &ParticipantProcess::finished);
    second->sendSignal(SIGTERM);
    QVERIFY(secondExited.wait(10000));
    QCOMPARE(second->exitCode(), 0);

    verifyCopiesNeverOverlap(4); // e-first, second, third, second again
}

void TestJoinExec::verifyCopiesNeverOverlap(int expectedCopies) const
{
    // The file: copies follow one another; no line of one copy falls
    // between the first and last line of another.
    const QStringList lines = logLines();
    QStringList order; // copy ids, in order of first appearance
    QString current;
    for (const QString &line : lines) {
        const QStringList parts = line.split(QLatin1Char(' '));
        QCOMPARE(parts.size(), 3);
        const QString copy = parts.at(2);
        if (copy == current)
            continue;
        QVERIFY2(!order.contains(copy),
                 qPrintable(QStringLiteral("copy %1 wrote again after copy %2 had started").arg(copy, current)));
        QCOMPARE(parts.at(0), QStringLiteral("start"));
        order.append(copy);
        current = copy;
    }
    QCOMPARE(order.size(), expectedCopies);
    qInfo("%lld lines from %lld copies of the command, none overlapping", qint64(lines.size()), qint64(order.size()));
}

void TestJoinExec::twoProcessesConfiguredWithOneInstanceIdNeverRunTheCommandTogether()
{
    // R5: one configuration file copied to two servers, with a fixed
    // "instanceId": "worker". Only the first to take the lease runs the
    // command; the other says so once and waits for the lease to end.
    QFile::remove(m_log);
    const QString command = QStringLiteral(
            "echo \"start $BATON_INSTANCE $$\" >> '%1'; trap 'exit 0' TERM; "
            "while :; do echo \"tick $BATON_INSTANCE $$\" >> '%1'; sleep 0.02; done")
                                    .arg(m_log);
    const QStringList exec {QStringLiteral("--exec"), command, QStringLiteral("--grace"), QStringLiteral("300")};
    const QString id = QStringLiteral("worker");
    ParticipantProcess *a = start(QStringLiteral("twin-a"), QStringLiteral("twins"), exec, id);
    QTRY_VERIFY_WITH_TIMEOUT(a->isLeading() && countEvents(*a, QStringLiteral("exec-started")) == 1, 20000);
    ParticipantProcess *b = start(QStringLiteral("twin-b"), QStringLiteral("twins"), exec, id);
    QTRY_VERIFY_WITH_TIMEOUT(countEvents(*b, QStringLiteral("identity-conflict")) == 1, 20000);
    const QJsonObject conflict = lastEvent(*b, QStringLiteral("identity-conflict"));
    const QString aIncarnation = conflict.value(QStringLiteral("theirIncarnation")).toString();
    QVERIFY(!aIncarnation.isEmpty());
    QVERIFY(aIncarnation != conflict.value(QStringLiteral("incarnation")).toString());
    QVERIFY(QString::fromUtf8(b->standardError())
                    .contains(QStringLiteral("another process holds the lease under this instance's id")));

    // Three leases of renewals by the first: the second never leads, and
    // says it once, not at each renewal it sees.
    auto renewals = [](const ParticipantProcess &p) {
        const QList<QJsonObject> events = p.events();
        return std::count_if(events.begin(), events.end(), [](const QJsonObject &e) {
            return e.value(QStringLiteral("event")).toString() == QLatin1String("attempt")
                    && e.value(QStringLiteral("outcome")).toString() == QLatin1String("renewed");
        });
    };
    const qint64 renewedBefore = renewals(*a);
    QTRY_VERIFY_WITH_TIMEOUT(renewals(*a) >= renewedBefore + 3 * leaseMs / renewMs, 20 * leaseMs);
    QCOMPARE(countEvents(*b, QStringLiteral("started-leading")), 0);
    QCOMPARE(countEvents(*b, QStringLiteral("exec-started")), 0);
    QCOMPARE(countEvents(*b, QStringLiteral("identity-conflict")), 1);
    QCOMPARE(countEvents(*a, QStringLiteral("identity-conflict")), 0);
    QCOMPARE(countEvents(*a, QStringLiteral("stopped-leading")), 0);

    // The first dies: the second takes over once the lease expired, and
    // only then starts its copy.
    const qint64 aPid = qint64(lastEvent(*a, QStringLiteral("exec-started")).value(QStringLiteral("pid")).toDouble());
    QSignalSpy aDied(a, &ParticipantProcess::finished);
    a->sendSignal(SIGKILL);
    QVERIFY(aDied.wait(10000));
    QTRY_VERIFY_WITH_TIMEOUT(!isAlive(aPid), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(countEvents(*b, QStringLiteral("exec-started")) == 1, 20000);
    QCOMPARE(lastEvent(*b, QStringLiteral("leader-changed")).value(QStringLiteral("why")).toString(),
             QStringLiteral("expired"));
    const qint64 bPid = qint64(lastEvent(*b, QStringLiteral("exec-started")).value(QStringLiteral("pid")).toDouble());
    QTRY_VERIFY_WITH_TIMEOUT(linesOf(bPid) >= 10, 10000);
    QSignalSpy bExited(b, &ParticipantProcess::finished);
    b->sendSignal(SIGTERM);
    QVERIFY(bExited.wait(10000));
    QCOMPARE(b->exitCode(), 0);
    verifyCopiesNeverOverlap(2);
}

void TestJoinExec::aSecondSignalExitsAtOnceAndTheCommandDiesWithIt()
{
    // A command that ignores SIGTERM and a grace of 500 ms: the clean stop
    // waits; a second signal ends baton at once (exit 128 + SIGINT), and the
    // command goes with it (the exec guard's input ends: it kills at once).
    const QString ready = m_folder.filePath(QStringLiteral("stubborn-ready"));
    ParticipantProcess *p = start(QStringLiteral("stubborn"), QStringLiteral("stubborn"),
                                  {QStringLiteral("--exec"),
                                   QStringLiteral("trap '' TERM; touch '%1'; while :; do sleep 0.05; done").arg(ready),
                                   QStringLiteral("--grace"), QStringLiteral("500")});
    QTRY_VERIFY_WITH_TIMEOUT(countEvents(*p, QStringLiteral("exec-started")) == 1, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(ready), 10000);
    const qint64 pid = qint64(lastEvent(*p, QStringLiteral("exec-started")).value(QStringLiteral("pid")).toDouble());
    QSignalSpy exited(p, &ParticipantProcess::finished);
    p->sendSignal(SIGTERM);
    QTRY_VERIFY_WITH_TIMEOUT(countEvents(*p, QStringLiteral("stopped-leading")) == 1, 10000);
    QVERIFY(isAlive(pid)); // within its grace
    p->sendSignal(SIGINT);
    QVERIFY(exited.wait(10000));
    QCOMPARE(p->exitStatus(), QProcess::NormalExit);
    QCOMPARE(p->exitCode(), 128 + SIGINT);
    QCOMPARE(countEvents(*p, QStringLiteral("exec-stopped")), 0); // it never got that far
    QTRY_VERIFY_WITH_TIMEOUT(!isAlive(pid), 5000);
}

QTEST_GUILESS_MAIN(TestJoinExec)
#include "tst_joinexec.moc"
