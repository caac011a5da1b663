#pragma once

#include <QList>

#include <sys/types.h>

namespace baton::test::chaos {

/*! The children of \a pid, as every thread of it lists them under /proc. */
QList<pid_t> childrenOf(qint64 pid);
/*! Whether the kernel shows \a pid stopped (state T). */
bool isStopped(qint64 pid);
/*!
 * Stops the process group of every descendant of \a pid (the exec guard,
 * the command's own group), once \a pid itself is stopped: a stopped parent
 * starts no more children, so the tree read then is all there is.
 */
void stopDescendantGroups(qint64 pid);

} // namespace baton::test::chaos
