// `baton join --events json` whose reader goes away (O5, F5): the leader
// whose stdout is closed stops as on SIGTERM, says so once on stderr, exits
// with 1 rather than dying of SIGPIPE, and releases its lease, so the
// follower sees a release, not an expiry. Real processes on a file Registry.

#include "participantprocess.h"
#include "participants.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <csignal>

using namespace baton;
using namespace baton::test;

namespace {

// A long lease: the follower can only see the leader go within it by a
// release (F5), never by an expiry (F6).
constexpr qint64 leaseMs = 20000;
constexpr qint64 renewMs = 500;

} // namespace

class TestJoinEvents : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void aLeaderWhoseEventReaderIsGoneStopsAndReleases();

private:
    QString writeConfig(const QString &instanceId);

    QTemporaryDir m_folder;
};

void TestJoinEvents::initTestCase()
{
    QVERIFY2(!batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
}

QString TestJoinEvents::writeConfig(const QString &instanceId)
{
    const ParticipantConfig config {fileRegistry(m_folder.filePath(QStringLiteral("registry"))),
                                    QStringLiteral("events"), instanceId, leaseMs, renewMs};
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
    QTRY_VERIFY_WITH_TIMEOUT(follower.isLeading(), int(leaseMs));
    const QList<QJsonObject> events = follower.events();
    QVERIFY(std::any_of(events.cbegin(), events.cend(), [](const QJsonObject &e) {
        return e.value(QStringLiteral("event")) == QStringLiteral("leader-changed")
                && e.value(QStringLiteral("from")) == QStringLiteral("leader")
                && e.value(QStringLiteral("why")) == QStringLiteral("released");
    }));
    follower.sendSignal(SIGTERM);
    QTRY_VERIFY_WITH_TIMEOUT(!follower.isRunning(), int(leaseMs));
}

QTEST_GUILESS_MAIN(TestJoinEvents)
#include "tst_joinevents.moc"
