#include "registrations.h"

#include <QPointer>
#include <QPromise>
#include <QRegularExpression>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <atomic>
#include <deque>
#include <memory>
#include <stdexcept>

using namespace baton;

namespace {

const QString kLease = QStringLiteral("tst-lease");

enum class Failure { ThrowsStdException, ThrowsOtherType, ReturnsFailedFuture, ReturnsCanceledFuture, FailsLater };

LeaderCallback record(QStringList *log, const QString &event)
{
    return toLeaderCallback([log, event] { log->append(event); });
}

/*! Records an event into \a log once the event loop turns again. */
void recordOnNextTurn(QStringList *log, const QString &event)
{
    QMetaObject::invokeMethod(QCoreApplication::instance(), [log, event] { log->append(event); },
                              Qt::QueuedConnection);
}

/*!
 * An asynchronous callback: each call logs "<name>" and returns a future the
 * test completes with finish(), which logs "<name> done".
 */
class AsyncCallback
{
public:
    AsyncCallback(QStringList *log, QString name)
        : m_log(log)
        , m_name(std::move(name))
    {
    }

    LeaderCallback callback()
    {
        return [this] {
            m_log->append(m_name);
            QPromise<void> &promise = m_pending.emplace_back();
            promise.start();
            return promise.future();
        };
    }

    int pendingCount() const { return int(m_pending.size()); }

    void finish()
    {
        QVERIFY(!m_pending.empty());
        m_log->append(m_name + QStringLiteral(" done"));
        m_pending.front().finish();
        m_pending.pop_front();
    }

private:
    QStringList *m_log;
    QString m_name;
    std::deque<QPromise<void>> m_pending;
};

struct NotAStdException
{
};

LeaderCallback failingCallback(Failure failure)
{
    switch (failure) {
    case Failure::ThrowsStdException:
        return toLeaderCallback([] { throw std::runtime_error("boom"); });
    case Failure::ThrowsOtherType:
        return toLeaderCallback([] { throw NotAStdException(); });
    case Failure::ReturnsFailedFuture:
        return [] {
            QPromise<void> promise;
            promise.start();
            promise.setException(std::make_exception_ptr(std::runtime_error("boom")));
            promise.finish();
            return promise.future();
        };
    case Failure::ReturnsCanceledFuture:
        return [] {
            QPromise<void> promise;
            promise.start();
            promise.future().cancel();
            promise.finish();
            return promise.future();
        };
    case Failure::FailsLater:
        return [] {
            auto promise = std::make_shared<QPromise<void>>();
            promise->start();
            QMetaObject::invokeMethod(QCoreApplication::instance(), [promise] {
                promise->setException(std::make_exception_ptr(std::runtime_error("boom")));
                promise->finish();
            }, Qt::QueuedConnection);
            return promise->future();
        };
    }
    return {};
}

/*! A context object living in its own running thread. */
class ContextThread
{
public:
    ContextThread()
        : context(new QObject)
    {
        thread.start();
        context->moveToThread(&thread);
    }
    ~ContextThread()
    {
        destroyContext();
        thread.quit();
        thread.wait();
    }
    void destroyContext()
    {
        if (!context)
            return;
        QObject *doomed = context;
        QMetaObject::invokeMethod(doomed, [doomed] { delete doomed; }, Qt::BlockingQueuedConnection);
    }

    QThread thread;
    QPointer<QObject> context;
};

} // namespace

Q_DECLARE_METATYPE(Failure)

class TestRegistrations : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void callbacksFollowLeadership_data();
    void callbacksFollowLeadership();
    void registeringWhileLeadingRunsFnOnTheNextTurn();
    void registrationsStartInRegistrationOrder();
    void deregistrationWaitsForPendingFn();
    void newFnWaitsForPendingDeregistration();
    void flappingWhileFnIsPendingAlternatesCallbacks();
    void futureFinishedInAnotherThreadContinuesHere();
    void failingCallbackIsLoggedAndIgnored_data();
    void failingCallbackIsLoggedAndIgnored();
    void removing_data();
    void removing();
    void removingWhileFnIsPendingWaitsForIt();
    void removingFromInsideFn();
    void removingAnotherRegistrationFromInsideFn();
    void contextDestroyedWhileLeading();
    void contextDestroyedWhileFnIsPending();
    void callbacksRunInContextThread();
    void failureInContextThreadIsLogged();
    void contextDestroyedInItsThread();
    void leadingCheckRefusesFn();
    void idleFollowsAsynchronousWork();
    void destroyingWithPendingCallbacksIsSafe();
};

void TestRegistrations::callbacksFollowLeadership_data()
{
    QTest::addColumn<QList<bool>>("changes");
    QTest::addColumn<QStringList>("expected");

    // W2
    QTest::newRow("becoming leader runs fn") << QList<bool>{true} << QStringList{"fn"};
    QTest::newRow("stopping leading runs deregisteredFn")
        << QList<bool>{true, false} << QStringList{"fn", "dereg"};
    QTest::newRow("following from the start runs nothing") << QList<bool>{false} << QStringList{};
    QTest::newRow("announcing leadership twice runs fn once")
        << QList<bool>{true, true} << QStringList{"fn"};
    QTest::newRow("announcing following twice runs deregisteredFn once")
        << QList<bool>{true, false, false} << QStringList{"fn", "dereg"};
    // W1, W3: flapping still alternates
    QTest::newRow("flapping alternates fn and deregisteredFn")
        << QList<bool>{true, false, true, false} << QStringList{"fn", "dereg", "fn", "dereg"};
}

void TestRegistrations::callbacksFollowLeadership()
{
    QFETCH(QList<bool>, changes);
    QFETCH(QStringList, expected);

    Registrations registrations(kLease);
    QStringList log;
    registrations.add(record(&log, "fn"), record(&log, "dereg"));
    for (const bool leading : changes)
        registrations.setLeading(leading);

    QCOMPARE(log, expected);
    QVERIFY(registrations.isIdle());
}

void TestRegistrations::registeringWhileLeadingRunsFnOnTheNextTurn()
{
    // W1: queued, not run inside add(), and not later than the next turn.
    Registrations registrations(kLease);
    registrations.setLeading(true);
    QStringList log;
    registrations.add(record(&log, "fn"), record(&log, "dereg"));
    QVERIFY(log.isEmpty());
    QVERIFY(!registrations.isIdle());
    recordOnNextTurn(&log, "next turn");

    QTRY_COMPARE(log, (QStringList{"fn", "next turn"}));
    QVERIFY(registrations.isIdle());
}

void TestRegistrations::registrationsStartInRegistrationOrder()
{
    Registrations registrations(kLease);
    QStringList log;
    registrations.add(record(&log, "fn 1"), record(&log, "dereg 1"));
    registrations.add(record(&log, "fn 2"), record(&log, "dereg 2"));
    registrations.add(record(&log, "fn 3"), {});
    QCOMPARE(registrations.count(), 3);

    registrations.setLeading(true);
    registrations.setLeading(false);

    QCOMPARE(log, (QStringList{"fn 1", "fn 2", "fn 3", "dereg 1", "dereg 2"}));
}

void TestRegistrations::deregistrationWaitsForPendingFn()
{
    // W3
    Registrations registrations(kLease);
    QStringList log;
    AsyncCallback fn(&log, "fn");
    registrations.add(fn.callback(), record(&log, "dereg"));

    registrations.setLeading(true);
    registrations.setLeading(false);
    QCOMPARE(log, QStringList{"fn"});

    fn.finish();
    QTRY_COMPARE(log, (QStringList{"fn", "fn done", "dereg"}));
}

void TestRegistrations::newFnWaitsForPendingDeregistration()
{
    // W3
    Registrations registrations(kLease);
    QStringList log;
    AsyncCallback dereg(&log, "dereg");
    registrations.add(record(&log, "fn"), dereg.callback());

    registrations.setLeading(true);
    registrations.setLeading(false);
    registrations.setLeading(true);
    QCOMPARE(log, (QStringList{"fn", "dereg"}));

    dereg.finish();
    QTRY_COMPARE(log, (QStringList{"fn", "dereg", "dereg done", "fn"}));
}

void TestRegistrations::flappingWhileFnIsPendingAlternatesCallbacks()
{
    // W2, W3: the second leadership period gets its own fn, after the
    // deregisteredFn of the first.
    Registrations registrations(kLease);
    QStringList log;
    AsyncCallback fn(&log, "fn");
    registrations.add(fn.callback(), record(&log, "dereg"));

    registrations.setLeading(true);
    registrations.setLeading(false);
    registrations.setLeading(true);
    QCOMPARE(log, QStringList{"fn"});

    fn.finish();
    QTRY_COMPARE(log, (QStringList{"fn", "fn done", "dereg", "fn"}));
    QCOMPARE(fn.pendingCount(), 1);
    QVERIFY(!registrations.isIdle());
    fn.finish();
    QTRY_VERIFY(registrations.isIdle());
}

void TestRegistrations::futureFinishedInAnotherThreadContinuesHere()
{
    // C3: the deregisteredFn runs in the registrations' thread even when the
    // fn's future finishes in a worker thread.
    Registrations registrations(kLease);
    auto promise = std::make_shared<QPromise<void>>();
    std::atomic<QThread *> deregThread = nullptr;
    registrations.add([promise] {
        promise->start();
        return promise->future();
    }, toLeaderCallback([&deregThread] { deregThread = QThread::currentThread(); }));
    registrations.setLeading(true);
    registrations.setLeading(false);

    std::unique_ptr<QThread> worker(QThread::create([promise] { promise->finish(); }));
    worker->start();
    QVERIFY(worker->wait());

    QTRY_VERIFY(deregThread.load() != nullptr);
    QCOMPARE(deregThread.load(), QThread::currentThread());
}

void TestRegistrations::failingCallbackIsLoggedAndIgnored_data()
{
    QTest::addColumn<Failure>("failure");
    QTest::addColumn<bool>("failingFn");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QStringList>("expected");

    // W4: the failing registration's other callback and the other
    // registration still run.
    const QStringList afterFailingFn{"other fn", "failing dereg", "other dereg"};
    QTest::newRow("fn throwing a std::exception")
        << Failure::ThrowsStdException << true << "threw: boom" << afterFailingFn;
    QTest::newRow("fn throwing something else")
        << Failure::ThrowsOtherType << true << "threw an exception that is not a std::exception"
        << afterFailingFn;
    QTest::newRow("fn returning a failed future")
        << Failure::ReturnsFailedFuture << true << "returned a failed future: boom" << afterFailingFn;
    QTest::newRow("fn returning a canceled future")
        << Failure::ReturnsCanceledFuture << true << "returned a canceled future" << afterFailingFn;
    QTest::newRow("fn whose future fails later")
        << Failure::FailsLater << true << "returned a failed future: boom"
        << QStringList{"other fn", "other dereg", "failing dereg"};

    const QStringList afterFailingDereg{"failing fn", "other fn", "other dereg", "failing fn",
                                        "other fn"};
    QTest::newRow("deregisteredFn throwing a std::exception")
        << Failure::ThrowsStdException << false << "threw: boom" << afterFailingDereg;
    QTest::newRow("deregisteredFn returning a failed future")
        << Failure::ReturnsFailedFuture << false << "returned a failed future: boom"
        << afterFailingDereg;
}

void TestRegistrations::failingCallbackIsLoggedAndIgnored()
{
    QFETCH(Failure, failure);
    QFETCH(bool, failingFn);
    QFETCH(QString, message);
    QFETCH(QStringList, expected);

    Registrations registrations(kLease);
    QStringList log;
    const quint64 failing = failingFn
        ? registrations.add(failingCallback(failure), record(&log, "failing dereg"))
        : registrations.add(record(&log, "failing fn"), failingCallback(failure));
    registrations.add(record(&log, "other fn"), record(&log, "other dereg"));

    const QString pattern = QStringLiteral("^%1 of registration %2 on lease \"%3\" %4$")
                                .arg(failingFn ? "fn" : "deregisteredFn")
                                .arg(failing)
                                .arg(kLease, QRegularExpression::escape(message));
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(pattern));

    registrations.setLeading(true);
    registrations.setLeading(false);
    if (!failingFn)
        registrations.setLeading(true);

    QTRY_COMPARE(log, expected);
    QTRY_VERIFY(registrations.isIdle());
}

void TestRegistrations::removing_data()
{
    QTest::addColumn<bool>("leading");
    QTest::addColumn<int>("removals");
    QTest::addColumn<QStringList>("expected");

    // W5
    QTest::newRow("removing while leading runs deregisteredFn")
        << true << 1 << QStringList{"fn", "dereg"};
    QTest::newRow("removing while following runs nothing") << false << 1 << QStringList{};
    QTest::newRow("removing twice runs deregisteredFn once")
        << true << 2 << QStringList{"fn", "dereg"};
}

void TestRegistrations::removing()
{
    QFETCH(bool, leading);
    QFETCH(int, removals);
    QFETCH(QStringList, expected);

    Registrations registrations(kLease);
    QStringList log;
    const quint64 id = registrations.add(record(&log, "fn"), record(&log, "dereg"));
    registrations.setLeading(leading);
    registrations.remove(id + 100); // unknown: harmless
    QCOMPARE(registrations.count(), 1);

    for (int i = 0; i < removals; ++i)
        registrations.remove(id);
    QCOMPARE(registrations.count(), 0);
    QCOMPARE(log, expected);

    // Gone for good: later leadership changes run nothing.
    registrations.setLeading(!leading);
    registrations.setLeading(leading);
    QCOMPARE(log, expected);
}

void TestRegistrations::removingWhileFnIsPendingWaitsForIt()
{
    // W3, W5
    Registrations registrations(kLease);
    QStringList log;
    AsyncCallback fn(&log, "fn");
    const quint64 id = registrations.add(fn.callback(), record(&log, "dereg"));
    registrations.setLeading(true);

    registrations.remove(id);
    QCOMPARE(registrations.count(), 0);
    QCOMPARE(log, QStringList{"fn"});

    fn.finish();
    QTRY_COMPARE(log, (QStringList{"fn", "fn done", "dereg"}));
}

void TestRegistrations::removingFromInsideFn()
{
    // W5: the deregisteredFn runs once the fn that removed it returns.
    Registrations registrations(kLease);
    QStringList log;
    quint64 id = 0;
    id = registrations.add(toLeaderCallback([&] {
        log.append("fn");
        registrations.remove(id);
        log.append("removed");
    }), record(&log, "dereg"));

    registrations.setLeading(true);
    QCOMPARE(log, (QStringList{"fn", "removed", "dereg"}));
    QCOMPARE(registrations.count(), 0);
    registrations.setLeading(false);
    registrations.setLeading(true);
    QCOMPARE(log, (QStringList{"fn", "removed", "dereg"}));
}

void TestRegistrations::removingAnotherRegistrationFromInsideFn()
{
    Registrations registrations(kLease);
    QStringList log;
    quint64 second = 0;
    registrations.add(toLeaderCallback([&] {
        log.append("first fn");
        registrations.remove(second);
    }), record(&log, "first dereg"));
    second = registrations.add(record(&log, "second fn"), record(&log, "second dereg"));

    registrations.setLeading(true);
    registrations.setLeading(false);
    QCOMPARE(log, (QStringList{"first fn", "first dereg"}));
    QCOMPARE(registrations.count(), 1);
}

void TestRegistrations::contextDestroyedWhileLeading()
{
    // W6: the registration goes with its context, with the rule of W5: fn
    // had run, so deregisteredFn runs, in the registrations' thread.
    Registrations registrations(kLease);
    QStringList log;
    auto *context = new QObject;
    registrations.add(record(&log, "fn"), record(&log, "dereg"), context);
    registrations.setLeading(true);
    QCOMPARE(log, QStringList{"fn"});

    delete context;
    QCOMPARE(registrations.count(), 0);
    QCOMPARE(log, (QStringList{"fn", "dereg"}));
    registrations.setLeading(false);
    registrations.setLeading(true);
    recordOnNextTurn(&log, "next turn");
    QTRY_COMPARE(log, (QStringList{"fn", "dereg", "next turn"}));
    QVERIFY(registrations.isIdle());
}

void TestRegistrations::contextDestroyedWhileFnIsPending()
{
    // W6, W3
    Registrations registrations(kLease);
    QSignalSpy idleSpy(&registrations, &Registrations::idle);
    QStringList log;
    AsyncCallback fn(&log, "fn");
    auto *context = new QObject;
    registrations.add(fn.callback(), record(&log, "dereg"), context);
    registrations.setLeading(true);

    delete context;
    QCOMPARE(registrations.count(), 0);
    QVERIFY(!registrations.isIdle());

    fn.finish();
    QVERIFY(idleSpy.wait());
    QCOMPARE(log, (QStringList{"fn", "fn done", "dereg"}));
    QVERIFY(registrations.isIdle());
}

void TestRegistrations::callbacksRunInContextThread()
{
    // W6, C3
    ContextThread worker;
    Registrations registrations(kLease);
    std::atomic<QThread *> fnThread = nullptr;
    std::atomic<QThread *> deregThread = nullptr;
    std::atomic<int> fnRuns = 0;
    registrations.add(toLeaderCallback([&] {
        fnThread = QThread::currentThread();
        ++fnRuns;
    }), toLeaderCallback([&] { deregThread = QThread::currentThread(); }), worker.context);

    registrations.setLeading(true);
    QTRY_VERIFY(fnThread.load() != nullptr);
    QCOMPARE(fnThread.load(), &worker.thread);
    QTRY_VERIFY(registrations.isIdle());

    registrations.setLeading(false);
    QTRY_VERIFY(deregThread.load() != nullptr);
    QCOMPARE(deregThread.load(), &worker.thread);
    QTRY_VERIFY(registrations.isIdle());
    QCOMPARE(fnRuns.load(), 1);
}

void TestRegistrations::failureInContextThreadIsLogged()
{
    // W4, W6: the failure comes back to the registrations' thread; the
    // deregisteredFn still runs in the context's thread.
    ContextThread worker;
    Registrations registrations(kLease);
    std::atomic<QThread *> deregThread = nullptr;
    const quint64 id = registrations.add(failingCallback(Failure::ThrowsStdException),
                                         toLeaderCallback([&] { deregThread = QThread::currentThread(); }),
                                         worker.context);
    QTest::ignoreMessage(QtWarningMsg,
                         QRegularExpression(QStringLiteral("^fn of registration %1 on lease \"%2\" threw: boom$")
                                                .arg(id)
                                                .arg(kLease)));

    registrations.setLeading(true);
    QTRY_VERIFY(registrations.isIdle());
    registrations.setLeading(false);
    QTRY_VERIFY(deregThread.load() != nullptr);
    QCOMPARE(deregThread.load(), &worker.thread);
}

void TestRegistrations::contextDestroyedInItsThread()
{
    // W6
    ContextThread worker;
    Registrations registrations(kLease);
    std::atomic<int> fnRuns = 0;
    std::atomic<int> deregRuns = 0;
    registrations.add(toLeaderCallback([&] { ++fnRuns; }), toLeaderCallback([&] { ++deregRuns; }),
                      worker.context);
    registrations.setLeading(true);
    QTRY_COMPARE(fnRuns.load(), 1);
    QTRY_VERIFY(registrations.isIdle());

    worker.destroyContext();
    QTRY_COMPARE(registrations.count(), 0);
    QTRY_COMPARE(deregRuns.load(), 1);
    registrations.setLeading(false);
    QVERIFY(registrations.isIdle());
    QCOMPARE(deregRuns.load(), 1);
}

void TestRegistrations::leadingCheckRefusesFn()
{
    // F4: no fn starts once the leader's deadline has passed.
    Registrations registrations(kLease);
    bool stillLeading = false;
    registrations.setLeadingCheck([&stillLeading] { return stillLeading; });
    QStringList log;
    registrations.add(record(&log, "fn"), record(&log, "dereg"));

    registrations.setLeading(true);
    registrations.add(record(&log, "late fn"), record(&log, "late dereg"));
    recordOnNextTurn(&log, "next turn");
    QTRY_COMPARE(log, QStringList{"next turn"});
    registrations.setLeading(false);
    QCOMPARE(log, QStringList{"next turn"});

    stillLeading = true;
    registrations.setLeading(true);
    registrations.setLeading(false);
    QCOMPARE(log, (QStringList{"next turn", "fn", "late fn", "dereg", "late dereg"}));
}

void TestRegistrations::idleFollowsAsynchronousWork()
{
    Registrations registrations(kLease);
    QSignalSpy idleSpy(&registrations, &Registrations::idle);
    QVERIFY(registrations.isIdle());
    QStringList log;
    AsyncCallback fn(&log, "fn");
    registrations.add(fn.callback(), record(&log, "dereg"));

    registrations.setLeading(true);
    QVERIFY(!registrations.isIdle());
    registrations.setLeading(false);
    QVERIFY(!registrations.isIdle());
    QCOMPARE(idleSpy.count(), 0);

    fn.finish();
    QVERIFY(idleSpy.wait());
    QCOMPARE(idleSpy.count(), 1);
    QVERIFY(registrations.isIdle());
    QCOMPARE(log, (QStringList{"fn", "fn done", "dereg"}));
}

void TestRegistrations::destroyingWithPendingCallbacksIsSafe()
{
    QStringList log;
    AsyncCallback fn(&log, "fn");
    ContextThread worker;
    QSemaphore workerBlocked;
    std::atomic<int> contextFnRuns = 0;
    // Keeps the worker busy, so the context's call stays queued behind this.
    QMetaObject::invokeMethod(worker.context, [&workerBlocked] { workerBlocked.acquire(); },
                              Qt::QueuedConnection);
    {
        Registrations registrations(kLease);
        registrations.add(fn.callback(), record(&log, "dereg"));
        registrations.add(toLeaderCallback([&] { ++contextFnRuns; }), {}, worker.context);
        registrations.setLeading(true);
        registrations.setLeading(false);
        QCOMPARE(log, QStringList{"fn"});
    }
    workerBlocked.release();
    fn.finish();
    QMetaObject::invokeMethod(worker.context, [] {}, Qt::BlockingQueuedConnection);
    recordOnNextTurn(&log, "next turn");

    QTRY_COMPARE(log, (QStringList{"fn", "fn done", "next turn"}));
    QCOMPARE(contextFnRuns.load(), 0);
}

QTEST_GUILESS_MAIN(TestRegistrations)

#include "tst_registrations.moc"
