// The clock every decision reads (F4, O5): it keeps counting while the
// host is suspended. A suspension is shown without suspending anything: a
// Linux time namespace gives a child process a CLOCK_BOOTTIME far ahead of
// its CLOCK_MONOTONIC, which is exactly what a host that slept looks like.

#include <baton/clock.h>

#include <QProcess>
#include <QStandardPaths>
#include <QTest>

#include <time.h>

using namespace baton;

namespace {

// One day, in seconds: the sleep the time namespace pretends the host had.
constexpr int suspendedSeconds = 86400;

qint64 readMs(clockid_t id)
{
    timespec ts {};
    clock_gettime(id, &ts);
    return qint64(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

} // namespace

class TestClock : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void systemClockCountsTheTimeTheHostWasSuspended();
};

void TestClock::systemClockCountsTheTimeTheHostWasSuspended()
{
    // F4: a leader resumed from suspend must find its deadline passed, so
    // the system clock is CLOCK_BOOTTIME, not CLOCK_MONOTONIC; O5: `mono`
    // is that clock, so a program reading CLOCK_BOOTTIME can compare.
    const bool suspendVisible = readMs(CLOCK_BOOTTIME) - readMs(CLOCK_MONOTONIC) >= 1000;
    if (!suspendVisible) {
        // Run this same test where the host seems to have slept a day.
        const QString unshare = QStandardPaths::findExecutable(QStringLiteral("unshare"));
        if (unshare.isEmpty())
            QSKIP("no unshare(1): cannot make a time namespace");
        QProcess child;
        child.setProcessChannelMode(QProcess::MergedChannels);
        child.start(unshare, {QStringLiteral("--user"), QStringLiteral("--map-root-user"),
                              QStringLiteral("--time"), QStringLiteral("--boottime"),
                              QString::number(suspendedSeconds),
                              QCoreApplication::applicationFilePath(),
                              QStringLiteral("systemClockCountsTheTimeTheHostWasSuspended")});
        QVERIFY(child.waitForFinished(30000));
        const QString output = QString::fromLocal8Bit(child.readAll());
        if (output.startsWith(QLatin1String("unshare:")))
            QSKIP(qPrintable(QStringLiteral("no time namespace here: %1").arg(output.trimmed())));
        QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0,
                 qPrintable(output));
        QVERIFY2(!output.contains(QLatin1String("SKIP")), qPrintable(output));
        return;
    }
    const qint64 before = readMs(CLOCK_BOOTTIME);
    const qint64 reading = Clock::system().monotonicMs();
    const qint64 after = readMs(CLOCK_BOOTTIME);
    QVERIFY2(before <= reading && reading <= after,
             qPrintable(QStringLiteral("system clock %1 ms, CLOCK_BOOTTIME %2..%3 ms, CLOCK_MONOTONIC %4 ms")
                                .arg(reading)
                                .arg(before)
                                .arg(after)
                                .arg(readMs(CLOCK_MONOTONIC))));
}

QTEST_GUILESS_MAIN(TestClock)
#include "tst_clock.moc"
