#include "earlierlayout.h"

#include "logging.h"
#include "storesupport.h"

#include <QFile>
#include <QLockFile>

#include <cerrno>

#include <sys/stat.h>

namespace baton::earlierlayout {

using namespace storesupport;
using Status = StoreResult::Status;

namespace {

// The counter of the versions the earlier layout handed out.
const QString kSequenceFileName = QStringLiteral(".sequence");
// The earlier layout's writers locked this name with QLockFile, which
// declared a lock stale after this long.
const QString kLockName = QStringLiteral(".lock");
constexpr int kStaleLockTimeMs = 10000;
// An earlier writer locking `.lock` again in the instant between our release
// and our mkdir is unlikely twice; a third time, the write says so.
constexpr int kLockTries = 3;

} // namespace

std::optional<quint64> sequence(const VersionFolder &folder, StoreResult *refusal)
{
    const QString path = folder.filePath(kSequenceFileName);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (!file.exists())
            return 0;
        *refusal = failure(Status::Unavailable,
                           QStringLiteral("%1: cannot read %2: %3")
                                   .arg(folder.describe(), path, file.errorString()));
        return std::nullopt;
    }
    bool ok = false;
    const quint64 counter = file.read(64).trimmed().toULongLong(&ok);
    if (!ok) {
        *refusal = failure(Status::BadReply,
                           QStringLiteral("%1: file %2 does not hold a decimal counter")
                                   .arg(folder.describe(), path));
        return std::nullopt;
    }
    return counter;
}

std::optional<StoreResult> lockOutWriters(const VersionFolder &folder)
{
    // The earlier layout's writers take `.lock` with QLockFile, which creates
    // it as a file. Once it is a folder, none of them can take it, or remove
    // it as stale, ever again: none can write a `<key>.json` that readers of
    // this layout would not read while its writer believed it leads.
    const QString path = folder.filePath(kLockName);
    const QByteArray encoded = QFile::encodeName(path);
    bool earlierLockSeen = false;
    for (int tries = 0; tries < kLockTries; ++tries) {
        if (::mkdir(encoded.constData(), 0700) == 0) {
            QString error;
            if (!folder.sync(&error))
                return failure(Status::Unavailable, error);
            if (earlierLockSeen) {
                qCInfo(lcStore).noquote()
                        << folder.describe() << "replaced the lock file" << path
                        << "of an earlier Baton by a folder: its processes can no longer write "
                           "here";
            }
            return std::nullopt;
        }
        const int mkdirError = errno;
        struct stat info;
        if (mkdirError != EEXIST || ::lstat(encoded.constData(), &info) != 0) {
            if (mkdirError == EEXIST && errno == ENOENT)
                continue; // released between the two calls
            return failure(Status::Unavailable,
                           QStringLiteral("%1: cannot create folder %2: %3")
                                   .arg(folder.describe(), path,
                                        VersionFolder::systemError(mkdirError)));
        }
        if (S_ISDIR(info.st_mode))
            return std::nullopt;
        earlierLockSeen = true;
        // The lock file of an earlier process: taken, its holder is between
        // reading a record and writing it, and that write must land before
        // ours reads. Judged as the earlier layout judged it, stale included.
        QLockFile earlier(path);
        earlier.setStaleLockTime(kStaleLockTimeMs);
        if (!earlier.tryLock(0)) {
            qint64 pid = 0;
            QString host;
            QString application;
            const QString holder = earlier.getLockInfo(&pid, &host, &application)
                    ? QStringLiteral("%1 (pid %2 on %3)")
                              .arg(application, QString::number(pid), host)
                    : QStringLiteral("an unknown process");
            return failure(Status::Unavailable,
                           QStringLiteral("%1: lock file %2 of an earlier Baton is held by %3; "
                                          "no write until it is free, and then it becomes a "
                                          "folder that locks out earlier processes")
                                   .arg(folder.describe(), path, holder));
        }
        // Free, so no earlier writer is half-way. One that takes it between
        // this release and the mkdir makes the mkdir fail, and we wait for it.
        earlier.unlock();
    }
    return failure(Status::Unavailable,
                   QStringLiteral("%1: lock file %2 was taken again by an earlier Baton %3 times "
                                  "in a row")
                           .arg(folder.describe(), path)
                           .arg(kLockTries));
}

} // namespace baton::earlierlayout
