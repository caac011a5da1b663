// The chaos harness's checks (tests/chaos/chaoscheck.*), on small
// hand-written histories: each check must be able to fail, or a chaos run
// that reports zero overlaps proves nothing.

#include "chaoscheck.h"

#include <QTest>

using namespace baton::test::chaos;

namespace {

QJsonObject started(const char *instance, qint64 mono, qint64 token, qint64 validUntil)
{
    return {{QStringLiteral("event"), QStringLiteral("started-leading")}, {QStringLiteral("instance"), QLatin1String(instance)},
            {QStringLiteral("mono"), double(mono)}, {QStringLiteral("token"), double(token)},
            {QStringLiteral("validUntilMono"), double(validUntil)}};
}

QJsonObject stopped(qint64 mono, qint64 validUntil)
{
    return {{QStringLiteral("event"), QStringLiteral("stopped-leading")}, {QStringLiteral("mono"), double(mono)},
            {QStringLiteral("validUntilMono"), double(validUntil)}};
}

QJsonObject attempt(const char *outcome, qint64 mono, qint64 latency)
{
    return {{QStringLiteral("event"), QStringLiteral("attempt")}, {QStringLiteral("outcome"), QLatin1String(outcome)},
            {QStringLiteral("mono"), double(mono)}, {QStringLiteral("latencyMs"), double(latency)}};
}

AuthorityInterval interval(const char *instance, qint64 token, qint64 start, qint64 end)
{
    return {QLatin1String(instance), token, start, end};
}

} // namespace

class TestChaosCheck : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void anIntervalEndsAtItsStoppedLeadingDeadline();
    void aDeadLeaderKeepsAuthorityUntilItsLastRenewalsDeadlineOrItsDeath();
    void overlapsAndTokenRegressionsAreFound();
    void failoversAndTheLongestGapAreCounted();
    void aMomentWithoutALeaderIsFound();
    void interleavedCopiesOfTheCommandAreFound();
    void copiesWhoseClockRangesOverlapAreFound();
    void stopLinesAreNotWork();
    void aCommandInsideAnotherLeadersAuthorityIsFound();
};

void TestChaosCheck::anIntervalEndsAtItsStoppedLeadingDeadline()
{
    // F4: validUntilMono of stopped-leading, not its mono.
    const auto intervals = authorityIntervals({started("a", 100, 3, 1350), attempt("renewed", 700, 100),
                                               stopped(5000, 4200)},
                                              2000, 500);
    QCOMPARE(intervals.size(), 1);
    QCOMPARE(intervals.first().startMono, 100);
    QCOMPARE(intervals.first().endMono, 4200);
    QCOMPARE(intervals.first().token, 3);
}

void TestChaosCheck::aDeadLeaderKeepsAuthorityUntilItsLastRenewalsDeadlineOrItsDeath()
{
    // The last renewal began at 1200 - 100 = 1100: its deadline is 1100 + 1250.
    const QList<QJsonObject> events {started("a", 100, 3, 1350), attempt("renewed", 1200, 100),
                                     attempt("error", 1700, 20)};
    QCOMPARE(authorityIntervals(events, 2000, 500).first().endMono, 2350);
    QCOMPARE(authorityIntervals(events, 2000, 500, 1800).first().endMono, 1800);
    QCOMPARE(authorityIntervals(events, 2000, 500, 9000).first().endMono, 2350);
}

void TestChaosCheck::overlapsAndTokenRegressionsAreFound()
{
    const AuthorityCheck clean = checkAuthority({interval("b", 2, 500, 900), interval("a", 1, 0, 500)}, 1000);
    QCOMPARE(clean.overlaps, 0);
    QCOMPARE(clean.tokenRegressions, 0);
    const AuthorityCheck bad = checkAuthority({interval("a", 1, 0, 500), interval("b", 1, 499, 900)}, 1000);
    QCOMPARE(bad.overlaps, 1);
    QCOMPARE(bad.tokenRegressions, 1);
    QCOMPARE(bad.problems.size(), 2);
    // Inside a long interval, after a short one that ended: still an overlap.
    QCOMPARE(checkAuthority({interval("a", 1, 0, 5000), interval("b", 2, 100, 200), interval("c", 3, 300, 400)}, 9000)
                     .overlaps,
             2);
}

void TestChaosCheck::failoversAndTheLongestGapAreCounted()
{
    const AuthorityCheck check = checkAuthority(
            {interval("a", 1, 0, 500), interval("a", 2, 600, 1000), interval("b", 3, 3000, 4000)}, 5000);
    QCOMPARE(check.failovers, 1);
    QCOMPARE(check.longestGapMs, 2000);
    QCOMPARE(check.longestGapAt, 1000);
}

void TestChaosCheck::aMomentWithoutALeaderIsFound()
{
    const QList<AuthorityInterval> sorted {interval("a", 1, 0, 500), interval("b", 2, 500, 1000),
                                           interval("c", 3, 1200, 2000)};
    QCOMPARE(firstUncovered(sorted, 100, 900), -1);
    QCOMPARE(firstUncovered(sorted, 100, 1500), 1000);
    QCOMPARE(firstUncovered(sorted, 1300, 2500), 2000);
    QCOMPARE(firstUncovered(sorted, 2100, 2500), 2100);
}

void TestChaosCheck::interleavedCopiesOfTheCommandAreFound()
{
    const CommandLogCheck check = checkCommandLog("start a 1 100 1\ntick a 1 200 1\nstart b 2 300 2\n"
                                                  "tick a 1 250 1\ntick b 2 400 2\n");
    QCOMPARE(check.copies.size(), 2);
    QCOMPARE(check.overlaps, 2); // a works again after b started; b works again after that
    QVERIFY(!check.problems.isEmpty());
}

void TestChaosCheck::copiesWhoseClockRangesOverlapAreFound()
{
    // In file order they follow one another, but b's clock says it started
    // before a's last tick.
    const CommandLogCheck check = checkCommandLog("start a 1 100 1\ntick a 1 500 1\nstart b 2 400 2\n");
    QCOMPARE(check.overlaps, 1);
    const CommandLogCheck clean = checkCommandLog("start a 1 100 1\ntick a 1 500 1\nstart b 2 600 2\ntick b 2 700 2\n");
    QCOMPARE(clean.overlaps, 0);
    QVERIFY(clean.problems.isEmpty());
    QCOMPARE(clean.copies.at(1).firstNs, 600);
    QCOMPARE(clean.copies.at(1).lastNs, 700);
    QCOMPARE(clean.copies.at(1).lines, 2);
}

void TestChaosCheck::stopLinesAreNotWork()
{
    // A copy frozen and resumed with SIGTERM writes its stop line after its
    // successor started; a tick there would be an overlap.
    const CommandLogCheck check = checkCommandLog("start a 1 100 1\ntick a 1 200 1\nstart b 2 300 2\nstop a 1 400 1\n");
    QCOMPARE(check.overlaps, 0);
    QVERIFY(check.problems.isEmpty());
    QVERIFY(check.copies.at(0).stopped);
    QVERIFY(!check.copies.at(1).stopped);
    QCOMPARE(checkCommandLog("start a 1 100 1\nstart b 2 300 2\ntick a 1 400 1\n").overlaps, 1);
    QCOMPARE(checkCommandLog("tick a 1 100 1\nnot a line\n").problems.size(), 2);
}

void TestChaosCheck::aCommandInsideAnotherLeadersAuthorityIsFound()
{
    const QList<AuthorityInterval> intervals {interval("a", 1, 0, 10), interval("b", 2, 20, 30)};
    const CommandLogCheck inside = checkCommandLog("start a 1 1000000 1\ntick a 1 15000000 1\n");
    QVERIFY(commandsOutsideAuthority(inside.copies, intervals).isEmpty());
    const CommandLogCheck late = checkCommandLog("start a 1 1000000 1\ntick a 1 21000000 1\n");
    QCOMPARE(commandsOutsideAuthority(late.copies, intervals).size(), 1);
}

QTEST_GUILESS_MAIN(TestChaosCheck)
#include "tst_chaoscheck.moc"
