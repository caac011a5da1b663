// `baton join` whose etcd refuses its credentials, run as the real program
// against the etcd fixture with authentication on: it gives up after a
// bound of refused attempts with one error line and an exit status of its
// own, never leading; an etcd that cannot be reached while authenticating
// is retried past that bound, as any store that is down.

#include "etcdfixture.h"
#include "participants.h"
#include "refusedcredentials.h"
#include "testsecrets.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <csignal>

using namespace baton;
using namespace baton::test;

namespace {

constexpr int credentialsRefusedStatus = 77;

int countAttempts(const ParticipantProcess &participant, const QString &errorKind)
{
    int count = 0;
    for (const QJsonObject &event : participant.events())
        if (event.value(QStringLiteral("event")).toString() == QLatin1String("attempt")
            && event.value(QStringLiteral("errorKind")).toString() == errorKind)
            ++count;
    return count;
}

int countLines(const QByteArray &text, const QByteArray &needle)
{
    int count = 0;
    for (const QByteArray &line : text.split('\n'))
        if (line.contains(needle))
            ++count;
    return count;
}

} // namespace

class TestJoinRefused : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void aWrongPasswordEndsJoinWithOneErrorAndItsOwnStatus();
    void anUnreachableEtcdWhileAuthenticatingIsRetriedPastTheBound();

private:
    QString writeConfig(const QString &name, const QStringList &endpoints, const QString &password);

    EtcdFixture m_authEtcd { "BATON_ETCD_AUTH_DIR" };
    QTemporaryDir m_dir;
};

void TestJoinRefused::initTestCase()
{
    if (!m_authEtcd.configured())
        QSKIP("no etcd fixture: run through ctest");
    QVERIFY2(!batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY2(!m_authEtcd.endpoints().isEmpty(), qPrintable(m_authEtcd.errorString()));
    QVERIFY(m_dir.isValid());
}

QString TestJoinRefused::writeConfig(const QString &name, const QStringList &endpoints,
                                     const QString &password)
{
    const QJsonObject config {
        { QStringLiteral("services"),
          QJsonObject {
              { QStringLiteral("Registry"),
                QJsonObject { { QStringLiteral("type"), QStringLiteral("Webda/EtcdStore") },
                              { QStringLiteral("endpoints"), QJsonArray::fromStringList(endpoints) },
                              { QStringLiteral("prefix"),
                                QStringLiteral("auth/%1/").arg(QUuid::createUuid().toString(QUuid::Id128)) },
                              { QStringLiteral("username"), m_authEtcd.username() },
                              { QStringLiteral("password"), password },
                              { QStringLiteral("timeout"), int(scaledMs(2000)) } } },
              { QStringLiteral("cluster"),
                QJsonObject { { QStringLiteral("type"), QStringLiteral("Webda/StoreClusterService") },
                              { QStringLiteral("leaseName"), name },
                              { QStringLiteral("leaseDuration"), 2000 },
                              { QStringLiteral("renewInterval"), 500 } } } } }
    };
    const QString path = m_dir.filePath(name + QStringLiteral(".json"));
    return writeJsonFile(path, config) ? path : QString();
}

// B6, R2: a wrong password is refused by etcd attempt after attempt; after
// the bound, join says so once, naming the lease, the store and the
// parameters to mend, steps down from nothing, and exits 77. The password
// is never printed.
void TestJoinRefused::aWrongPasswordEndsJoinWithOneErrorAndItsOwnStatus()
{
    const QString wrong = testSecret(QStringLiteral("join-refused-password"));
    const QString config = writeConfig(QStringLiteral("refused"), m_authEtcd.endpoints(), wrong);
    QVERIFY(!config.isEmpty());
    auto participant = startParticipant(QStringLiteral("refused"), config);
    QSignalSpy finished(participant.get(), &ParticipantProcess::finished);
    // Without the bound, join retries for ever and this wait fails.
    QVERIFY2(finished.wait(int(scaledMs(60000))), participant->standardError().constData());

    const QByteArray err = participant->standardError();
    QCOMPARE(participant->exitStatus(), QProcess::NormalExit);
    QVERIFY2(participant->exitCode() == credentialsRefusedStatus, err.constData());
    QCOMPARE(countAttempts(*participant, QStringLiteral("credentials-refused")),
             RefusedCredentials::limit);
    for (const QJsonObject &event : participant->events())
        QVERIFY2(event.value(QStringLiteral("event")).toString() != QLatin1String("started-leading"),
                 "an instance whose credentials were refused led");
    QCOMPARE(countLines(err, "credentials refused"), 1);
    QByteArray givingUp;
    for (const QByteArray &line : err.split('\n'))
        if (line.contains("credentials refused"))
            givingUp = line;
    for (const QByteArray &named : { QByteArray("lease \"refused\""),
                                     QByteArray("Webda/EtcdStore \"Registry\""),
                                     QByteArray("check the store's \"username\" and \"password\""),
                                     QByteArray("exit status 77") })
        QVERIFY2(givingUp.contains(named),
                 qPrintable(QStringLiteral("%1 not in: %2").arg(QString::fromUtf8(named),
                                                                QString::fromUtf8(givingUp))));
    QVERIFY2(!err.contains(wrong.toUtf8()) && !participant->standardOutput().contains(wrong.toUtf8()),
             "the password was printed");
}

// B6, R4: with credentials configured and no etcd listening, every attempt
// fails while authenticating; that is a store down, not refused
// credentials, so join keeps campaigning past the bound until it is stopped.
void TestJoinRefused::anUnreachableEtcdWhileAuthenticatingIsRetriedPastTheBound()
{
    QTcpServer closed; // a port that was free a moment ago, now closed again
    QVERIFY(closed.listen(QHostAddress::LocalHost));
    const QString dead = QStringLiteral("http://127.0.0.1:%1").arg(closed.serverPort());
    closed.close();
    const QString config = writeConfig(QStringLiteral("unreachable"), { dead },
                                       testSecret(QStringLiteral("join-unreachable-password")));
    QVERIFY(!config.isEmpty());
    auto participant = startParticipant(QStringLiteral("unreachable"), config);
    const int enough = 2 * RefusedCredentials::limit + 1;
    QTRY_VERIFY2_WITH_TIMEOUT(countAttempts(*participant, QString()) >= enough || !participant->isRunning(),
                              participant->standardError().constData(), int(scaledMs(120000)));
    QVERIFY2(participant->isRunning(), participant->standardError().constData());
    QCOMPARE(countAttempts(*participant, QStringLiteral("credentials-refused")), 0);
    QVERIFY(participant->standardError().contains("authentication as"));
    QCOMPARE(countLines(participant->standardError(), "credentials refused"), 0);

    QSignalSpy finished(participant.get(), &ParticipantProcess::finished);
    participant->sendSignal(SIGTERM);
    QVERIFY(finished.wait(int(scaledMs(30000))));
    QCOMPARE(participant->exitCode(), 0);
}

QTEST_GUILESS_MAIN(TestJoinRefused)
#include "tst_joinrefused.moc"
