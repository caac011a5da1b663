// The way of a renewal on etcd through our own code, read from the real
// program's stack: `baton join` on the etcd fixture runs under gdb, which
// prints the stack where the renewal's txn goes to QNetworkAccessManager and
// where its answer reaches the Elector. A breakpoint, not a counter in the
// code: it costs the product nothing, counts the frames the compiler really
// made (inlined ones included, from the debug information) and needs no
// test hook; a build without debug information skips, saying so.

#include "etcdfixture.h"
#include "participants.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using namespace baton;
using namespace baton::test;

namespace {

// The bounds this tree keeps, frames of our own code (namespace baton) each
// way; docs/architecture.md lists them. Going over one means a function, or
// a turn of the event loop, came into the path of every renewal.
// Before EtcdLeaseProtocol: 13 out, and 7 back to a queued call, then 3
// more on the next turn; with it, 9 out and 7 back, then 6 and 5. Since
// the renewals of one turn go together at its end, the way out is in two:
// queued, from the wake timer to the batcher's queue (3), and out, from
// the batcher's call at the end of that turn to the network (4).
constexpr int kMaxFramesQueued = 3;
constexpr int kMaxFramesOut = 4;
constexpr int kMaxFramesBack = 4;

/*! One frame of a stack gdb printed. */
struct Frame
{
    QString function;
    /*! The source file, as the debug information names it; empty without. */
    QString file;

    /*! Ours: built from this tree (lambdas show as `operator()`, so the file tells). */
    bool ours() const { return !file.isEmpty() && !file.startsWith(QLatin1String("/usr/")); }
    /*! The standard library's (std::function's calls between two of ours). */
    bool standard() const { return file.contains(QLatin1String("/c++/")); }
};

/*! One stack gdb printed: `queued` as a renewal waits for the turn's end, `out` at the send, `back` at the Elector's answer. */
struct Stack
{
    QString where;
    QList<Frame> frames; // innermost first
};

QList<Stack> parseStacks(const QByteArray &output)
{
    static const QRegularExpression frameLine(
            QStringLiteral(R"(^#\d+\s+(?:0x[0-9a-f]+ in )?(.+?)(?: \(.*)?$)"));
    static const QRegularExpression at(QStringLiteral(R"( at (\S+):\d+$)"));
    QList<Stack> stacks;
    Stack *current = nullptr;
    for (const QByteArray &raw : output.split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.startsWith(QLatin1String("@@BT "))) {
            stacks.append(Stack { line.mid(5), {} });
            current = &stacks.last();
        } else if (line == QLatin1String("@@END")) {
            current = nullptr;
        } else if (current) {
            const QRegularExpressionMatch match = frameLine.match(line);
            if (match.hasMatch())
                current->frames.append({ match.captured(1), at.match(line).captured(1) });
        }
    }
    return stacks;
}

bool contains(const Stack &stack, const QString &part)
{
    for (const Frame &frame : stack.frames)
        if (frame.function.contains(part))
            return true;
    return false;
}

/*!
 * The frames of our code from the innermost of ours outwards, up to the
 * first that is neither ours nor the standard library's (Qt's: the signal
 * or the timer that called in), each as `function (file)`.
 */
QStringList ourRun(const Stack &stack)
{
    QStringList run;
    for (const Frame &frame : stack.frames) {
        if (frame.ours())
            run.append(QStringLiteral("%1 (%2)").arg(frame.function.section(QLatin1Char('('), 0, 0),
                                                     frame.file.section(QLatin1Char('/'), -1)));
        else if (!run.isEmpty() && !frame.standard())
            break;
    }
    return run;
}

} // namespace

class TestEtcdRenewalPath : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void aRenewalTakesFewFunctionsAndNoExtraTurn();

private:
    EtcdFixture m_etcd { "BATON_ETCD_DIR" };
    QTemporaryDir m_dir;
    QString m_gdb;
};

void TestEtcdRenewalPath::initTestCase()
{
    if (!m_etcd.configured())
        QSKIP("no etcd fixture: run through ctest");
    QVERIFY2(!batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY2(!m_etcd.endpoints().isEmpty(), qPrintable(m_etcd.errorString()));
    QVERIFY(m_dir.isValid());
    m_gdb = QStandardPaths::findExecutable(QStringLiteral("gdb"));
    if (m_gdb.isEmpty())
        QSKIP("gdb is not installed (setup.sh installs it)");
}

// P3: the renewals of a turn go to the network at its end in a bounded
// number of our functions, and each answer comes back to the Elector in the
// same turn of the event loop that read it from the socket.
void TestEtcdRenewalPath::aRenewalTakesFewFunctionsAndNoExtraTurn()
{
    const QJsonObject config {
        { QStringLiteral("services"),
          QJsonObject {
              { QStringLiteral("Registry"),
                QJsonObject { { QStringLiteral("type"), QStringLiteral("Webda/EtcdStore") },
                              { QStringLiteral("endpoints"), QJsonArray::fromStringList(m_etcd.endpoints()) },
                              { QStringLiteral("prefix"),
                                QStringLiteral("path/%1/").arg(QUuid::createUuid().toString(QUuid::Id128)) },
                              { QStringLiteral("timeout"), 10000 } } },
              { QStringLiteral("cluster"),
                QJsonObject { { QStringLiteral("type"), QStringLiteral("Webda/StoreClusterService") },
                              { QStringLiteral("leaseName"), QStringLiteral("path") },
                              // Long: the stops at the breakpoints must not cost the lease.
                              { QStringLiteral("leaseDuration"), 30000 },
                              // Longer than a round trip with two stops at
                              // the breakpoints, so that renewals come from
                              // the wake timer, not already due at an answer.
                              { QStringLiteral("renewInterval"), 2000 } } } } }
    };
    const QString configPath = m_dir.filePath(QStringLiteral("path.json"));
    QVERIFY(writeJsonFile(configPath, config));

    // Every answer the Elector gets is printed; after eight (the
    // acquisition's and then renewals'), gdb ends the program and itself.
    const QString script = m_dir.filePath(QStringLiteral("path.gdb"));
    QFile file(script);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("set pagination off\n"
               "set confirm off\n"
               "set breakpoint pending on\n"
               "set print thread-events off\n"
               "set print inferior-events off\n"
               "set width 0\n"
               "set $answers = 0\n"
               "break QNetworkAccessManager::sendCustomRequest\n"
               "commands\nsilent\necho @@BT out\\n\nbt\necho @@END\\n\ncontinue\nend\n"
               "break baton::EtcdUpdateBatcher::sendSoon\n"
               "commands\nsilent\necho @@BT queued\\n\nbt\necho @@END\\n\ncontinue\nend\n"
               "break baton::Elector::onReply\n"
               "commands\nsilent\necho @@BT back\\n\nbt\necho @@END\\n\n"
               "set $answers = $answers + 1\n"
               "if $answers >= 8\nkill\nquit\nend\ncontinue\nend\n"
               "run\n"
               "kill\nquit\n");
    file.close();

    QProcess gdb;
    gdb.setProcessChannelMode(QProcess::MergedChannels);
    gdb.start(m_gdb, { QStringLiteral("-batch"), QStringLiteral("-nx"), QStringLiteral("-x"), script,
                       QStringLiteral("--args"), batonBinary(), QStringLiteral("join"),
                       QStringLiteral("--config"), configPath });
    QVERIFY2(gdb.waitForStarted(), qPrintable(gdb.errorString()));
    const bool finished = gdb.waitForFinished(int(scaledMs(120000)));
    if (!finished) {
        gdb.kill();
        gdb.waitForFinished();
    }
    const QByteArray output = gdb.readAll();
    QVERIFY2(finished, output.right(4000).constData());

    const QList<Stack> stacks = parseStacks(output);
    // A container without the ptrace capability lets gdb start nothing.
    if (stacks.isEmpty() && output.contains("ptrace"))
        QSKIP(qPrintable(QStringLiteral("gdb cannot trace here: %1")
                                 .arg(QString::fromUtf8(output.left(300)))));
    QVERIFY2(!stacks.isEmpty(), output.right(4000).constData());
    // Without debug information (the Release presets) no frame names its
    // source, and neither our lambdas nor inlined functions can be told.
    bool debugInfo = false;
    for (const Stack &stack : stacks)
        for (const Frame &frame : stack.frames)
            debugInfo = debugInfo || frame.ours();
    if (!debugInfo)
        QSKIP("this build has no debug information: gdb cannot tell our frames");
    QList<Stack> queueds;
    QList<Stack> outs;
    QList<Stack> backs;
    for (const Stack &stack : stacks) {
        // A renewal queued by the wake timer (the steady path; one already
        // due when an answer comes is queued from that answer's turn).
        if (stack.where == QLatin1String("queued") && contains(stack, QStringLiteral("LeaseProtocol::update"))
            && contains(stack, QStringLiteral("BootTimer")))
            queueds.append(stack);
        // Renewals (and the candidate record's write) go from the batcher
        // at the end of the turn they were queued in, a posted call (its
        // lambda inlined away in an optimized build); once the leader
        // renews, every answer is a renewal's (the acquisition's came
        // first). What goes when an earlier txn is answered (the stops at
        // the breakpoints make the acquisition slow) is not the steady path.
        if (stack.where == QLatin1String("out") && contains(stack, QStringLiteral("EtcdUpdateBatcher::send"))
            && contains(stack, QStringLiteral("sendPostedEvents"))
            && !contains(stack, QStringLiteral("EtcdUpdateBatcher::answer")))
            outs.append(stack);
        if (stack.where == QLatin1String("back") && !outs.isEmpty())
            backs.append(stack);
    }
    QVERIFY2(!queueds.isEmpty() && !outs.isEmpty() && !backs.isEmpty(), output.right(4000).constData());

    // Each distinct run of frames is printed once, whichever way it was.
    QSet<QStringList> told;
    const auto tell = [&told](const char *way, const QStringList &run) {
        if (!told.contains(run))
            qInfo().noquote() << "renewal" << way << run.size() << "frames:" << run.join(QStringLiteral(" <- "));
        told.insert(run);
    };
    for (const Stack &queued : std::as_const(queueds)) {
        // From the batcher's queue out to the wake timer's slot.
        const QStringList run = ourRun(queued);
        tell("queued,", run);
        QVERIFY2(run.size() <= kMaxFramesQueued, qPrintable(run.join(QLatin1Char('\n'))));
    }
    for (const Stack &out : std::as_const(outs)) {
        // From the frame that called QNetworkAccessManager out to the timer's slot.
        const QStringList run = ourRun(out);
        tell("out,", run);
        QVERIFY2(run.size() <= kMaxFramesOut, qPrintable(run.join(QLatin1Char('\n'))));
    }
    for (const Stack &back : std::as_const(backs)) {
        // From the Elector out to the slot of the reply's finished(); the
        // Elector itself is not counted.
        QStringList run = ourRun(back);
        QVERIFY(!run.isEmpty());
        run.removeFirst();
        tell("back,", run);
        QVERIFY2(run.size() <= kMaxFramesBack, qPrintable(run.join(QLatin1Char('\n'))));
        // No turn of the event loop in between: the answer is still in the
        // slot that read the reply off the network.
        QVERIFY2(!run.isEmpty() && run.last().contains(QLatin1String("(httpclient.cpp)")),
                 qPrintable(run.join(QLatin1Char('\n'))));
    }
}

QTEST_GUILESS_MAIN(TestEtcdRenewalPath)
#include "tst_etcdrenewalpath.moc"
