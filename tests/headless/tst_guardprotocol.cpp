// The words baton and baton-exec-guard exchange (O3;
// headless/exec/guardprotocol.h), read back as they were written: both
// ends include the one header, so what one writes is what the other reads.
// The protocol as the guard process speaks it is tst_execguardprotocol's.

#include "guardprotocol.h"

#include <QTest>

using namespace baton::guardprotocol;

namespace {

/*! \a line as a reader gets it: without its '\n'. */
std::string_view withoutNewline(const std::string &line)
{
    return std::string_view(line).substr(0, line.size() - 1);
}

} // namespace

class TestGuardProtocol : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aDeadlineReadsBackAsTheDeadlineWritten();
    void aMalformedDeadlineKeepsTheDeadlineInForce();
    void onlyTheThreeControlWordsAreControls();
    void aReportReadsBackWithItsNumber();
    void aReportNumberThatIsNotOneReadsAsZero();
};

void TestGuardProtocol::aDeadlineReadsBackAsTheDeadlineWritten()
{
    // O3: the guard stops the command at the deadline baton sends it.
    for (long long deadline : {0LL, 1234567LL, 9007199254740993LL, noDeadline}) {
        const std::string line = deadlineLine(deadline);
        QCOMPARE(line.back(), '\n');
        const ControlLine control = decodeControl(withoutNewline(line));
        QCOMPARE(control.kind, Control::Deadline);
        QCOMPARE(control.deadline, deadline);
    }
    long long argument = 0;
    QVERIFY(parseMs(msText(noDeadline).c_str(), &argument));
    QCOMPARE(argument, noDeadline);
}

void TestGuardProtocol::aMalformedDeadlineKeepsTheDeadlineInForce()
{
    // O3: a deadline that is not a number is refused, never read as 0 or as none.
    for (const char *line : {"deadline ", "deadline -5", "deadline 12x", "deadline soon"})
        QCOMPARE(decodeControl(line).kind, Control::BadDeadline);
    long long value = 7;
    QVERIFY(!parseMs("-1", &value));
    QCOMPARE(value, 7LL);
}

void TestGuardProtocol::onlyTheThreeControlWordsAreControls()
{
    // O3: "stop" and "kill" exactly; anything else is ignored.
    QCOMPARE(decodeControl(withoutNewline(stopLine)).kind, Control::Stop);
    QCOMPARE(decodeControl(withoutNewline(killLine)).kind, Control::Kill);
    for (const char *line : {"", "stopp", "stop ", "kil", "deadline", "Deadline 5", "pid 12"})
        QCOMPARE(decodeControl(line).kind, Control::Unknown);
}

void TestGuardProtocol::aReportReadsBackWithItsNumber()
{
    // O3: baton learns the command's pid, its end and what the guard gave up on.
    for (Report kind : {Report::Pid, Report::Exit, Report::Signal, Report::Stuck}) {
        const ReportLine report = decodeReport(withoutNewline(reportLine(kind, 4242)));
        QCOMPARE(report.kind, kind);
        QCOMPARE(report.number, 4242);
    }
    for (Report kind : {Report::Refused, Report::Expired}) {
        const ReportLine report = decodeReport(withoutNewline(reportLine(kind)));
        QCOMPARE(report.kind, kind);
        QCOMPARE(report.number, 0);
    }
    QCOMPARE(decodeReport("started 12").kind, Report::Unknown);
}

void TestGuardProtocol::aReportNumberThatIsNotOneReadsAsZero()
{
    // O3: the supervisor takes a pid or a stuck process only above 0.
    for (const char *line : {"pid", "pid x", "pid 12x", "pid 99999999999"})
        QCOMPARE(decodeReport(line).number, 0);
    QCOMPARE(decodeReport("pid 12").number, 12);
}

QTEST_GUILESS_MAIN(TestGuardProtocol)
#include "tst_guardprotocol.moc"
