// A Qt program built on the library stops cleanly on SIGTERM: real
// processes of the poller example on a shared file Registry.

#include "filestore.h"
#include "testsupport.h"

#include <baton/leaserecord.h>
#include <baton/store.h>
#include <batoninternal/leasecodec.h>
#include <batoninternal/leasehistory.h>
#include <csignal>
#include <memory>
#include <optional>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <vector>

using namespace baton;

namespace {

const QString kLease = QStringLiteral("poller");

} // namespace

class TestSignalStop : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void sigtermToTheLeaderHandsOverAtOnceAndExitsZero();
    void withStopOnSignalsOffSigtermKeepsItsDefaultAction();

private:
    /*! The lease and renewal of this run; long, so that an expiry is told from a release. */
    qint64 leaseMs() const { return test::scaledMs(12000); }
    qint64 renewMs() const { return test::scaledMs(2000); }
    QString writeConfig(bool withPoller = true);
    QProcess *start(const QString &program, const QStringList &arguments);
    /*! What \a process wrote so far, its output and its log. */
    static QString output(QProcess *process);
    /*! The instance id \a process leads as, once it printed a poll. */
    QString leaderId(QProcess *process);
    std::optional<StoreResult> read(const QString &key);
    LeaseRecord record();
    QList<HistoryEntry> history();

    QTemporaryDir m_folder;
    std::vector<std::unique_ptr<QProcess>> m_processes;
    std::unique_ptr<FileStore> m_store;
};

void TestSignalStop::init()
{
    QVERIFY(m_folder.isValid());
    QVERIFY2(QFile::exists(qEnvironmentVariable("POLLER_EXAMPLE")), "POLLER_EXAMPLE is not set");
}

void TestSignalStop::cleanup()
{
    for (auto &process : m_processes) {
        process->kill();
        process->waitForFinished(5000);
    }
    m_processes.clear();
    m_store.reset();
}

QString TestSignalStop::writeConfig(bool withPoller)
{
    const QString registry = m_folder.filePath(QString::fromLatin1(QTest::currentTestFunction()));
    QJsonObject services {
        { QStringLiteral("poller"),
          QJsonObject { { QStringLiteral("type"), QStringLiteral("Example/Poller") },
                        { QStringLiteral("interval"), 50 } } },
        { QStringLiteral("Registry"),
          QJsonObject { { QStringLiteral("type"), QStringLiteral("Webda/FileStore") },
                        { QStringLiteral("folder"), registry } } },
        { QStringLiteral("cluster"),
          QJsonObject { { QStringLiteral("type"), QStringLiteral("Webda/StoreClusterService") },
                        { QStringLiteral("leaseName"), kLease },
                        { QStringLiteral("leaseDuration"), double(leaseMs()) },
                        { QStringLiteral("renewInterval"), double(renewMs()) } } }
    };
    if (!withPoller)
        services.remove(QStringLiteral("poller"));
    const QString path = registry + QStringLiteral(".json");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        qWarning("cannot write %s", qPrintable(path));
    file.write(QJsonDocument(QJsonObject { { QStringLiteral("services"), services } }).toJson());
    m_store = std::make_unique<FileStore>(QStringLiteral("Registry"),
                                          QJsonObject { { QStringLiteral("folder"), registry } },
                                          nullptr);
    QString error;
    if (!m_store->init(&error))
        qWarning("the store does not open: %s", qPrintable(error));
    return path;
}

QProcess *TestSignalStop::start(const QString &program, const QStringList &arguments)
{
    auto process = std::make_unique<QProcess>();
    process->setProgram(program);
    process->setArguments(arguments);
    process->setProcessChannelMode(QProcess::MergedChannels);
    // The library's info lines say when an instance follows the leader.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("baton.*.debug=false"));
    environment.insert(QStringLiteral("QT_FORCE_STDERR_LOGGING"), QStringLiteral("1"));
    process->setProcessEnvironment(environment);
    process->start();
    if (!process->waitForStarted(5000))
        qWarning("%s did not start", qPrintable(program));
    m_processes.push_back(std::move(process));
    return m_processes.back().get();
}

QString TestSignalStop::output(QProcess *process)
{
    return QString::fromLocal8Bit(process->peek(1 << 20));
}

QString TestSignalStop::leaderId(QProcess *process)
{
    static const QRegularExpression poll(QStringLiteral("poll \\d+ as leader (\\S+)"));
    const QRegularExpressionMatch match = poll.match(output(process));
    return match.hasMatch() ? match.captured(1) : QString();
}

std::optional<StoreResult> TestSignalStop::read(const QString &key)
{
    std::optional<StoreResult> result;
    m_store->get(key, [&result](const StoreResult &r) { result = r; });
    // The store answers on a later turn; a bound only for a broken store.
    if (!QTest::qWaitFor([&result] { return result.has_value(); }, 5000))
        qWarning("the store did not answer a get of %s", qPrintable(key));
    return result;
}

LeaseRecord TestSignalStop::record()
{
    LeaseRecord lease;
    QString error;
    const std::optional<StoreResult> stored = read(QStringLiteral("cluster:") + kLease);
    if (!stored || !stored->ok() || !leasecodec::decode(stored->entry.document, &lease, &error))
        qWarning("no lease record: %s", qPrintable(error));
    return lease;
}

QList<HistoryEntry> TestSignalStop::history()
{
    QList<HistoryEntry> changes;
    QString error;
    const std::optional<StoreResult> stored = read(leasehistory::registryKey(kLease));
    if (stored && stored->ok())
        leasehistory::decode(stored->entry.document, &changes, &error);
    return changes;
}

// F5: SIGTERM to a Qt program built on the library, while it leads, is a
// clean stop: it exits 0 and releases its lease, and the other instance
// takes over at once (a release, well inside the lease), not at its expiry.
void TestSignalStop::sigtermToTheLeaderHandsOverAtOnceAndExitsZero()
{
    const QString config = writeConfig();
    const QString program = qEnvironmentVariable("POLLER_EXAMPLE");
    QProcess *first = start(program, { QStringLiteral("--config"), config });
    QTRY_VERIFY_WITH_TIMEOUT(!leaderId(first).isEmpty(), leaseMs() * 2);
    const QString firstId = leaderId(first);
    QProcess *second = start(program, { QStringLiteral("--config"), config });
    // It follows: it has read the lease and knows who holds it.
    // It has joined, and its first read is answered before the leader's
    // next renewal (the file store answers in milliseconds).
    QTRY_VERIFY2_WITH_TIMEOUT(output(second).contains(QStringLiteral("joins the election")),
                              qPrintable(output(second)), leaseMs() * 2);
    const QDateTime renewedBefore = record().renewTime;
    QTRY_VERIFY_WITH_TIMEOUT(record().renewTime != renewedBefore, leaseMs());
    QVERIFY(leaderId(second).isEmpty());

    QElapsedTimer sinceSignal;
    sinceSignal.start();
    QVERIFY(::kill(pid_t(first->processId()), SIGTERM) == 0);
    QTRY_VERIFY_WITH_TIMEOUT(!leaderId(second).isEmpty(), leaseMs() * 2);
    const qint64 takeoverMs = sinceSignal.elapsed();
    QTRY_COMPARE_WITH_TIMEOUT(first->state(), QProcess::NotRunning, leaseMs());
    QCOMPARE(first->exitStatus(), QProcess::NormalExit);
    QCOMPARE(first->exitCode(), 0);
    qInfo("takeover %lld ms after SIGTERM, lease %lld ms", takeoverMs, leaseMs());
    // An expiry comes at least leaseDuration - renewInterval after the last renewal.
    QVERIFY2(takeoverMs < (leaseMs() - renewMs()) / 2,
             qPrintable(QStringLiteral("%1 ms").arg(takeoverMs)));

    QTRY_VERIFY_WITH_TIMEOUT(!history().isEmpty() && history().last().to == leaderId(second),
                             leaseMs());
    const HistoryEntry takeover = history().last();
    QCOMPARE(takeover.from, firstId);
    QCOMPARE(takeover.why, QStringLiteral("released"));

    // The last one leaves the record released: no holder.
    QVERIFY(::kill(pid_t(second->processId()), SIGTERM) == 0);
    QTRY_COMPARE_WITH_TIMEOUT(second->state(), QProcess::NotRunning, leaseMs());
    QCOMPARE(second->exitStatus(), QProcess::NormalExit);
    QCOMPARE(second->exitCode(), 0);
    QCOMPARE(record().holder, QString());
}

// F5: a program that turns the stop on signals off keeps SIGTERM's default
// action: it dies of it and its lease stays held until it expires.
void TestSignalStop::withStopOnSignalsOffSigtermKeepsItsDefaultAction()
{
    const QString config = writeConfig(false);
    QProcess *process = start(qEnvironmentVariable("SIGNALSTOPOFF"), { config });
    QTRY_VERIFY2_WITH_TIMEOUT(output(process).contains(QStringLiteral("is now the leader")),
                              qPrintable(output(process)), leaseMs() * 2);
    QVERIFY(::kill(pid_t(process->processId()), SIGTERM) == 0);
    QTRY_COMPARE_WITH_TIMEOUT(process->state(), QProcess::NotRunning, leaseMs());
    QCOMPARE(process->exitStatus(), QProcess::CrashExit);
    QCOMPARE(process->exitCode(), SIGTERM);
    QVERIFY2(!record().holder.isEmpty(), "the lease was released");
}

QTEST_GUILESS_MAIN(TestSignalStop)
#include "tst_signalstop.moc"
