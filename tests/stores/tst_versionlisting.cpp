// B1, F3: POSIX lets a readdir() that runs while a file is linked under a
// new name and another unlinked return neither (seen on ext4: 40 of 5,944
// listings of a 2,000-file folder during writes). The file store must not
// take such a listing for a record gone: a spurious "not found", a leader
// seen changing to nobody and back, or a leader stepping down. The listing
// that misses both names is made here, in the test tree: this executable's
// readdir() hides the names of one key while armed, and the store's own
// listing (through Qt) goes through it.

#include "filestore.h"

#include <atomic>
#include <baton/store.h>
#include <cstring>
#include <dirent.h>
#include <dlfcn.h>
#include <optional>
#include <QFile>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace baton;

namespace {

// The file names of `cluster:leader` (`cluster:leader.<version>.json`).
constexpr char kHiddenPrefix[] = "cluster:leader.";
constexpr char kSuffix[] = ".json";
std::atomic<bool> g_hiding { false };

bool hidden(const char *name)
{
    if (!g_hiding)
        return false;
    const size_t length = std::strlen(name);
    return std::strncmp(name, kHiddenPrefix, sizeof kHiddenPrefix - 1) == 0
            && length >= sizeof kSuffix - 1
            && std::strcmp(name + length - (sizeof kSuffix - 1), kSuffix) == 0;
}

template<typename Entry> Entry *nextShown(Entry *(*real)(DIR *), DIR *dir)
{
    for (;;) {
        Entry *entry = real(dir);
        if (!entry || !hidden(entry->d_name))
            return entry;
    }
}

} // namespace

extern "C" {

struct dirent *readdir(DIR *dir)
{
    static const auto real = reinterpret_cast<struct dirent *(*)(DIR *)>(dlsym(RTLD_NEXT, "readdir"));
    return nextShown(real, dir);
}

struct dirent64 *readdir64(DIR *dir)
{
    static const auto real
            = reinterpret_cast<struct dirent64 *(*)(DIR *)>(dlsym(RTLD_NEXT, "readdir64"));
    return nextShown(real, dir);
}

} // extern "C"

class TestVersionListing : public QObject
{
    Q_OBJECT

private:
    StoreResult call(const std::function<void(Store::Callback)> &operation)
    {
        std::optional<StoreResult> result;
        operation([&result](const StoreResult &r) { result = r; });
        if (!QTest::qWaitFor([&result] { return result.has_value(); }, 5000))
            qWarning("the store did not answer");
        return result.value_or(StoreResult { StoreResult::Status::Unavailable, {}, false, {}, {} });
    }

    QTemporaryDir m_folder;

private Q_SLOTS:
    void cleanup() { g_hiding = false; }
    void theSeamHidesTheRecordFromAListing();
    void aRecordThatAListingMissesIsStillReadAndWritten();
    void aWatchNeverTellsOfARemovalThatAListingMissed();
    void aRecordManyVersionsAheadOfWhatThisStoreSawIsFoundWhenAListingMissesIt();
    void aWatchNeverTellsOfARemovalWhenTheRecordIsUnreadable();
};

// The seam itself: with it armed, a process that never saw the record
// cannot find it (the listing is all it has), so the tests below test it.
void TestVersionListing::theSeamHidesTheRecordFromAListing()
{
    const QJsonObject parameters { { QStringLiteral("folder"), m_folder.filePath(QStringLiteral("seam")) } };
    FileStore writer(QStringLiteral("Registry"), parameters, nullptr);
    QString error;
    QVERIFY2(writer.init(&error), qPrintable(error));
    const QString key = QStringLiteral("cluster:leader");
    QVERIFY(call([&](auto done) { writer.create(key, { { QStringLiteral("n"), 1 } }, done); }).ok());
    g_hiding = true;
    FileStore stranger(QStringLiteral("Registry"), parameters, nullptr);
    QVERIFY2(stranger.init(&error), qPrintable(error));
    QCOMPARE(call([&](auto done) { stranger.get(key, done); }).status, StoreResult::Status::NotFound);
}

// B1, F3: a get and a conditional write of a record this store has seen
// find it by its names when a listing shows none of them.
void TestVersionListing::aRecordThatAListingMissesIsStillReadAndWritten()
{
    FileStore store(QStringLiteral("Registry"),
                    { { QStringLiteral("folder"), m_folder.filePath(QStringLiteral("read")) } }, nullptr);
    QString error;
    QVERIFY2(store.init(&error), qPrintable(error));
    const QString key = QStringLiteral("cluster:leader");
    const StoreResult created = call([&](auto done) { store.create(key, { { QStringLiteral("n"), 1 } }, done); });
    QVERIFY2(created.ok(), qPrintable(created.errorString));

    g_hiding = true;
    const StoreResult got = call([&](auto done) { store.get(key, done); });
    QVERIFY2(got.ok(), qPrintable(got.errorString));
    QCOMPARE(got.entry.version, created.entry.version);
    const StoreResult updated = call([&](auto done) {
        store.update(key, { { QStringLiteral("n"), 2 } }, created.entry.version, done);
    });
    QVERIFY2(updated.ok(), qPrintable(updated.errorString));
    const StoreResult again = call([&](auto done) { store.get(key, done); });
    QVERIFY2(again.ok(), qPrintable(again.errorString));
    QCOMPARE(again.entry.version, updated.entry.version);
    QCOMPARE(again.entry.document.value(QLatin1String("n")).toInt(), 2);
}

// B1, F3: a watch that lists the folder after another write and misses the
// record reads it by its names before it tells anyone it was removed.
void TestVersionListing::aWatchNeverTellsOfARemovalThatAListingMissed()
{
    FileStore store(QStringLiteral("Registry"),
                    { { QStringLiteral("folder"), m_folder.filePath(QStringLiteral("watch")) } }, nullptr);
    QString error;
    QVERIFY2(store.init(&error), qPrintable(error));
    const QString key = QStringLiteral("cluster:leader");
    QVERIFY(call([&](auto done) { store.create(key, { { QStringLiteral("n"), 1 } }, done); }).ok());
    QObject owner;
    StoreWatch *watch = store.watch(QStringLiteral("cluster:"), &owner);
    QVERIFY(watch);
    QSignalSpy changed(watch, &StoreWatch::entryChanged);
    QSignalSpy removed(watch, &StoreWatch::entryRemoved);

    g_hiding = true;
    const QString other = QStringLiteral("cluster:other");
    QVERIFY(call([&](auto done) { store.create(other, { { QStringLiteral("n"), 1 } }, done); }).ok());
    QTRY_VERIFY(!changed.isEmpty());
    QCOMPARE(changed.constFirst().constFirst().value<StoreEntry>().key, other);
    QVERIFY2(removed.isEmpty(), qPrintable(removed.isEmpty() ? QString() : removed.constFirst().constFirst().toString()));
}

// B1, F3: older versions are collected after every write, so a store that
// last saw the record several writes ago (another process wrote them) finds
// only the newest file; a listing that misses it still finds it.
void TestVersionListing::aRecordManyVersionsAheadOfWhatThisStoreSawIsFoundWhenAListingMissesIt()
{
    const QJsonObject parameters { { QStringLiteral("folder"),
                                     m_folder.filePath(QStringLiteral("behind")) } };
    FileStore behind(QStringLiteral("Registry"), parameters, nullptr);
    FileStore writer(QStringLiteral("Registry"), parameters, nullptr);
    QString error;
    QVERIFY2(behind.init(&error), qPrintable(error));
    QVERIFY2(writer.init(&error), qPrintable(error));
    const QString key = QStringLiteral("cluster:leader");
    StoreResult last = call([&](auto done) {
        behind.create(key, { { QStringLiteral("n"), 0 } }, done);
    });
    QVERIFY2(last.ok(), qPrintable(last.errorString));
    // Ten versions on, by the other process: only the newest file is left.
    for (int n = 1; n <= 10; ++n) {
        last = call([&](auto done) {
            writer.update(key, { { QStringLiteral("n"), n } }, last.entry.version, done);
        });
        QVERIFY2(last.ok(), qPrintable(last.errorString));
    }

    g_hiding = true;
    const StoreResult got = call([&](auto done) { behind.get(key, done); });
    QVERIFY2(got.ok(), qPrintable(got.errorString));
    QCOMPARE(got.entry.version, last.entry.version);
    QCOMPARE(got.entry.document.value(QLatin1String("n")).toInt(), 10);
}

// B1, F3: a watch whose listing misses the record and whose read of it by
// its names finds it unreadable (a corrupt newest version) still has a
// record: unreadable, never removed.
void TestVersionListing::aWatchNeverTellsOfARemovalWhenTheRecordIsUnreadable()
{
    const QString folder = m_folder.filePath(QStringLiteral("unreadable"));
    FileStore store(QStringLiteral("Registry"), { { QStringLiteral("folder"), folder } }, nullptr);
    QString error;
    QVERIFY2(store.init(&error), qPrintable(error));
    const QString key = QStringLiteral("cluster:leader");
    const StoreResult created = call([&](auto done) {
        store.create(key, { { QStringLiteral("n"), 1 } }, done);
    });
    QVERIFY2(created.ok(), qPrintable(created.errorString));
    QObject owner;
    StoreWatch *watch = store.watch(QStringLiteral("cluster:"), &owner);
    QVERIFY(watch);
    QSignalSpy changed(watch, &StoreWatch::entryChanged);
    QSignalSpy removed(watch, &StoreWatch::entryRemoved);

    QFile corrupt(folder + QLatin1Char('/')
                  + FileStore::fileNameForKey(key, created.entry.version.toULongLong() + 1));
    QVERIFY(corrupt.open(QIODevice::WriteOnly));
    QVERIFY(corrupt.write("{ not json") > 0);
    corrupt.close();
    g_hiding = true;
    const QString other = QStringLiteral("cluster:other");
    QVERIFY(call([&](auto done) {
                store.create(other, { { QStringLiteral("n"), 1 } }, done);
            }).ok());
    QTRY_VERIFY(!changed.isEmpty());
    QCOMPARE(changed.constFirst().constFirst().value<StoreEntry>().key, other);
    QVERIFY2(
        removed.isEmpty(),
        qPrintable(removed.isEmpty() ? QString() : removed.constFirst().constFirst().toString()));
}

QTEST_GUILESS_MAIN(TestVersionListing)
#include "tst_versionlisting.moc"
