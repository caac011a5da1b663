#pragma once

#include <QString>

namespace baton::journalstream {

/*!
 * Whether stderr is connected to the systemd journal: systemd sets
 * JOURNAL_STREAM to the device and inode of that stream ("dev:ino"), and
 * they must still match file descriptor 2 (a redirection in between, or an
 * inherited variable, means it is not the journal any more).
 */
bool stderrIsJournal();

/*!
 * The message pattern of the commands: a wall-clock time stamp for a
 * terminal or a file; for the journal (\a journal), which stamps each line
 * itself, a `<N>` syslog priority prefix instead, so that `journalctl -p
 * warning` finds warnings (sd-daemon(3)).
 */
QString messagePattern(bool journal);

/*! `<3>` (error) on the journal, else nothing: for lines printed without Qt's logging. */
const char *errorPrefix();

} // namespace baton::journalstream
