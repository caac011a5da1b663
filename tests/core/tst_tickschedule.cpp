// When scheduled work ticks (S1): cron fields, steps, lists and names, the
// day-of-month / day-of-week rule of cron, time zones with their gaps and
// repeats, `every`, and errors that name the field at fault. Tick names are
// the nominal instant in UTC, fixed by the schedule (S1, S2).

#include <batoninternal/tickschedule.h>

#include <QTest>

using namespace baton;

namespace {

QDateTime utc(const char *text)
{
    QDateTime when = QDateTime::fromString(QLatin1String(text), Qt::ISODate);
    when.setTimeZone(QTimeZone::utc());
    return when;
}

TickSchedule schedule(const QString &text)
{
    QString problem;
    const auto parsed = TickSchedule::parse(text, &problem);
    if (!parsed)
        qFatal("%s: %s", qPrintable(text), qPrintable(problem));
    return *parsed;
}

} // namespace

class TestTickSchedule : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void nextTickFollowsTheCronFields_data();
    void nextTickFollowsTheCronFields();
    void latestTickIsAtOrBeforeTheMoment_data();
    void latestTickIsAtOrBeforeTheMoment();
    void clocksGoingForwardTickOnceAtTheEndOfTheGap();
    void clocksGoingBackTickOnceAtTheFirstOccurrence();
    void everyTicksAtMultiplesOfThePeriodSinceTheEpoch();
    void ticksAreNamedByTheirInstantInUtc();
    void badSchedulesNameTheFieldAndTheFault_data();
    void badSchedulesNameTheFieldAndTheFault();
};

void TestTickSchedule::nextTickFollowsTheCronFields_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QDateTime>("after");
    QTest::addColumn<QDateTime>("expected");

    QTest::newRow("every minute: the next whole minute")
            << "* * * * *" << utc("2026-12-01T10:15:30") << utc("2026-12-01T10:16:00");
    QTest::newRow("strictly after: a tick exactly now is not next")
            << "0 3 * * *" << utc("2026-12-01T03:00:00") << utc("2026-12-02T03:00:00");
    QTest::newRow("a fixed time of day, later today")
            << "30 14 * * *" << utc("2026-12-01T10:00:00") << utc("2026-12-01T14:30:00");
    QTest::newRow("a step over the whole range")
            << "*/15 * * * *" << utc("2026-12-01T10:16:00") << utc("2026-12-01T10:30:00");
    QTest::newRow("a step over a range")
            << "10-50/20 * * * *" << utc("2026-12-01T10:31:00") << utc("2026-12-01T10:50:00");
    QTest::newRow("a start and a step run to the end of the range")
            << "5/20 * * * *" << utc("2026-12-01T10:46:00") << utc("2026-12-01T11:05:00");
    QTest::newRow("a list")
            << "0 1,13,22 * * *" << utc("2026-12-01T14:00:00") << utc("2026-12-01T22:00:00");
    QTest::newRow("a list of ranges")
            << "0 1-2,20-21 * * *" << utc("2026-12-01T02:30:00") << utc("2026-12-01T20:00:00");
    QTest::newRow("month names")
            << "0 0 1 jan,JUL *" << utc("2026-02-01T00:00:00") << utc("2026-07-01T00:00:00");
    QTest::newRow("day names: Monday to Friday")
            << "0 9 * * mon-fri" << utc("2026-12-04T10:00:00") << utc("2026-12-07T09:00:00"); // Fri -> Mon
    QTest::newRow("day of week 7 is Sunday")
            << "0 9 * * 7" << utc("2026-12-01T00:00:00") << utc("2026-12-06T09:00:00");
    QTest::newRow("day of week 0 is Sunday")
            << "0 9 * * 0" << utc("2026-12-01T00:00:00") << utc("2026-12-06T09:00:00");
    QTest::newRow("both day fields restricted: either matches (the 15th)")
            << "0 0 15 * fri" << utc("2026-12-12T00:00:00") << utc("2026-12-15T00:00:00");
    QTest::newRow("both day fields restricted: either matches (a Friday)")
            << "0 0 15 * fri" << utc("2026-12-01T00:00:00") << utc("2026-12-04T00:00:00");
    QTest::newRow("day of week a star: the day of month alone")
            << "0 0 15 * *" << utc("2026-12-01T00:00:00") << utc("2026-12-15T00:00:00");
    QTest::newRow("day of month a stepped star: both must match")
            << "0 0 */2 * fri" << utc("2026-12-01T00:00:00") << utc("2026-12-11T00:00:00");
    QTest::newRow("the 31st skips the months without one")
            << "0 0 31 * *" << utc("2026-04-01T00:00:00") << utc("2026-05-31T00:00:00");
    QTest::newRow("29 February waits for a leap year")
            << "0 0 29 2 *" << utc("2026-03-01T00:00:00") << utc("2028-02-29T00:00:00");
    QTest::newRow("the year turns")
            << "0 0 1 1 *" << utc("2026-12-31T23:59:59") << utc("2027-01-01T00:00:00");
    QTest::newRow("in a time zone: 03:00 in Paris is 02:00 UTC in winter")
            << "0 3 * * * Europe/Paris" << utc("2026-12-01T00:00:00") << utc("2026-12-01T02:00:00");
    QTest::newRow("in a time zone: 03:00 in Paris is 01:00 UTC in summer")
            << "0 3 * * * Europe/Paris" << utc("2026-07-01T00:00:00") << utc("2026-07-01T01:00:00");
    QTest::newRow("in a time zone, the day is the zone's: Monday in Tokyo is Sunday UTC")
            << "0 8 * * mon Asia/Tokyo" << utc("2026-12-01T00:00:00") << utc("2026-12-06T23:00:00");
    QTest::newRow("UTC named")
            << "0 3 * * * UTC" << utc("2026-12-01T00:00:00") << utc("2026-12-01T03:00:00");
}

void TestTickSchedule::nextTickFollowsTheCronFields()
{
    QFETCH(QString, text);
    QFETCH(QDateTime, after);
    QFETCH(QDateTime, expected);
    QCOMPARE(schedule(text).nextAfter(after), expected);
}

void TestTickSchedule::latestTickIsAtOrBeforeTheMoment_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QDateTime>("at");
    QTest::addColumn<QDateTime>("expected");

    QTest::newRow("a tick exactly now is the latest")
            << "0 3 * * *" << utc("2026-12-01T03:00:00") << utc("2026-12-01T03:00:00");
    QTest::newRow("yesterday's, before today's time")
            << "0 3 * * *" << utc("2026-12-01T02:59:59") << utc("2026-11-30T03:00:00");
    QTest::newRow("the last of a list")
            << "0 1,13,22 * * *" << utc("2026-12-01T21:00:00") << utc("2026-12-01T13:00:00");
    QTest::newRow("back over the year")
            << "0 0 1 1 *" << utc("2026-12-31T00:00:00") << utc("2026-01-01T00:00:00");
    QTest::newRow("every, between two ticks")
            << "every 10m" << utc("2026-12-01T10:15:00") << utc("2026-12-01T10:10:00");
}

void TestTickSchedule::latestTickIsAtOrBeforeTheMoment()
{
    QFETCH(QString, text);
    QFETCH(QDateTime, at);
    QFETCH(QDateTime, expected);
    QCOMPARE(schedule(text).latestAtOrBefore(at), expected);
}

void TestTickSchedule::clocksGoingForwardTickOnceAtTheEndOfTheGap()
{
    // Paris, 29 March 2026: 02:00 local becomes 03:00 (01:00 UTC); 02:30 never shows.
    const TickSchedule halfPastTwo = schedule(QStringLiteral("30 2 * * * Europe/Paris"));
    QCOMPARE(halfPastTwo.nextAfter(utc("2026-03-28T12:00:00")), utc("2026-03-29T01:00:00"));
    QCOMPARE(halfPastTwo.nextAfter(utc("2026-03-29T01:00:00")), utc("2026-03-30T00:30:00"));

    // Every quarter of an hour: the gap's four times fall on one instant, one tick.
    const TickSchedule quarters = schedule(QStringLiteral("*/15 * * * * Europe/Paris"));
    QCOMPARE(quarters.nextAfter(utc("2026-03-29T00:45:00")), utc("2026-03-29T01:00:00"));
    QCOMPARE(quarters.nextAfter(utc("2026-03-29T01:00:00")), utc("2026-03-29T01:15:00"));
}

void TestTickSchedule::clocksGoingBackTickOnceAtTheFirstOccurrence()
{
    // Paris, 25 October 2026: 03:00 local becomes 02:00 (01:00 UTC); 02:30 shows twice.
    const TickSchedule halfPastTwo = schedule(QStringLiteral("30 2 * * * Europe/Paris"));
    QCOMPARE(halfPastTwo.nextAfter(utc("2026-10-24T12:00:00")), utc("2026-10-25T00:30:00"));
    QCOMPARE(halfPastTwo.nextAfter(utc("2026-10-25T00:30:00")), utc("2026-10-26T01:30:00"));

    // Hourly ticks: the repeated hour's wall clock ticks once, then 03:00 (02:00 UTC).
    const TickSchedule hourly = schedule(QStringLiteral("0 * * * * Europe/Paris"));
    QCOMPARE(hourly.nextAfter(utc("2026-10-25T00:00:00")), utc("2026-10-25T02:00:00"));
    QCOMPARE(hourly.latestAtOrBefore(utc("2026-10-25T01:30:00")), utc("2026-10-25T00:00:00"));
}

void TestTickSchedule::everyTicksAtMultiplesOfThePeriodSinceTheEpoch()
{
    const TickSchedule tenMinutes = schedule(QStringLiteral("every 10m"));
    QCOMPARE(tenMinutes.periodMs(), 600000);
    QCOMPARE(tenMinutes.nextAfter(utc("2026-12-01T10:15:42")), utc("2026-12-01T10:20:00"));
    QCOMPARE(tenMinutes.nextAfter(utc("2026-12-01T10:20:00")), utc("2026-12-01T10:30:00"));

    // Two instances a second apart agree on the name of the tick both wait for.
    const TickSchedule twoSeconds = schedule(QStringLiteral("every 2s"));
    QCOMPARE(twoSeconds.nextAfter(utc("2026-12-01T10:00:00.300")),
             twoSeconds.nextAfter(utc("2026-12-01T10:00:01.200")));
    QCOMPARE(twoSeconds.nextAfter(utc("2026-12-01T10:00:01.999")), utc("2026-12-01T10:00:02"));
}

void TestTickSchedule::ticksAreNamedByTheirInstantInUtc()
{
    const TickSchedule paris = schedule(QStringLiteral("0 3 * * * Europe/Paris"));
    QCOMPARE(TickSchedule::tickName(paris.nextAfter(utc("2026-11-30T12:00:00"))),
             QStringLiteral("2026-12-01T02:00:00Z"));
    QCOMPARE(TickSchedule::tickName(utc("2026-12-01T03:00:00")), QStringLiteral("2026-12-01T03:00:00Z"));
}

void TestTickSchedule::badSchedulesNameTheFieldAndTheFault_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("problem");

    QTest::newRow("empty") << "" << "has 0 fields";
    QTest::newRow("four fields") << "0 3 * *" << "has 4 fields";
    QTest::newRow("seven fields") << "0 3 * * * Europe/Paris x" << "has 7 fields";
    QTest::newRow("minute out of range") << "60 3 * * *" << "minute \"60\": 60 is out of range 0-59";
    QTest::newRow("hour out of range") << "0 24 * * *" << "hour \"24\": 24 is out of range 0-23";
    QTest::newRow("day of month zero") << "0 3 0 * *" << "day of month \"0\": 0 is out of range 1-31";
    QTest::newRow("month thirteen") << "0 3 1 13 *" << "month \"13\": 13 is out of range 1-12";
    QTest::newRow("day of week eight") << "0 3 * * 8" << "day of week \"8\": 8 is out of range 0-7";
    QTest::newRow("an unknown day name")
            << "0 3 * * fry" << "day of week \"fry\": \"fry\" is neither a number nor a name (sun-sat)";
    QTest::newRow("a name where none is known")
            << "x 3 * * *" << "minute \"x\": \"x\" is not a number";
    QTest::newRow("a range backwards") << "0 5-2 * * *" << "hour \"5-2\": range 5-2 goes backwards";
    QTest::newRow("a step of zero")
            << "*/0 * * * *" << "minute \"*/0\": step \"0\" is not a whole number above 0";
    QTest::newRow("an empty list item") << "1,,2 * * * *" << "minute \"1,,2\": an empty item in the list";
    QTest::newRow("a negative number") << "-5 * * * *" << "minute \"-5\": -5 is out of range 0-59";
    QTest::newRow("a day that never comes")
            << "0 0 30 feb *" << "day of month \"30\" never comes in month \"feb\"";
    QTest::newRow("an unknown time zone")
            << "0 3 * * * Europe/Atlantis" << "time zone \"Europe/Atlantis\" is not known";
    QTest::newRow("every without a unit") << "every 10" << "every \"10\":";
    QTest::newRow("every below a second")
            << "every 500ms" << "every \"500ms\": the period must be whole seconds, 1s or more";
    QTest::newRow("every with a part of a second")
            << "every 1.5s" << "every \"1.5s\": the period must be whole seconds, 1s or more";
}

void TestTickSchedule::badSchedulesNameTheFieldAndTheFault()
{
    QFETCH(QString, text);
    QFETCH(QString, problem);
    QString found;
    QVERIFY(!TickSchedule::parse(text, &found));
    QVERIFY2(found.contains(problem), qPrintable(found));
}

QTEST_GUILESS_MAIN(TestTickSchedule)
#include "tst_tickschedule.moc"
