#include "historyexport.h"

#include <batoninternal/privatefiles.h>

#include <baton/leaseobserver.h>

#include <QSaveFile>

namespace baton::historyexport {

bool isExportName(const QString &path)
{
    return path.endsWith(QLatin1String(".csv")) || path.endsWith(QLatin1String(".json"));
}

bool write(const QString &path, const QList<LeaseFailover> &history, QString *error)
{
    QSaveFile file(path);
    if (!privatefiles::openForWriting(file)
        || file.write(path.endsWith(QLatin1String(".csv"))
                              ? LeaseObserver::historyToCsv(history)
                              : LeaseObserver::historyToJson(history))
                < 0
        || !file.commit()) {
        *error = QStringLiteral("cannot write the history to %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace baton::historyexport
