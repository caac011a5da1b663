#include "journalstream.h"

#include <QByteArray>

#include <sys/stat.h>
#include <unistd.h>

namespace baton::journalstream {

bool stderrIsJournal()
{
    const QByteArray stream = qgetenv("JOURNAL_STREAM");
    const qsizetype colon = stream.indexOf(':');
    if (colon <= 0)
        return false;
    bool deviceOk = false;
    bool inodeOk = false;
    const qulonglong device = stream.left(colon).toULongLong(&deviceOk);
    const qulonglong inode = stream.mid(colon + 1).toULongLong(&inodeOk);
    struct stat status {};
    if (!deviceOk || !inodeOk || ::fstat(STDERR_FILENO, &status) != 0)
        return false;
    return qulonglong(status.st_dev) == device && qulonglong(status.st_ino) == inode;
}

QString messagePattern(bool journal)
{
    if (!journal)
        return QStringLiteral("%{time yyyy-MM-ddThh:mm:ss.zzz} %{if-category}%{category} %{endif}%{type}: %{message}");
    // Debug 7, info 6, warning 4, critical 3 (err), fatal 2 (crit).
    return QStringLiteral("%{if-debug}<7>%{endif}%{if-info}<6>%{endif}%{if-warning}<4>%{endif}"
                          "%{if-critical}<3>%{endif}%{if-fatal}<2>%{endif}"
                          "%{if-category}%{category} %{endif}%{type}: %{message}");
}

const char *errorPrefix()
{
    static const bool journal = stderrIsJournal();
    return journal ? "<3>" : "";
}

} // namespace baton::journalstream
