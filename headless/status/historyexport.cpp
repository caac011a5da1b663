#include "statuscommand.h"

#include <batoninternal/privatefiles.h>

#include <baton/leaseobserver.h>

#include <QSaveFile>

#include <cstdio>

namespace baton {

namespace {

void complain(const QString &text)
{
    std::fprintf(stderr, "baton status: %s\n", qPrintable(text));
}

} // namespace

bool StatusCommand::exportHistory()
{
    if (m_options.historyPath.isEmpty())
        return true;
    QList<LeaseFailover> history = m_observer->history();
    history.removeIf([this](const LeaseFailover &change) { return !selected(change.lease); });
    QSaveFile file(m_options.historyPath);
    if (!privatefiles::openForWriting(file)
        || file.write(m_options.historyPath.endsWith(QLatin1String(".csv"))
                              ? LeaseObserver::historyToCsv(history)
                              : LeaseObserver::historyToJson(history))
                < 0
        || !file.commit()) {
        complain(QStringLiteral("cannot write the history to %1: %2")
                         .arg(m_options.historyPath, file.errorString()));
        return false;
    }
    return true;
}

} // namespace baton
