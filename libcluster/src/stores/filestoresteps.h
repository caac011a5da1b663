#pragma once

#include <QtGlobal>

#include <functional>

namespace baton {

class FileStore;

/*!
 * A seam for the tests of races between FileStore writers (B1, F7): the
 * points of a conditional write where a test freezes the writer, so that
 * another store acts in between. Apart from FileStore's header because the
 * product sets no hook: FileStore only tells this seam where it is.
 */
namespace filestoresteps {

/*! The points of a conditional write, in the order a write passes them. */
enum class WriteStep {
    /*! The key's highest version is read and compared, nothing written yet. */
    ReadCurrent,
    /*! The next version is written and synced aside, under no name yet. */
    WroteTemporary,
    /*! The next version's name exists, not yet checked to be the highest. */
    LinkedVersion,
    /*! The write is won; older versions are not collected yet. */
    Verified,
};

using Hook = std::function<void(WriteStep)>;

/*! Calls \a hook at each WriteStep of every write of \a store, inside the call; empty: no hook. */
void setHook(const FileStore *store, Hook hook);
/*! \a store is at \a at: runs its hook, if a test set one. */
void reach(const FileStore *store, WriteStep at);

/*!
 * The work of every FileStore of the process, counted so that a test can
 * require it not to grow with the keys in the folder (issue #26): a
 * relaxed atomic increment each, nothing a renewal would notice.
 */
enum class Work {
    /*! A folder read from start to end (one readdir pass). */
    FolderListed,
    /*! A file name parsed into its key and version. */
    NameParsed,
    /*! A version file opened and read. */
    FileRead,
};

void count(Work work);
/*! How many times \a work was done since the process started. */
quint64 counted(Work work);

} // namespace filestoresteps

} // namespace baton
