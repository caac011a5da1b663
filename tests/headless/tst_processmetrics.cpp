// The standard process_* series (O3 /metrics), as the official Prometheus
// clients export them: read from proc(5) texts that hold the awkward cases
// (a command name with spaces and parentheses), and from this process's own
// /proc, where they must describe a live process.

#include "processmetrics.h"
#include "testsupport.h"

#include <QDateTime>
#include <QFile>
#include <QTest>

#include <unistd.h>

using namespace baton;

class TestProcessMetrics : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void procTextsGiveTheStandardSeries();
    void aTextThatIsNotProcGivesAnErrorNamingIt_data();
    void aTextThatIsNotProcGivesAnErrorNamingIt();
    void thisProcessIsDescribed();
};

namespace {

// Fields 3.. of proc(5) stat: state R, utime 250 ticks, stime 50 ticks,
// starttime 1000 ticks, vsize 104857600, rss 2560 pages.
const QByteArray stat = "4242 (baton (join) x) R 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 "
                        "1000 104857600 2560 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0\n";
const QByteArray systemStat = "cpu  1 2 3 4\nbtime 1700000000\nprocesses 10\n";
const QByteArray limits = "Limit                     Soft Limit           Hard Limit           Units     \n"
                          "Max processes             63379                63379                processes \n"
                          "Max open files            1024                 524288               files     \n";

} // namespace

void TestProcessMetrics::procTextsGiveTheStandardSeries()
{
    // O3: the names, types and units of the official clients.
    ProcessMetrics::Sample sample;
    QString error;
    QVERIFY2(ProcessMetrics::parse(stat, systemStat, limits, 100, 4096, &sample, &error), qPrintable(error));
    sample.openFds = 7;
    const test::PrometheusScrape scrape = test::parsePrometheus(ProcessMetrics::render(sample));
    QVERIFY2(scrape.ok(), qPrintable(scrape.error));
    QCOMPARE(scrape.types.value(QStringLiteral("process_cpu_seconds_total")), QStringLiteral("counter"));
    QCOMPARE(scrape.value(QStringLiteral("process_cpu_seconds_total")), 3.0);
    QCOMPARE(scrape.value(QStringLiteral("process_start_time_seconds")), 1700000010.0);
    QCOMPARE(scrape.value(QStringLiteral("process_virtual_memory_bytes")), 104857600.0);
    QCOMPARE(scrape.value(QStringLiteral("process_resident_memory_bytes")), 2560.0 * 4096);
    QCOMPARE(scrape.value(QStringLiteral("process_max_fds")), 1024.0);
    QCOMPARE(scrape.value(QStringLiteral("process_open_fds")), 7.0);
}

void TestProcessMetrics::aTextThatIsNotProcGivesAnErrorNamingIt_data()
{
    QTest::addColumn<QByteArray>("selfStat");
    QTest::addColumn<QByteArray>("system");
    QTest::addColumn<QByteArray>("limitsText");
    QTest::addColumn<QString>("named");
    QTest::newRow("a stat without the command in parentheses")
            << QByteArray("4242 baton R 1") << systemStat << limits << QStringLiteral("parentheses");
    QTest::newRow("a stat cut short before the memory fields")
            << QByteArray("4242 (baton) R 1 2 3") << systemStat << limits << QStringLiteral("fields 14");
    QTest::newRow("a system stat without btime")
            << stat << QByteArray("cpu 1 2 3\n") << limits << QStringLiteral("btime");
    QTest::newRow("limits without open files")
            << stat << systemStat << QByteArray("Limit Soft Hard\n") << QStringLiteral("Max open files");
}

void TestProcessMetrics::aTextThatIsNotProcGivesAnErrorNamingIt()
{
    // R1: one error naming what could not be read.
    QFETCH(QByteArray, selfStat);
    QFETCH(QByteArray, system);
    QFETCH(QByteArray, limitsText);
    QFETCH(QString, named);
    ProcessMetrics::Sample sample;
    QString error;
    QVERIFY(!ProcessMetrics::parse(selfStat, system, limitsText, 100, 4096, &sample, &error));
    QVERIFY2(error.contains(named), qPrintable(error));
}

void TestProcessMetrics::thisProcessIsDescribed()
{
    // O3: the real /proc of this test: started in the last hour (it is
    // running now), some memory, at least stdin/stdout/stderr open, and a
    // file opened here counted.
    ProcessMetrics::Sample before;
    QString error;
    QVERIFY2(ProcessMetrics::read(QStringLiteral("/proc"), &before, &error), qPrintable(error));
    const double now = double(QDateTime::currentSecsSinceEpoch());
    QVERIFY2(before.startTimeSeconds <= now + 1 && before.startTimeSeconds > now - 3600,
             qPrintable(QString::number(before.startTimeSeconds, 'f', 2)));
    QVERIFY(before.residentBytes > 0);
    QVERIFY(before.virtualBytes >= before.residentBytes);
    QVERIFY(before.openFds >= 3);
    QVERIFY(before.maxFds >= before.openFds);
    QFile opened(QStringLiteral("/proc/self/status"));
    QVERIFY(opened.open(QIODevice::ReadOnly));
    ProcessMetrics::Sample after;
    QVERIFY2(ProcessMetrics::read(QStringLiteral("/proc"), &after, &error), qPrintable(error));
    QCOMPARE(after.openFds, before.openFds + 1);
}

QTEST_GUILESS_MAIN(TestProcessMetrics)
#include "tst_processmetrics.moc"
