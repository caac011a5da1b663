// O2: the holder changes of a lease are stored with it, and an observer
// started afterwards shows them from its first look. Real `baton join`
// processes on one store go through two crashes (SIGKILL) and a clean
// handover (SIGTERM); then `baton status --history`, started after all that,
// prints the four changes in order with their reasons, in its table and as
// JSON lines. A `baton status -w` running through them prints a row per
// change (O3); `status --check` judges a live holder and one that stopped.
// The same test runs twice: on a FileStore, and (as tst_statushistory_etcd,
// with BATON_STATUSHISTORY_STORE=etcd) on the etcd that the CTest fixture
// started.

#include "etcdfixture.h"
#include "failoverscenario.h"
#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <batoninternal/durationtext.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <QUuid>

#include <csignal>
#include <tuple>

using namespace baton;
using namespace baton::test;

namespace {

// The lease and renewal of this run, BATON_TEST_TIME_SCALE times those of a
// quiet machine; every bound below is derived from them.
const qint64 leaseMs = scaledMs(2000);
const qint64 renewMs = scaledMs(500);

} // namespace

class TestStatusHistory : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void statusStartedAfterTheFailoversPrintsTheStoredChangesInOrder();
    void checkIsOkWhileTheHolderRenewsAndCriticalOnceItStops();

private:
    /*! `baton status -w --store URL LEASE`, started and ready (its first words printed); null on failure. */
    std::unique_ptr<QProcess> startWatch();
    /*! Stops \a watch with SIGTERM; what it printed. */
    QString stopWatch(QProcess *watch);
    /*! `baton status --store URL LEASE` plus \a extra; its standard output, or a failure. */
    QByteArray runStatus(const QStringList &extra);

    QTemporaryDir m_folder;
    QJsonObject m_registry;
    QString m_storeUrl;
    QString m_lease = QStringLiteral("nightly");
    std::unique_ptr<FailoverScenario> m_scenario;
};

void TestStatusHistory::initTestCase()
{
    QVERIFY2(!batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
    if (qEnvironmentVariable("BATON_STATUSHISTORY_STORE") == QLatin1String("etcd")) {
        EtcdFixture etcd("BATON_ETCD_DIR");
        QVERIFY2(etcd.configured() && !etcd.endpoints().isEmpty(),
                 qPrintable(QStringLiteral("no etcd from the fixture: %1").arg(etcd.errorString())));
        m_registry = QJsonObject {{QStringLiteral("type"), QStringLiteral("Webda/EtcdStore")},
                                  {QStringLiteral("endpoints"), QJsonArray::fromStringList(etcd.endpoints())}};
        m_storeUrl = etcd.endpoints().join(QLatin1Char(','));
        // The fixture's etcd is shared: a lease name of this run's own.
        m_lease += QLatin1Char('-') + QUuid::createUuid().toString(QUuid::Id128).left(8);
    } else {
        const QString folder = m_folder.filePath(QStringLiteral("registry"));
        // Before the participants: a watch started first never creates it.
        QVERIFY(QDir().mkdir(folder, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner));
        m_registry = fileRegistry(folder);
        m_storeUrl = QUrl::fromLocalFile(folder).toString();
    }
}

void TestStatusHistory::cleanup()
{
    if (m_scenario)
        m_scenario->killAll();
    m_scenario.reset();
}

QByteArray TestStatusHistory::runStatus(const QStringList &extra)
{
    QProcess status;
    const QString label = QStringLiteral("status-history-%1").arg(extra.join(QLatin1Char('_')));
    keepOutput(&status, label, ArtifactKind::Events);
    status.start(batonBinary(), QStringList {QStringLiteral("status"), QStringLiteral("--store"), m_storeUrl,
                                             m_lease, QStringLiteral("--history")}
                                        + extra);
    // One list, print, exit: it never watches.
    if (!status.waitForFinished(int(5 * leaseMs)) || status.exitStatus() != QProcess::NormalExit
        || status.exitCode() != 0) {
        qWarning("baton status --history %s: exit %d: %s", qPrintable(extra.join(QLatin1Char(' '))),
                 status.exitCode(), status.readAllStandardError().constData());
        return {};
    }
    return status.readAllStandardOutput();
}

std::unique_ptr<QProcess> TestStatusHistory::startWatch()
{
    auto watch = std::make_unique<QProcess>();
    // Its first words (the table, or that the lease is not there yet) say it is ready.
    watch->setProcessChannelMode(QProcess::MergedChannels);
    watch->start(batonBinary(), {QStringLiteral("status"), QStringLiteral("--store"), m_storeUrl, m_lease,
                                 QStringLiteral("-w")});
    if (!watch->waitForStarted(int(5 * leaseMs)) || !watch->waitForReadyRead(int(5 * leaseMs)))
        return {};
    return watch;
}

QString TestStatusHistory::stopWatch(QProcess *watch)
{
    watch->terminate();
    if (!watch->waitForFinished(int(5 * leaseMs)))
        watch->kill();
    return QString::fromUtf8(watch->readAllStandardOutput());
}

void TestStatusHistory::statusStartedAfterTheFailoversPrintsTheStoredChangesInOrder()
{
    // O2, O3: a watch that runs through the failovers sees them as they come.
    const std::unique_ptr<QProcess> watch = startWatch();
    QVERIFY2(watch, "baton status -w did not start");

    // O2: two crashes and a clean handover, with no observer running.
    m_scenario = std::make_unique<FailoverScenario>(
            [this](const QString &id) {
                const ParticipantConfig config {m_registry, m_lease, id, leaseMs, renewMs};
                return startParticipant(id, config.writeTo(m_folder.filePath(id + QStringLiteral(".json"))));
            },
            leaseMs, renewMs);
    m_scenario->run();
    if (QTest::currentTestFailed())
        return;
    const QList<ExpectedChange> expected = m_scenario->changes();
    QCOMPARE(expected.size(), 4);
    for (const ExpectedChange &change : expected)
        qInfo("caused: %s -> %s (%s)", qPrintable(change.from), qPrintable(change.to), qPrintable(change.why));

    // JSON lines: one leader-changed record a change, oldest first, each
    // read from the stored history (recorded), none seen live.
    const QByteArray jsonLines = runStatus({QStringLiteral("--json")});
    const QList<QByteArray> lines = jsonLines.trimmed().split('\n');
    QCOMPARE(lines.size(), expected.size());
    qint64 transitions = -1;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QJsonObject r = QJsonDocument::fromJson(lines.at(i)).object();
        const QString where = QStringLiteral("line %1: %2").arg(i + 1).arg(QString::fromUtf8(lines.at(i)));
        QVERIFY2(r.value(QStringLiteral("event")).toString() == QLatin1String("leader-changed"), qPrintable(where));
        QVERIFY2(r.value(QStringLiteral("lease")).toString() == m_lease, qPrintable(where));
        QVERIFY2(r.value(QStringLiteral("from")).toString() == expected.at(i).from, qPrintable(where));
        QVERIFY2(r.value(QStringLiteral("to")).toString() == expected.at(i).to, qPrintable(where));
        QVERIFY2(r.value(QStringLiteral("why")).toString() == expected.at(i).why, qPrintable(where));
        QVERIFY2(r.value(QStringLiteral("recorded")).toBool(), qPrintable(where));
        // F7: one transition per term.
        const qint64 t = qint64(r.value(QStringLiteral("transitions")).toDouble());
        QVERIFY2(t > transitions, qPrintable(where));
        transitions = t;
    }
    // The clean handover is one change with the time without a leader: the
    // successor took the released lease without waiting for it to expire.
    const QJsonObject handover = QJsonDocument::fromJson(lines.last()).object();
    QVERIFY(handover.contains(QStringLiteral("gapMs")));
    const qint64 gapMs = qint64(handover.value(QStringLiteral("gapMs")).toDouble());
    QVERIFY2(gapMs >= 0 && gapMs < leaseMs, qPrintable(QString::number(gapMs)));
    // A crash's gap runs from the last renewal the successor saw to its
    // takeover: at least the lease the killed leader left unrenewed (F2),
    // not the moment between the expiry and the takeover.
    QList<qint64> crashGaps;
    for (qsizetype i = 1; i <= 2; ++i) {
        const qint64 crashGap = qint64(QJsonDocument::fromJson(lines.at(i)).object().value(QStringLiteral("gapMs")).toDouble());
        QVERIFY2(crashGap >= leaseMs, qPrintable(QStringLiteral("%1 < %2").arg(crashGap).arg(leaseMs)));
        crashGaps.append(crashGap);
    }

    // The table: a header, then the same four changes in the same order.
    const QStringList table = QString::fromUtf8(runStatus({})).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(table.size(), expected.size() + 1);
    QVERIFY2(table.at(0).simplified()
                     == QLatin1String("TIME LEASE FROM TO WHY GAP TRANS"),
             qPrintable(table.at(0)));
    for (qsizetype i = 0; i < expected.size(); ++i) {
        const QStringList cells = table.at(i + 1).simplified().split(QLatin1Char(' '));
        QCOMPARE(cells.size(), 7);
        QCOMPARE(cells.at(1), m_lease);
        QCOMPARE(cells.at(2), expected.at(i).from.isEmpty() ? QStringLiteral("(none)") : expected.at(i).from);
        QCOMPARE(cells.at(3), expected.at(i).to);
        QCOMPARE(cells.at(4), expected.at(i).why);
    }
    // GAP as the options write durations: the same milliseconds.
    QCOMPARE(table.last().simplified().split(QLatin1Char(' ')).at(5), durationtext::format(gapMs));
    for (qsizetype i = 1; i <= 2; ++i)
        QCOMPARE(table.at(i + 1).simplified().split(QLatin1Char(' ')).at(5), durationtext::format(crashGaps.at(i - 1)));

    // The watch printed as `kubectl get -w` does: the header once, before
    // the first row, then a row whenever the holder or the state changed,
    // in the header's columns: each leader in turn, and no row for a mere
    // renewal (at most an expiry or a release between two leaders).
    const QString watched = stopWatch(watch.get());
    const QStringList watchLines = watched.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const QStringList headers = watchLines.filter(QRegularExpression(QStringLiteral("^LEASE ")));
    QVERIFY2(headers.size() == 1, qPrintable(watched));
    const QString header = headers.constFirst();
    const QStringList watchRows = watchLines.filter(QRegularExpression(QStringLiteral("^%1 ").arg(m_lease)));
    QVERIFY2(watchLines.indexOf(header) < watchLines.indexOf(watchRows.value(0)), qPrintable(watched));
    QVERIFY2(watchRows.size() <= 2 * expected.size(), qPrintable(watched));
    QStringList leaders;
    for (const QString &row : watchRows) {
        const QStringList cells = row.simplified().split(QLatin1Char(' '));
        QCOMPARE(row.indexOf(cells.last(), header.indexOf(QStringLiteral("STATE"))), header.indexOf(QStringLiteral("STATE")));
        QCOMPARE(row.indexOf(cells.at(1)), header.indexOf(QStringLiteral("HOLDER")));
        if (cells.last() == QLatin1String("held") && leaders.value(leaders.size() - 1) != cells.at(1))
            leaders.append(cells.at(1));
        else
            QVERIFY2(cells.last() == QLatin1String("EXPIRED") || cells.last() == QLatin1String("free"), qPrintable(row));
    }
    QStringList expectedLeaders;
    for (const ExpectedChange &change : expected)
        expectedLeaders.append(change.to);
    QCOMPARE(leaders, expectedLeaders);
    // On exit, the changes it saw, each crash with its time without a
    // leader of at least a lease, and their count.
    static const QRegularExpression crashLine(
            QStringLiteral("\nbaton status: \\S+  \\S+: \\S+ -> \\S+ \\(expired, (\\S+) without a leader\\)"));
    auto crashes = crashLine.globalMatch(watched);
    int seenCrashes = 0;
    while (crashes.hasNext()) {
        const QString text = crashes.next().captured(1);
        QString problem;
        const std::optional<qint64> seenGap = durationtext::parse(text, &problem);
        QVERIFY2(seenGap && *seenGap >= leaseMs, qPrintable(text + QLatin1Char('\n') + watched));
        ++seenCrashes;
    }
    QVERIFY2(seenCrashes == 2, qPrintable(watched));
    QVERIFY2(watched.contains(QLatin1String("\nbaton status: 4 failover(s) seen\n")), qPrintable(watched));
    // A watch that sees nothing says so, whatever the stored history holds.
    const std::unique_ptr<QProcess> idle = startWatch();
    QVERIFY2(idle, "baton status -w did not start");
    const QString idleOut = stopWatch(idle.get());
    QVERIFY2(idleOut.trimmed().endsWith(QLatin1String("\nbaton status: 0 failover(s) seen")), qPrintable(idleOut));
    // -o wide says where each change comes from: the store, not this look.
    const QStringList wide = QString::fromUtf8(runStatus({QStringLiteral("-o"), QStringLiteral("wide"),
                                                          QStringLiteral("--no-headers")}))
                                     .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(wide.size(), expected.size());
    for (const QString &line : wide)
        QVERIFY2(line.endsWith(QLatin1String("  stored")), qPrintable(line));

    // The export to a file holds the changes of the leases named, as the
    // printed history does: the lease of the scenario's four, another none.
    for (const QString &lease : {m_lease, QStringLiteral("another")}) {
        const QString path = m_folder.filePath(lease + QStringLiteral("-export.json"));
        QProcess exporter;
        keepOutput(&exporter, QStringLiteral("status-history-export-") + lease, ArtifactKind::Events);
        exporter.start(batonBinary(), {QStringLiteral("status"), QStringLiteral("--store"), m_storeUrl, lease,
                                       QStringLiteral("--history"), path});
        QVERIFY(exporter.waitForFinished(int(5 * leaseMs)));
        QFile file(path);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
        const QJsonArray rows =
                QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("history")).toArray();
        QCOMPARE(rows.size(), lease == m_lease ? expected.size() : 0);
        for (const QJsonValue &row : rows)
            QCOMPARE(row.toObject().value(QStringLiteral("lease")).toString(), lease);
    }
}

void TestStatusHistory::checkIsOkWhileTheHolderRenewsAndCriticalOnceItStops()
{
    // O3: `status --check` as a monitoring plugin, on a real election: OK
    // while the one participant holds and renews; CRITICAL, naming the
    // holder, once it is killed and its lease runs out; CRITICAL for a
    // lease that is not there at all.
    const QString lease = m_lease + QStringLiteral("-check");
    const ParticipantConfig config {m_registry, lease, QStringLiteral("solo"), leaseMs, renewMs};
    const std::unique_ptr<ParticipantProcess> solo =
            startParticipant(QStringLiteral("solo"), config.writeTo(m_folder.filePath(QStringLiteral("solo.json"))));
    QTRY_VERIFY_WITH_TIMEOUT(solo->isLeading(), int(5 * leaseMs));
    const auto check = [this](const QString &name) {
        QProcess status;
        status.start(batonBinary(), {QStringLiteral("status"), QStringLiteral("--check"), QStringLiteral("--store"),
                                     m_storeUrl, name});
        if (!status.waitForFinished(int(5 * leaseMs)) || status.exitStatus() != QProcess::NormalExit)
            return std::pair(-1, QString());
        return std::pair(status.exitCode(), QString::fromUtf8(status.readAllStandardOutput()));
    };
    auto [exitCode, out] = check(lease);
    QVERIFY2(exitCode == 0, qPrintable(out));
    QCOMPARE(out, QStringLiteral("OK - lease \"%1\" held by solo\n").arg(lease));

    QSignalSpy died(solo.get(), &ParticipantProcess::finished);
    solo->sendSignal(SIGKILL);
    QVERIFY(died.count() > 0 || died.wait(int(5 * leaseMs)));
    // Renewed late, then expired: waited for, as the lease runs out.
    QTRY_VERIFY_WITH_TIMEOUT((std::tie(exitCode, out) = check(lease), exitCode == 2), int(5 * leaseMs));
    QVERIFY2(out.startsWith(QStringLiteral("CRITICAL - lease \"%1\": the lease of solo expired").arg(lease)),
             qPrintable(out));

    std::tie(exitCode, out) = check(lease + QStringLiteral("-nosuch"));
    QCOMPARE(exitCode, 2);
    QVERIFY2(out.startsWith(QStringLiteral("CRITICAL - lease \"%1-nosuch\" not found").arg(lease)), qPrintable(out));
}

QTEST_GUILESS_MAIN(TestStatusHistory)
#include "tst_statushistory.moc"
