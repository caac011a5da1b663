// R2: every file and folder Baton creates is its user's alone (0600,
// 0700), whatever the umask: the test runs under umask 0, where anything
// left to the umask would come out world-readable and world-writable. A
// folder or file that already exists keeps its mode (docs/reference/files.md,
// "Files Baton creates", says why). The end-to-end cases (`baton status
// --history` and the store written by real processes, the dashboard's
// settings file and exports) are in tst_statusmetrics, tst_keychain and
// tst_dashboard.

#include "filestore.h"
#include "memorystore.h"
#include <batoninternal/privatefiles.h>
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <sys/types.h>

using namespace baton;

namespace {

bool createAndWait(Store &store, const QString &key)
{
    bool done = false;
    bool ok = false;
    store.create(key, QJsonObject {{QStringLiteral("n"), 1}}, [&](const StoreResult &r) {
        done = true;
        ok = r.ok();
    });
    return QTest::qWaitFor([&] { return done; }, 5000) && ok;
}

} // namespace

class TestPrivateFiles : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void foldersWeCreateAreOwnerOnly();
    void anExistingFolderKeepsItsMode();
    void fileStoreFolderAndRecordsAreOwnerOnly();
    void fileStoreInAnExistingSharedFolder();
    void memoryStorePersistenceIsOwnerOnly();
    void settingsFileStaysOwnerOnlyThroughQSettings();
    void newExportIsOwnerOnlyAnExistingOneKeepsItsMode();

private:
    QTemporaryDir m_dir;
    mode_t m_umask = 0;
};

void TestPrivateFiles::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // The most permissive umask: nothing we create may rely on it.
    m_umask = ::umask(0);
}

void TestPrivateFiles::cleanupTestCase()
{
    ::umask(m_umask);
}

void TestPrivateFiles::foldersWeCreateAreOwnerOnly()
{
    const QString deepest = m_dir.filePath(QStringLiteral("a/b/c"));
    QVERIFY(privatefiles::makeFolder(deepest));
    for (const QString &folder : {QStringLiteral("a"), QStringLiteral("a/b"), QStringLiteral("a/b/c")})
        BATON_COMPARE_MODE(m_dir.filePath(folder), 0700);
    // Again: it exists, and that is no error.
    QVERIFY(privatefiles::makeFolder(deepest));
}

void TestPrivateFiles::anExistingFolderKeepsItsMode()
{
    const QString shared = m_dir.filePath(QStringLiteral("shared"));
    QVERIFY(QDir().mkdir(shared));
    QVERIFY(::chmod(QFile::encodeName(shared).constData(), 0755) == 0);
    QVERIFY(privatefiles::makeFolder(shared + QStringLiteral("/mine")));
    BATON_COMPARE_MODE(shared, 0755);
    BATON_COMPARE_MODE(shared + QStringLiteral("/mine"), 0700);
}

void TestPrivateFiles::fileStoreFolderAndRecordsAreOwnerOnly()
{
    // As the default Registry does: a folder under a data folder that does not exist yet.
    const QString folder = m_dir.filePath(QStringLiteral("data/baton/registry"));
    FileStore store(QStringLiteral("Registry"), QJsonObject {{QStringLiteral("folder"), folder}}, nullptr);
    QString error;
    QVERIFY2(store.init(&error), qPrintable(error));
    QVERIFY(createAndWait(store, QStringLiteral("cluster:leader")));
    BATON_COMPARE_MODE(m_dir.filePath(QStringLiteral("data")), 0700);
    BATON_COMPARE_MODE(m_dir.filePath(QStringLiteral("data/baton")), 0700);
    BATON_COMPARE_MODE(folder, 0700);
    BATON_COMPARE_MODE(folder + QLatin1Char('/') + FileStore::fileNameForKey(QStringLiteral("cluster:leader"), 1), 0600);
}

void TestPrivateFiles::fileStoreInAnExistingSharedFolder()
{
    // The user made the folder, with its own mode: kept; our files in it are still ours alone.
    const QString folder = m_dir.filePath(QStringLiteral("group-registry"));
    QVERIFY(QDir().mkdir(folder));
    QVERIFY(::chmod(QFile::encodeName(folder).constData(), 0770) == 0);
    FileStore store(QStringLiteral("Registry"), QJsonObject {{QStringLiteral("folder"), folder}}, nullptr);
    QString error;
    QVERIFY2(store.init(&error), qPrintable(error));
    QVERIFY(createAndWait(store, QStringLiteral("cluster:leader")));
    BATON_COMPARE_MODE(folder, 0770);
    BATON_COMPARE_MODE(folder + QLatin1Char('/') + FileStore::fileNameForKey(QStringLiteral("cluster:leader"), 1), 0600);
}

void TestPrivateFiles::memoryStorePersistenceIsOwnerOnly()
{
    const QString path = m_dir.filePath(QStringLiteral("memory.json"));
    MemoryStore store(QStringLiteral("Registry"),
                      QJsonObject {{QStringLiteral("persistence"), QJsonObject {{QStringLiteral("path"), path}}}},
                      nullptr);
    QString error;
    QVERIFY2(store.init(&error), qPrintable(error));
    QVERIFY(createAndWait(store, QStringLiteral("cluster:leader")));
    BATON_COMPARE_MODE(path, 0600);
}

void TestPrivateFiles::settingsFileStaysOwnerOnlyThroughQSettings()
{
    // What ConnectionRepository does before the dashboard writes its settings.
    const QString path = m_dir.filePath(QStringLiteral("config/baton/baton.conf"));
    QVERIFY(privatefiles::prepareFile(path));
    BATON_COMPARE_MODE(m_dir.filePath(QStringLiteral("config")), 0700);
    BATON_COMPARE_MODE(m_dir.filePath(QStringLiteral("config/baton")), 0700);
    BATON_COMPARE_MODE(path, 0600);
    {
        QSettings settings(path, QSettings::IniFormat);
        settings.setValue(QStringLiteral("connections/1/name"), QStringLiteral("production"));
        settings.sync();
        QCOMPARE(settings.status(), QSettings::NoError);
    }
    // QSettings replaced the file: the new one kept the mode.
    BATON_COMPARE_MODE(path, 0600);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll().contains("production"));
}

void TestPrivateFiles::newExportIsOwnerOnlyAnExistingOneKeepsItsMode()
{
    const QString fresh = m_dir.filePath(QStringLiteral("history.csv"));
    {
        QSaveFile file(fresh);
        QVERIFY2(privatefiles::openForWriting(file), qPrintable(file.errorString()));
        file.write("lease,from,to\n");
        QVERIFY(file.commit());
    }
    BATON_COMPARE_MODE(fresh, 0600);

    // The user shared an earlier export on purpose: rewriting it keeps that.
    const QString shared = m_dir.filePath(QStringLiteral("shared.csv"));
    {
        QFile file(shared);
        QVERIFY(file.open(QIODevice::WriteOnly));
    }
    QVERIFY(::chmod(QFile::encodeName(shared).constData(), 0644) == 0);
    {
        QSaveFile file(shared);
        QVERIFY2(privatefiles::openForWriting(file), qPrintable(file.errorString()));
        file.write("lease,from,to\n");
        QVERIFY(file.commit());
    }
    BATON_COMPARE_MODE(shared, 0644);
}

QTEST_GUILESS_MAIN(TestPrivateFiles)
#include "tst_privatefiles.moc"
