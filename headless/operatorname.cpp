#include "operatorname.h"

#include <QSysInfo>

#include <pwd.h>
#include <unistd.h>

namespace baton {

QString operatorName()
{
    const passwd *entry = getpwuid(getuid());
    const QString user = entry ? QString::fromLocal8Bit(entry->pw_name) : QString::number(getuid());
    return user + QLatin1Char('@') + QSysInfo::machineHostName();
}

} // namespace baton
