// BootTimer: the single-shot timer the election driver arms for its
// deadlines (F4, F5). It counts CLOCK_BOOTTIME, the clock of every
// decision, so that a deadline armed before a suspend fires when it is
// due on that clock, not late by the time the host slept. A real suspend
// cannot be made in a test (it needs the whole host, and a time namespace
// only shifts the clock, it does not make time pass for it): these tests
// prove the timer itself, on both of its implementations, and that it
// counts on the boot clock where timerfd exists.

#include "boottimer.h"
#include <baton/clock.h>

#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <memory>
#include <vector>

#include <unistd.h>

using namespace baton;

namespace {

constexpr qint64 intervalMs = 50;
// Long enough that no test here ever sees it run out.
constexpr qint64 neverMs = 3'600'000;

/*! Runs the event loop until a plain QTimer of \a ms has fired. */
void runEventsFor(int ms)
{
    QTimer reference;
    reference.setSingleShot(true);
    QSignalSpy done(&reference, &QTimer::timeout);
    reference.start(ms);
    QVERIFY(done.wait(ms + 10000));
}

/*! The timerfds this process holds: the timer descriptors its event loop polls. */
int timerDescriptors()
{
    int count = 0;
    const QString folder = QStringLiteral("/proc/self/fd");
    for (const QString &name : QDir(folder).entryList(QDir::AllEntries | QDir::System | QDir::NoDotAndDotDot)) {
        char target[64] = {};
        const QByteArray path = QFile::encodeName(folder + QLatin1Char('/') + name);
        if (::readlink(path.constData(), target, sizeof target - 1) > 0
            && qstrcmp(target, "anon_inode:[timerfd]") == 0)
            ++count;
    }
    return count;
}

} // namespace

Q_DECLARE_METATYPE(baton::BootTimer::Kind)

class TestBootTimer : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void onLinuxItCountsTheBootClock();
    void firesOnceWhenItsIntervalHasPassed_data();
    void firesOnceWhenItsIntervalHasPassed();
    void zeroFiresAtTheNextTurn_data();
    void zeroFiresAtTheNextTurn();
    void reArmingKeepsOnlyTheLastInterval_data();
    void reArmingKeepsOnlyTheLastInterval();
    void anExpiryNotYetDeliveredIsForgottenWhenReArmed_data();
    void anExpiryNotYetDeliveredIsForgottenWhenReArmed();
    void stopCancels_data();
    void stopCancels();
    void theTimersOfAThreadShareOneDescriptorHoweverMany();
    void timersArmedForOneMillisecondFireInOneTurn();
    void manyTimersEachFireOnceAndADeletedOneNever();
    void aSlotCanDeleteTheLastTimerAfterANestedLoopInWhichAnotherFired();
    void theLastTimerCanGoInsideANestedLoopWhileAnOuterSlotRuns();

private:
    static void kinds();
};

void TestBootTimer::kinds()
{
    QTest::addColumn<BootTimer::Kind>("kind");
    QTest::newRow("on the boot clock") << BootTimer::Kind::BootClock;
    QTest::newRow("on the fallback QTimer") << BootTimer::Kind::FallbackQTimer;
}

void TestBootTimer::onLinuxItCountsTheBootClock()
{
    // F4: where timerfd exists the driver's deadlines are counted on
    // CLOCK_BOOTTIME, not by QTimer's CLOCK_MONOTONIC.
#ifdef Q_OS_LINUX
    BootTimer timer;
    timer.start(neverMs);
    QVERIFY(timer.usesBootClock());
#else
    QSKIP("CLOCK_BOOTTIME timers are Linux only; the fallback is tested below");
#endif
    BootTimer fallback(BootTimer::Kind::FallbackQTimer);
    fallback.start(neverMs);
    QVERIFY(!fallback.usesBootClock());
}

void TestBootTimer::firesOnceWhenItsIntervalHasPassed_data()
{
    kinds();
}

void TestBootTimer::firesOnceWhenItsIntervalHasPassed()
{
    // F4: a deadline timer never fires before its interval has passed on
    // the decisions' clock, and fires once.
    QFETCH(BootTimer::Kind, kind);
    BootTimer timer(kind);
    QSignalSpy fired(&timer, &BootTimer::timeout);
    const qint64 armedAt = Clock::system().monotonicMs();
    timer.start(intervalMs);
    QVERIFY(timer.isActive());
    QVERIFY(fired.wait(10000));
    QVERIFY(Clock::system().monotonicMs() - armedAt >= intervalMs);
    QVERIFY(!timer.isActive());
    runEventsFor(2 * int(intervalMs));
    QCOMPARE(fired.count(), 1);
}

void TestBootTimer::zeroFiresAtTheNextTurn_data()
{
    kinds();
}

void TestBootTimer::zeroFiresAtTheNextTurn()
{
    // F4: a deadline already passed when the timer is armed (a zero or
    // negative interval) is acted on at once, never inside start().
    QFETCH(BootTimer::Kind, kind);
    BootTimer timer(kind);
    QSignalSpy fired(&timer, &BootTimer::timeout);
    timer.start(-5);
    QCOMPARE(fired.count(), 0);
    QVERIFY(fired.wait(10000));
    QCOMPARE(fired.count(), 1);
}

void TestBootTimer::reArmingKeepsOnlyTheLastInterval_data()
{
    kinds();
}

void TestBootTimer::reArmingKeepsOnlyTheLastInterval()
{
    // F4: the wake timer is re-armed at every act of the election; only the
    // last interval counts, shorter or longer than the one it replaces.
    QFETCH(BootTimer::Kind, kind);
    BootTimer timer(kind);
    QSignalSpy fired(&timer, &BootTimer::timeout);
    timer.start(neverMs);
    timer.start(intervalMs);
    QVERIFY(fired.wait(10000));
    QCOMPARE(fired.count(), 1);

    timer.start(intervalMs);
    timer.start(neverMs);
    runEventsFor(4 * int(intervalMs));
    QCOMPARE(fired.count(), 1);
    QVERIFY(timer.isActive());
}

void TestBootTimer::anExpiryNotYetDeliveredIsForgottenWhenReArmed_data()
{
    kinds();
}

void TestBootTimer::anExpiryNotYetDeliveredIsForgottenWhenReArmed()
{
    // F4: the interval ran out but the event loop has not delivered it yet
    // when the driver arms the timer again (a reply came first): the old
    // expiry must not fire the new arming early.
    QFETCH(BootTimer::Kind, kind);
    BootTimer timer(kind);
    QSignalSpy fired(&timer, &BootTimer::timeout);
    timer.start(0);
    timer.start(neverMs);
    runEventsFor(4 * int(intervalMs));
    QCOMPARE(fired.count(), 0);
}

void TestBootTimer::stopCancels_data()
{
    kinds();
}

void TestBootTimer::stopCancels()
{
    // F5: a stop that ends its wait early cancels the deadline timer.
    QFETCH(BootTimer::Kind, kind);
    BootTimer timer(kind);
    QSignalSpy fired(&timer, &BootTimer::timeout);
    timer.start(intervalMs);
    timer.stop();
    QVERIFY(!timer.isActive());
    timer.stop(); // harmless twice
    runEventsFor(4 * int(intervalMs));
    QCOMPARE(fired.count(), 0);

    timer.start(0);
    timer.stop();
    runEventsFor(int(intervalMs));
    QCOMPARE(fired.count(), 0);
}

void TestBootTimer::theTimersOfAThreadShareOneDescriptorHoweverMany()
{
    // P3: a process in a thousand elections has a wake timer each; its
    // event loop polls every descriptor at every turn, for every event of
    // any election, so the timers share one: counted, not timed.
#ifndef Q_OS_LINUX
    QSKIP("timerfd is Linux only");
#endif
    const int before = timerDescriptors();
    auto heldBy = [before](int count) {
        std::vector<std::unique_ptr<BootTimer>> timers;
        for (int i = 0; i < count; ++i) {
            timers.push_back(std::make_unique<BootTimer>());
            timers.back()->start(neverMs + i);
        }
        return timerDescriptors() - before;
    };
    const int ten = heldBy(10);
    const int thousand = heldBy(1000);
    QCOMPARE(thousand, ten);
    QCOMPARE(ten, 1);
    QCOMPARE(timerDescriptors(), before); // it went with the last timer
}

// P3: the renewals of a slot are armed for one millisecond of the
// decisions' clock, microseconds apart; they fire in one turn of the event
// loop, so that what they send can go together at its end.
void TestBootTimer::timersArmedForOneMillisecondFireInOneTurn()
{
    const Clock &clock = Clock::system();
    constexpr int kTimers = 50;
    // An event loop of its own, which waits in poll() and wakes at the first
    // deadline (QTRY's loop sleeps between its turns, and would gather them).
    QEventLoop loop;
    QTimer bound;
    bound.setSingleShot(true);
    connect(&bound, &QTimer::timeout, &loop, &QEventLoop::quit);
    int fired = 0;
    int firedInTheFirstTurn = -1;
    auto quitWhenAllFired = [&] {
        if (fired == kTimers && firedInTheFirstTurn >= 0)
            loop.quit();
    };
    const qint64 due = clock.monotonicMs() + 200;
    std::vector<std::unique_ptr<BootTimer>> timers;
    for (int i = 0; i < kTimers; ++i) {
        timers.push_back(std::make_unique<BootTimer>());
        BootTimer *timer = timers.back().get();
        connect(timer, &BootTimer::timeout, &loop, [&] {
            if (fired++ == 0)
                QMetaObject::invokeMethod(
                        &loop,
                        [&] {
                            firedInTheFirstTurn = fired;
                            quitWhenAllFired();
                        },
                        Qt::QueuedConnection);
            quitWhenAllFired();
        });
        // As the elections arm them, spread over a few milliseconds (each
        // as its answer comes): the time left until the slot, read on the
        // decisions' clock; armed again if a millisecond began meanwhile.
        QElapsedTimer apart;
        apart.start();
        while (apart.nsecsElapsed() < 97'000) {
        }
        for (;;) {
            const qint64 armedAt = clock.monotonicMs();
            timer->start(due - armedAt);
            if (clock.monotonicMs() == armedAt)
                break;
        }
    }
    bound.start(10000);
    loop.exec();
    QCOMPARE(fired, kTimers);
    QCOMPARE(firedInTheFirstTurn, kTimers);
    QVERIFY(clock.monotonicMs() >= due);
}

void TestBootTimer::manyTimersEachFireOnceAndADeletedOneNever()
{
    // F4 with one descriptor for all: each timer fires once, when due,
    // whatever the others do; one deleted by another's slot never fires.
    std::vector<std::unique_ptr<BootTimer>> timers;
    int fired = 0;
    for (int i = 0; i < 200; ++i) {
        timers.push_back(std::make_unique<BootTimer>());
        connect(timers.back().get(), &BootTimer::timeout, this, [&fired] { ++fired; });
        timers.back()->start((i % 10) * 5);
    }
    auto first = std::make_unique<BootTimer>();
    auto second = std::make_unique<BootTimer>();
    int pairFired = 0;
    connect(first.get(), &BootTimer::timeout, this, [&] { ++pairFired; second.reset(); });
    connect(second.get(), &BootTimer::timeout, this, [&] { ++pairFired; first.reset(); });
    first->start(0);
    second->start(0);
    QTRY_COMPARE_WITH_TIMEOUT(fired, 200, 10000);
    runEventsFor(4 * int(intervalMs));
    QCOMPARE(fired, 200);
    QCOMPARE(pairFired, 1);
    QVERIFY(std::none_of(timers.cbegin(), timers.cend(), [](const auto &t) { return t->isActive(); }));
}

void TestBootTimer::aSlotCanDeleteTheLastTimerAfterANestedLoopInWhichAnotherFired()
{
    // F4: the driver acts in the timer's slot, and a user's callback there
    // may run a nested event loop (a modal dialog) in which another timer
    // of the thread fires; back in the outer slot the thread's last timers
    // are deleted. The shared descriptor must outlive the firing still on
    // the stack below that slot, and go once it has returned.
    const int before = timerDescriptors();
    auto outer = std::make_unique<BootTimer>();
    auto inner = std::make_unique<BootTimer>();
    int innerFired = 0;
    bool outerDone = false;
    connect(inner.get(), &BootTimer::timeout, this, [&innerFired] { ++innerFired; });
    connect(outer.get(), &BootTimer::timeout, this, [&] {
        QEventLoop nested;
        connect(inner.get(), &BootTimer::timeout, &nested, &QEventLoop::quit);
        // Never reached when it works: the test fails below, it does not hang.
        QTimer::singleShot(10000, &nested, &QEventLoop::quit);
        inner->start(0);
        nested.exec();
        inner.reset();
        outer.reset();
        outerDone = true;
    });
    outer->start(0);
    QTRY_VERIFY_WITH_TIMEOUT(outerDone, 10000);
    QCOMPARE(innerFired, 1);
    QTRY_COMPARE_WITH_TIMEOUT(timerDescriptors(), before, 10000);

    BootTimer next; // the thread's timers still work
    QSignalSpy fired(&next, &BootTimer::timeout);
    next.start(0);
    QVERIFY(fired.wait(10000));
}

void TestBootTimer::theLastTimerCanGoInsideANestedLoopWhileAnOuterSlotRuns()
{
    // F4: as above, but the thread's last timers are deleted by the slot
    // of the timer that fired inside the nested loop, which then goes on
    // running events (deferred deletions among them) before the outer
    // slot returns to its firing.
    const int before = timerDescriptors();
    auto outer = std::make_unique<BootTimer>();
    auto inner = std::make_unique<BootTimer>();
    int innerFired = 0;
    bool outerDone = false;
    connect(outer.get(), &BootTimer::timeout, this, [&] {
        QEventLoop nested;
        connect(inner.get(), &BootTimer::timeout, this, [&] {
            ++innerFired;
            inner.reset();
            outer.reset();
            QTimer::singleShot(4 * int(intervalMs), &nested, &QEventLoop::quit);
        });
        // Never reached when it works: the test fails below, it does not hang.
        QTimer::singleShot(10000, &nested, &QEventLoop::quit);
        inner->start(0);
        nested.exec();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        outerDone = true;
    });
    outer->start(0);
    QTRY_VERIFY_WITH_TIMEOUT(outerDone, 10000);
    QCOMPARE(innerFired, 1);
    QTRY_COMPARE_WITH_TIMEOUT(timerDescriptors(), before, 10000);

    BootTimer next;
    QSignalSpy fired(&next, &BootTimer::timeout);
    next.start(0);
    QVERIFY(fired.wait(10000));
}

QTEST_GUILESS_MAIN(TestBootTimer)
#include "tst_boottimer.moc"
