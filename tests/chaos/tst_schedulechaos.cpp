// Scheduled work under faults (docs/reliability.md, "Scheduled runs under
// faults"): three real `baton join --schedule "every 2s" --exec` processes
// on one FileStore folder (or on the etcd the CTest fixture started), the
// leader killed, or frozen with everything below it, every 15 seconds in
// turn. The commands' own log is the judge:
//   - no tick starts twice (S1, S2: an interrupted run is not rerun by
//     default);
//   - every run the log shows has its run record, carrying the fencing token
//     the command was given (S1, S4);
//   - after each fault a later tick runs: the schedule goes on under the
//     next leader.
// It ends with a summary: ticks due, run, interrupted and missed, and how
// late the latest start was.
//
//   BATON_SCHEDULE_CHAOS_SECONDS  length of the run (default 40)
//   BATON_SCHEDULE_CHAOS_STORE    file (default) or etcd

#include "etcdfixture.h"
#include "participantprocess.h"
#include "participants.h"
#include "processtree.h"
#include "testsupport.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <memory>

using namespace baton;
using namespace baton::test;
using namespace baton::test::chaos;

namespace {

const qint64 leaseMs = scaledMs(2000);
const qint64 renewMs = scaledMs(500);
constexpr qint64 periodMs = 2000;
constexpr qint64 faultEveryMs = 15000;
constexpr int participantCount = 3;

/*! One line of the commands' log: `start TICK INSTANCE TOKEN WALL` or `end TICK INSTANCE`. */
struct LogLine
{
    QString kind;
    QString tick;
    QString instance;
    QString token;
    /*! The command's wall clock when it started, seconds since the epoch. */
    double wall = 0;
};

} // namespace

class TestScheduleChaos : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void eachTickRunsAtMostOnceWhileTheLeaderIsKilledOrFrozen();

private:
    ParticipantProcess *start(int slot);
    ParticipantProcess *leader() const;
    QList<LogLine> log() const;
    /*! Whether a tick later than \a after has started. */
    bool aTickStartedAfter(const QDateTime &after) const;
    void kill(ParticipantProcess *victim, int slot);
    void freeze(ParticipantProcess *victim);
    QJsonArray runRecords() const;

    QTemporaryDir m_folder;
    QJsonObject m_registry;
    QString m_lease = QStringLiteral("scheduled-chaos");
    QString m_logPath;
    std::unique_ptr<ParticipantProcess> m_slots[participantCount];
    /*! Processes killed, kept until the end: their events are still read. */
    std::vector<std::unique_ptr<ParticipantProcess>> m_dead;
};

void TestScheduleChaos::initTestCase()
{
    QVERIFY2(!batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
    if (qEnvironmentVariable("BATON_SCHEDULE_CHAOS_STORE") == QLatin1String("etcd")) {
        EtcdFixture etcd("BATON_ETCD_DIR");
        QVERIFY2(etcd.configured() && !etcd.endpoints().isEmpty(),
                 qPrintable(QStringLiteral("no etcd from the fixture: %1").arg(etcd.errorString())));
        m_registry = QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/EtcdStore")},
                                  {QStringLiteral("endpoints"), QJsonArray::fromStringList(etcd.endpoints())}};
        m_lease += QStringLiteral("-") + QString::number(QDateTime::currentMSecsSinceEpoch());
    } else {
        m_registry = fileRegistry(m_folder.filePath(QStringLiteral("registry")));
    }
    m_logPath = m_folder.filePath(QStringLiteral("commands.log"));
}

void TestScheduleChaos::cleanupTestCase()
{
    for (auto &p : m_slots)
        if (p) {
            p->sendSignal(SIGCONT);
            p->sendSignal(SIGKILL);
        }
}

ParticipantProcess *TestScheduleChaos::start(int slot)
{
    const QString id = QStringLiteral("n%1").arg(slot + 1);
    const ParticipantConfig config {m_registry, m_lease, id, leaseMs, renewMs};
    const QString path = config.writeTo(m_folder.filePath(id + QStringLiteral(".json")));
    // Each printf is one append: lines of two commands never mix.
    const QString command =
            QStringLiteral("printf 'start %s %s %s %s\\n' \"$BATON_TICK\" \"$BATON_INSTANCE\" "
                           "\"$BATON_FENCING_TOKEN\" \"$(date +%s.%N)\" >> '%1'; sleep 0.5; "
                           "printf 'end %s %s\\n' \"$BATON_TICK\" \"$BATON_INSTANCE\" >> '%1'")
                    .arg(m_logPath);
    if (m_slots[slot])
        m_dead.push_back(std::move(m_slots[slot]));
    m_slots[slot] = std::make_unique<ParticipantProcess>(
            id, batonBinary(),
            QStringList {QStringLiteral("join"), QStringLiteral("--config"), path, QStringLiteral("--events"),
                         QStringLiteral("json"), QStringLiteral("--schedule"),
                         QStringLiteral("every %1s").arg(periodMs / 1000), QStringLiteral("--exec"), command});
    keepOutput(m_slots[slot].get());
    m_slots[slot]->start();
    return m_slots[slot].get();
}

ParticipantProcess *TestScheduleChaos::leader() const
{
    for (const auto &p : m_slots)
        if (p && p->isRunning() && p->isLeading())
            return p.get();
    return nullptr;
}

QList<LogLine> TestScheduleChaos::log() const
{
    QList<LogLine> lines;
    QFile file(m_logPath);
    if (!file.open(QIODevice::ReadOnly))
        return lines;
    for (const QString &text : QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const QStringList words = text.split(QLatin1Char(' '));
        LogLine line;
        line.kind = words.value(0);
        line.tick = words.value(1);
        line.instance = words.value(2);
        line.token = words.value(3);
        line.wall = words.value(4).toDouble();
        lines.append(line);
    }
    return lines;
}

bool TestScheduleChaos::aTickStartedAfter(const QDateTime &after) const
{
    for (const LogLine &line : log())
        if (line.kind == QLatin1String("start") && QDateTime::fromString(line.tick, Qt::ISODate) > after)
            return true;
    return false;
}

void TestScheduleChaos::kill(ParticipantProcess *victim, int slot)
{
    QSignalSpy died(victim, &ParticipantProcess::finished);
    victim->sendSignal(SIGKILL);
    QVERIFY(died.wait(10000));
    start(slot); // a new process of the same instance, as systemd would restart it
}

void TestScheduleChaos::freeze(ParticipantProcess *victim)
{
    // baton and everything below it, as a stalled VM would stop them, for
    // longer than the lease; only baton is resumed: it wakes its guard,
    // which ends the stale command (docs/safety.md, "The exec guard").
    victim->sendSignal(SIGSTOP);
    QVERIFY(QTest::qWaitFor([victim] { return isStopped(victim->pid()); }, 5000));
    stopDescendantGroups(victim->pid());
    // The freeze's length is the fault itself, not a synchronisation.
    QTest::qWait(int(2 * leaseMs + renewMs));
    victim->sendSignal(SIGCONT);
}

QJsonArray TestScheduleChaos::runRecords() const
{
    QProcess status;
    status.start(batonBinary(), {QStringLiteral("status"), QStringLiteral("--config"),
                                 m_folder.filePath(QStringLiteral("n1.json")), QStringLiteral("--runs"), m_lease,
                                 QStringLiteral("-o"), QStringLiteral("json")});
    if (!status.waitForFinished(30000) || status.exitCode() != 0) {
        qWarning("baton status --runs: %s", status.readAllStandardError().constData());
        return {};
    }
    return QJsonDocument::fromJson(status.readAllStandardOutput()).object().value(QStringLiteral("items")).toArray();
}

void TestScheduleChaos::eachTickRunsAtMostOnceWhileTheLeaderIsKilledOrFrozen()
{
    const qint64 seconds = qEnvironmentVariableIntValue("BATON_SCHEDULE_CHAOS_SECONDS") > 0
            ? qEnvironmentVariableIntValue("BATON_SCHEDULE_CHAOS_SECONDS")
            : 40;
    for (int slot = 0; slot < participantCount; ++slot)
        start(slot);
    const QDateTime begun = QDateTime::currentDateTimeUtc();
    QTRY_VERIFY_WITH_TIMEOUT(aTickStartedAfter(begun), 30000);

    QElapsedTimer running;
    running.start();
    int kills = 0;
    int freezes = 0;
    while (running.elapsed() + faultEveryMs <= seconds * 1000) {
        // The time between faults is the run's shape, not a synchronisation.
        QTest::qWait(int(faultEveryMs));
        ParticipantProcess *victim = leader();
        if (!victim) {
            qInfo("no leader at this moment: no fault");
            continue;
        }
        const int slot = int(std::find_if(std::begin(m_slots), std::end(m_slots),
                                          [victim](const auto &p) { return p.get() == victim; })
                             - std::begin(m_slots));
        const bool killNow = (kills + freezes) % 2 == 0;
        qInfo("%s the leader %s", killNow ? "killing" : "freezing", qPrintable(victim->label()));
        if (killNow) {
            kill(victim, slot);
            ++kills;
        } else {
            freeze(victim);
            ++freezes;
        }
        // The schedule goes on under whoever leads next.
        const QDateTime healed = QDateTime::currentDateTimeUtc();
        QTRY_VERIFY2_WITH_TIMEOUT(aTickStartedAfter(healed), "no tick ran after the fault", 60000);
    }
    const QDateTime ended = QDateTime::currentDateTimeUtc();
    for (auto &p : m_slots) {
        QSignalSpy finished(p.get(), &ParticipantProcess::finished);
        p->sendSignal(SIGTERM);
        if (p->isRunning())
            QVERIFY(finished.wait(30000));
    }

    const QList<LogLine> lines = log();
    QHash<QString, LogLine> started;
    QSet<QString> endedTicks;
    double latestStartS = 0;
    for (const LogLine &line : lines) {
        if (line.kind == QLatin1String("end")) {
            endedTicks.insert(line.tick);
            continue;
        }
        QCOMPARE(line.kind, QStringLiteral("start"));
        QVERIFY2(!started.contains(line.tick),
                 qPrintable(QStringLiteral("tick %1 started twice: by %2 (token %3) and by %4 (token %5)")
                                    .arg(line.tick, started.value(line.tick).instance, started.value(line.tick).token,
                                         line.instance, line.token)));
        started.insert(line.tick, line);
        const double lateS = line.wall - QDateTime::fromString(line.tick, Qt::ISODate).toMSecsSinceEpoch() / 1000.0;
        latestStartS = std::max(latestStartS, lateS);
    }

    QHash<QString, QJsonObject> records;
    for (const QJsonValue &item : runRecords())
        records.insert(item[QStringLiteral("tick")].toString(), item.toObject());
    QVERIFY(!records.isEmpty());
    int interrupted = 0;
    for (const LogLine &line : std::as_const(started)) {
        QVERIFY2(records.contains(line.tick), qPrintable(QStringLiteral("no run record of tick ") + line.tick));
        QCOMPARE(records.value(line.tick).value(QStringLiteral("token")).toString(), line.token);
        interrupted += !endedTicks.contains(line.tick);
    }

    // Every tick of the schedule from the first run to the end of the run.
    QStringList ticks = started.keys();
    std::sort(ticks.begin(), ticks.end());
    const QDateTime first = QDateTime::fromString(ticks.first(), Qt::ISODate);
    const qint64 due = first.msecsTo(ended) / periodMs + 1;
    qInfo("summary: %lld s on the %s store, %d kills, %d freezes of the leader; ticks due %lld, run %lld "
          "(each once), interrupted %d, missed %lld; latest start %.2f s after its tick",
          qlonglong(running.elapsed() / 1000), qPrintable(m_registry.value(QStringLiteral("type")).toString()),
          kills, freezes, qlonglong(due), qlonglong(started.size()), interrupted,
          qlonglong(due - started.size()), latestStartS);
    QVERIFY(kills + freezes > 0);
}

QTEST_GUILESS_MAIN(TestScheduleChaos)
#include "tst_schedulechaos.moc"
