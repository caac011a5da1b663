// Which failed attempts reach the log as warnings: the first of a run,
// other words than the last told, the same words again a minute later with
// how long and how often; and the attempt that works again. A store that
// is gone no longer writes a warning per attempt of every election. Times
// are given, not waited for.

#include "failedattempts.h"

#include <QTest>

using namespace baton;

class TestFailedAttempts : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void theFirstFailureIsTold();
    void theSameFailureIsToldOnceAMinute();
    void otherWordsAreToldAtOnce();
    void theAttemptThatWorksAgainIsTold();
};

void TestFailedAttempts::theFirstFailureIsTold()
{
    FailedAttempts attempts;
    QCOMPARE(attempts.answered(500), std::nullopt);
    QCOMPARE(attempts.failed(QStringLiteral("connection refused"), 1000),
             QStringLiteral("attempt failed: connection refused"));
}

void TestFailedAttempts::theSameFailureIsToldOnceAMinute()
{
    FailedAttempts attempts;
    const QString refused = QStringLiteral("connection refused");
    QVERIFY(attempts.failed(refused, 1000));
    // One attempt a second for a minute: none of them is told.
    int told = 0;
    for (qint64 at = 2000; at < 1000 + FailedAttempts::retellAfterMs; at += 1000)
        told += attempts.failed(refused, at) ? 1 : 0;
    QCOMPARE(told, 0);
    const std::optional<QString> again = attempts.failed(refused, 1000 + FailedAttempts::retellAfterMs);
    QVERIFY(again);
    QVERIFY2(again->startsWith(QStringLiteral("attempt failed: connection refused (")), qPrintable(*again));
    QVERIFY2(again->contains(QStringLiteral("61 attempts in a row have failed, for 60 s")), qPrintable(*again));
    QCOMPARE(attempts.failed(refused, 2000 + FailedAttempts::retellAfterMs), std::nullopt);
}

void TestFailedAttempts::otherWordsAreToldAtOnce()
{
    FailedAttempts attempts;
    QVERIFY(attempts.failed(QStringLiteral("connection refused"), 1000));
    const std::optional<QString> other = attempts.failed(QStringLiteral("no answer within 5000 ms"), 2000);
    QVERIFY(other);
    QVERIFY2(other->startsWith(QStringLiteral("attempt failed: no answer within 5000 ms (2 attempts")),
             qPrintable(*other));
    // Back to the first words: they are news again.
    QVERIFY(attempts.failed(QStringLiteral("connection refused"), 3000));
}

void TestFailedAttempts::theAttemptThatWorksAgainIsTold()
{
    FailedAttempts attempts;
    for (qint64 at = 1000; at <= 5000; at += 1000)
        attempts.failed(QStringLiteral("connection refused"), at);
    QCOMPARE(attempts.answered(12'000), QStringLiteral("attempts answered again, after 5 failed over 11 s"));
    QCOMPARE(attempts.answered(13'000), std::nullopt);
    // A new run of failures starts over: its first is told.
    QCOMPARE(attempts.failed(QStringLiteral("connection refused"), 14'000),
             QStringLiteral("attempt failed: connection refused"));
}

QTEST_GUILESS_MAIN(TestFailedAttempts)
#include "tst_failedattempts.moc"
