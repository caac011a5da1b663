// `baton check --config FILE` on a Kubernetes election, against the test
// Lease API server (TLS, one token a context), run as the real program: the
// participant's Role is OK and the check says what it does not check (the
// server answers neither a SelfSubjectAccessReview nor a dry run); a
// refused token and an account that may not list Leases are CRITICAL,
// each naming its step.

#include "leaseapiserver.h"
#include "participants.h"
#include "testcertificates.h"
#include "testsecrets.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace baton;

namespace {

const QString ns = QStringLiteral("checks");
const QString participantToken = test::testSecret(QStringLiteral("kube-token-participant"));
const QString wrongToken = test::testSecret(QStringLiteral("kube-token-wrong"));
const QString getterToken = test::testSecret(QStringLiteral("kube-token-getter"));

} // namespace

class TestKubernetesCheck : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void theParticipantsRoleIsOkAndWhatIsNotCheckedIsSaid();
    void aRefusedTokenIsCriticalNamingTheAuthentication();
    void anAccountThatMayNotListLeasesIsCriticalNamingThePermission();
    void theTokenFileIsReadWhereSystemdPutsCredentials();

private:
    struct Check
    {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
        QByteArray firstLine() const { return out.left(out.indexOf('\n')); }
        QString all() const { return QString::fromUtf8(out + err); }
    };
    /*! `baton check` of an election on the kubeconfig's \a context; the server answers meanwhile.
     */
    Check check(const QString &context, const QString &tokenFile = QString(),
                const QString &credentialsDirectory = QString());

    QTemporaryDir m_folder;
    test::TestCertificates m_certificates;
    test::LeaseApiServer m_server;
    QString m_kubeconfig;
};

void TestKubernetesCheck::initTestCase()
{
    QVERIFY2(!test::batonBinary().isEmpty(), "BATON_BINARY is not set: run through ctest");
    QVERIFY(m_folder.isValid());
    QString error;
    QVERIFY2(m_certificates.generate(m_folder.path(), &error), qPrintable(error));
    QVERIFY2(m_server.setTls(m_certificates.serverCertFile(), m_certificates.serverKeyFile(), {},
                             &error),
             qPrintable(error));
    QVERIFY2(m_server.listen(&error), qPrintable(error));
    // The participant's Role of resources/kubernetes/participant/role.yaml.
    m_server.addToken(participantToken, QStringLiteral("system:serviceaccount:checks:participant"),
                      { QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
                        QStringLiteral("list"), QStringLiteral("watch") });
    m_server.addToken(getterToken, QStringLiteral("system:serviceaccount:checks:getter"),
                      { QStringLiteral("get") });
    m_kubeconfig = m_folder.filePath(QStringLiteral("kubeconfig"));
    QFile file(m_kubeconfig);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QString yaml = QStringLiteral("apiVersion: v1\nkind: Config\ncurrent-context: participant\n"
                                  "clusters:\n- name: test\n  cluster:\n    server: %1\n"
                                  "    certificate-authority: %2\ncontexts:\n")
                       .arg(m_server.url().toString(), m_certificates.caFile());
    const QList<QPair<QString, QString>> identities { { QStringLiteral("participant"),
                                                        participantToken },
                                                      { QStringLiteral("wrong"), wrongToken },
                                                      { QStringLiteral("getter"), getterToken } };
    for (const auto &[name, token] : identities)
        yaml += QStringLiteral(
                    "- name: %1\n  context:\n    cluster: test\n    user: %1\n    namespace: %2\n")
                    .arg(name, ns);
    yaml += QStringLiteral("users:\n");
    for (const auto &[name, token] : identities)
        yaml += QStringLiteral("- name: %1\n  user:\n    token: %2\n").arg(name, token);
    file.write(yaml.toUtf8());
}

TestKubernetesCheck::Check TestKubernetesCheck::check(const QString &context, const QString &tokenFile,
                                                      const QString &credentialsDirectory)
{
    QJsonObject config {
        { QStringLiteral("services"),
          QJsonObject {
              { QStringLiteral("cluster"),
                QJsonObject {
                    { QStringLiteral("type"), QStringLiteral("Webda/KubernetesClusterService") },
                    { QStringLiteral("config"), m_kubeconfig },
                    { QStringLiteral("context"), context },
                    { QStringLiteral("leaseName"), QStringLiteral("checked") } } } } }
    };
    if (!tokenFile.isEmpty()) {
        QJsonObject services = config.value(QStringLiteral("services")).toObject();
        QJsonObject cluster = services.value(QStringLiteral("cluster")).toObject();
        cluster.insert(QStringLiteral("tokenFile"), tokenFile);
        services.insert(QStringLiteral("cluster"), cluster);
        config.insert(QStringLiteral("services"), services);
    }
    const QString path = m_folder.filePath(context + QStringLiteral(".json"));
    Check run;
    if (!test::writeJsonFile(path, config))
        return run;
    QProcess process;
    if (!credentialsDirectory.isEmpty()) {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("CREDENTIALS_DIRECTORY"), credentialsDirectory);
        process.setProcessEnvironment(environment);
    }
    QSignalSpy finished(&process, &QProcess::finished);
    process.start(test::batonBinary(),
                  { QStringLiteral("check"), QStringLiteral("--config"), path });
    // The server is in this process: its event loop must run meanwhile.
    if (!finished.wait(60000))
        return run;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return run;
}

// B4, B5: the participant's Role lists the Leases: OK (0); what cannot be
// checked without a write, creating and updating the Lease, is said.
void TestKubernetesCheck::theParticipantsRoleIsOkAndWhatIsNotCheckedIsSaid()
{
    const Check run = check(QStringLiteral("participant"));
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QVERIFY2(run.firstLine().startsWith("OK - "), qPrintable(run.all()));
    QVERIFY2(run.out.contains("not checked: the permission to create and update the Lease"),
             qPrintable(run.all()));
    QCOMPARE(m_server.count(QStringLiteral("system:serviceaccount:checks:participant"),
                            QStringLiteral("create")),
             0);
    QCOMPARE(m_server.count(QStringLiteral("system:serviceaccount:checks:participant"),
                            QStringLiteral("update")),
             0);
}

// B4, R2: a token the API server refuses: CRITICAL, as the authentication
// step; the token never printed.
void TestKubernetesCheck::aRefusedTokenIsCriticalNamingTheAuthentication()
{
    const Check run = check(QStringLiteral("wrong"));
    QVERIFY2(run.exitCode == 2, qPrintable(run.all()));
    QVERIFY2(run.firstLine().startsWith("CRITICAL - "), qPrintable(run.all()));
    QVERIFY2(run.firstLine().contains("authentication failed"), qPrintable(run.all()));
    QVERIFY2(!run.all().contains(wrongToken), "the token was printed");
}

// B5: an account without the list verb: CRITICAL, as the permission step,
// with the Role to bind.
void TestKubernetesCheck::anAccountThatMayNotListLeasesIsCriticalNamingThePermission()
{
    const Check run = check(QStringLiteral("getter"));
    QVERIFY2(run.exitCode == 2, qPrintable(run.all()));
    QVERIFY2(run.firstLine().startsWith("CRITICAL - "), qPrintable(run.all()));
    QVERIFY2(run.firstLine().contains("permission failed"), qPrintable(run.all()));
    QVERIFY2(run.out.contains("fix: bind the participant's Role"), qPrintable(run.all()));
}

// B4, R2: the check vouches for the identity the election uses: a relative
// "tokenFile" is read from $CREDENTIALS_DIRECTORY (systemd's LoadCredential=),
// as the election reads it, and replaces the context's refused token.
void TestKubernetesCheck::theTokenFileIsReadWhereSystemdPutsCredentials()
{
    const QString credentials = m_folder.filePath(QStringLiteral("credentials"));
    QVERIFY(QDir().mkpath(credentials));
    QFile token(QDir(credentials).filePath(QStringLiteral("kube-token")));
    QVERIFY(token.open(QIODevice::WriteOnly));
    token.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    token.write(participantToken.toUtf8() + '\n');
    token.close();

    const Check run = check(QStringLiteral("wrong"), QStringLiteral("kube-token"), credentials);
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QVERIFY2(run.firstLine().startsWith("OK - "), qPrintable(run.all()));
    QVERIFY2(!run.all().contains(participantToken), "the token was printed");
}

QTEST_GUILESS_MAIN(TestKubernetesCheck)
#include "tst_kubernetescheck.moc"
