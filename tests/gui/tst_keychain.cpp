// Secrets of saved connections (O4, R2): an etcd password goes to the
// system keychain (a real Secret Service: gnome-keyring in a private D-Bus
// session, started by run-with-keyring.sh) and never into the settings file
// on disk. The password is read back through QtKeychain itself. The settings
// file is owner-only under umask 0 (R2).

#include "artifacts.h"
#include "connectionrepository.h"
#include "secretstore.h"
#include "testsupport.h"
#include "testsecrets.h"

#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>

#include <qt6keychain/keychain.h>

#include <sys/stat.h>

using namespace baton;

namespace {

// Non-ASCII, a quote and a slash: each encoding of a leak differs from the plain text.
const QString password = test::testSecret(QStringLiteral("keychain-password"));
const QString token = test::testSecret(QStringLiteral("keychain-token"));

struct Answer
{
    bool done = false;
    bool ok = false;
    QString value;
    QString error;
};

} // namespace

class TestKeychain : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void secretsGoToTheKeychainNotToTheSettingsFile();
    void removingAConnectionRemovesItsSecrets();

private:
    QString readWithQtKeychain(const QString &key, bool *found);
};

void TestKeychain::initTestCase()
{
    // Fail clearly rather than skip: this test proves R2 only against a real Secret Service.
    QVERIFY2(qEnvironmentVariableIsSet("BATON_KEYRING_SESSION"),
             "run through ctest (tests/gui/run-with-keyring.sh starts the Secret Service)");
    QVERIFY2(qEnvironmentVariableIsSet("DBUS_SESSION_BUS_ADDRESS"), "no D-Bus session bus");
    QCoreApplication::setOrganizationName(QStringLiteral("baton"));
    QCoreApplication::setApplicationName(QStringLiteral("baton"));
    // R2: the most permissive umask; the settings file must not depend on it.
    ::umask(0);
}

QString TestKeychain::readWithQtKeychain(const QString &key, bool *found)
{
    QKeychain::ReadPasswordJob job(QStringLiteral("baton"));
    job.setAutoDelete(false);
    job.setInsecureFallback(false);
    job.setKey(key);
    QSignalSpy finished(&job, &QKeychain::Job::finished);
    job.start();
    if (!finished.wait(10000)) {
        *found = false;
        return QStringLiteral("<no answer from the keychain>");
    }
    *found = job.error() == QKeychain::NoError;
    if (job.error() != QKeychain::NoError && job.error() != QKeychain::EntryNotFound)
        qWarning("keychain: %s", qPrintable(job.errorString()));
    return job.textData();
}

void TestKeychain::secretsGoToTheKeychainNotToTheSettingsFile()
{
    // The dashboard's own settings, where QSettings puts them by default.
    QSettings settings;
    SecretStore secrets;
    ConnectionRepository repository(&settings, &secrets);

    Connection etcd;
    etcd.name = QStringLiteral("production etcd");
    etcd.kind = ConnectionKind::Etcd;
    etcd.parameters.insert(QStringLiteral("endpoints"), QStringLiteral("https://127.0.0.1:2379"));
    etcd.parameters.insert(QStringLiteral("username"), QStringLiteral("ops"));
    // A careless caller that also put the secret among the parameters.
    etcd.parameters.insert(QStringLiteral("password"), password);
    etcd.secrets.insert(QStringLiteral("password"), password);
    Connection kube;
    kube.name = QStringLiteral("staging cluster");
    kube.kind = ConnectionKind::Kubernetes;
    kube.parameters.insert(QStringLiteral("context"), QStringLiteral("staging"));
    kube.secrets.insert(QStringLiteral("token"), token);

    Answer saved;
    const QString etcdId = repository.save(etcd, [&](bool ok, const QString &error) {
        saved = {true, ok, {}, error};
    });
    QTRY_VERIFY_WITH_TIMEOUT(saved.done, 10000);
    QVERIFY2(saved.ok, qPrintable(saved.error));
    Answer savedKube;
    const QString kubeId = repository.save(kube, [&](bool ok, const QString &error) {
        savedKube = {true, ok, {}, error};
    });
    QTRY_VERIFY_WITH_TIMEOUT(savedKube.done, 10000);
    QVERIFY2(savedKube.ok, qPrintable(savedKube.error));

    // In the keychain, read back with QtKeychain directly.
    bool found = false;
    QCOMPARE(readWithQtKeychain(ConnectionRepository::secretKey(etcdId, QStringLiteral("password")), &found), password);
    QVERIFY(found);
    QCOMPARE(readWithQtKeychain(ConnectionRepository::secretKey(kubeId, QStringLiteral("token")), &found), token);
    QVERIFY(found);

    // R2: not in the settings file on disk, in any form.
    settings.sync();
    QFile file(settings.fileName());
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(settings.fileName()));
    const QByteArray onDisk = file.readAll();
    QVERIFY2(onDisk.contains("production etcd") && onDisk.contains("127.0.0.1:2379"),
             "the settings file should hold the connection's other parameters");
    QVERIFY(!onDisk.contains(password.toUtf8()));
    QVERIFY(!onDisk.contains(QUrl::toPercentEncoding(password)));
    QVERIFY(!onDisk.contains(test::testSecretMarker()));
    QVERIFY(!onDisk.contains(token.toUtf8()));
    test::keepArtifactFile(test::ArtifactKind::Settings, settings.fileName());
    // R2: in a fresh HOME the dashboard created the file and its folder, owner-only.
    BATON_COMPARE_MODE(settings.fileName(), 0600);
    BATON_COMPARE_MODE(QFileInfo(settings.fileName()).absolutePath(), 0700);

    // Opening the connection reads the secret back from the keychain.
    Answer loaded;
    repository.loadSecrets(*repository.connection(etcdId), [&](const Connection &c, const QString &error) {
        loaded = {true, error.isEmpty(), c.secrets.value(QStringLiteral("password")), error};
    });
    QTRY_VERIFY_WITH_TIMEOUT(loaded.done, 10000);
    QVERIFY2(loaded.ok, qPrintable(loaded.error));
    QCOMPARE(loaded.value, password);
    // The store configuration carries it, for the store only.
    Connection withSecrets = *repository.connection(etcdId);
    withSecrets.secrets.insert(QStringLiteral("password"), loaded.value);
    QCOMPARE(withSecrets.storeConfig().value(QStringLiteral("password")).toString(), password);

    // Saving again with the secret left empty keeps the stored one.
    Connection edited = *repository.connection(etcdId);
    edited.parameters.insert(QStringLiteral("username"), QStringLiteral("ops2"));
    Answer resaved;
    repository.save(edited, [&](bool ok, const QString &error) { resaved = {true, ok, {}, error}; });
    QTRY_VERIFY_WITH_TIMEOUT(resaved.done, 10000);
    QCOMPARE(readWithQtKeychain(ConnectionRepository::secretKey(etcdId, QStringLiteral("password")), &found), password);
}

void TestKeychain::removingAConnectionRemovesItsSecrets()
{
    QSettings settings;
    SecretStore secrets;
    ConnectionRepository repository(&settings, &secrets);
    Connection etcd;
    etcd.name = QStringLiteral("to remove");
    etcd.kind = ConnectionKind::Etcd;
    etcd.parameters.insert(QStringLiteral("endpoints"), QStringLiteral("https://127.0.0.1:2379"));
    etcd.secrets.insert(QStringLiteral("password"), QStringLiteral("gone-soon"));
    Answer saved;
    const QString id = repository.save(etcd, [&](bool ok, const QString &error) { saved = {true, ok, {}, error}; });
    QTRY_VERIFY_WITH_TIMEOUT(saved.done, 10000);
    QVERIFY2(saved.ok, qPrintable(saved.error));
    Answer removed;
    repository.remove(id, [&](bool ok, const QString &error) { removed = {true, ok, {}, error}; });
    QTRY_VERIFY_WITH_TIMEOUT(removed.done, 10000);
    QVERIFY2(removed.ok, qPrintable(removed.error));
    bool found = true;
    readWithQtKeychain(ConnectionRepository::secretKey(id, QStringLiteral("password")), &found);
    QVERIFY(!found);
    QVERIFY(!repository.connection(id));
}

QTEST_MAIN(TestKeychain)
#include "tst_keychain.moc"
