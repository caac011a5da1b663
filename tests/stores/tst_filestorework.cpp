// P3, B1: a renewal on the file store costs the same work whether the
// folder holds ten leases or a thousand (issue #26). Nothing is timed: the
// store counts what it does (filestoresteps::Work) and the counts per
// renewal are compared. It used to list every name and read every file of
// the folder in each process that watched it, on every change, and a
// renewal listed the folder twice.

#include "filestore.h"
#include "filestoresteps.h"

#include <baton/store.h>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace baton;
using filestoresteps::Work;

namespace {

constexpr int kRenewals = 5;

struct WorkCount
{
    quint64 listed = 0;
    quint64 parsed = 0;
    quint64 read = 0;
};

WorkCount countedNow()
{
    return { filestoresteps::counted(Work::FolderListed), filestoresteps::counted(Work::NameParsed),
             filestoresteps::counted(Work::FileRead) };
}

QString leaseKey(int n)
{
    return QStringLiteral("cluster:lease-%1").arg(n, 5, 10, QLatin1Char('0'));
}

} // namespace

class TestFileStoreWork : public QObject
{
    Q_OBJECT

private:
    StoreResult call(const std::function<void(Store::Callback)> &operation)
    {
        std::optional<StoreResult> result;
        operation([&result](const StoreResult &r) { result = r; });
        if (!QTest::qWaitFor([&result] { return result.has_value(); }, 10000))
            qWarning("the store did not answer");
        return result.value_or(StoreResult { StoreResult::Status::Unavailable, {}, false, {}, {} });
    }

    /*!
     * The work of kRenewals renewals of one lease among \a leases, by its
     * leader's store, while the store of another process follows the
     * folder as an observer does (a watch on every lease) and as a
     * follower of that election does (a watch on its key).
     */
    WorkCount renewalsAmong(int leases)
    {
        QTemporaryDir folder;
        const QJsonObject parameters { { QStringLiteral("folder"), folder.path() } };
        // The other leases, as the processes that hold them wrote them.
        for (int n = 1; n < leases; ++n) {
            const QString key = leaseKey(n);
            QFile file(folder.filePath(FileStore::fileNameForKey(key, 1)));
            if (!file.open(QIODevice::WriteOnly))
                qFatal("cannot write %s", qPrintable(file.fileName()));
            file.write(QJsonDocument(QJsonObject {
                                             { QStringLiteral("key"), key },
                                             { QStringLiteral("version"), QStringLiteral("1") },
                                             { QStringLiteral("document"),
                                               QJsonObject { { QStringLiteral("holder"), n } } } })
                               .toJson());
        }
        FileStore leader(QStringLiteral("Registry"), parameters, nullptr);
        FileStore other(QStringLiteral("Registry"), parameters, nullptr);
        QString error;
        if (!leader.init(&error) || !other.init(&error))
            qFatal("%s", qPrintable(error));
        const QString key = leaseKey(0);
        StoreResult last = call([&](auto done) { leader.create(key, { { QStringLiteral("n"), 0 } }, done); });
        if (!last.ok())
            qFatal("%s", qPrintable(last.errorString));

        QObject owner;
        StoreWatch *own = leader.watch(key, &owner);
        StoreWatch *everyLease = other.watch(QStringLiteral("cluster:"), &owner);
        StoreWatch *follower = other.watch(key, &owner);
        if (!own || !everyLease || !follower)
            qFatal("cannot watch %s", qPrintable(folder.path()));
        QSignalSpy ownChanges(own, &StoreWatch::entryChanged);
        QSignalSpy observed(everyLease, &StoreWatch::entryChanged);
        QSignalSpy followed(follower, &StoreWatch::entryChanged);
        auto renew = [&](int n) {
            last = call([&](auto done) {
                leader.update(key, { { QStringLiteral("n"), n } }, last.entry.version, done);
            });
            if (!last.ok())
                qFatal("%s", qPrintable(last.errorString));
            const qsizetype seen = n;
            if (!QTest::qWaitFor([&] {
                    return ownChanges.size() >= seen && observed.size() >= seen
                            && followed.size() >= seen;
                }, 10000))
                qFatal("the watches did not see renewal %d", n);
        };
        // The first renewal is not counted: a store's first sight of a key
        // reads more than the next ones.
        renew(1);
        const WorkCount before = countedNow();
        for (int n = 2; n <= kRenewals + 1; ++n)
            renew(n);
        const WorkCount after = countedNow();
        return { after.listed - before.listed, after.parsed - before.parsed,
                 after.read - before.read };
    }

private Q_SLOTS:
    void aRenewalCostsTheSameWorkHoweverManyLeasesTheFolderHolds()
    {
        const WorkCount few = renewalsAmong(10);
        const WorkCount many = renewalsAmong(1000);
        qInfo("per %d renewals, 10 / 1,000 leases: folders listed %llu / %llu, names parsed "
              "%llu / %llu, files read %llu / %llu",
              kRenewals, few.listed, many.listed, few.parsed, many.parsed, few.read, many.read);
        // Each renewal is read by the watches of the other process.
        QVERIFY(few.read >= quint64(kRenewals));
        QCOMPARE(many.read, few.read);
        QCOMPARE(many.parsed, few.parsed);
        QCOMPARE(many.listed, few.listed);
        // The renewal reads the version it wrote last by its names, and the
        // check after its link proves it by names too: a listing passes every
        // name of the folder, and listed at every renewal (as it was), 5,000
        // leases in one folder took a core and stepped leaders down.
        QCOMPARE(few.listed, quint64(0));
    }
};

QTEST_GUILESS_MAIN(TestFileStoreWork)
#include "tst_filestorework.moc"
