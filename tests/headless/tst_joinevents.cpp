// `baton join --events json` whose reader goes away (O5, F5): the leader
// whose stdout is closed stops as on SIGTERM, says so once on stderr, exits
// with 1 rather than dying of SIGPIPE, and releases its lease, so the
// follower sees a release, not an expiry. Whose reader does not read, or
// reads slowly (R6): the election goes on, records are dropped and then
// counted in the stream, and a stop is not held up. Real processes on a
// file Registry, stdout a FIFO.

#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace baton;
using namespace baton::test;

namespace {

// A long lease: the follower can only see the leader go within it by a
// release (F5), never by an expiry (F6).
constexpr qint64 leaseMs = 20000;
constexpr qint64 renewMs = 500;

// A stalled reader: a short lease, so that a leader that stopped renewing
// would lose it within the test, and frequent records, so that the pipe
// and the queue fill in seconds.
qint64 stallLeaseMs()
{
    return scaledMs(4000);
}
qint64 stallRenewMs()
{
    return scaledMs(100);
}

/*! Everything \a fd (non-blocking) has now. */
QByteArray readAvailable(int fd)
{
    QByteArray bytes;
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n <= 0)
            return bytes;
        bytes.append(buffer, n);
    }
}

/*!
 * A FIFO in \a folder whose read end this test holds open without reading
 * (the reader of the event stream), its buffer the smallest the kernel
 * allows, so that a writer fills it with a few records.
 */
class StalledFifo
{
public:
    explicit StalledFifo(const QString &folder)
        : m_path(QDir(folder).filePath(QStringLiteral("events.fifo")))
    {
        QFile::remove(m_path);
        if (::mkfifo(QFile::encodeName(m_path).constData(), 0600) != 0)
            return;
        m_fd = ::open(QFile::encodeName(m_path).constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (m_fd >= 0)
            m_capacity = ::fcntl(m_fd, F_SETPIPE_SZ, 4096);
    }
    ~StalledFifo()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    bool isValid() const { return m_fd >= 0 && m_capacity > 0; }
    QString path() const { return m_path; }
    int fd() const { return m_fd; }
    /*! The writer has filled the pipe: a blocking write would wait now. */
    bool isFull() const
    {
        int queued = 0;
        return ::ioctl(m_fd, FIONREAD, &queued) == 0 && queued >= m_capacity - 512;
    }

private:
    QString m_path;
    int m_fd = -1;
    int m_capacity = -1;
};

/*!
 * A leader whose stdout (its event stream) or, with \a log, stderr (its
 * log, every attempt logged) is \a fifo; small queues, so that they fill soon.
 */
void startWithOutputTo(QProcess *process, const StalledFifo &fifo, const QString &config, bool log = false)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("BATON_OUTPUT_QUEUE_BYTES"), QStringLiteral("4096"));
    if (log) {
        environment.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("baton.*.debug=true"));
        process->setStandardErrorFile(fifo.path());
    } else {
        process->setStandardOutputFile(fifo.path());
    }
    process->setProcessEnvironment(environment);
    process->start(batonBinary(), {QStringLiteral("join"), QStringLiteral("--config"), config,
                                   QStringLiteral("--events"), QStringLiteral("json")});
}

bool isHeld(const QJsonObject &e)
{
    return e.value(QStringLiteral("event")) == QStringLiteral("attempt")
            && e.value(QStringLiteral("outcome")) == QStringLiteral("held");
}

const char droppingWarning[] = "the reader of the event stream (stdout) does not keep up";

/*!
 * The follower leads, after a leader-changed from "leader" that says
 * "released" (not an expiry), within \a boundMs; then it is stopped.
 * Check QTest::currentTestFailed() after it.
 */
void verifyTheFollowerTookTheReleasedLease(ParticipantProcess &follower, qint64 boundMs)
{
    QTRY_VERIFY_WITH_TIMEOUT(follower.isLeading(), int(boundMs));
    const QList<QJsonObject> events = follower.events();
    QVERIFY(std::any_of(events.cbegin(), events.cend(), [](const QJsonObject &e) {
        return e.value(QStringLiteral("event")) == QStringLiteral("leader-changed")
                && e.value(QStringLiteral("from")) == QStringLiteral("leader")
                && e.value(QStringLiteral("why")) == QStringLiteral("released");
    }));
    follower.sendSignal(SIGTERM);
    QTRY_VERIFY_WITH_TIMEOUT(!follower.isRunning(), int(boundMs));
}

} // namespace

class TestJoinEvents : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void aLeaderWhoseEventReaderIsGoneStopsAndReleases();
    void aReaderThatNeverReadsDelaysNeitherTheRenewalsNorTheStop_data();
    void aReaderThatNeverReadsDelaysNeitherTheRenewalsNorTheStop();
    void aSlowReaderIsToldHowManyRecordsItMissedOnceItCatchesUp();

private:
    QString writeConfig(const QString &instanceId, const QString &leaseName = QStringLiteral("events"),
                        qint64 lease = leaseMs, qint64 renew = renewMs);

    QTemporaryDir m_folder;
};

void TestJoinEvents::initTestCase()
{
    QVERIFY2(!batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
}

QString TestJoinEvents::writeConfig(const QString &instanceId, const QString &leaseName, qint64 lease,
                                    qint64 renew)
{
    const ParticipantConfig config {fileRegistry(m_folder.filePath(QStringLiteral("registry"))), leaseName,
                                    instanceId, lease, renew};
    return config.writeTo(m_folder.filePath(instanceId + QStringLiteral(".json")));
}

// O5, F5: the reader of a leader's event stream closes its end.
void TestJoinEvents::aLeaderWhoseEventReaderIsGoneStopsAndReleases()
{
    const QString leaderConfig = writeConfig(QStringLiteral("leader"));
    const QString followerConfig = writeConfig(QStringLiteral("follower"));
    QVERIFY(!leaderConfig.isEmpty() && !followerConfig.isEmpty());

    // The leader's stdout is a pipe to a reader of its own (cat), as under
    // `baton join --events json | consumer`; the test reads what cat passes on.
    QProcess reader;
    QProcess leader;
    leader.setStandardOutputProcess(&reader);
    reader.start(QStringLiteral("cat"), QStringList());
    QVERIFY(reader.waitForStarted());
    leader.start(batonBinary(), {QStringLiteral("join"), QStringLiteral("--config"), leaderConfig,
                                 QStringLiteral("--events"), QStringLiteral("json")});
    QVERIFY(leader.waitForStarted());
    QByteArray leaderEvents;
    QTRY_VERIFY_WITH_TIMEOUT((leaderEvents += reader.readAllStandardOutput())
                                     .contains("\"event\":\"started-leading\""),
                             20000);
    keepArtifact(ArtifactKind::Events, QStringLiteral("leader.events"), leaderEvents);

    ParticipantProcess follower(QStringLiteral("follower"), batonBinary(),
                                {QStringLiteral("join"), QStringLiteral("--config"), followerConfig,
                                 QStringLiteral("--events"), QStringLiteral("json")});
    keepOutput(&follower);
    follower.start();
    // The follower has seen the leader hold the lease.
    QTRY_VERIFY_WITH_TIMEOUT(
            std::any_of(follower.events().cbegin(), follower.events().cend(),
                        [](const QJsonObject &e) {
                            return e.value(QStringLiteral("event")) == QStringLiteral("attempt")
                                    && e.value(QStringLiteral("outcome")) == QStringLiteral("held");
                        }),
            20000);

    // The consumer goes away.
    reader.kill();
    QVERIFY(reader.waitForFinished());

    // Its next record (an attempt, every renewInterval) finds the pipe gone.
    QVERIFY(leader.waitForFinished(int(leaseMs)));
    QCOMPARE(leader.exitStatus(), QProcess::NormalExit);
    QCOMPARE(leader.exitCode(), 1);
    const QByteArray leaderLog = leader.readAllStandardError();
    keepArtifact(ArtifactKind::ParticipantLog, QStringLiteral("leader.log"), leaderLog);
    const QString log = QString::fromUtf8(leaderLog);
    QCOMPARE(log.count(QStringLiteral("cannot write events to stdout")), 1);

    // F5: released, so the follower saw a release (not an expiry) and leads.
    verifyTheFollowerTookTheReleasedLease(follower, leaseMs);
}

void TestJoinEvents::aReaderThatNeverReadsDelaysNeitherTheRenewalsNorTheStop_data()
{
    QTest::addColumn<bool>("log");
    QTest::newRow("event stream") << false;
    QTest::newRow("log") << true;
}

// R6: the reader of the leader's event stream (or of its log, as a stalled
// journal) holds its FIFO open and never reads. The pipe fills, then the
// queue; the leader keeps renewing (the follower sees the lease held for
// two lease durations and never takes it) and a SIGTERM still ends it
// within a lease, released.
void TestJoinEvents::aReaderThatNeverReadsDelaysNeitherTheRenewalsNorTheStop()
{
    QFETCH(bool, log);
    const qint64 lease = stallLeaseMs();
    const QString leaseName = log ? QStringLiteral("log-never-read") : QStringLiteral("events-never-read");
    const QString leaderConfig = writeConfig(QStringLiteral("leader"), leaseName, lease, stallRenewMs());
    const QString followerConfig = writeConfig(QStringLiteral("follower"), leaseName, lease, stallRenewMs());
    QVERIFY(!leaderConfig.isEmpty() && !followerConfig.isEmpty());
    StalledFifo fifo(m_folder.path());
    QVERIFY2(fifo.isValid(), std::strerror(errno));

    QProcess leader;
    startWithOutputTo(&leader, fifo, leaderConfig, log);
    QVERIFY(leader.waitForStarted());
    // Its records fill the pipe: from here a write on the election's
    // thread would wait for a reader that never comes.
    QTRY_VERIFY_WITH_TIMEOUT(fifo.isFull(), int(scaledMs(30000)));

    ParticipantProcess follower(QStringLiteral("follower"), batonBinary(),
                                {QStringLiteral("join"), QStringLiteral("--config"), followerConfig,
                                 QStringLiteral("--events"), QStringLiteral("json")});
    keepOutput(&follower);
    follower.start();
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(follower.events().cbegin(), follower.events().cend(), &isHeld),
                             int(scaledMs(20000)));
    // Two lease durations of the follower's own clock, the lease held all along.
    auto heldSpanMs = [&follower] {
        const QList<QJsonObject> events = follower.events();
        const auto first = std::find_if(events.cbegin(), events.cend(), &isHeld);
        const auto last = std::find_if(events.crbegin(), events.crend(), &isHeld);
        if (first == events.cend())
            return 0.0;
        const double from = first->value(QStringLiteral("mono")).toDouble();
        return last->value(QStringLiteral("mono")).toDouble() - from;
    };
    QTRY_VERIFY_WITH_TIMEOUT(heldSpanMs() >= 2.0 * double(lease) || follower.isLeading(), int(6 * lease));
    QVERIFY2(!follower.isLeading(), "the follower took the lease: the leader stopped renewing it");
    for (const QJsonObject &e : follower.events())
        QVERIFY(e.value(QStringLiteral("event")) != QStringLiteral("leader-changed")
                || e.value(QStringLiteral("to")) == QStringLiteral("leader"));
    // The queue filled too: records were dropped, said once.
    QByteArray leaderLog;
    if (!log)
        QTRY_VERIFY_WITH_TIMEOUT((leaderLog += leader.readAllStandardError()).contains(droppingWarning),
                                 int(scaledMs(30000)));

    ::kill(pid_t(leader.processId()), SIGTERM);
    QVERIFY2(leader.waitForFinished(int(lease)), "SIGTERM did not end a leader whose reader does not read");
    QCOMPARE(leader.exitStatus(), QProcess::NormalExit);
    QCOMPARE(leader.exitCode(), 0);
    leaderLog += leader.readAllStandardError();
    keepArtifact(ArtifactKind::ParticipantLog, QStringLiteral("stalled-leader.log"), leaderLog);
    if (!log)
        QCOMPARE(QString::fromUtf8(leaderLog).count(QLatin1String(droppingWarning)), 1);
    // Released (F5), not left to expire: the follower saw a release.
    verifyTheFollowerTookTheReleasedLease(follower, lease);
}

// R6: the reader reads 10 bytes a second, less than the records come, then
// catches up. Records are dropped meanwhile; once it has caught up, an
// events-dropped record says how many, in its place in the stream. Every
// line it reads is a whole record, in order.
void TestJoinEvents::aSlowReaderIsToldHowManyRecordsItMissedOnceItCatchesUp()
{
    const QString config =
            writeConfig(QStringLiteral("leader"), QStringLiteral("read-slowly"), stallLeaseMs(), stallRenewMs());
    QVERIFY(!config.isEmpty());
    StalledFifo fifo(m_folder.path());
    QVERIFY2(fifo.isValid(), std::strerror(errno));

    QProcess leader;
    startWithOutputTo(&leader, fifo, config);
    QVERIFY(leader.waitForStarted());
    QByteArray stream;
    QTimer slowReader;
    QObject::connect(&slowReader, &QTimer::timeout, &slowReader, [&stream, &fifo] {
        char byte = 0;
        if (::read(fifo.fd(), &byte, 1) == 1)
            stream.append(byte);
    });
    slowReader.start(100);
    QByteArray leaderLog;
    QTRY_VERIFY_WITH_TIMEOUT((leaderLog += leader.readAllStandardError()).contains(droppingWarning),
                             int(scaledMs(60000)));
    QVERIFY(!stream.isEmpty());

    // It catches up: reads all there is, as fast as it comes.
    slowReader.stop();
    QTRY_VERIFY_WITH_TIMEOUT((stream += readAvailable(fifo.fd())).contains("\"event\":\"events-dropped\""),
                             int(scaledMs(30000)));
    ::kill(pid_t(leader.processId()), SIGTERM);
    QTRY_VERIFY_WITH_TIMEOUT((stream += readAvailable(fifo.fd()), leader.state() == QProcess::NotRunning),
                             int(stallLeaseMs()));
    stream += readAvailable(fifo.fd());
    keepArtifact(ArtifactKind::Events, QStringLiteral("slowly-read-leader.events"), stream);
    keepArtifact(ArtifactKind::ParticipantLog, QStringLiteral("slowly-read-leader.log"),
                 leaderLog + leader.readAllStandardError());
    QCOMPARE(leader.exitCode(), 0);

    QVERIFY(stream.endsWith('\n'));
    const QList<QByteArray> lines = stream.left(stream.size() - 1).split('\n');
    double lastMono = 0;
    qint64 dropped = 0;
    for (const QByteArray &line : lines) {
        const QJsonObject record = parseEventLine(line);
        QVERIFY2(!record.isEmpty() && record.contains(QStringLiteral("event")),
                 qPrintable(QStringLiteral("not a whole record: %1").arg(QString::fromUtf8(line))));
        const double mono = record.value(QStringLiteral("mono")).toDouble();
        QVERIFY2(mono >= lastMono, "records out of order");
        lastMono = mono;
        if (record.value(QStringLiteral("event")) != QStringLiteral("events-dropped"))
            continue;
        QCOMPARE(record.value(QStringLiteral("v")).toInt(), 1);
        QCOMPARE(record.value(QStringLiteral("instance")).toString(), QStringLiteral("leader"));
        QVERIFY(!record.value(QStringLiteral("ts")).toString().isEmpty());
        dropped += record.value(QStringLiteral("count")).toInteger();
    }
    QVERIFY2(dropped > 0, "no events-dropped record counted a dropped record");
    // The stream ends as a clean stop's does, after the drops.
    QCOMPARE(parseEventLine(lines.constLast()).value(QStringLiteral("event")).toString(),
             QStringLiteral("released"));
}

QTEST_GUILESS_MAIN(TestJoinEvents)
#include "tst_joinevents.moc"
