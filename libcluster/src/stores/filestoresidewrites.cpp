// A FileStore's side writes: the history written beside a record, built on
// whatever version of it the folder holds when the write comes.

#include "filestore.h"

#include "logging.h"
#include "sidewrite.h"
#include "versionfolder.h"

namespace baton {

using Status = StoreResult::Status;

void FileStore::writeSideNow(const StoreSideWrite &side)
{
    // R7: conditional on the version the document was built from. A writer
    // frozen between its record's version and this write finds what a
    // successor wrote meanwhile, and builds on it instead of erasing it.
    // Another writer's version in between costs another try, a few at most.
    constexpr int kTries = 3;
    StoreResult result;
    for (int tries = 0; tries < kTries; ++tries) {
        if (auto refused = refuseWrite(side.key)) {
            result = *refused;
            break;
        }
        Head head = m_files->readHead(side.key);
        if (head.result.status == Status::Unavailable) {
            result = head.result;
            break;
        }
        std::optional<StoreEntry> current;
        std::optional<QJsonObject> document;
        if (head.result.ok()) {
            current = head.result.entry;
        } else if (head.result.status == Status::BadReply) {
            // Only a write built from no readable version replaces an
            // unreadable file, as an unconditional remove clears one; the
            // file is still unreadable now, so no other writer's is lost.
            if (side.basedOn) {
                result = head.result;
                break;
            }
            head.result = StoreResult();
            document = side.document;
        }
        if (!document)
            document = sidewrite::documentOver(side, current);
        if (!document)
            return;
        result = writeNext(side.key, head, *document);
        if (result.status != Status::Conflict)
            break;
    }
    if (!result.ok())
        qCWarning(lcStore).noquote() << QStringLiteral("%1: \"%2\" not written: %3")
                                                .arg(describe(), side.key, result.errorString);
}

} // namespace baton
