// The stored changes of a list waiting for their places in the history:
// whatever the runs and however they were merged, the result is the
// changes in time order, ties in the order they came.

#include "recordedruns.h"

#include <QRandomGenerator>
#include <QTest>

#include <algorithm>

using namespace baton;

namespace {

const QDateTime origin = QDateTime(QDate(2026, 12, 1), QTime(0, 0), Qt::UTC);

/*! A change at \a minute (few distinct times, so that ties are many), numbered \a serial. */
LeaseFailover change(int minute, int serial)
{
    LeaseFailover c;
    c.lease = QStringLiteral("lease-%1").arg(serial % 97);
    c.to = QString::number(serial);
    c.when = origin.addSecs(60 * minute);
    c.transitions = serial;
    return c;
}

/*! \a count changes at fifty distinct minutes, numbered on from \a serial. */
QList<LeaseFailover> changesAt50Minutes(qsizetype count, int &serial)
{
    QList<LeaseFailover> changes;
    for (qsizetype i = 0; i < count; ++i)
        changes.append(change(int(i % 50), serial++));
    return changes;
}

QList<int> serials(const QList<LeaseFailover> &changes)
{
    QList<int> out;
    for (const LeaseFailover &c : changes)
        out.append(int(c.transitions));
    return out;
}

} // namespace

class TestRecordedRuns : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void runsMergeToTheStableTimeOrder_data();
    void runsMergeToTheStableTimeOrder();
    void mergingAStepAtATimeKeepsTheRunsFew();
    void theHistoryKeepsItsRowsFirstOnATie();
    void aLargeMergeIsCutIntoSteps();
    void aStepEndsAtItsDeadline();
};

void TestRecordedRuns::runsMergeToTheStableTimeOrder_data()
{
    QTest::addColumn<int>("runs");
    QTest::addColumn<int>("perRun");
    QTest::addColumn<bool>("stepEachPush");
    QTest::newRow("one run") << 1 << 500 << true;
    QTest::newRow("many small, merged a step each") << 300 << 17 << true;
    QTest::newRow("many small, merged at the end") << 300 << 17 << false;
    QTest::newRow("uneven") << 40 << 0 << true; // perRun 0: each run its own size
}

void TestRecordedRuns::runsMergeToTheStableTimeOrder()
{
    QFETCH(int, runs);
    QFETCH(int, perRun);
    QFETCH(bool, stepEachPush);
    QRandomGenerator random(20261203);
    RecordedRuns waiting;
    QList<LeaseFailover> everything;
    int serial = 0;
    for (int r = 0; r < runs; ++r) {
        QList<LeaseFailover> run;
        const int size = perRun > 0 ? perRun : int(random.bounded(1, 400));
        for (int i = 0; i < size; ++i)
            run.append(change(int(random.bounded(30)), serial++));
        everything += run;
        waiting.push(run);
        if (stepEachPush)
            waiting.mergeStep();
    }
    QCOMPARE(waiting.size(), everything.size());
    std::stable_sort(everything.begin(), everything.end(), RecordedRuns::earlier);
    QCOMPARE(serials(waiting.all()), serials(everything)); // all() leaves them waiting
    QCOMPARE(serials(waiting.takeAll()), serials(everything));
    QVERIFY(waiting.isEmpty());
}

void TestRecordedRuns::mergingAStepAtATimeKeepsTheRunsFew()
{
    // The observer takes a step a turn until none is due, then the next
    // slice: that keeps at most log2 of the runs waiting, so a list's last
    // merges are a few, and a change moves about that many times.
    RecordedRuns waiting;
    qsizetype most = 0;
    int steps = 0;
    for (int r = 0; r < 1024; ++r) {
        waiting.push({ change(r % 7, r) });
        while (waiting.mergeStep())
            ++steps;
        most = std::max(most, waiting.runCount());
    }
    QVERIFY2(most <= 11, qPrintable(QString::number(most)));
    QVERIFY2(steps < 1024, qPrintable(QString::number(steps)));
    while (waiting.mergeStep(true)) {
    }
    QCOMPARE(waiting.runCount(), 1);
    QCOMPARE(waiting.size(), 1024);
}

void TestRecordedRuns::theHistoryKeepsItsRowsFirstOnATie()
{
    const QList<LeaseFailover> history { change(1, 1), change(5, 2), change(9, 3) };
    const QList<LeaseFailover> read { change(0, 10), change(5, 11), change(9, 12), change(12, 13) };
    QCOMPARE(serials(RecordedRuns::merged(history, read)), QList<int>({ 10, 1, 2, 11, 3, 12, 13 }));
    // Fewer rows into more: the same order.
    const QList<LeaseFailover> few { change(5, 20), change(12, 21) };
    QCOMPARE(serials(RecordedRuns::merged(few, read)), QList<int>({ 10, 20, 11, 12, 21, 13 }));
    QCOMPARE(serials(RecordedRuns::merged({}, read)), serials(read));
    QCOMPARE(serials(RecordedRuns::merged(history, {})), serials(history));
}

void TestRecordedRuns::aLargeMergeIsCutIntoSteps()
{
    // The last merges of a long list are the largest: a turn moves at most
    // stepRows rows of one, and a run read meanwhile keeps its place after.
    const qsizetype half = RecordedRuns::stepRows + RecordedRuns::stepRows / 5;
    int serial = 0;
    const QList<LeaseFailover> first = changesAt50Minutes(half, serial);
    const QList<LeaseFailover> second = changesAt50Minutes(half, serial);
    QList<LeaseFailover> everything;
    RecordedRuns waiting;
    waiting.push(first);
    waiting.push(second);
    QVERIFY(waiting.mergeStep());
    QCOMPARE(waiting.runCount(), 1);
    QCOMPARE(waiting.size(), 2 * half);
    const QList<LeaseFailover> meanwhile { change(0, serial++), change(49, serial++) };
    waiting.push(meanwhile);
    QCOMPARE(waiting.runCount(), 2);
    int steps = 1;
    while (waiting.mergeStep())
        ++steps;
    // 2 * half rows, stepRows a step; then the run read meanwhile, too small
    // to be merged until asked.
    QCOMPARE(steps, int((2 * half + RecordedRuns::stepRows - 1) / RecordedRuns::stepRows));
    QCOMPARE(waiting.runCount(), 2);
    everything = first + second + meanwhile;
    std::stable_sort(everything.begin(), everything.end(), RecordedRuns::earlier);
    QCOMPARE(serials(waiting.takeAll()), serials(everything));
}

void TestRecordedRuns::aStepEndsAtItsDeadline()
{
    // A turn's budget is time: a step whose deadline has passed still moves
    // a thousand rows (it never stands still), and no more; whatever the
    // steps, the result is the same, and size() counts every row waiting
    // while the rows moved out are freed step by step.
    constexpr qsizetype rows = 5000;
    int serial = 0;
    const QList<LeaseFailover> first = changesAt50Minutes(rows, serial);
    const QList<LeaseFailover> second = changesAt50Minutes(rows, serial);
    RecordedRuns waiting;
    waiting.push(first);
    waiting.push(second);
    const QDeadlineTimer passed(0);
    QVERIFY(passed.hasExpired());
    int steps = 0;
    while (waiting.mergeStep(false, passed)) {
        ++steps;
        QCOMPARE(waiting.size(), 2 * rows);
        QVERIFY(steps <= 2 * rows);
    }
    QCOMPARE(steps, int(2 * rows / 1000));
    QCOMPARE(waiting.runCount(), 1);
    QList<LeaseFailover> everything = first + second;
    std::stable_sort(everything.begin(), everything.end(), RecordedRuns::earlier);
    QCOMPARE(serials(waiting.takeAll()), serials(everything));
}

QTEST_GUILESS_MAIN(TestRecordedRuns)
#include "tst_recordedruns.moc"
