// The tolerated clock-rate difference, proved with real processes (F4, O3,
// O6): `--explain` and the dashboard promise that the leader's clock may run
// slower than a follower's by (leaseDuration - renewInterval) /
// (2 * leaseDuration) of the follower's rate. Two `baton join --exec`
// processes on one FileStore folder, each under Debian's libfaketime at its
// own rate (one slower, one faster than the host), face the freeze (SIGSTOP
// of the leader's baton alone, longer than the lease) and the kill (SIGKILL
// of the leader's baton):
//   - at 0.9 of the tolerated difference, in both directions: no two copies
//     of the command at once, no overlapping authority;
//   - at 2.2 times the tolerance, a slow leader frozen: the same checks
//     find both overlaps, so they can fail.
//
// How the clocks are faked (docs/testing.md, "Clock drift"): each baton runs
// below the `faketime` wrapper, so that it and its exec guard share one
// faked CLOCK_BOOTTIME, as a process and its guard share a host's clock.
// faketime_boottime (preloaded too) fills what libfaketime 0.9.10 lacks: the
// guard's absolute CLOCK_BOOTTIME timer, and one (faked, host) pair per
// process from which the events' `mono` is mapped back to the host's clock.
// The command runs without libfaketime: its CLOCK_BOOTTIME log is the
// host's, the judge of what really ran at once.

#include "chaoscheck.h"
#include "eventstream.h"
#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <baton/clusterservice.h>

#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <QDeadlineTimer>

#include <csignal>
#include <cstdlib>
#include <ctime>
#include <memory>

using namespace baton;
using namespace baton::test;
using namespace baton::test::chaos;

namespace {

const qint64 leaseMs = scaledMs(2000);
const qint64 renewMs = scaledMs(500); // a tolerance of 37.5 %
// The follower reads the record this often, so that it sees the leader's
// last renewal almost at once and counts its lease from there: the worst
// case for safety, which the claim must survive. At the leader's interval,
// the follower would see it up to a renewal later: slack that let a
// claim four times too generous pass (seen with a mutant).
const qint64 followerRenewMs = scaledMs(100);
// Well within the longest grace, three quarters of the safety margin (O3).
const qint64 graceMs = scaledMs(200);
// Long enough for anything a participant waits for, at the slowest rate.
const int waitMs = int(scaledMs(30000));

qint64 hostBootNs()
{
    timespec ts {};
    clock_gettime(CLOCK_BOOTTIME, &ts); // this test runs without libfaketime
    return qint64(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

/*!
 * Rates of a leader and a follower whose relative difference, (follower -
 * leader) / follower, is \a difference: the follower runs faster when it is
 * positive. Split evenly around the host's rate.
 */
std::pair<double, double> ratesFor(double difference)
{
    const double s = difference / (2.0 - difference);
    return {1.0 - s, 1.0 + s};
}

/*! How a participant's faked CLOCK_BOOTTIME maps to the host's. */
struct FakedClock
{
    double rate = 1.0;
    qint64 fakedNs = 0; // a reading of the faked clock...
    qint64 hostNs = 0;  // ...and the host's at the same instant

    qint64 hostMs(qint64 fakedMs) const
    {
        return (hostNs + qint64(double(fakedMs * 1'000'000 - fakedNs) / rate)) / 1'000'000;
    }
};

/*! One `baton join --exec` under `faketime` at its rate. */
struct DriftingParticipant
{
    std::unique_ptr<ParticipantProcess> process;
    double rate = 1.0;
    qint64 renewInterval = 0;
    QString pairsPath;
    qint64 batonPid = 0; // the wrapper's child: the process to freeze or kill
};

} // namespace

class TestClockDrift : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void driftedClocksNeverOverlap_data();
    void driftedClocksNeverOverlap();

private:
    DriftingParticipant *start(const QString &id, double rate, qint64 renewInterval);
    /*! From the pairs its processes wrote; \a ok false when they are missing or disagree with its rate. */
    FakedClock fakedClock(const DriftingParticipant &p, bool *ok) const;

    std::unique_ptr<QTemporaryDir> m_folder;
    QString m_log;
    std::vector<std::unique_ptr<DriftingParticipant>> m_participants;
};

void TestClockDrift::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY2(QFile::exists(QStringLiteral(BATON_FAKETIME)), BATON_FAKETIME " is missing: run setup.sh");
}

void TestClockDrift::init()
{
    // A folder per row: the previous row's lease would be held until it expires.
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
    m_log = m_folder->filePath(QStringLiteral("command.log"));
}

void TestClockDrift::cleanup()
{
    for (const auto &p : m_participants) {
        if (p->batonPid > 0) {
            ::kill(pid_t(p->batonPid), SIGCONT);
            ::kill(pid_t(p->batonPid), SIGKILL);
        }
    }
    // Each wrapper removes its shared memory once its processes are gone.
    for (const auto &p : m_participants)
        QTRY_VERIFY_WITH_TIMEOUT(!p->process->isRunning(), waitMs);
    m_participants.clear();
    m_folder.reset();
}

DriftingParticipant *TestClockDrift::start(const QString &id, double rate, qint64 renewInterval)
{
    const QJsonObject config {
            {QStringLiteral("services"),
             QJsonObject {{QStringLiteral("Registry"),
                           QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/FileStore")},
                                        {QStringLiteral("folder"), m_folder->filePath(QStringLiteral("registry"))}}},
                          {QStringLiteral("cluster"),
                           QJsonObject {{QStringLiteral("type"), QStringLiteral("StoreClusterService")},
                                        {QStringLiteral("leaseName"), QStringLiteral("drift")},
                                        {QStringLiteral("instanceId"), id},
                                        {QStringLiteral("leaseDuration"), leaseMs},
                                        {QStringLiteral("renewInterval"), renewInterval}}}}}};
    const QString configPath = m_folder->filePath(id + QStringLiteral(".json"));
    if (!writeJsonFile(configPath, config))
        return nullptr;

    auto p = std::make_unique<DriftingParticipant>();
    p->rate = rate;
    p->renewInterval = renewInterval;
    p->pairsPath = m_folder->filePath(id + QStringLiteral(".clock"));
    // The command leaves libfaketime behind: its log is on the host's clock.
    const QString command = QStringLiteral("exec env -u LD_PRELOAD -u FAKETIME -u FAKETIME_SHARED '%1' '%2'")
                                    .arg(QStringLiteral(BATON_CHAOS_WORKER), m_log);
    // "+0 xRATE": no offset, the clocks only run at RATE (libfaketime's README, 4d).
    const QString faketime = QStringLiteral("+0 x%1").arg(rate, 0, 'f', 6);
    p->process = std::make_unique<ParticipantProcess>(
            id, QStringLiteral("env"),
            QStringList {QStringLiteral("LD_PRELOAD=" BATON_FAKETIME_BOOTTIME),
                         QStringLiteral("BATON_CLOCKDRIFT_PAIRS=") + p->pairsPath,
                         QStringLiteral(BATON_FAKETIME), QStringLiteral("-m"), QStringLiteral("-f"), faketime,
                         test::batonBinary(), QStringLiteral("join"), QStringLiteral("--config"), configPath,
                         QStringLiteral("--events"), QStringLiteral("json"), QStringLiteral("--exec"), command,
                         QStringLiteral("--grace"), QString::number(graceMs)});
    keepOutput(p->process.get());
    p->process->start();
    // The wrapper forks baton and waits for it: signals go to its child.
    const QString children = QStringLiteral("/proc/%1/task/%1/children").arg(p->process->pid());
    QDeadlineTimer forked(waitMs);
    while (p->batonPid == 0 && !forked.hasExpired()) {
        QFile file(children);
        if (file.open(QIODevice::ReadOnly))
            p->batonPid = file.readAll().trimmed().split(' ').value(0).toLongLong();
        if (p->batonPid == 0)
            QTest::qWait(10);
    }
    m_participants.push_back(std::move(p));
    return m_participants.back().get();
}

FakedClock TestClockDrift::fakedClock(const DriftingParticipant &p, bool *ok) const
{
    *ok = false;
    QFile file(p.pairsPath);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    // Baton's pair comes first; every process below the wrapper shares its
    // start time, so each later line (the exec guard's) must lie on the same
    // line of slope `rate`: that shows the rate is in force in both.
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    FakedClock clock {p.rate, 0, 0};
    for (const QByteArray &line : lines) {
        const QList<QByteArray> f = line.split(' ');
        if (f.size() != 3)
            return {};
        const qint64 fakedNs = f.at(1).toLongLong();
        const qint64 hostNs = f.at(2).toLongLong();
        if (clock.hostNs == 0) {
            clock.fakedNs = fakedNs;
            clock.hostNs = hostNs;
            continue;
        }
        // Each pair is read within microseconds; a millisecond is far more.
        const qint64 expected = clock.fakedNs + qint64(double(hostNs - clock.hostNs) * p.rate);
        if (std::abs(fakedNs - expected) > 1'000'000) {
            qWarning("%s: a later process's clock is %lld ns off the rate %f", qPrintable(p.process->label()),
                     fakedNs - expected, p.rate);
            return {};
        }
    }
    *ok = clock.hostNs != 0 && lines.size() >= 2;
    return clock;
}

void TestClockDrift::driftedClocksNeverOverlap_data()
{
    const double tolerated = ElectionTimings::forParameters(leaseMs, renewMs).toleratedClockDrift;
    QTest::addColumn<bool>("killed"); // SIGKILL of the leader's baton, else SIGSTOP past the lease
    QTest::addColumn<double>("difference"); // (follower's rate - leader's) / follower's
    QTest::addColumn<bool>("overlaps");
    QTest::newRow("a slow leader frozen past its lease, its follower faster by 0.9 of the tolerance: no overlap")
            << false << 0.9 * tolerated << false;
    QTest::newRow("a fast leader frozen past its lease, its follower slower by 0.9 of the tolerance: no overlap")
            << false << -0.9 * tolerated << false;
    QTest::newRow("a slow leader killed, its follower faster by 0.9 of the tolerance: no overlap")
            << true << 0.9 * tolerated << false;
    QTest::newRow("a fast leader killed, its follower slower by 0.9 of the tolerance: no overlap")
            << true << -0.9 * tolerated << false;
    QTest::newRow("a slow leader frozen past its lease, its follower faster by 2.2 times the tolerance: the checks see the overlap")
            << false << 2.2 * tolerated << true;
}

void TestClockDrift::driftedClocksNeverOverlap()
{
    // F4, O3, O6: the leader stops (and its guard stops the command) at
    // (leaseDuration + renewInterval) / 2 by its clock; the follower takes
    // over after leaseDuration by its own. Safe while the leader's rate is at
    // least (1 - tolerated) of the follower's, and only then.
    QFETCH(bool, killed);
    QFETCH(double, difference);
    QFETCH(bool, overlaps);
    const auto [leaderRate, followerRate] = ratesFor(difference);
    qInfo("leader at %.4f, follower at %.4f of the host's clock rate", leaderRate, followerRate);

    DriftingParticipant *leader = start(QStringLiteral("leader"), leaderRate, renewMs);
    QVERIFY(leader && leader->batonPid > 0);
    QTRY_VERIFY_WITH_TIMEOUT(leader->process->isLeading(), waitMs);
    QTRY_VERIFY_WITH_TIMEOUT(checkCommandLog([&] {
                                 QFile file(m_log);
                                 return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
                             }()).copies.value(0).lines >= 10,
                             waitMs);
    DriftingParticipant *follower = start(QStringLiteral("follower"), followerRate, followerRenewMs);
    QVERIFY(follower && follower->batonPid > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!firstEvent(*follower->process, QStringLiteral("attempt")).isEmpty(), waitMs);

    const auto commandLog = [this] {
        QFile file(m_log);
        return checkCommandLog(file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray());
    };
    // The fault lands as the leader's second renewal since the follower
    // started reading is reported: the follower has seen it within its own
    // short interval, and no write of the leader is on its way (one would
    // only give the follower a later renewal to count from). The leader's
    // authority then ends at that attempt's start plus
    // (leaseDuration + renewInterval) / 2 by its clock, the follower's count
    // starts just after it: the margin the claim is about, and no more.
    // Past the tolerance the follower does not wait for a fault: its lease
    // runs out before the slow leader's next renewal. There the fault comes
    // at once.
    QSignalSpy died(leader->process.get(), &ParticipantProcess::finished);
    qint64 faultHostMs = -1;
    const auto inject = [&] {
        if (::kill(pid_t(leader->batonPid), killed ? SIGKILL : SIGSTOP) == 0)
            faultHostMs = hostBootNs() / 1'000'000;
    };
    int renewalsToWait = overlaps ? 0 : 2;
    const QMetaObject::Connection trigger = connect(
            leader->process.get(), &ParticipantProcess::event, this, [&](const QJsonObject &e) {
                if (faultHostMs < 0 && e.value(QStringLiteral("event")).toString() == QLatin1String("attempt")
                    && e.value(QStringLiteral("outcome")).toString() == QLatin1String("renewed")
                    && --renewalsToWait == 0)
                    inject();
            });
    if (renewalsToWait == 0)
        inject();
    QTRY_VERIFY_WITH_TIMEOUT(faultHostMs >= 0, waitMs);
    disconnect(trigger);
    const qint64 diedHostMs = killed ? faultHostMs : -1;
    if (killed) // the wrapper ends when baton, its guard and the command are gone
        QVERIFY(!died.isEmpty() || died.wait(waitMs));
    QTRY_VERIFY_WITH_TIMEOUT(follower->process->isLeading(), waitMs);
    QTRY_VERIFY_WITH_TIMEOUT(commandLog().copies.size() == 2 && commandLog().copies.at(1).lines >= 10, waitMs);
    if (!killed) {
        // The frozen leader's guard ends its command by the guard's own clock;
        // resumed, baton reports its step-down with validUntilMono.
        QTRY_VERIFY_WITH_TIMEOUT(::kill(pid_t(commandLog().copies.at(0).pid.toLongLong()), 0) != 0, waitMs);
        QVERIFY(::kill(pid_t(leader->batonPid), SIGCONT) == 0);
        QTRY_VERIFY_WITH_TIMEOUT(!firstEvent(*leader->process, QStringLiteral("stopped-leading")).isEmpty(), waitMs);
    }

    // Authority, each participant's events mapped to the host's clock.
    QList<AuthorityInterval> intervals;
    for (const auto &p : m_participants) {
        bool ok = false;
        const FakedClock clock = fakedClock(*p, &ok);
        QVERIFY2(ok, qPrintable(QStringLiteral("no usable clock pairs in %1").arg(p->pairsPath)));
        for (AuthorityInterval i : authorityIntervals(p->process->events(), leaseMs, p->renewInterval)) {
            i.startMono = clock.hostMs(i.startMono);
            i.endMono = clock.hostMs(i.endMono);
            if (p.get() == leader && diedHostMs >= 0)
                i.endMono = std::min(i.endMono, diedHostMs);
            intervals.append(i);
        }
    }
    const AuthorityCheck authority = checkAuthority(intervals, hostBootNs() / 1'000'000);
    const CommandLogCheck commands = commandLog();
    const QStringList outside = commandsOutsideAuthority(commands.copies, authority.intervals);
    QCOMPARE(authority.intervals.size(), 2);
    QCOMPARE(commands.copies.size(), 2);
    const QString report = (authority.problems + commands.problems + outside).join(QLatin1Char('\n'));
    qInfo("the leader's authority ended at %lld ms, the follower's began at %lld ms (host's clock)",
          authority.intervals.at(0).endMono, authority.intervals.at(1).startMono);
    if (overlaps) {
        // The same checks, past the tolerance: they must see what happened.
        QVERIFY2(authority.overlaps > 0, "the authority check missed the overlap");
        QVERIFY2(commands.overlaps > 0, "the command log check missed the overlap");
        QVERIFY2(!outside.isEmpty(), "the command-within-authority check missed the overlap");
        qInfo("%s", qPrintable(report));
    } else {
        QVERIFY2(report.isEmpty(), qPrintable(report));
        QCOMPARE(authority.overlaps, 0);
        QCOMPARE(commands.overlaps, 0);
    }
}

QTEST_GUILESS_MAIN(TestClockDrift)
#include "tst_clockdrift.moc"
