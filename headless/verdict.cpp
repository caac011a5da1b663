#include "verdict.h"

#include "commandline.h"

namespace baton::verdict {

QString word(Severity severity)
{
    switch (severity) {
    case Ok:
        return QStringLiteral("OK");
    case Warning:
        return QStringLiteral("WARNING");
    case Critical:
        return QStringLiteral("CRITICAL");
    case Unknown:
        break;
    }
    return QStringLiteral("UNKNOWN");
}

int tell(Severity severity, const QString &summary, const QStringList &details)
{
    commandline::say(QStringLiteral("%1 - %2").arg(word(severity), summary));
    for (const QString &line : details) {
        // One problem is its own summary: said once, its fix after it.
        if (line != summary)
            commandline::say(line);
    }
    return int(severity);
}

} // namespace baton::verdict
