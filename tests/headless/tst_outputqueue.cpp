// OutputQueue (R6): the lines of the event stream and the log, written by a
// thread of their own to a pipe whose reader the test is. A reader that
// does not read never holds up push(); lines dropped in a row are one gap,
// marked in its place once the reader has caught up; a stop's drain gives
// up after its bound; a write error ends an output that stops on errors.

#include "outputqueue.h"

#include <QByteArrayList>
#include <QTest>
#include <QTimer>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

using namespace baton;
using namespace std::chrono_literals;

namespace {

/*! A pipe with the smallest buffer Linux allows, its read end non-blocking. */
struct Pipe
{
    int read = -1;
    int write = -1;
    Pipe()
    {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0)
            return;
        read = fds[0];
        write = fds[1];
        ::fcntl(read, F_SETFL, O_NONBLOCK);
        ::fcntl(read, F_SETPIPE_SZ, 4096);
    }
    ~Pipe()
    {
        closeRead();
        if (write >= 0)
            ::close(write);
    }
    void closeRead()
    {
        if (read >= 0)
            ::close(read);
        read = -1;
    }
    bool isValid() const { return read >= 0 && write >= 0; }
    QByteArray readAvailable() const
    {
        QByteArray bytes;
        char buffer[65536];
        ssize_t n = 0;
        while ((n = ::read(read, buffer, sizeof buffer)) > 0)
            bytes.append(buffer, n);
        return bytes;
    }
};

/*! Fills the pipe with "fill\n" lines until a write would block; how many. */
qsizetype fillPipe(const Pipe &pipe)
{
    qsizetype lines = 0;
    ::fcntl(pipe.write, F_SETFL, O_NONBLOCK);
    while (::write(pipe.write, "fill\n", 5) == 5)
        ++lines;
    ::fcntl(pipe.write, F_SETFL, 0);
    return lines;
}

QByteArray lineNumber(int i)
{
    return QByteArray("line ") + QByteArray::number(i) + QByteArray(90, '.') + '\n';
}

OutputQueue::Options optionsFor(const Pipe &pipe)
{
    OutputQueue::Options options;
    options.fd = pipe.write;
    options.maxBytes = OutputQueue::minimumBytes;
    options.gapMarker = [](quint64 count) { return QByteArray("gap ") + QByteArray::number(count) + '\n'; };
    return options;
}

} // namespace

class TestOutputQueue : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aReaderThatDoesNotReadLosesLinesButNeverHoldsUpPush();
    void drainGivesUpAfterItsBoundWhenNobodyReadsAndEndsWhenAllIsRead();
    void aWriteErrorEndsAnOutputThatStopsOnErrorsAndSaysSoOnce();
    void aLineTheLogCannotWriteIsCountedAndTheLogGoesOn();
    void linesLeftWhenTheCallerClosesItsDescriptorNeverReachTheNumberReused();
};

// R6: 1000 lines into a pipe nobody reads: push() returns each time (a
// blocking write would never come back), the lines that fit are queued in
// order, the rest dropped and counted as one gap; once the reader has
// read everything, the gap's marker comes before the next line.
void TestOutputQueue::aReaderThatDoesNotReadLosesLinesButNeverHoldsUpPush()
{
    Pipe pipe;
    QVERIFY2(pipe.isValid(), std::strerror(errno));
    // The pipe is full before the first line, so that the queue fills
    // behind it however fast the writer's thread runs: one gap, exactly.
    const qsizetype filled = fillPipe(pipe);
    OutputQueue queue(optionsFor(pipe));
    QList<int> queued;
    int firsts = 0;
    quint64 dropped = 0;
    for (int i = 0; i < 1000; ++i) {
        switch (queue.push(lineNumber(i))) {
        case OutputQueue::Result::Queued:
            queued.append(i);
            break;
        case OutputQueue::Result::DroppedFirst:
            ++firsts;
            ++dropped;
            break;
        case OutputQueue::Result::Dropped:
            ++dropped;
            break;
        case OutputQueue::Result::Closed:
            QFAIL("the queue closed without a write error");
        }
    }
    QVERIFY(dropped > 0);
    QCOMPARE(firsts, 1); // one gap, however long
    QCOMPARE(queue.dropped(), dropped);
    QCOMPARE(queued.size() + qsizetype(dropped), qsizetype(1000));

    // The reader catches up: everything queued, in order, each line whole.
    QByteArray stream;
    QTRY_COMPARE_WITH_TIMEOUT((stream += pipe.readAvailable()).count('\n'), filled + queued.size(), 20000);
    QVERIFY(stream.startsWith(QByteArray("fill\n").repeated(filled)));
    stream.remove(0, filled * 5);
    QCOMPARE(queue.push("after\n"), OutputQueue::Result::Queued);
    QVERIFY(queue.drain(10s));
    stream += pipe.readAvailable();
    QByteArrayList lines = stream.split('\n');
    QCOMPARE(lines.takeLast(), QByteArray()); // ends with a newline
    QCOMPARE(lines.size(), queued.size() + 2);
    for (qsizetype i = 0; i < queued.size(); ++i)
        QCOMPARE(lines.at(i) + '\n', lineNumber(queued.at(i)));
    QCOMPARE(lines.at(queued.size()), QByteArray("gap ") + QByteArray::number(dropped));
    QCOMPARE(lines.constLast(), QByteArray("after"));
    QCOMPARE(queue.dropped(), dropped); // a marker is not a line dropped
}

// R6: the stop's drain waits for a reader that does not read no longer
// than its bound, and for one that reads, until all is written.
void TestOutputQueue::drainGivesUpAfterItsBoundWhenNobodyReadsAndEndsWhenAllIsRead()
{
    Pipe pipe;
    QVERIFY2(pipe.isValid(), std::strerror(errno));
    OutputQueue queue(optionsFor(pipe));
    // The pipe is full before the first line: the queue fills behind it.
    fillPipe(pipe);
    int i = 0;
    while (queue.push(lineNumber(i++)) == OutputQueue::Result::Queued) {
    }
    QVERIFY(!queue.drain(200ms));
    // A reader of its own reads meanwhile: the drain ends with all written,
    // the gap marked.
    QByteArray stream;
    QTimer reader;
    connect(&reader, &QTimer::timeout, this, [&stream, &pipe] { stream += pipe.readAvailable(); });
    reader.start(10);
    QTRY_VERIFY_WITH_TIMEOUT(queue.drain(0ms), 20000);
    reader.stop();
    stream += pipe.readAvailable();
    QVERIFY(stream.startsWith("fill\n"));
    QVERIFY2(stream.endsWith("gap 1\n"), stream.right(200).constData());
}

// O5, R6: the event stream's reader is gone: the failure is reported once,
// with its errno, and nothing is queued any more.
void TestOutputQueue::aWriteErrorEndsAnOutputThatStopsOnErrorsAndSaysSoOnce()
{
    Pipe pipe;
    QVERIFY2(pipe.isValid(), std::strerror(errno));
    OutputQueue::Options options = optionsFor(pipe);
    options.stopOnError = true;
    std::atomic<int> failures {0};
    std::atomic<int> error {0};
    options.failed = [&failures, &error](int e) {
        error = e;
        ++failures;
    };
    OutputQueue queue(std::move(options));
    pipe.closeRead();
    QCOMPARE(queue.push("one\n"), OutputQueue::Result::Queued);
    QTRY_COMPARE_WITH_TIMEOUT(queue.push("more\n"), OutputQueue::Result::Closed, 10000);
    QCOMPARE(failures.load(), 1);
    QCOMPARE(error.load(), EPIPE);
    QVERIFY(!queue.drain(0ms));
}

// R6: a line the log cannot take (a full disk; here a closed pipe) is
// dropped and counted as one the queue had no room for, and the log goes on.
void TestOutputQueue::aLineTheLogCannotWriteIsCountedAndTheLogGoesOn()
{
    Pipe pipe;
    QVERIFY2(pipe.isValid(), std::strerror(errno));
    OutputQueue queue(optionsFor(pipe));
    pipe.closeRead();
    QCOMPARE(queue.push("one\n"), OutputQueue::Result::Queued);
    QTRY_COMPARE_WITH_TIMEOUT(queue.dropped(), quint64(1), 10000);
    QCOMPARE(queue.push("two\n"), OutputQueue::Result::Queued);
    QTRY_COMPARE_WITH_TIMEOUT(queue.dropped(), quint64(2), 10000);
}

// R6: the queue is destroyed with lines still waiting for a reader, and
// the caller closes its descriptor; the number, reused by another pipe
// (here on purpose, with dup2), must not receive them: they go where they
// were pushed for, and the thread lets go of its duplicate once done.
void TestOutputQueue::linesLeftWhenTheCallerClosesItsDescriptorNeverReachTheNumberReused()
{
    Pipe pushedFor;
    Pipe reuser;
    QVERIFY2(pushedFor.isValid() && reuser.isValid(), std::strerror(errno));
    const qsizetype filled = fillPipe(pushedFor);
    const int number = pushedFor.write;
    {
        OutputQueue queue(optionsFor(pushedFor));
        for (int i = 0; i < 3; ++i)
            QCOMPARE(queue.push(lineNumber(i)), OutputQueue::Result::Queued);
    }
    QCOMPARE(::dup2(reuser.write, number), number); // closes the caller's, takes the number
    QByteArray stream;
    bool ended = false;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            char buffer[65536];
            ssize_t n = 0;
            while ((n = ::read(pushedFor.read, buffer, sizeof buffer)) > 0)
                stream.append(buffer, n);
            ended = n == 0;
            return ended;
        }(),
        20000);
    QCOMPARE(stream, QByteArray("fill\n").repeated(filled) + lineNumber(0) + lineNumber(1) + lineNumber(2));
    QCOMPARE(reuser.readAvailable(), QByteArray());
}

QTEST_GUILESS_MAIN(TestOutputQueue)
#include "tst_outputqueue.moc"
