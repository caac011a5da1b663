// What only FileStore has (files, permissions, frozen writers, other
// processes), and the store contract (storecontract.h) run on a FileStore.
//
// The executable doubles as the "other process" of these tests: run with
// --store-child it becomes a small writer (see runChild()).

#include "filestore.h"
#include "filestoresteps.h"
#include "storecontract.h"
#include "leasebackendtesting.h"
#include "storeleaseprotocol.h"

#include <baton/application.h>

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QLockFile>
#include <QProcess>
#include <QSignalSpy>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <ctime>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <sys/time.h>

using namespace baton;
using namespace baton::test;

namespace {

const QString kChildSwitch = QStringLiteral("--store-child");
// The lock file of the FileStore's earlier layout, which no key may name.
const QString kLockFileName = QStringLiteral(".lock");
constexpr int kProcessTimeoutMs = 30000;
// F6: the crash-failover bound (leaseDuration + renewInterval) of a lease of
// 1500 ms renewed every 500 ms, the shortest the file store is run with.
constexpr int kTakeoverBoundMs = 1500 + 500;

std::unique_ptr<FileStore> newFileStore(const QString &folder, QString *error,
                                        QJsonObject parameters = {})
{
    parameters.insert(QStringLiteral("folder"), folder);
    auto store = std::make_unique<FileStore>(QStringLiteral("Registry"), parameters, nullptr);
    if (!store->init(error))
        return nullptr;
    return store;
}

} // namespace

class FileStoreContract : public StoreContract
{
    Q_OBJECT
protected:
    std::unique_ptr<Store> newStore(QString *error) override
    {
        m_dir = std::make_unique<QTemporaryDir>();
        return newFileStore(m_dir->filePath(QStringLiteral("registry")), error);
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
};


/*! What only FileStore has: files, permissions, frozen writers, other processes. */
class FileStoreTest : public StoreCalls
{
    Q_OBJECT
private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<FileStore> m_owned;
    QList<QProcess *> m_children;

    QString folder() const { return m_dir->filePath(QStringLiteral("registry")); }

    bool openStore(QJsonObject parameters = {})
    {
        QString error;
        m_owned = newFileStore(folder(), &error, parameters);
        if (!m_owned)
            qWarning("%s", qPrintable(error));
        m_store = m_owned.get();
        return m_store;
    }

    QProcess *startChild(const QStringList &arguments)
    {
        auto *child = new QProcess(this);
        child->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        child->start(QCoreApplication::applicationFilePath(),
                     QStringList { kChildSwitch } + arguments);
        m_children.append(child);
        return child;
    }

    /*!
     * \a store's update of \a key to doc(\a value) on \a version, waited for
     * while a frozen writer's hook runs; unanswered, calls stays 0, which
     * each caller checks.
     */
    CallPtr updateOn(FileStore *store, const QString &key, int value, const QString &version)
    {
        const CallPtr written = issue(
                [&](auto done) { store->update(key, doc(value), version, done); }, &m_issued);
        (void)QTest::qWaitFor([&] { return written->calls == 1; }, kTakeoverBoundMs);
        return written;
    }

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void cleanup()
    {
        checkEachCallbackRanOnce();
        for (QProcess *child : std::as_const(m_children)) {
            if (child->state() != QProcess::NotRunning) {
                child->kill();
                QTRY_COMPARE(child->state(), QProcess::NotRunning);
            }
            delete child;
        }
        m_children.clear();
        m_owned.reset();
        m_store = nullptr;
        m_dir.reset();
    }

    void fileNameForKey_data()
    {
        QTest::addColumn<QString>("key");
        QTest::newRow("a lease key stays readable") << "cluster:leader";
        QTest::newRow("a slash cannot leave the folder") << "../../etc/passwd";
        QTest::newRow("a dot cannot name the folder itself") << ".";
        QTest::newRow("two dots cannot name the parent") << "..";
        QTest::newRow("a leading dot cannot hide or clash with .lock") << ".lock";
        QTest::newRow("percent signs round-trip") << "100%25 sure%";
        QTest::newRow("spaces and unicode round-trip") << QStringLiteral("clé de été ✓");
        QTest::newRow("the empty key has a file too") << "";
    }

    // B1: one file a key, reversible, and safe for any key.
    void fileNameForKey()
    {
        QFETCH(QString, key);
        const QString fileName = FileStore::fileNameForKey(key, 1);
        QVERIFY(fileName.endsWith(QLatin1String(".1.json")));
        QVERIFY2(!fileName.contains(QLatin1Char('/')), qPrintable(fileName));
        QVERIFY(fileName != QLatin1String(".") && fileName != QLatin1String(".."));
        QVERIFY(fileName != kLockFileName);
        if (!key.isEmpty())
            QVERIFY2(!fileName.startsWith(QLatin1Char('.')), qPrintable(fileName));
        QCOMPARE(FileStore::keyForFileName(fileName), key);
        if (key == QLatin1String("cluster:leader"))
            QCOMPARE(fileName, QStringLiteral("cluster:leader.1.json"));

        // And the store really uses that file.
        QVERIFY(openStore());
        CREATE_OK(created, key, doc(1));
        QCOMPARE(created.version, QStringLiteral("1"));
        QVERIFY(QFile::exists(folder() + QLatin1Char('/') + fileName));
        const CallPtr listed = listCall(QString());
        WAIT_DONE(listed);
        QCOMPARE(listed->result.entries.size(), 1);
        QCOMPARE(listed->result.entries.first().key, key);
    }

    void corruptFileIsBadReply_data()
    {
        QTest::addColumn<QByteArray>("contents");
        QTest::newRow("a file that is not JSON") << QByteArray("{\"version\": \"3\", \"docu");
        QTest::newRow("an empty file") << QByteArray();
        QTest::newRow("a JSON array") << QByteArray("[1, 2]");
        QTest::newRow("an envelope without a version")
            << QByteArray(R"({"key": "cluster:leader", "document": {}})");
        QTest::newRow("an envelope whose document is not an object")
            << QByteArray(R"({"key": "cluster:leader", "version": "3", "document": 7})");
        QTest::newRow("an envelope that names another key")
            << QByteArray(R"({"key": "cluster:other", "version": "3", "document": {}})");
    }

    // R1: a corrupt document is BadReply naming the file, is never taken for
    // an absent key, and a conditional write changes nothing.
    void corruptFileIsBadReply()
    {
        QFETCH(QByteArray, contents);
        QVERIFY(openStore());
        CREATE_OK(good, QStringLiteral("cluster:good"), doc(1));
        const QString path = folder() + QStringLiteral("/cluster:leader.3.json");
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(contents);
        }

        const CallPtr got = getCall(QStringLiteral("cluster:leader"));
        WAIT_DONE(got);
        COMPARE_STATUS(got, "BadReply");
        QVERIFY2(got->result.errorString.contains(path), qPrintable(got->result.errorString));

        const CallPtr created = createCall(QStringLiteral("cluster:leader"), doc(2));
        WAIT_DONE(created);
        COMPARE_STATUS(created, "BadReply");
        const CallPtr updated
            = updateCall(QStringLiteral("cluster:leader"), doc(2), QStringLiteral("3"));
        WAIT_DONE(updated);
        COMPARE_STATUS(updated, "BadReply");
        const CallPtr removed = removeCall(QStringLiteral("cluster:leader"), QStringLiteral("3"));
        WAIT_DONE(removed);
        COMPARE_STATUS(removed, "BadReply");
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), contents);

        // The readable entries are still listed, but the listing says what is wrong.
        const CallPtr listed = listCall(QStringLiteral("cluster:"));
        WAIT_DONE(listed);
        COMPARE_STATUS(listed, "BadReply");
        QVERIFY(listed->result.errorString.contains(path));
        QCOMPARE(listed->result.entries.size(), 1);
        QCOMPARE(listed->result.entries.first().version, good.version);

        // An unconditional remove is the way out.
        const CallPtr cleared = removeCall(QStringLiteral("cluster:leader"), QString());
        WAIT_DONE(cleared);
        COMPARE_STATUS(cleared, "Ok");
        QVERIFY(!QFile::exists(path));
    }

    // R1: a corrupt version counter is BadReply naming it, not a reset counter.
    void corruptCounterIsBadReply()
    {
        QVERIFY(openStore());
        const QString path = folder() + QStringLiteral("/.sequence");
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("seven");
        }
        const CallPtr created = createCall(QStringLiteral("cluster:leader"), doc(1));
        WAIT_DONE(created);
        COMPARE_STATUS(created, "BadReply");
        QVERIFY2(created->result.errorString.contains(path),
                 qPrintable(created->result.errorString));
        QCOMPARE(QDir(folder()).entryList({ QStringLiteral("cluster:leader*") }), QStringList());
    }

    // R1: a folder removed under the store is an error, never an empty store.
    void removedFolderIsUnavailable()
    {
        QVERIFY(openStore());
        CREATE_OK(created, QStringLiteral("cluster:leader"), doc(1));
        QVERIFY(QDir(folder()).removeRecursively());

        const CallPtr listed = listCall(QString());
        WAIT_DONE(listed);
        COMPARE_STATUS(listed, "Unavailable");
        QVERIFY2(listed->result.errorString.contains(folder()),
                 qPrintable(listed->result.errorString));
        const CallPtr got = getCall(created.key);
        WAIT_DONE(got);
        COMPARE_STATUS(got, "Unavailable");
    }

    // R2: the folder and its files are owner-only.
    void folderAndFilesAreOwnerOnly()
    {
        QVERIFY(!QFileInfo::exists(folder()));
        QVERIFY(openStore());
        const QFile::Permissions ownerAll = QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner
            | QFile::ReadUser | QFile::WriteUser | QFile::ExeUser;
        QCOMPARE(QFileInfo(folder()).permissions(), ownerAll);

        CREATE_OK(created, QStringLiteral("cluster:leader"), doc(1));
        const CallPtr updated = updateCall(created.key, doc(2), created.version);
        WAIT_DONE(updated);
        CREATE_OK(other, QStringLiteral("cluster:other"), doc(3));
        const CallPtr gone = removeCall(other.key, other.version);
        WAIT_DONE(gone);
        COMPARE_STATUS(gone, "Ok");
        const QFile::Permissions ownerReadWrite
            = QFile::ReadOwner | QFile::WriteOwner | QFile::ReadUser | QFile::WriteUser;
        // The records, the removal of cluster:other, anything left aside.
        const QFileInfoList files
                = QDir(folder()).entryInfoList(QDir::Files | QDir::Hidden | QDir::System);
        QCOMPARE(files.size(), 2);
        for (const QFileInfo &file : files)
            QVERIFY2(file.permissions() == ownerReadWrite, qPrintable(file.fileName()));
    }

    // B1, F7: a removal is a version of its own, so the key created again
    // carries on from it, and a writer holding a version from before the
    // removal can never win; older versions do not pile up.
    void removedKeyNeverGetsAVersionBack()
    {
        QVERIFY(openStore());
        CREATE_OK(first, QStringLiteral("cluster:leader"), doc(1));
        QString version = first.version;
        for (int i = 2; i <= 5; ++i) {
            const CallPtr updated = updateCall(first.key, doc(i), version);
            WAIT_DONE(updated);
            COMPARE_STATUS(updated, "Ok");
            version = updated->result.entry.version;
        }
        const CallPtr removed = removeCall(first.key, version);
        WAIT_DONE(removed);
        COMPARE_STATUS(removed, "Ok");
        QCOMPARE(removed->result.entry.version, version);
        const CallPtr gone = getCall(first.key);
        WAIT_DONE(gone);
        COMPARE_STATUS(gone, "NotFound");

        CREATE_OK(again, first.key, doc(6));
        QVERIFY2(again.version.toULongLong() > version.toULongLong() + 1,
                 qPrintable(again.version + QLatin1String(" after ") + version));
        const CallPtr stale = updateCall(first.key, doc(7), first.version);
        WAIT_DONE(stale);
        COMPARE_STATUS(stale, "Conflict");
        QCOMPARE(QDir(folder()).entryList({ QStringLiteral("cluster:leader.*") }),
                 QStringList { FileStore::fileNameForKey(first.key, again.version.toULongLong()) });
    }

    // F7: a lease record removed and created again keeps its fencing token
    // rising: the removal is a version of the file store, and the next term
    // starts above it, whether the removal was read or only seen by a watch
    // (then from the store's version floor).
    void tokenKeepsRisingWhenTheRecordIsRemoved()
    {
        QVERIFY(openStore());
        test::OneLease backend(std::make_unique<StoreLeaseProtocol>(m_store), QStringLiteral("leader"));
        QVERIFY(backend.startWatching());
        LeaseReply reply;
        int answers = 0;
        const auto answer = [&](const LeaseReply &got) {
            reply = got;
            ++answers;
        };
        LeaseRecord record;
        record.holder = QStringLiteral("a");
        record.leaseDurationMs = 1500;

        backend.read(answer);
        QTRY_COMPARE(answers, 1);
        QVERIFY(reply.outcome == LeaseReply::Outcome::Ok && !reply.state.exists);
        backend.create(record, std::nullopt, answer);
        QTRY_COMPARE(answers, 2);
        QVERIFY2(reply.outcome == LeaseReply::Outcome::Ok, qPrintable(reply.errorString));
        QCOMPARE(reply.state.record.transitions, 0);
        for (qint64 term = 1; term <= 3; ++term) {
            record.transitions = term;
            backend.update(record, reply.state.version, std::nullopt, answer);
            QTRY_COMPARE(answers, 2 + term);
            QVERIFY2(reply.outcome == LeaseReply::Outcome::Ok, qPrintable(reply.errorString));
        }
        const qint64 lastToken = reply.state.record.transitions;
        QCOMPARE(lastToken, 3);

        // Removed, then read: created again above every earlier token.
        const CallPtr removed = removeCall(QStringLiteral("cluster:leader"), {});
        WAIT_DONE(removed);
        COMPARE_STATUS(removed, "Ok");
        backend.read(answer);
        QTRY_COMPARE(answers, 6);
        QVERIFY(reply.outcome == LeaseReply::Outcome::Ok && !reply.state.exists);
        record.transitions = 0; // what an Elector writes for a lease that does not exist
        backend.create(record, std::nullopt, answer);
        QTRY_COMPARE(answers, 7);
        QVERIFY2(reply.outcome == LeaseReply::Outcome::Ok, qPrintable(reply.errorString));
        const qint64 recreatedToken = reply.state.record.transitions;
        QVERIFY2(recreatedToken > lastToken, qPrintable(QString::number(recreatedToken)));

        // Removed and seen only by the watch, which says no version: the
        // store's version floor (the removal, kept as a version) is enough.
        const QList<LeaseState> &changes = backend.changes();
        QTRY_VERIFY(!changes.isEmpty() && changes.last().version == reply.state.version);
        const CallPtr again = removeCall(QStringLiteral("cluster:leader"), {});
        WAIT_DONE(again);
        QTRY_VERIFY(!changes.last().exists);
        backend.create(record, std::nullopt, answer);
        QTRY_COMPARE(answers, 8);
        QVERIFY2(reply.outcome == LeaseReply::Outcome::Ok, qPrintable(reply.errorString));
        QVERIFY2(reply.state.record.transitions > recreatedToken,
                 qPrintable(QString::number(reply.state.record.transitions)));
    }

    // F7: a create that follows versionFloor() lands right above that floor
    // or not at all. Another process that created and removed the key in
    // between handed out tokens up to the new removal, which a term started
    // from the old floor could repeat; the create is a Conflict instead, and
    // the caller reads again.
    void createAfterTheKeyMovedPastItsFloorIsRefused()
    {
        QVERIFY(openStore());
        QString error;
        const std::unique_ptr<FileStore> other = newFileStore(folder(), &error);
        QVERIFY2(other, qPrintable(error));
        const QString key = QStringLiteral("cluster:leader");
        QCOMPARE(m_owned->versionFloor(key), 0);

        int answers = 0;
        const auto counted = [&answers](const StoreResult &result) {
            QVERIFY2(result.ok(), qPrintable(result.errorString));
            ++answers;
        };
        other->create(key, doc(1), counted);
        QTRY_COMPARE(answers, 1);
        other->remove(key, QString(), counted);
        QTRY_COMPARE(answers, 2);

        const CallPtr late = createCall(key, doc(2));
        WAIT_DONE(late);
        COMPARE_STATUS(late, "Conflict");
        QCOMPARE(QDir(folder()).entryList({ key + QStringLiteral(".*") }),
                 QStringList { FileStore::fileNameForKey(key, 2) });

        // Read again, the floor covers the removal, and the create lands above it.
        QCOMPARE(m_owned->versionFloor(key), 2);
        CREATE_OK(created, key, doc(3));
        QCOMPARE(created.version, QStringLiteral("3"));
    }

    // B1: a folder the earlier layout wrote (one `<key>.json` a key, a
    // `.sequence` counter) is read, and its versions carry on.
    void earlierLayoutIsRead()
    {
        QVERIFY(QDir().mkpath(folder()));
        auto write = [&](const QString &name, const QByteArray &contents) {
            QFile file(folder() + QLatin1Char('/') + name);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(contents);
        };
        write(QStringLiteral("cluster:leader.json"),
              R"({"key": "cluster:leader", "version": "7", "document": {"n": 1}})");
        write(QStringLiteral(".sequence"), "9\n");
        QVERIFY(openStore());

        const CallPtr got = getCall(QStringLiteral("cluster:leader"));
        WAIT_DONE(got);
        COMPARE_STATUS(got, "Ok");
        QCOMPARE(got->result.entry.version, QStringLiteral("7"));
        QCOMPARE(got->result.entry.document, doc(1));
        const CallPtr updated
            = updateCall(QStringLiteral("cluster:leader"), doc(2), QStringLiteral("7"));
        WAIT_DONE(updated);
        COMPARE_STATUS(updated, "Ok");
        QCOMPARE(updated->result.entry.version, QStringLiteral("8"));
        QVERIFY(!QFile::exists(folder() + QStringLiteral("/cluster:leader.json")));
        // A key with no file starts after every version the counter handed out.
        CREATE_OK(other, QStringLiteral("cluster:other"), doc(1));
        QCOMPARE(other.version, QStringLiteral("10"));

        // A process of the earlier layout still writing is refused, named.
        write(QStringLiteral("cluster:leader.json"),
              R"({"key": "cluster:leader", "version": "11", "document": {"n": 3}})");
        const CallPtr mixed = getCall(QStringLiteral("cluster:leader"));
        WAIT_DONE(mixed);
        COMPARE_STATUS(mixed, "BadReply");
        const QString earlierFile = folder() + QStringLiteral("/cluster:leader.json");
        QVERIFY2(mixed->result.errorString.contains(earlierFile),
                 qPrintable(mixed->result.errorString));
        // So is a renewal of the version this store wrote and won, which it
        // reads by name: the earlier file is neither overtaken nor collected.
        const CallPtr renewed
            = updateCall(QStringLiteral("cluster:leader"), doc(4), QStringLiteral("8"));
        WAIT_DONE(renewed);
        COMPARE_STATUS(renewed, "BadReply");
        QVERIFY(QFile::exists(earlierFile));
        QVERIFY(!QFile::exists(folder() + QStringLiteral("/cluster:leader.9.json")));
    }

    // B1: a write of the earlier layout, as it was made: QLockFile on the
    // folder's `.lock` (stale after 10 s), then `<key>.json`. False when
    // the lock could not be taken, as that layout then refused the write.
    bool earlierLayoutWrite(const QString &key, const QByteArray &envelope)
    {
        QLockFile lock(folder() + QLatin1Char('/') + kLockFileName);
        lock.setStaleLockTime(10000);
        if (!lock.tryLock(0))
            return false;
        QFile file(folder() + QLatin1Char('/') + key + QStringLiteral(".json"));
        return file.open(QIODevice::WriteOnly) && file.write(envelope) == envelope.size();
    }

    // B1: once this layout has written to a folder, a process of the earlier
    // one can never write there again: its `<key>.json` would be a record
    // nobody reads, while its writer believed it leads. `.lock` becomes a
    // folder, which QLockFile can neither create nor remove as stale.
    void earlierLayoutWritersAreLockedOutByTheFirstWrite()
    {
        QVERIFY(QDir().mkpath(folder()));
        const QByteArray earlier
                = R"({"key": "cluster:leader", "version": "7", "document": {"n": 1}})";
        QVERIFY(earlierLayoutWrite(QStringLiteral("cluster:leader"), earlier));
        QVERIFY(openStore());
        const CallPtr updated
                = updateCall(QStringLiteral("cluster:leader"), doc(2), QStringLiteral("7"));
        WAIT_DONE(updated);
        COMPARE_STATUS(updated, "Ok");

        const QByteArray late
                = R"({"key": "cluster:leader", "version": "8", "document": {"n": 9}})";
        QVERIFY2(!earlierLayoutWrite(QStringLiteral("cluster:leader"), late),
                 "an earlier writer took the lock after the first write of this layout");
        const QString lockPath = folder() + QLatin1Char('/') + kLockFileName;
        QVERIFY(QFileInfo(lockPath).isDir());
        QCOMPARE(QFileInfo(lockPath).permissions(),
                 QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadUser
                         | QFile::WriteUser | QFile::ExeUser);
        // Not even once the folder is older than the earlier stale time.
        const QByteArray encoded = QFile::encodeName(lockPath);
        const struct timeval anHourAgo[2] = { { ::time(nullptr) - 3600, 0 },
                                              { ::time(nullptr) - 3600, 0 } };
        QCOMPARE(::utimes(encoded.constData(), anHourAgo), 0);
        QVERIFY(!earlierLayoutWrite(QStringLiteral("cluster:leader"), late));
        QVERIFY(QFileInfo(lockPath).isDir());
        QVERIFY(!QFile::exists(folder() + QStringLiteral("/cluster:leader.json")));

        const CallPtr got = getCall(QStringLiteral("cluster:leader"));
        WAIT_DONE(got);
        COMPARE_STATUS(got, "Ok");
        QCOMPARE(got->result.entry.document, doc(2));
    }

    // B1: an earlier process between its read and its write holds `.lock`;
    // the first write of this layout waits for it (Unavailable, naming the
    // lock and its holder), so that write is never lost behind ours.
    void firstWriteWaitsForAnEarlierWriterHoldingTheLock()
    {
        QVERIFY(QDir().mkpath(folder()));
        QLockFile held(folder() + QLatin1Char('/') + kLockFileName);
        QVERIFY(held.tryLock(0));
        QVERIFY(openStore());
        const CallPtr refused = createCall(QStringLiteral("cluster:leader"), doc(1));
        WAIT_DONE(refused);
        COMPARE_STATUS(refused, "Unavailable");
        QVERIFY2(refused->result.errorString.contains(folder() + QLatin1Char('/') + kLockFileName)
                         && refused->result.errorString.contains(
                                 QString::number(QCoreApplication::applicationPid())),
                 qPrintable(refused->result.errorString));
        QCOMPARE(QDir(folder()).entryList({ QStringLiteral("cluster:leader*") }), QStringList());

        held.unlock();
        CREATE_OK(created, QStringLiteral("cluster:leader"), doc(1));
        QVERIFY(QFileInfo(folder() + QLatin1Char('/') + kLockFileName).isDir());
    }

    // B1: a temporary file left by a writer that died before linking it is
    // removed by a later write; one being written now is left alone.
    void abandonedTemporaryFilesAreRemoved()
    {
        QVERIFY(openStore());
        const QString abandoned = folder() + QStringLiteral("/.tmp-abandoned");
        const QString current = folder() + QStringLiteral("/.tmp-current");
        for (const QString &path : { abandoned, current }) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
        }
        {
            QFile file(abandoned);
            QVERIFY(file.open(QIODevice::ReadWrite));
            QVERIFY(file.setFileTime(QDateTime::currentDateTime().addSecs(-3600),
                                     QFileDevice::FileModificationTime));
        }
        CREATE_OK(created, QStringLiteral("cluster:leader"), doc(1));
        QVERIFY(!QFile::exists(abandoned));
        QVERIFY(QFile::exists(current));
    }

    /*! The keys that have a version file in the store's folder now. */
    QSet<QString> keysInFolder() const
    {
        QSet<QString> keys;
        const QStringList names = QDir(folder()).entryList({QStringLiteral("*.json")}, QDir::Files);
        for (const QString &name : names)
            keys.insert(FileStore::keyForFileName(name));
        return keys;
    }

    void recordThenSideInOneCall_data()
    {
        QTest::addColumn<bool>("create");
        QTest::newRow("a create with a side write links the record, then the side, before it answers")
                << true;
        QTest::newRow("an update with a side write links the record, then the side, before it answers")
                << false;
    }

    // O2, B1: the folder has no write of two keys: the lease's version is
    // won first, then the history is written, both in the one call, so a
    // crash in between loses the history's change, never the lease.
    void recordThenSideInOneCall()
    {
        QFETCH(bool, create);
        QVERIFY(openStore());
        const QString key = QStringLiteral("cluster:leader");
        const StoreSideWrite side { QStringLiteral("history:leader"), doc(100), QString(), {} };
        QString version;
        if (!create) {
            CREATE_OK(created, key, doc(1));
            version = created.version;
        }
        QList<QSet<QString>> atEachWin;
        filestoresteps::setHook(m_owned.get(), [&](filestoresteps::WriteStep at) {
            if (at == filestoresteps::WriteStep::Verified)
                atEachWin.append(keysInFolder());
        });
        const CallPtr call = create ? createWithCall(key, doc(2), side)
                                    : updateWithCall(key, doc(2), version, side);
        filestoresteps::setHook(m_owned.get(), {});
        QCOMPARE(atEachWin.size(), 2);
        QVERIFY(atEachWin.at(0).contains(key));
        QVERIFY(!atEachWin.at(0).contains(side.key));
        QVERIFY(atEachWin.at(1).contains(side.key));
        WAIT_DONE(call);
        COMPARE_STATUS(call, "Ok");
    }

    // B1: a write whose version another process builds on at once (a
    // follower taking a lease the moment it sees it released) is still won:
    // the check after the link must not take that newer version for proof
    // that ours came too late. Frozen there, our version is updated by
    // another store before the check runs.
    void aWriteBuiltUponBeforeItsCheckIsStillWon()
    {
        QVERIFY(openStore());
        QString error;
        const std::unique_ptr<FileStore> other = newFileStore(folder(), &error);
        QVERIFY2(other, qPrintable(error));
        CREATE_OK(created, QStringLiteral("cluster:leader"), doc(1));

        CallPtr builtOn;
        filestoresteps::setHook(m_owned.get(), [&](filestoresteps::WriteStep at) {
            if (at != filestoresteps::WriteStep::LinkedVersion || builtOn)
                return;
            builtOn = issue([&](auto done) { other->update(created.key, doc(3), QStringLiteral("2"), done); },
                            &m_issued);
        });
        const CallPtr released = updateCall(created.key, doc(2), created.version);
        WAIT_DONE(released);
        filestoresteps::setHook(m_owned.get(), {});
        QVERIFY(builtOn);
        WAIT_DONE(builtOn);
        COMPARE_STATUS(builtOn, "Ok");
        COMPARE_STATUS(released, "Ok");
        QCOMPARE(released->result.entry.version, QStringLiteral("2"));
    }

    void separateStoresRace_data()
    {
        QTest::addColumn<int>("writers");
        QTest::newRow("three store objects on one folder: one wins") << 3;
    }

    // B2: stores that share only the folder still let exactly one writer win.
    void separateStoresRace()
    {
        QFETCH(int, writers);
        QVERIFY(openStore());
        CREATE_OK(created, QStringLiteral("cluster:leader"), doc(0));
        std::vector<std::unique_ptr<FileStore>> stores;
        QList<CallPtr> calls;
        for (int i = 0; i < writers; ++i) {
            QString error;
            stores.push_back(newFileStore(folder(), &error));
            QVERIFY2(stores.back(), qPrintable(error));
            FileStore *store = stores.back().get();
            calls.append(issue(
                [&](auto done) { store->update(created.key, doc(i + 1), created.version, done); },
                &m_issued));
        }
        int wins = 0;
        for (const CallPtr &call : std::as_const(calls)) {
            WAIT_DONE(call);
            wins += call->result.ok() ? 1 : 0;
            if (!call->result.ok())
                COMPARE_STATUS(call, "Conflict");
        }
        QCOMPARE(wins, 1);
    }

    void processesRace_data()
    {
        QTest::addColumn<int>("writers");
        QTest::newRow("two processes update the same version: one wins") << 2;
        QTest::newRow("six processes update the same version: one wins") << 6;
    }

    // B1, B2: conditional patches are safe across processes.
    void processesRace()
    {
        QFETCH(int, writers);
        QVERIFY(openStore());
        CREATE_OK(created, QStringLiteral("cluster:leader"), doc(0));

        QList<QProcess *> children;
        for (int i = 0; i < writers; ++i) {
            children.append(startChild({ QStringLiteral("update"), folder(), created.key,
                                         created.version, QString::number(i + 1) }));
        }
        // All are started and ready before any writes, so that they race.
        for (QProcess *child : std::as_const(children)) {
            QTRY_VERIFY_WITH_TIMEOUT(child->canReadLine(), kProcessTimeoutMs);
            QCOMPARE(child->readLine().trimmed(), QByteArray("ready"));
        }
        for (QProcess *child : std::as_const(children))
            child->write("go\n");

        QStringList outcomes;
        for (QProcess *child : std::as_const(children)) {
            QTRY_COMPARE_WITH_TIMEOUT(child->state(), QProcess::NotRunning, kProcessTimeoutMs);
            QCOMPARE(child->exitStatus(), QProcess::NormalExit);
            outcomes.append(QString::fromUtf8(child->readAll().trimmed()));
        }
        QCOMPARE(outcomes.count(QStringLiteral("Ok")), 1);
        QCOMPARE(outcomes.count(QStringLiteral("Conflict")), writers - 1);

        const CallPtr got = getCall(created.key);
        WAIT_DONE(got);
        COMPARE_STATUS(got, "Ok");
        QVERIFY(got->result.entry.version != created.version);
        const int winner = got->result.entry.document.value(QLatin1String("n")).toInt();
        QVERIFY(winner >= 1 && winner <= writers);
    }

    void frozenWriterBlocksNobody_data()
    {
        QTest::addColumn<int>("step");
        QTest::newRow("a writer frozen after reading the current version blocks nobody")
            << int(filestoresteps::WriteStep::ReadCurrent);
        QTest::newRow("a writer frozen after writing its new version aside blocks nobody")
            << int(filestoresteps::WriteStep::WroteTemporary);
        QTest::newRow("a writer frozen after linking the next version blocks nobody")
            << int(filestoresteps::WriteStep::LinkedVersion);
        QTest::newRow("a writer frozen after checking it won blocks nobody")
            << int(filestoresteps::WriteStep::Verified);
    }

    // F6, B2: a writer frozen at any point of its conditional write (SIGSTOP,
    // a debugger, a stalled host) never delays another writer past the F6
    // bound, and the two never both win one version.
    void frozenWriterBlocksNobody()
    {
        QFETCH(int, step);
        QVERIFY(openStore());
        CREATE_OK(created, QStringLiteral("cluster:leader"), doc(0));
        QString error;
        const std::unique_ptr<FileStore> other = newFileStore(folder(), &error);
        QVERIFY2(other, qPrintable(error));

        // While the first writer is frozen at that step, the other takes the
        // lease over as its Elector would: it reads, writes on what it read,
        // and renews, so that the version the frozen one aims at is gone.
        bool reached = false;
        QStringList otherWon;
        QString otherError;
        qint64 takeoverMs = -1;
        filestoresteps::setHook(m_owned.get(), [&](filestoresteps::WriteStep at) {
            if (int(at) != step || reached)
                return;
            reached = true;
            QElapsedTimer frozenFor;
            frozenFor.start();
            const CallPtr read
                    = issue([&](auto done) { other->get(created.key, done); }, &m_issued);
            QTRY_COMPARE_WITH_TIMEOUT(read->calls, 1, kTakeoverBoundMs);
            QString version = read->result.entry.version;
            for (int write = 0; write < 2 && read->result.ok(); ++write) {
                const CallPtr written = issue(
                        [&](auto done) { other->update(created.key, doc(2), version, done); },
                        &m_issued);
                QTRY_COMPARE_WITH_TIMEOUT(written->calls, 1, kTakeoverBoundMs);
                if (!written->result.ok()) {
                    otherError = written->result.errorString;
                    return;
                }
                version = written->result.entry.version;
                otherWon.append(version);
            }
            takeoverMs = frozenFor.elapsed();
        });
        const CallPtr frozenWrite = updateCall(created.key, doc(1), created.version);
        WAIT_DONE(frozenWrite);
        filestoresteps::setHook(m_owned.get(), {});
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(reached, "the writer never reached that step");
        QVERIFY2(otherWon.size() == 2, qPrintable(otherError));
        QVERIFY2(takeoverMs < kTakeoverBoundMs, qPrintable(QString::number(takeoverMs)));

        // Whoever won, one version has one winner, and the record is the
        // last write: the other's, made on what it read.
        if (frozenWrite->result.ok())
            QVERIFY2(!otherWon.contains(frozenWrite->result.entry.version),
                     qPrintable(frozenWrite->result.entry.version));
        else
            COMPARE_STATUS(frozenWrite, "Conflict");
        const CallPtr got = getCall(created.key);
        WAIT_DONE(got);
        COMPARE_STATUS(got, "Ok");
        QCOMPARE(got->result.entry.document, doc(2));
        QCOMPARE(got->result.entry.version, otherWon.last());
    }

    // B2, F7: two stale writers never make one of them a winner. A writer
    // frozen after reading links its version late, on a name the holder's
    // renewals have since collected; a second stale writer, which saw that
    // version's number before, sends its update on it. The second must not
    // build on the first's late file (the record is three versions ahead),
    // or the first, listing at last, could take the second's write for a
    // follower built on its own and answer that it won: two holders, and a
    // version that goes back.
    void aLateWriteNeverMakesAnotherStaleWriterBuildOnIt()
    {
        QVERIFY(openStore());
        CREATE_OK(created, QStringLiteral("cluster:leader"), doc(0));
        QString error;
        const std::unique_ptr<FileStore> holder = newFileStore(folder(), &error);
        QVERIFY2(holder, qPrintable(error));
        const std::unique_ptr<FileStore> stale = newFileStore(folder(), &error);
        QVERIFY2(stale, qPrintable(error));

        auto update = [&](FileStore *store, int value, const QString &version) {
            return updateOn(store, created.key, value, version);
        };
        QString holderVersion;
        CallPtr staleWrite;
        bool read = false;
        bool linked = false;
        filestoresteps::setHook(m_owned.get(), [&](filestoresteps::WriteStep at) {
            if (at == filestoresteps::WriteStep::ReadCurrent && !read) {
                read = true;
                // The holder takes over; the stale writer reads its first
                // version; the holder renews until that version is collected.
                CallPtr written = update(holder.get(), 1, created.version);
                QCOMPARE(written->calls, 1);
                QVERIFY(written->result.ok());
                const CallPtr seen = issue([&](auto done) { stale->get(created.key, done); }, &m_issued);
                QTRY_COMPARE_WITH_TIMEOUT(seen->calls, 1, kTakeoverBoundMs);
                QCOMPARE(seen->result.entry.version, written->result.entry.version);
                for (int renewal = 0; renewal < 3 && written->result.ok(); ++renewal)
                    written = update(holder.get(), 1, written->result.entry.version);
                QCOMPARE(written->calls, 1);
                QVERIFY(written->result.ok());
                holderVersion = written->result.entry.version;
            } else if (at == filestoresteps::WriteStep::LinkedVersion && read && !linked) {
                linked = true;
                // The frozen writer's late version is there; the stale
                // writer updates on the version it saw, the same number.
                staleWrite = update(stale.get(), 2, QString::number(created.version.toLongLong() + 1));
            }
        });
        const CallPtr frozenWrite = updateCall(created.key, doc(3), created.version);
        WAIT_DONE(frozenWrite);
        filestoresteps::setHook(m_owned.get(), {});
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(read && linked, "the frozen writer never reached its steps");
        QVERIFY(staleWrite);
        QCOMPARE(staleWrite->calls, 1);
        COMPARE_STATUS(staleWrite, "Conflict");
        COMPARE_STATUS(frozenWrite, "Conflict");
        const CallPtr got = getCall(created.key);
        WAIT_DONE(got);
        COMPARE_STATUS(got, "Ok");
        QCOMPARE(got->result.entry.document, doc(1));
        QCOMPARE(got->result.entry.version, holderVersion);
    }

    // B2, F7: a renewal reads the version its store wrote last by name, not
    // by listing the folder; a frozen writer's late link under that same
    // name (after the holder's version was collected by newer ones) is not
    // that version. Taken for it, the holder would write over the late file,
    // and the frozen writer, listing at last, would take that for a follower
    // built on its own: two winners.
    void aRenewalNeverTakesALateFileForTheVersionItWrote()
    {
        QVERIFY(openStore());
        CREATE_OK(created, QStringLiteral("cluster:leader"), doc(0));
        QString error;
        const std::unique_ptr<FileStore> holder = newFileStore(folder(), &error);
        QVERIFY2(holder, qPrintable(error));
        const std::unique_ptr<FileStore> successor = newFileStore(folder(), &error);
        QVERIFY2(successor, qPrintable(error));

        auto update = [&](FileStore *store, int value, const QString &version) {
            return updateOn(store, created.key, value, version);
        };
        QString holderVersion;
        QString successorVersion;
        CallPtr holderRenewal;
        bool read = false;
        bool linked = false;
        filestoresteps::setHook(m_owned.get(), [&](filestoresteps::WriteStep at) {
            if (at == filestoresteps::WriteStep::ReadCurrent && !read) {
                read = true;
                // While this writer is frozen: the holder wins the next
                // version, then a successor renews past it until it is gone.
                const CallPtr won = update(holder.get(), 1, created.version);
                QCOMPARE(won->calls, 1);
                QVERIFY(won->result.ok());
                holderVersion = won->result.entry.version;
                CallPtr next = update(successor.get(), 2, holderVersion);
                for (int renewal = 0; renewal < 2 && next->result.ok(); ++renewal)
                    next = update(successor.get(), 2, next->result.entry.version);
                QCOMPARE(next->calls, 1);
                QVERIFY(next->result.ok());
                successorVersion = next->result.entry.version;
                QVERIFY(!QFileInfo::exists(QDir(folder()).filePath(FileStore::fileNameForKey(
                        created.key, holderVersion.toULongLong()))));
            } else if (at == filestoresteps::WriteStep::LinkedVersion && read && !linked) {
                linked = true;
                // The late file now has the holder's version number; the
                // holder, unaware, renews on the version it wrote.
                holderRenewal = update(holder.get(), 1, holderVersion);
            }
        });
        const CallPtr frozenWrite = updateCall(created.key, doc(3), created.version);
        WAIT_DONE(frozenWrite);
        filestoresteps::setHook(m_owned.get(), {});
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(read && linked, "the frozen writer never reached its steps");
        QVERIFY(holderRenewal);
        QCOMPARE(holderRenewal->calls, 1);
        COMPARE_STATUS(holderRenewal, "Conflict");
        COMPARE_STATUS(frozenWrite, "Conflict");
        const CallPtr got = getCall(created.key);
        WAIT_DONE(got);
        COMPARE_STATUS(got, "Ok");
        QCOMPARE(got->result.entry.document, doc(2));
        QCOMPARE(got->result.entry.version, successorVersion);
    }

    // B2, F7: a write proves it won by the names alone when the file of the
    // version it wrote over is still there, by the writer it read: nothing
    // above that one was collected. The same name re-made by a frozen
    // writer's late link (after the version was collected under newer
    // ones) proves nothing: taken for the version read, a write frozen
    // since its read would link the next name, long free, and win a
    // version older than the record.
    void aWriteNeverProvesItselfOnALateFileOfTheVersionItRead()
    {
        QVERIFY(openStore());
        CREATE_OK(created, QStringLiteral("cluster:leader"), doc(0));
        QString error;
        const std::unique_ptr<FileStore> holder = newFileStore(folder(), &error);
        QVERIFY2(holder, qPrintable(error));
        QString holderVersion;
        bool read = false;
        filestoresteps::setHook(m_owned.get(), [&](filestoresteps::WriteStep at) {
            if (at != filestoresteps::WriteStep::ReadCurrent || read)
                return;
            read = true;
            // While this writer is frozen after its read: the holder renews
            // until the version read is collected, then a late link makes
            // that name again, by another writer.
            CallPtr written = updateOn(holder.get(), created.key, 1, created.version);
            for (int renewal = 0; renewal < 3 && written->result.ok(); ++renewal)
                written = updateOn(holder.get(), created.key, 1, written->result.entry.version);
            QCOMPARE(written->calls, 1);
            QVERIFY(written->result.ok());
            holderVersion = written->result.entry.version;
            const QString readName = QDir(folder()).filePath(
                    FileStore::fileNameForKey(created.key, created.version.toULongLong()));
            QVERIFY(!QFileInfo::exists(readName));
            QFile late(readName);
            QVERIFY(late.open(QIODevice::WriteOnly));
            late.write(QJsonDocument(QJsonObject {{QStringLiteral("key"), created.key},
                                                  {QStringLiteral("version"), created.version},
                                                  {QStringLiteral("writer"), QStringLiteral("a-frozen-writer")},
                                                  {QStringLiteral("document"), doc(9)}})
                               .toJson());
        });
        const CallPtr frozenWrite = updateCall(created.key, doc(3), created.version);
        WAIT_DONE(frozenWrite);
        filestoresteps::setHook(m_owned.get(), {});
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(read, "the frozen writer never read");
        COMPARE_STATUS(frozenWrite, "Conflict");
        const CallPtr got = getCall(created.key);
        WAIT_DONE(got);
        COMPARE_STATUS(got, "Ok");
        QCOMPARE(got->result.entry.document, doc(1));
        QCOMPARE(got->result.entry.version, holderVersion);
    }

    // B1, B2, F7: processes writing one key over and over (creates, updates,
    // removes, each on the version it read) never both win one version, and
    // a version is never handed out twice, removal or not.
    void processesRaceManyRounds()
    {
        constexpr int writers = 3;
        constexpr int rounds = 150;
        QVERIFY(openStore());
        const QString key = QStringLiteral("cluster:leader");
        QList<QProcess *> children;
        for (int i = 0; i < writers; ++i) {
            children.append(startChild({ QStringLiteral("race"), folder(), key,
                                         QString::number(rounds) }));
        }
        for (QProcess *child : std::as_const(children)) {
            QTRY_VERIFY_WITH_TIMEOUT(child->canReadLine(), kProcessTimeoutMs);
            QCOMPARE(child->readLine().trimmed(), QByteArray("ready"));
        }
        for (QProcess *child : std::as_const(children))
            child->write("go\n");

        QHash<QString, QString> wonFrom; // a version a write replaced -> that write
        QHash<QString, QString> made;    // a version a write made -> that write
        int wins = 0;
        for (QProcess *child : std::as_const(children)) {
            QTRY_COMPARE_WITH_TIMEOUT(child->state(), QProcess::NotRunning, 4 * kProcessTimeoutMs);
            QCOMPARE(child->exitStatus(), QProcess::NormalExit);
            const QStringList lines = QString::fromUtf8(child->readAll()).split(
                    QLatin1Char('\n'), Qt::SkipEmptyParts);
            QVERIFY(!lines.isEmpty());
            QCOMPARE(lines.last(), QStringLiteral("done"));
            for (const QString &line : lines.first(lines.size() - 1)) {
                // "<operation> <version it replaced, or -> <version it made, or ->"
                const QStringList words = line.split(QLatin1Char(' '));
                QVERIFY2(words.size() == 3, qPrintable(line));
                ++wins;
                if (words.at(1) != QLatin1String("-")) {
                    QVERIFY2(!wonFrom.contains(words.at(1)),
                             qPrintable(QStringLiteral("%1 and %2 both won")
                                                .arg(wonFrom.value(words.at(1)), line)));
                    wonFrom.insert(words.at(1), line);
                }
                if (words.at(2) != QLatin1String("-")) {
                    QVERIFY2(!made.contains(words.at(2)),
                             qPrintable(QStringLiteral("%1 and %2 made one version")
                                                .arg(made.value(words.at(2)), line)));
                    made.insert(words.at(2), line);
                }
            }
        }
        QVERIFY(wins >= rounds);
    }

    // B1, F8: this process's watch sees another process's writes and removals.
    void watchSeesOtherProcessWrites()
    {
        QVERIFY(openStore());
        QObject owner;
        StoreWatch *watch = m_store->watch(QStringLiteral("cluster:"), &owner);
        QVERIFY(watch);
        QSignalSpy changed(watch, &StoreWatch::entryChanged);
        QSignalSpy removed(watch, &StoreWatch::entryRemoved);

        QProcess *writer = startChild({ QStringLiteral("create"), folder(),
                                        QStringLiteral("other:x"), QStringLiteral("cluster:b") });
        QTRY_COMPARE_WITH_TIMEOUT(writer->state(), QProcess::NotRunning, kProcessTimeoutMs);
        QCOMPARE(writer->readAll().trimmed(), QByteArray("Ok Ok"));
        QTRY_COMPARE(changed.size(), 1);
        const StoreEntry seen = changed.first().at(0).value<StoreEntry>();
        QCOMPARE(seen.key, QStringLiteral("cluster:b"));
        QCOMPARE(seen.document, doc(1));

        QProcess *remover = startChild({ QStringLiteral("remove"), folder(), seen.key });
        QTRY_COMPARE_WITH_TIMEOUT(remover->state(), QProcess::NotRunning, kProcessTimeoutMs);
        QCOMPARE(remover->readAll().trimmed(), QByteArray("Ok"));
        QTRY_COMPARE(removed.size(), 1);
        QCOMPARE(removed.first().at(0).toString(), seen.key);
        QCOMPARE(changed.size(), 1); // other:x was never reported
    }

    // B1, F8: a folder removed and made again is watched again: the watch
    // followed the old folder, and writes into the new one were never told.
    void watchFollowsTheFolderMadeAgain()
    {
        QVERIFY(openStore());
        QObject owner;
        StoreWatch *watch = m_store->watch(QStringLiteral("cluster:"), &owner);
        QVERIFY(watch);
        QSignalSpy changed(watch, &StoreWatch::entryChanged);
        QVERIFY(QDir(folder()).removeRecursively());
        QVERIFY(QDir().mkpath(folder()));
        QVERIFY(QFile::setPermissions(folder(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));

        QProcess *writer = startChild({ QStringLiteral("create"), folder(), QStringLiteral("cluster:b") });
        QTRY_COMPARE_WITH_TIMEOUT(writer->state(), QProcess::NotRunning, kProcessTimeoutMs);
        QCOMPARE(writer->readAll().trimmed(), QByteArray("Ok"));
        QTRY_COMPARE(changed.size(), 1);
        QCOMPARE(changed.first().at(0).value<StoreEntry>().key, QStringLiteral("cluster:b"));
    }

    // B1: with no folder, the store of an application lives in its data folder,
    // so several processes of one host share a Registry with no configuration.
    void applicationDataFolderIsTheDefault()
    {
        const QString dataFolder = m_dir->filePath(QStringLiteral("data"));
        QVERIFY(QDir().mkpath(dataFolder));
        const QByteArray previous = qgetenv("BATON_DATA_DIR");
        qputenv("BATON_DATA_DIR", dataFolder.toUtf8());
        Application application;
        FileStore store(QStringLiteral("Registry"), QJsonObject(), &application);
        QString error;
        const bool initialised = store.init(&error);
        if (previous.isNull())
            qunsetenv("BATON_DATA_DIR");
        else
            qputenv("BATON_DATA_DIR", previous);
        QVERIFY2(initialised, qPrintable(error));
        QCOMPARE(store.folder(), dataFolder + QStringLiteral("/registry"));
        QVERIFY(QFileInfo(store.folder()).isDir());
    }

    void badParameters_data()
    {
        QTest::addColumn<QByteArray>("parameters");
        QTest::addColumn<QString>("parameter");
        QTest::newRow("a folder that is a number is refused")
            << QByteArray(R"({"folder": 42})") << "folder";
        QTest::newRow("a folder that is a list is refused")
            << QByteArray(R"({"folder": ["/tmp"]})") << "folder";
        QTest::newRow("no folder outside an application is refused")
            << QByteArray("{}") << "folder";
        QTest::newRow("a folder that is a file is refused")
            << QByteArray(R"({"folder": "FILE"})") << "folder";
    }

    // P1 (for stores, B1): refused at init with the service, parameter and value.
    void badParameters()
    {
        QFETCH(QByteArray, parameters);
        QFETCH(QString, parameter);
        const QString file = m_dir->filePath(QStringLiteral("a-file"));
        {
            QFile plain(file);
            QVERIFY(plain.open(QIODevice::WriteOnly));
        }
        parameters.replace("FOLDER", folder().toUtf8()).replace("FILE", file.toUtf8());
        FileStore store(QStringLiteral("Registry"), QJsonDocument::fromJson(parameters).object(),
                        nullptr);
        QString error;
        QVERIFY(!store.init(&error));
        QVERIFY2(error.contains(QLatin1String("\"Registry\"")), qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("FileStore")), qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("parameter \"") + parameter + QLatin1String("\" = ")),
                 qPrintable(error));
        QVERIFY(!QFileInfo::exists(folder())); // a refused service changed nothing
    }

    // P1 (B1): lockTimeout timed the earlier layout's lock. Writes take no
    // lock, so a configuration that still names it is refused as a parameter
    // the store does not know, naming the ones it does, before the folder
    // is made: accepted, it would promise a bound on waiting that nothing keeps.
    void aLockTimeoutIsRefusedAsUnknown()
    {
        Application application;
        const QByteArray config = QStringLiteral(R"({"services": {"Registry": )"
                                                 R"({"type": "Webda/FileStore", "folder": "%1", "lockTimeout": 2000}}})")
                                          .arg(folder())
                                          .toUtf8();
        QString error;
        QVERIFY(!application.loadConfig(config, QStringLiteral("baton.json"), &error));
        QVERIFY2(error.contains(QLatin1String(R"(service "Registry" (Webda/FileStore): )"
                                              R"(parameter "lockTimeout" = 2000: unknown parameter (known: folder))")),
                 qPrintable(error));
        QVERIFY(!QFileInfo::exists(folder()));
    }
};

namespace {

void printLine(const QString &line)
{
    std::fputs(qPrintable(line + QLatin1Char('\n')), stdout);
    std::fflush(stdout);
}

/*!
 * The other process of the FileStore tests. Blocking reads of stdin are fine
 * here: this is a test helper's main(), not library code.
 *   update FOLDER KEY VERSION N say "ready", wait for a line, update KEY to {"n": N}
 *   create FOLDER KEY...        create each KEY as {"n": 1}
 *   remove FOLDER KEY           remove KEY unconditionally
 *   race FOLDER KEY ROUNDS      say "ready", wait for a line, then ROUNDS times read KEY
 *                               and create, update or remove it on what was read
 * and print the status of each store call.
 */
int runChild(QCoreApplication &app, const QStringList &arguments)
{
    if (arguments.size() < 2)
        return 2;
    const QString command = arguments.at(0);
    const QString folder = arguments.at(1);
    QString error;
    const std::unique_ptr<FileStore> store = newFileStore(folder, &error);
    if (!store) {
        printLine(error);
        return 4;
    }
    QStringList outcomes;
    int pending = 0;
    auto report = [&](const StoreResult &result) {
        outcomes.append(statusName(result.status));
        if (--pending == 0) {
            printLine(outcomes.join(QLatin1Char(' ')));
            app.quit();
        }
    };
    if (command == QLatin1String("update") && arguments.size() == 5) {
        printLine(QStringLiteral("ready"));
        std::string line;
        std::getline(std::cin, line);
        pending = 1;
        store->update(arguments.at(2), doc(arguments.at(4).toInt()), arguments.at(3), report);
    } else if (command == QLatin1String("race") && arguments.size() == 4) {
        printLine(QStringLiteral("ready"));
        std::string line;
        std::getline(std::cin, line);
        const QString key = arguments.at(2);
        const int rounds = arguments.at(3).toInt();
        const int me = static_cast<int>(QCoreApplication::applicationPid());
        // Each round reads the key, then creates, updates or removes it on
        // what it read, and prints each write it won (or what went wrong).
        std::function<void(int)> round = [&](int done) {
            if (done == rounds) {
                printLine(QStringLiteral("done"));
                app.quit();
                return;
            }
            store->get(key, [&, done](const StoreResult &read) {
                const QString readVersion = read.ok() ? read.entry.version : QStringLiteral("-");
                auto written = [&, done, readVersion](const QString &operation) {
                    return [&, done, readVersion, operation](const StoreResult &result) {
                        if (result.ok()) {
                            const QString made = operation == QLatin1String("remove")
                                ? QStringLiteral("-")
                                : result.entry.version;
                            printLine(QStringLiteral("%1 %2 %3")
                                              .arg(operation, readVersion, made));
                        } else if (result.status != Status::Conflict
                                   && result.status != Status::NotFound) {
                            printLine(QStringLiteral("error %1").arg(result.errorString));
                        }
                        round(done + 1);
                    };
                };
                if (read.status == Status::NotFound)
                    store->create(key, doc(me), written(QStringLiteral("create")));
                else if (!read.ok())
                    written(QStringLiteral("read"))(read);
                else if (done % 7 == 6)
                    store->remove(key, read.entry.version, written(QStringLiteral("remove")));
                else
                    store->update(key, doc(me), read.entry.version,
                                  written(QStringLiteral("update")));
            });
        };
        round(0);
        return app.exec();
    } else if (command == QLatin1String("create") && arguments.size() >= 3) {
        pending = static_cast<int>(arguments.size()) - 2;
        for (const QString &key : arguments.mid(2))
            store->create(key, doc(1), report);
    } else if (command == QLatin1String("remove") && arguments.size() == 3) {
        pending = 1;
        store->remove(arguments.at(2), QString(), report);
    } else {
        return 2;
    }
    return app.exec();
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc > 1 && app.arguments().at(1) == kChildSwitch)
        return runChild(app, app.arguments().mid(2));
    FileStoreContract contract;
    FileStoreTest own;
    return runStoreTests(app.arguments(), {&contract, &own});
}

#include "tst_store_file.moc"
