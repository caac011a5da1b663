// Times in documents and events: the fast formatter and parser must write
// and read exactly what Qt's ISO 8601 with milliseconds does, Qt being the
// oracle, over the whole range and at the calendar's corners.

#include <batoninternal/isotime.h>

#include <QRandomGenerator>
#include <QTest>
#include <QTimeZone>

using namespace baton;

namespace {

QString qtFormat(const QDateTime &time)
{
    return time.isValid() ? time.toUTC().toString(Qt::ISODateWithMs) : QString();
}

QDateTime qtParse(const QString &text)
{
    return QDateTime::fromString(text, Qt::ISODateWithMs);
}

/*! The same instant, read the same way: both invalid, or equal with the same spec and offset. */
bool same(const QDateTime &a, const QDateTime &b)
{
    if (a.isValid() != b.isValid())
        return false;
    return !a.isValid()
            || (a == b && a.timeSpec() == b.timeSpec() && a.offsetFromUtc() == b.offsetFromUtc());
}

} // namespace

class TestIsoTime : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void writesWhatQtWritesAtTheCalendarsCorners_data();
    void writesWhatQtWritesAtTheCalendarsCorners();
    void writesAndReadsWhatQtDoesOverTheWholeRange();
    void readsAnythingElseAsQtReadsIt_data();
    void readsAnythingElseAsQtReadsIt();
    void aLocalTimeIsWrittenInUtc();
};

void TestIsoTime::writesWhatQtWritesAtTheCalendarsCorners_data()
{
    QTest::addColumn<QDateTime>("time");
    auto utc = [](int y, int mo, int d, int h, int mi, int s, int ms) {
        return QDateTime(QDate(y, mo, d), QTime(h, mi, s, ms), Qt::UTC);
    };
    QTest::newRow("epoch") << utc(1970, 1, 1, 0, 0, 0, 0);
    QTest::newRow("leap day 2000") << utc(2000, 2, 29, 23, 59, 59, 999);
    QTest::newRow("after leap day 2000") << utc(2000, 3, 1, 0, 0, 0, 1);
    QTest::newRow("no leap day 2100") << utc(2100, 3, 1, 12, 0, 0, 0);
    QTest::newRow("end of 2100's February") << utc(2100, 2, 28, 12, 0, 0, 0);
    QTest::newRow("leap day 2400") << utc(2400, 2, 29, 1, 2, 3, 4);
    QTest::newRow("new year's eve") << utc(2026, 12, 31, 23, 59, 59, 999);
    QTest::newRow("last of year 9999") << utc(9999, 12, 31, 23, 59, 59, 999);
    QTest::newRow("year 10000") << utc(10000, 1, 1, 0, 0, 0, 0);
    QTest::newRow("before the epoch") << utc(1969, 12, 31, 23, 59, 59, 999);
    QTest::newRow("year 1") << utc(1, 1, 1, 0, 0, 0, 0);
    QTest::newRow("invalid") << QDateTime();
}

void TestIsoTime::writesWhatQtWritesAtTheCalendarsCorners()
{
    QFETCH(QDateTime, time);
    QCOMPARE(isotime::format(time), qtFormat(time));
    const QString written = qtFormat(time);
    QVERIFY2(same(isotime::parse(written), qtParse(written)), qPrintable(written));
}

void TestIsoTime::writesAndReadsWhatQtDoesOverTheWholeRange()
{
    QRandomGenerator random(20261206);
    constexpr qint64 kEnd = qint64(2932897) * 86400 * 1000; // 10000-01-01
    for (int i = 0; i < 200000; ++i) {
        // Half over the four-digit years, half near now, where renewals are.
        const qint64 ms = i % 2 ? random.bounded(kEnd)
                                : qint64(1798761600000) + random.bounded(qint64(400) * 86400 * 1000);
        const QDateTime time = QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
        const QString written = isotime::format(time);
        QCOMPARE(written, qtFormat(time));
        const QDateTime read = isotime::parse(written);
        QVERIFY2(same(read, qtParse(written)), qPrintable(written));
        QCOMPARE(read.toMSecsSinceEpoch(), ms);
    }
}

void TestIsoTime::readsAnythingElseAsQtReadsIt_data()
{
    QTest::addColumn<QString>("text");
    for (const char *text : { "2026-02-29T00:00:00.000Z", "2024-02-29T00:00:00.000Z", "2026-04-31T00:00:00.000Z",
                              "2026-13-01T00:00:00.000Z", "2026-00-10T00:00:00.000Z", "2026-01-00T00:00:00.000Z",
                              "2026-01-01T24:00:00.000Z", "2026-01-01T23:60:00.000Z", "2026-01-01T23:59:60.000Z",
                              "2026-01-01T12:00:00.000+02:00", "2026-01-01T12:00:00.000", "2026-01-01T12:00:00Z",
                              "2026-01-01T12:00:00.5Z", "2026-01-01t12:00:00.000Z", "2026-01-01 12:00:00.000Z",
                              "2026-01-01T12:00:00.00xZ", "+026-01-01T12:00:00.000Z", "1969-12-31T23:59:59.999Z",
                              "0999-01-01T00:00:00.000Z", " 2026-01-01T12:00:00.000Z", "2026-01-01T12:00:00.000z",
                              "", "yesterday", "2026-1-01T12:00:00.0000Z" })
        QTest::newRow(text) << QString::fromLatin1(text);
}

void TestIsoTime::readsAnythingElseAsQtReadsIt()
{
    QFETCH(QString, text);
    QVERIFY(same(isotime::parse(text), qtParse(text)));
}

void TestIsoTime::aLocalTimeIsWrittenInUtc()
{
    const QDateTime eastOfUtc(QDate(2026, 12, 6), QTime(1, 30, 0, 250), QTimeZone(5 * 3600 + 1800));
    QCOMPARE(isotime::format(eastOfUtc), QStringLiteral("2026-12-05T20:00:00.250Z"));
    QCOMPARE(isotime::format(eastOfUtc), qtFormat(eastOfUtc));
}

QTEST_GUILESS_MAIN(TestIsoTime)
#include "tst_isotime.moc"
