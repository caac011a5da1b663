// `baton join` under systemd, end to end with real processes: the sd_notify
// protocol read from a datagram socket this test binds and names in
// NOTIFY_SOCKET, as systemd does for a `Type=notify` unit, and the `<N>`
// priority prefixes that journald reads when JOURNAL_STREAM says stderr is
// the journal. What is checked is what `systemctl status` and `journalctl
// -p warning` would show (O3: the participant seen from its supervisor).

#include "eventstream.h"
#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonObject>
#include <QSignalSpy>
#include <QSocketNotifier>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace baton;
using namespace baton::test;

namespace {

constexpr qint64 leaseMs = 2000;
constexpr qint64 renewMs = 500;

/*! The systemd side of sd_notify: a bound AF_UNIX datagram socket, every message kept. */
class NotifySocket : public QObject
{
public:
    explicit NotifySocket(const QString &path)
        : m_path(path)
    {
        m_fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        sockaddr_un address {};
        address.sun_family = AF_UNIX;
        const QByteArray encoded = QFile::encodeName(path);
        if (m_fd < 0 || size_t(encoded.size()) >= sizeof(address.sun_path))
            return;
        std::memcpy(address.sun_path, encoded.constData(), size_t(encoded.size()));
        if (::bind(m_fd, reinterpret_cast<const sockaddr *>(&address), sizeof(address)) != 0)
            return;
        m_notifier = new QSocketNotifier(m_fd, QSocketNotifier::Read, this);
        connect(m_notifier, &QSocketNotifier::activated, this, [this] {
            char buffer[4096];
            ssize_t size;
            while ((size = ::recv(m_fd, buffer, sizeof(buffer), 0)) > 0)
                m_messages.append(QString::fromUtf8(buffer, qsizetype(size)).split(QLatin1Char('\n'),
                                                                                  Qt::SkipEmptyParts));
        });
    }
    ~NotifySocket() override
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }

    bool isListening() const { return m_notifier != nullptr; }
    QString path() const { return m_path; }
    /*! Every assignment received (READY=1, STATUS=..., ...), in order. */
    QStringList messages() const { return m_messages; }
    int count(const QString &message) const { return int(m_messages.count(message)); }
    QString lastStatus() const
    {
        for (auto it = m_messages.crbegin(); it != m_messages.crend(); ++it)
            if (it->startsWith(QLatin1String("STATUS=")))
                return it->mid(7);
        return {};
    }

private:
    QString m_path;
    int m_fd = -1;
    QSocketNotifier *m_notifier = nullptr;
    QStringList m_messages;
};

/*! Sets environment variables for the children started in its scope only. */
class ScopedEnvironment
{
public:
    explicit ScopedEnvironment(const QList<QPair<QByteArray, QByteArray>> &variables)
    {
        for (const auto &[name, value] : variables) {
            m_names.append(name);
            qputenv(name.constData(), value);
        }
    }
    ~ScopedEnvironment()
    {
        for (const QByteArray &name : std::as_const(m_names))
            qunsetenv(name.constData());
    }

private:
    QList<QByteArray> m_names;
};

} // namespace

class TestJoinSystemd : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void notifiesReadyStatusWatchdogAndStopping();
    void sendsNoWatchdogPingsUnlessSystemdAsks();
    void logLinesCarryPrioritiesOnlyWhenStderrIsTheJournal_data();
    void logLinesCarryPrioritiesOnlyWhenStderrIsTheJournal();

private:
    QString writeConfig(const QString &id, const QString &lease);
    ParticipantProcess *start(const QString &id, const QString &lease, const QStringList &extra = {});

    QTemporaryDir m_folder;
    std::vector<std::unique_ptr<ParticipantProcess>> m_participants;
};

void TestJoinSystemd::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
    // The test itself may run under systemd: its children must only see
    // the variables each test gives them.
    qunsetenv("NOTIFY_SOCKET");
    qunsetenv("WATCHDOG_USEC");
    qunsetenv("WATCHDOG_PID");
    qunsetenv("JOURNAL_STREAM");
}

void TestJoinSystemd::cleanup()
{
    for (const auto &p : m_participants)
        p->sendSignal(SIGKILL);
    m_participants.clear();
}

QString TestJoinSystemd::writeConfig(const QString &id, const QString &lease)
{
    const ParticipantConfig config {fileRegistry(m_folder.filePath(QStringLiteral("registry"))),
                                    lease, id, leaseMs, renewMs};
    return config.writeTo(m_folder.filePath(id + QStringLiteral(".json")));
}

ParticipantProcess *TestJoinSystemd::start(const QString &id, const QString &lease, const QStringList &extra)
{
    m_participants.push_back(std::make_unique<ParticipantProcess>(
            id, test::batonBinary(),
            QStringList {QStringLiteral("join"), QStringLiteral("--config"), writeConfig(id, lease),
                         QStringLiteral("--events"), QStringLiteral("json")}
                    + extra));
    test::keepOutput(m_participants.back().get());
    m_participants.back()->start();
    return m_participants.back().get();
}

void TestJoinSystemd::notifiesReadyStatusWatchdogAndStopping()
{
    // O3 under systemd (Type=notify, WatchdogSec=): node-b leads first, so
    // node-a, the notifying one, starts as a follower.
    ParticipantProcess *nodeB = start(QStringLiteral("node-b"), QStringLiteral("billing-cron"));
    QTRY_VERIFY_WITH_TIMEOUT(nodeB->isLeading(), 20000);

    NotifySocket socket(m_folder.filePath(QStringLiteral("notify")));
    QVERIFY(socket.isListening());
    ParticipantProcess *nodeA = nullptr;
    {
        // WATCHDOG_USEC as systemd computes it from WatchdogSec=0.4s.
        ScopedEnvironment environment({{"NOTIFY_SOCKET", QFile::encodeName(socket.path())},
                                       {"WATCHDOG_USEC", "400000"}});
        nodeA = start(QStringLiteral("node-a"), QStringLiteral("billing-cron"));
    }
    QTRY_VERIFY_WITH_TIMEOUT(socket.count(QStringLiteral("READY=1")) == 1, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(socket.lastStatus(), QStringLiteral("following node-b"), 20000);
    // Pings keep coming from the event loop while it runs.
    QTRY_VERIFY_WITH_TIMEOUT(socket.count(QStringLiteral("WATCHDOG=1")) >= 3, 20000);

    // A clean handover: node-a leads, and says with which fencing token (F7).
    nodeB->sendSignal(SIGTERM);
    QTRY_VERIFY_WITH_TIMEOUT(nodeA->isLeading(), 20000);
    const qint64 token = qint64(lastEvent(*nodeA, QStringLiteral("started-leading")).value(QStringLiteral("token")).toDouble());
    QTRY_COMPARE_WITH_TIMEOUT(socket.lastStatus(), QStringLiteral("leading billing-cron, token %1").arg(token), 20000);

    // F5 under systemd: STOPPING=1 as the clean stop begins, then exit 0.
    QSignalSpy exited(nodeA, &ParticipantProcess::finished);
    nodeA->sendSignal(SIGTERM);
    QVERIFY(exited.wait(20000));
    QCOMPARE(nodeA->exitCode(), 0);
    QCOMPARE(socket.count(QStringLiteral("STOPPING=1")), 1);
    QVERIFY(socket.messages().indexOf(QStringLiteral("STOPPING=1"))
            > socket.messages().indexOf(QStringLiteral("READY=1")));
    QCOMPARE(socket.count(QStringLiteral("READY=1")), 1);
}

void TestJoinSystemd::sendsNoWatchdogPingsUnlessSystemdAsks()
{
    // O3: without WatchdogSec= there is no WATCHDOG_USEC, and no pings.
    NotifySocket socket(m_folder.filePath(QStringLiteral("notify-no-watchdog")));
    QVERIFY(socket.isListening());
    ParticipantProcess *p = nullptr;
    {
        ScopedEnvironment environment({{"NOTIFY_SOCKET", QFile::encodeName(socket.path())}});
        p = start(QStringLiteral("quiet"), QStringLiteral("quiet"));
    }
    QTRY_VERIFY_WITH_TIMEOUT(p->isLeading(), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(socket.lastStatus().startsWith(QLatin1String("leading quiet, token ")), 20000);
    // Several renewals later, still no ping: renewals are the event loop's
    // heartbeat, so a ping would have come by now.
    const qint64 since = monoOf(lastEvent(*p, QStringLiteral("started-leading")));
    QTRY_VERIFY_WITH_TIMEOUT(lastEvent(*p, QStringLiteral("attempt"), since + 3 * renewMs).contains(QStringLiteral("outcome")),
                             20000);
    QCOMPARE(socket.count(QStringLiteral("WATCHDOG=1")), 0);
    QCOMPARE(socket.count(QStringLiteral("READY=1")), 1);
}

void TestJoinSystemd::logLinesCarryPrioritiesOnlyWhenStderrIsTheJournal_data()
{
    QTest::addColumn<bool>("journal");
    QTest::newRow("stderr is the journal: every log line starts with its priority") << true;
    QTest::newRow("JOURNAL_STREAM names another stream: plain time-stamped lines") << false;
}

void TestJoinSystemd::logLinesCarryPrioritiesOnlyWhenStderrIsTheJournal()
{
    // O3: `journalctl -p warning` finds baton's warnings. A command that
    // fails while leading gives a warning (baton.exec) beside the info lines
    // of the election.
    QFETCH(bool, journal);
    const QString logPath = m_folder.filePath(QStringLiteral("stderr-%1.log").arg(journal));
    QFile log(logPath);
    QVERIFY(log.open(QIODevice::WriteOnly | QIODevice::Truncate));
    log.close();
    struct stat status {};
    QCOMPARE(::stat(QFile::encodeName(logPath).constData(), &status), 0);
    // Another stream: same device, an inode that is not this file's.
    const QByteArray stream = QByteArray::number(qulonglong(status.st_dev)) + ':'
            + QByteArray::number(qulonglong(status.st_ino) + (journal ? 0 : 1));

    QProcess baton;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("JOURNAL_STREAM"), QString::fromLatin1(stream));
    baton.setProcessEnvironment(environment);
    baton.setStandardErrorFile(logPath);
    baton.start(test::batonBinary(),
                {QStringLiteral("join"), QStringLiteral("--config"),
                 writeConfig(QStringLiteral("logger-%1").arg(journal), QStringLiteral("logged-%1").arg(journal)),
                 QStringLiteral("--exec"), QStringLiteral("exit 3"), QStringLiteral("--on-exit"),
                 QStringLiteral("step-down")});
    QVERIFY(baton.waitForFinished(20000));
    QCOMPARE(baton.exitCode(), 3);

    QVERIFY(log.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(log.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    test::keepArtifact(ArtifactKind::ParticipantLog, QStringLiteral("journal-%1.log").arg(journal),
                       lines.join(QLatin1Char('\n')).toUtf8());
    const auto has = [&](const QString &start) {
        return std::any_of(lines.begin(), lines.end(), [&](const QString &l) { return l.startsWith(start); });
    };
    const QString warning = QStringLiteral("<4>baton.exec warning: ");
    const QString info = QStringLiteral("<6>baton.election info: ");
    QCOMPARE(has(warning), journal);
    QCOMPARE(has(info), journal);
    if (!journal)
        QVERIFY2(std::none_of(lines.begin(), lines.end(), [](const QString &l) { return l.startsWith(QLatin1Char('<')); }),
                 qPrintable(lines.join(QLatin1Char('\n'))));
    else
        QVERIFY2(std::none_of(lines.begin(), lines.end(),
                              [](const QString &l) { return l.contains(QLatin1String(" warning: ")) && !l.startsWith(QLatin1String("<4>")); }),
                 qPrintable(lines.join(QLatin1Char('\n'))));
}

QTEST_GUILESS_MAIN(TestJoinSystemd)
#include "tst_joinsystemd.moc"
