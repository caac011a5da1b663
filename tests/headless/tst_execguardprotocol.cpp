// The exec guard's own protocol (O3, F4; headless/exec/guardprotocol.h, "The exec
// guard" in docs/safety.md), driven as baton drives it: this test
// starts `baton-exec-guard` itself, writes deadlines on its CLOCK_BOOTTIME
// over its input and reads its reports, with no baton in between, so that
// each promise of the guard is proved on the guard alone.
//
// Every bound comes from the deadlines and the grace sent: the command must
// be gone by the deadline plus the reserve that the grace cap keeps for the
// kill (a quarter of the margin, ExecSupervisor::maxGrace), all of them
// scaled by BATON_TEST_TIME_SCALE.

#include "testsupport.h"

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <ctime>
#include <unistd.h>

using baton::test::scaledMs;

namespace {

qint64 bootMs()
{
    timespec ts {};
    ::clock_gettime(CLOCK_BOOTTIME, &ts);
    return qint64(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

/*! The process's state letter from /proc (R, S, D, Z...), or 0 when there is none. */
char processState(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (pid <= 0 || !stat.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray text = stat.readAll();
    const qsizetype end = text.lastIndexOf(')');
    return end < 0 || end + 2 >= text.size() ? 0 : text.at(end + 2);
}

/*! Alive: it exists and has not ended (a zombie has, its parent just did not reap it yet). */
bool isAlive(qint64 pid)
{
    const char state = processState(pid);
    return state != 0 && state != 'Z';
}

/*! Whether \a pid ignores \a signalNumber now (SigIgn in /proc/PID/status). */
bool ignoresSignal(qint64 pid, int signalNumber)
{
    QFile file(QStringLiteral("/proc/%1/status").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return false;
    for (const QByteArray &line : file.readAll().split('\n'))
        if (line.startsWith("SigIgn:"))
            return (line.mid(7).trimmed().toULongLong(nullptr, 16) >> (signalNumber - 1)) & 1;
    return false;
}

/*! Whether the command's shell ran its `trap '' TERM`. */
bool ignoresSigterm(qint64 pid)
{
    return ignoresSignal(pid, SIGTERM);
}

QByteArray commandName(qint64 pid)
{
    QFile file(QStringLiteral("/proc/%1/comm").arg(pid));
    return file.open(QIODevice::ReadOnly) ? file.readAll().trimmed() : QByteArray();
}

int oomScoreAdj(qint64 pid)
{
    QFile file(QStringLiteral("/proc/%1/oom_score_adj").arg(pid));
    return file.open(QIODevice::ReadOnly) ? file.readAll().trimmed().toInt() : -10000;
}

// A margin of 400 ms on a quiet machine: the grace is the most the cap
// allows (three quarters), the quarter left is the time the kill may take.
qint64 marginMs()
{
    return scaledMs(400);
}
qint64 graceMs()
{
    return marginMs() - marginMs() / 4;
}
qint64 reserveMs()
{
    return marginMs() / 4;
}

// A command that only SIGKILL ends, so that a kill that comes late shows.
const QString ignoresTerm = QStringLiteral("trap '' TERM; sleep 300 & wait");

/*! One guard, started as baton starts it: in a process group of its own. */
class Guard : public QObject
{
public:
    explicit Guard(QStringList environment = {})
    {
        m_process.setChildProcessModifier([] { ::setpgid(0, 0); });
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const QString &entry : environment)
            env.insert(entry.section(QLatin1Char('='), 0, 0), entry.section(QLatin1Char('='), 1));
        m_process.setProcessEnvironment(env);
        connect(&m_process, &QProcess::readyReadStandardOutput, this, [this] {
            while (m_process.canReadLine()) {
                const QByteArray line = m_process.readLine().trimmed();
                if (line == "expired")
                    expiredAt = bootMs();
                lines.append(line);
            }
        });
        connect(&m_process, &QProcess::finished, this, [this] { finishedAt = bootMs(); });
    }
    ~Guard() override
    {
        // A test that failed leaves nothing behind: the end of its input
        // makes the guard kill the command's whole tree (a SIGKILL of the
        // guard would leave the grandchildren to init).
        if (m_process.state() != QProcess::NotRunning) {
            ::kill(pid_t(m_process.processId()), SIGCONT);
            m_process.closeWriteChannel();
            if (!m_process.waitForFinished(5000))
                m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    /*! Starts the guard; the command's pid once it reported it, else 0. */
    qint64 start(qint64 grace, const QByteArray &deadline, const QString &command)
    {
        m_process.start(QStringLiteral(BATON_EXEC_GUARD),
                        {QString::number(grace), QString::fromLatin1(deadline), QStringLiteral("--"),
                         QStringLiteral("/bin/sh"), QStringLiteral("-c"), command});
        if (!m_process.waitForStarted(5000))
            return 0;
        if (!QTest::qWaitFor([this] { return !lines.isEmpty() || m_process.state() == QProcess::NotRunning; }, 5000))
            return 0;
        if (lines.isEmpty() || !lines.first().startsWith("pid "))
            return 0;
        return lines.first().mid(4).toLongLong();
    }
    void send(const QByteArray &line) { m_process.write(line + '\n'); }
    void closeInput() { m_process.closeWriteChannel(); }
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
    qint64 pid() const { return m_process.processId(); }
    int exitCode() const { return m_process.exitCode(); }
    QString errors() { return QString::fromUtf8(m_process.readAllStandardError()); }
    const QProcess *process() const { return &m_process; }

    QList<QByteArray> lines;
    qint64 expiredAt = 0;
    qint64 finishedAt = 0;

private:
    QProcess m_process;
};

} // namespace

class TestExecGuardProtocol : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void killsAtTheDeadlineWhenNotRenewed();
    void killsNothingWhileRenewed();
    void killsAtOnceWhenItsInputEnds();
    void malformedLineIsIgnoredAndTheDeadlineInForceStays_data();
    void malformedLineIsIgnoredAndTheDeadlineInForceStays();
    void badArgumentsAreRefusedWithTheUsage_data();
    void badArgumentsAreRefusedWithTheUsage();
    void terminalStopSignalLeavesTheGuardKillingOnTime_data();
    void terminalStopSignalLeavesTheGuardKillingOnTime();
    void theCommandIsTheOomKillersFirstChoice();
    void aDescendantThatCannotBeKilledIsNamedAndLeftAfterTheBound();
    void aCommandWithLessThanTheGraceLeftIsNeverStarted_data();
    void aCommandWithLessThanTheGraceLeftIsNeverStarted();
    void aGuardStalledBetweenForkAndExecStartsNothingPastTheDeadline();
};

void TestExecGuardProtocol::killsAtTheDeadlineWhenNotRenewed()
{
    // F4, O3: SIGTERM at deadline - grace, SIGKILL at the deadline, by the
    // guard's own clock: a command that ignores SIGTERM is gone by the
    // deadline plus the kill's reserve, and no "expired" before its time.
    Guard guard;
    const qint64 deadline = bootMs() + scaledMs(1000);
    const qint64 command = guard.start(graceMs(), QByteArray::number(deadline), ignoresTerm);
    QVERIFY(command > 0);
    QTRY_VERIFY(ignoresSigterm(command));
    QTRY_VERIFY_WITH_TIMEOUT(!isAlive(command), int(deadline + reserveMs() - bootMs()));
    QVERIFY(guard.expiredAt >= deadline - graceMs());
    QSignalSpy finished(guard.process(), &QProcess::finished);
    QVERIFY(!guard.isRunning() || finished.wait(int(reserveMs())));
    QCOMPARE(guard.exitCode(), 0);
    QVERIFY2(guard.lines.contains("signal 9"), guard.lines.join(' ').constData());
}

void TestExecGuardProtocol::killsNothingWhileRenewed()
{
    // F4: each "deadline" line moves the end on; renewed three times past
    // the first deadline, the command still runs, and once the renewals stop
    // it goes by the last deadline sent.
    Guard guard;
    const qint64 period = scaledMs(1200);
    qint64 deadline = bootMs() + period;
    const qint64 first = deadline;
    const qint64 command = guard.start(graceMs(), QByteArray::number(deadline), ignoresTerm);
    QVERIFY(command > 0);
    QTRY_VERIFY(ignoresSigterm(command));
    // Renewed as baton renews: every fifth of the period, each time to a
    // period from now, so that a renewal comes long before deadline - grace.
    while (bootMs() < first + 3 * period) {
        const qint64 renewAt = deadline - period + period / 5;
        QTRY_VERIFY_WITH_TIMEOUT(bootMs() >= renewAt, int(period));
        QVERIFY2(guard.expiredAt == 0, "the guard acted on a deadline that had been renewed");
        deadline = bootMs() + period;
        guard.send("deadline " + QByteArray::number(deadline));
    }
    QVERIFY(isAlive(command));
    QVERIFY(guard.isRunning());
    QTRY_VERIFY_WITH_TIMEOUT(!isAlive(command), int(deadline + reserveMs() - bootMs()));
    QVERIFY(guard.expiredAt >= deadline - graceMs());
}

void TestExecGuardProtocol::killsAtOnceWhenItsInputEnds()
{
    // O3: the end of its input is baton's death: SIGKILL now, not SIGTERM
    // and a grace, even with no deadline at all.
    Guard guard;
    const qint64 grace = scaledMs(2000);
    const qint64 command = guard.start(grace, "none", ignoresTerm);
    QVERIFY(command > 0);
    QTRY_VERIFY(ignoresSigterm(command));
    QVERIFY(isAlive(command));
    const qint64 closedAt = bootMs();
    guard.closeInput();
    QTRY_VERIFY_WITH_TIMEOUT(!isAlive(command), int(grace / 2));
    QSignalSpy finished(guard.process(), &QProcess::finished);
    QVERIFY(!guard.isRunning() || finished.wait(int(grace / 2)));
    QVERIFY(guard.finishedAt - closedAt < grace / 2);
    QVERIFY(guard.expiredAt == 0);
}

void TestExecGuardProtocol::malformedLineIsIgnoredAndTheDeadlineInForceStays_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("complaint");
    QTest::newRow("a deadline that is a word is ignored")
            << QByteArrayLiteral("deadline later") << QStringLiteral("ignored a deadline that is not a number");
    QTest::newRow("a negative deadline is ignored")
            << QByteArrayLiteral("deadline -5") << QStringLiteral("ignored a deadline that is not a number");
    QTest::newRow("a deadline with trailing text is ignored")
            << QByteArrayLiteral("deadline 99999999999999 ms") << QStringLiteral("ignored a deadline that is not a number");
    QTest::newRow("an unknown word is ignored")
            << QByteArrayLiteral("extend") << QStringLiteral("ignored an unknown control line");
    QTest::newRow("an empty line is ignored") << QByteArrayLiteral("") << QStringLiteral("ignored an unknown control line");
}

void TestExecGuardProtocol::malformedLineIsIgnoredAndTheDeadlineInForceStays()
{
    // O3, guardprotocol.h: a line the guard cannot read is named on
    // stderr and changes nothing: the command ends by the deadline in force,
    // neither earlier (the guard lives on) nor later.
    QFETCH(QByteArray, line);
    QFETCH(QString, complaint);
    Guard guard;
    const qint64 deadline = bootMs() + scaledMs(1000);
    const qint64 command = guard.start(graceMs(), QByteArray::number(deadline), ignoresTerm);
    QVERIFY(command > 0);
    QTRY_VERIFY(ignoresSigterm(command));
    guard.send(line);
    QTRY_VERIFY_WITH_TIMEOUT(!isAlive(command), int(deadline + reserveMs() - bootMs()));
    QVERIFY(guard.expiredAt >= deadline - graceMs());
    QSignalSpy finished(guard.process(), &QProcess::finished);
    QVERIFY(!guard.isRunning() || finished.wait(int(reserveMs())));
    const QString errors = guard.errors();
    QVERIFY2(errors.contains(complaint), qPrintable(errors));
    QCOMPARE(guard.exitCode(), 0);
}

void TestExecGuardProtocol::badArgumentsAreRefusedWithTheUsage_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("a grace that is not a number is refused")
            << QStringList {QStringLiteral("soon"), QStringLiteral("none"), QStringLiteral("--"), QStringLiteral("true")};
    QTest::newRow("a grace of none is refused")
            << QStringList {QStringLiteral("none"), QStringLiteral("none"), QStringLiteral("--"), QStringLiteral("true")};
    QTest::newRow("a deadline that is not a number is refused")
            << QStringList {QStringLiteral("100"), QStringLiteral("1e3"), QStringLiteral("--"), QStringLiteral("true")};
    QTest::newRow("a missing separator is refused")
            << QStringList {QStringLiteral("100"), QStringLiteral("none"), QStringLiteral("true"), QStringLiteral("x")};
    QTest::newRow("no command is refused")
            << QStringList {QStringLiteral("100"), QStringLiteral("none"), QStringLiteral("--")};
}

void TestExecGuardProtocol::badArgumentsAreRefusedWithTheUsage()
{
    // O3: the guard never runs a command without a deadline it understood.
    QFETCH(QStringList, arguments);
    QProcess guard;
    guard.start(QStringLiteral(BATON_EXEC_GUARD), arguments);
    QVERIFY(guard.waitForFinished(5000));
    QCOMPARE(guard.exitCode(), 2);
    QVERIFY(guard.readAllStandardOutput().isEmpty()); // no "pid": nothing ran
    QVERIFY(QString::fromUtf8(guard.readAllStandardError()).contains(QStringLiteral("usage: baton-exec-guard")));
}

void TestExecGuardProtocol::terminalStopSignalLeavesTheGuardKillingOnTime_data()
{
    QTest::addColumn<int>("signalNumber");
    QTest::newRow("a Ctrl-Z (SIGTSTP) does not stop the guard") << int(SIGTSTP);
    QTest::newRow("a read from the background (SIGTTIN) does not stop the guard") << int(SIGTTIN);
    QTest::newRow("a write from the background (SIGTTOU) does not stop the guard") << int(SIGTTOU);
}

void TestExecGuardProtocol::terminalStopSignalLeavesTheGuardKillingOnTime()
{
    // F4, O3: a terminal's stop signal sent to the guard (its group is not
    // orphaned, so the kernel would stop it) leaves the deadline enforced.
    QFETCH(int, signalNumber);
    Guard guard;
    const qint64 deadline = bootMs() + scaledMs(1000);
    const qint64 command = guard.start(graceMs(), QByteArray::number(deadline), ignoresTerm);
    QVERIFY(command > 0);
    QTRY_VERIFY(ignoresSigterm(command));
    // The ignoring is the guard's own: the command gets the default back.
    QVERIFY(ignoresSignal(guard.pid(), signalNumber));
    QVERIFY(!ignoresSignal(command, signalNumber));
    QCOMPARE(::kill(pid_t(guard.pid()), signalNumber), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!isAlive(command), int(deadline + reserveMs() - bootMs()));
}

void TestExecGuardProtocol::theCommandIsTheOomKillersFirstChoice()
{
    // O3: killed by the OOM killer, the guard would leave the command
    // without a deadline; the command's oom_score_adj is above the guard's.
    Guard guard;
    const qint64 command = guard.start(graceMs(), "none", QStringLiteral("sleep 300"));
    QVERIFY(command > 0);
    const int guardScore = oomScoreAdj(guard.pid());
    QVERIFY(guardScore > -10000);
    // The guard reports the command's pid once it has forked it; the child
    // raises its own score before exec, when the scheduler lets it run (a
    // busy machine showed 0 here when read at once).
    QTRY_VERIFY2(oomScoreAdj(command) > guardScore,
                 qPrintable(QStringLiteral("guard %1, command %2").arg(guardScore).arg(oomScoreAdj(command))));
    guard.send("kill");
    QTRY_VERIFY(!isAlive(command));
}

void TestExecGuardProtocol::aDescendantThatCannotBeKilledIsNamedAndLeftAfterTheBound()
{
    // O3: a descendant the guard may not kill (another user's, EPERM) or
    // that a kill cannot end (state D) must not hold the guard, and with it
    // baton's step-down, forever. The test hook makes the guard spare
    // `sleep` as if the kill were refused (out of the command's group, which
    // the guard kills as a whole); everything else still goes.
    const qint64 giveUp = scaledMs(500);
    Guard guard({QStringLiteral("BATON_EXEC_GUARD_GIVE_UP_MS=%1").arg(giveUp),
                 QStringLiteral("BATON_EXEC_GUARD_TEST_SPARE=sleep")});
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    const QString pidFile = folder.filePath(QStringLiteral("sleep.pid"));
    const qint64 command = guard.start(
            graceMs(), "none", QStringLiteral("setsid sleep 300 & echo $! > '%1'; wait").arg(pidFile));
    QVERIFY(command > 0);
    // Spared by name: only once `sleep` runs, not while its shell still forks.
    QFile file(pidFile);
    QTRY_VERIFY(file.size() > 0);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const qint64 sleeper = file.readAll().trimmed().toLongLong();
    QTRY_COMPARE(commandName(sleeper), QByteArrayLiteral("sleep"));
    const qint64 killedAt = bootMs();
    guard.send("kill");
    QSignalSpy finished(guard.process(), &QProcess::finished);
    QVERIFY(!guard.isRunning() || finished.wait(int(4 * giveUp)));
    QVERIFY(guard.finishedAt - killedAt >= giveUp);
    QCOMPARE(guard.exitCode(), 3);
    QVERIFY(!isAlive(command));
    qint64 stuck = 0;
    for (const QByteArray &line : std::as_const(guard.lines))
        if (line.startsWith("stuck "))
            stuck = line.mid(6).toLongLong();
    QVERIFY2(stuck == sleeper && isAlive(stuck), guard.lines.join(' ').constData());
    const QString errors = guard.errors();
    QVERIFY2(errors.contains(QStringLiteral("gave up on pid %1 (sleep)").arg(stuck)), qPrintable(errors));
    QVERIFY2(errors.contains(QStringLiteral("EPERM")), qPrintable(errors));
    ::kill(pid_t(stuck), SIGKILL);
}

void TestExecGuardProtocol::aCommandWithLessThanTheGraceLeftIsNeverStarted_data()
{
    QTest::addColumn<qint64>("leftMs");
    QTest::newRow("a deadline already past starts nothing") << -scaledMs(1000);
    QTest::newRow("a deadline with less than the grace left starts nothing") << graceMs() / 2;
}

void TestExecGuardProtocol::aCommandWithLessThanTheGraceLeftIsNeverStarted()
{
    // O3: baton computes the deadline before the guard starts; a guard that
    // ran late (a stall, a suspend) must not start the command past it, nor
    // with less than the grace left, in which it would be stopped at once.
    // The check before the fork refuses: nothing is forked, no "pid".
    QFETCH(qint64, leftMs);
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    const QString ran = folder.filePath(QStringLiteral("ran"));
    Guard guard;
    const qint64 deadline = std::max<qint64>(0, bootMs() + leftMs);
    QCOMPARE(guard.start(graceMs(), QByteArray::number(deadline),
                         QStringLiteral("echo ran > '%1'").arg(ran)),
             0);
    QSignalSpy finished(guard.process(), &QProcess::finished);
    QVERIFY(!guard.isRunning() || finished.wait(5000));
    QCOMPARE(guard.exitCode(), 4);
    QCOMPARE(guard.lines, QList<QByteArray> {QByteArrayLiteral("refused")});
    const QString errors = guard.errors();
    QVERIFY2(errors.contains(QStringLiteral("refused to start the command")), qPrintable(errors));
    QVERIFY(!QFile::exists(ran));
}

void TestExecGuardProtocol::aGuardStalledBetweenForkAndExecStartsNothingPastTheDeadline()
{
    // O3: the same check again in the child, right before exec: a guard
    // stopped once it forked (here SIGSTOP, while the test hook holds the
    // child between fork and exec past the deadline less the grace) cannot
    // stop the command, so the child must refuse to become it.
    const qint64 ahead = scaledMs(1000);
    Guard guard({QStringLiteral("BATON_EXEC_GUARD_TEST_EXEC_DELAY_MS=%1").arg(2 * ahead)});
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    const QString ran = folder.filePath(QStringLiteral("ran"));
    const qint64 deadline = bootMs() + graceMs() + ahead;
    const qint64 child = guard.start(graceMs(), QByteArray::number(deadline),
                                     QStringLiteral("echo ran > '%1'").arg(ran));
    QVERIFY(child > 0);
    // Never kill(0): a guard already gone would leave the pid 0, the test's own group.
    const pid_t guardPid = pid_t(guard.pid());
    QVERIFY(guardPid > 0);
    QCOMPARE(::kill(guardPid, SIGSTOP), 0);
    QVERIFY2(bootMs() < deadline - graceMs(), "the guard was stopped too late to prove anything");
    // The guard cannot reap it: ended, the child stays a zombie.
    QTRY_VERIFY_WITH_TIMEOUT(processState(child) == 'Z', int(2 * ahead + scaledMs(5000)));
    QVERIFY(!QFile::exists(ran));
    QCOMPARE(::kill(guardPid, SIGCONT), 0);
    QSignalSpy finished(guard.process(), &QProcess::finished);
    QVERIFY(!guard.isRunning() || finished.wait(5000));
    const QString errors = guard.errors();
    QVERIFY2(errors.contains(QStringLiteral("refused to start the command")), qPrintable(errors));
    QVERIFY(!QFile::exists(ran));
}

QTEST_GUILESS_MAIN(TestExecGuardProtocol)
#include "tst_execguardprotocol.moc"
